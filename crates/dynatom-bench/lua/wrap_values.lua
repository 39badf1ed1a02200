-- Values arriving in FFI buffers (as a socket read leaves them) made into strings two
-- ways: `ffi.string(buffer, size)`, a copy that LuaJIT hashes and interns, or
-- `dynatom.wrap(buffer, size)`, a str over the buffer itself (the buffer stays anchored
-- while the str lives, and its release is drained by a later wrap). Each value gets its
-- own buffer, filled with distinct bytes; the last KEEP values stay alive in a ring, as
-- in a cache. The loop's thread CPU time covers the buffer, its bytes and the string, so
-- the two ways differ only in the last step; a "buffer-only" run times the rest alone.
-- Usage: luajit wrap_values.lua ffi-string|wrap|buffer-only SIZE COUNT KEEP
-- Prints "ns_per_value X" (thread CPU time), "peak_rss_kib N", "checksum N".
local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock_id, bench_timespec *tp);
]])
local ts = ffi.new("bench_timespec")
-- CLOCK_THREAD_CPUTIME_ID: preemption by other processes does not count.
local function now_ns()
  ffi.C.clock_gettime(3, ts)
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

local way, size, count, keep = arg[1], tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4])
local WAYS = { ["ffi-string"] = true, wrap = true, ["buffer-only"] = true }
assert(WAYS[way] and size and size >= 16 and count and keep, "usage: ffi-string|wrap|buffer-only SIZE COUNT KEEP")

local dynatom = way == "wrap" and require("dynatom") or nil
local uint64_ptr = ffi.typeof("uint64_t *")

-- A fresh buffer of `size` bytes whose first 8 and last 8 bytes carry the value's number
-- (so that every value is distinct, and LuaJIT cannot find an equal string).
local function arriving(n)
  local buffer = ffi.new("uint8_t[?]", size)
  ffi.fill(buffer, size, 120)
  ffi.cast(uint64_ptr, buffer)[0] = n
  ffi.cast(uint64_ptr, buffer + size - 8)[0] = n
  return buffer
end

local make
if way == "ffi-string" then
  make = function(buffer) return ffi.string(buffer, size) end
elseif way == "wrap" then
  make = function(buffer) return dynatom.wrap(buffer, size) end
else
  make = function(buffer) return buffer end
end

local ring = {}
local function run(first, n)
  for k = first, first + n - 1 do
    ring[k % keep + 1] = make(arriving(k))
  end
end

run(0, math.min(count, keep)) -- warm-up: the ring filled once, untimed
local start = now_ns()
run(keep, count)
local elapsed = now_ns() - start

local checksum = 0
for _, v in pairs(ring) do
  checksum = checksum + (type(v) == "string" and #v or way == "wrap" and #v or size)
end
if dynatom then
  ring = nil
  collectgarbage()
  collectgarbage()
  dynatom.collect_releases()
end

local rss = 0
for line in io.lines("/proc/self/status") do
  local kib = line:match("^VmHWM:%s+(%d+)")
  if kib then rss = tonumber(kib) end
end
print(string.format("ns_per_value %.1f", elapsed / count))
print(string.format("peak_rss_kib %d", rss))
print(string.format("checksum %d", checksum))
