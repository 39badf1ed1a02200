-- Builders (finish without copy) and pieces written to a file descriptor with writev.
local ffi = require("ffi")
local dynatom = require("dynatom")
local h = require("harness")

ffi.cdef([[
int pipe(int fds[2]);
long read(int fd, void *buf, size_t n);
int close(int fd);
]])

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

test("builder appends every kind of piece and finishes once", function()
  local b = dynatom.builder(8)
  b:put("GET ", dynatom.str("/index.html"), " ", 1.5, dynatom.atom("host"))
  assert(b:len() == #"GET /index.html 1.5host")
  local s = b:finish()
  assert(tostring(s) == "GET /index.html 1.5host")
  h.raises("already finished", b.finish, b)
  h.raises("already finished", b.put, b, "x")
  local big = dynatom.builder()
  for i = 1, 1000 do
    big:put(string.format("%04d,", i))
  end
  assert(#big:finish() == 5000)
end)

test("an unfinished builder is freed by the collector", function()
  for _ = 1, 100 do
    dynatom.builder(1024):put("abandoned")
  end
  collectgarbage("collect")
end)

local function read_all(fd, n)
  local buf = ffi.new("uint8_t[?]", n)
  local got = 0
  while got < n do
    local r = tonumber(ffi.C.read(fd, buf + got, n - got))
    assert(r > 0, "read")
    got = got + r
  end
  return ffi.string(buf, n)
end

test("pieces go to a descriptor in one writev", function()
  local fds = ffi.new("int[2]")
  assert(ffi.C.pipe(fds) == 0)
  local body = dynatom.str(h.bytes(3000, 2))
  local p = dynatom.pieces("HTTP/1.1 200 OK\r\n", dynatom.atom("content-length"), ": 3000\r\n\r\n")
  p:push(body)
  local want = "HTTP/1.1 200 OK\r\ncontent-length: 3000\r\n\r\n" .. tostring(body)
  assert(p:count() == 4 and p:len() == #want)
  local written = p:writev(fds[1])
  assert(written == #want)
  assert(read_all(fds[0], #want) == want)
  assert(tostring(p:to_str()) == want)
  ffi.C.close(fds[0])
  ffi.C.close(fds[1])
end)

test("writev to a bad descriptor raises with the errno", function()
  local p = dynatom.pieces("lost")
  h.raises("errno 9", p.writev, p, 987654) -- EBADF
end)

h.run(tests)
