-- A response body assembled from FFI buffers, as an OpenResty handler gets them (an
-- upstream's chunks, a C library's output), without making a Lua string per chunk:
-- each buffer is wrapped (no copy), the pieces list references the wrapped strs, and the
-- body goes out with one writev. Each buffer goes back to its pool (on_release) once
-- the pieces and strs that read it are gone, at the next dynatom.collect_releases().
-- Checks its own result; scripts/lua-tests runs it.
local ffi = require("ffi")
local dynatom = require("dynatom")

ffi.cdef([[
int pipe(int fds[2]);
long read(int fd, void *buf, size_t n);
int close(int fd);
]])

-- A pool of fixed-size buffers, as a server would keep for upstream reads.
local CHUNK = 4096
local pool = {}
local returned = 0
local function take_buffer()
  local buf = table.remove(pool) or ffi.new("uint8_t[?]", CHUNK)
  return buf
end
local function give_back(buf)
  returned = returned + 1
  pool[#pool + 1] = buf
end

-- "Upstream" fills each buffer with part of the body (here: generated rows).
local expected = {}
local function read_chunk(i)
  local buf = take_buffer()
  local text = string.format("row %04d: %s\n", i, string.rep(string.char(97 + i % 26), 40 + i % 50))
  ffi.copy(buf, text, #text)
  expected[#expected + 1] = text
  return buf, #text
end

local CHUNKS = 32
local status_line = dynatom.atom("HTTP/1.1 200 OK\r\n")
local chunks, body_len = {}, 0
for i = 1, CHUNKS do
  local buf, len = read_chunk(i)
  chunks[i] = dynatom.wrap(buf, len, give_back) -- no copy, no Lua string
  body_len = body_len + len
end
local want_body = table.concat(expected)
assert(body_len == #want_body)
local response = dynatom.pieces(status_line, "content-length: ", body_len, "\r\n\r\n")
response:push(unpack(chunks)) -- referenced by the list, not copied
assert(response:count() == 4 + CHUNKS)

-- Send it with one writev, to a pipe standing in for the client's socket.
local fds = ffi.new("int[2]")
assert(ffi.C.pipe(fds) == 0)
local want = "HTTP/1.1 200 OK\r\ncontent-length: " .. #want_body .. "\r\n\r\n" .. want_body
assert(#want < 65536, "fits the pipe's buffer")
assert(response:writev(fds[1]) == #want)
local got = ffi.new("uint8_t[?]", #want)
local n = 0
while n < #want do
  local r = tonumber(ffi.C.read(fds[0], got + n, #want - n))
  assert(r > 0, "read")
  n = n + r
end
ffi.C.close(fds[0])
ffi.C.close(fds[1])
assert(ffi.string(got, n) == want, "the body arrived as assembled")
assert(tostring(response:to_str()) == want)

-- While the pieces live, every buffer is lent out; once they are collected, the next
-- collect_releases() hands each one back to the pool, exactly once.
assert(dynatom.collect_releases() == 0 and returned == 0)
chunks, response = nil, nil
collectgarbage("collect")
collectgarbage("collect")
assert(returned == 0, "buffers are given back only by a module call")
dynatom.collect_releases()
assert(returned == CHUNKS and #pool == CHUNKS, "every buffer back in the pool once")
print(string.format("sent %d bytes from %d wrapped buffers; %d buffers back in the pool", #want, CHUNKS, #pool))
