-- Article 000's OpenResty cache workload, run in real LuaJIT three ways: put COUNT values
-- of SIZE bytes into a cache of CAPACITY entries that evicts EVICT when full, and time each
-- creation of a value object:
--   native   a Lua string, `base .. tail` (LuaJIT interns it: hash, chain walk, memcmp);
--   buffer   LuaJIT's own string.buffer holding the value (never interned);
--   dynatom  a dynatom str through the module, `base .. tail` (one allocation and a copy);
--   dynatom-retain  the same, with dynatom.retain_freed_memory(256 MiB) (glibc keeps freed
--            blocks for reuse instead of returning them and faulting fresh pages in again).
-- Usage: luajit luajit_cache.lua native|buffer|dynatom|dynatom-retain SIZE COUNT CAPACITY EVICT similar|random
-- Prints "checksum N", "faults_until_full N", "faults_total N" (minor page faults in the
-- timed loop), "peak_rss_kib N", "base_rss_kib N", then one line per creation:
-- its wall-clock and its thread-CPU time in ns. The dynatom variant needs LUA_PATH to find dynatom.lua and
-- DYNATOM_LIB (or the search path) to find the library.
local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock_id, bench_timespec *tp);
typedef struct {
  long utime[2]; long stime[2];
  long maxrss, ixrss, idrss, isrss, minflt, majflt, nswap, inblock, oublock, msgsnd, msgrcv,
    nsignals, nvcsw, nivcsw;
} bench_rusage;
int getrusage(int who, bench_rusage *usage);
]])
local ts = ffi.new("bench_timespec")
local function now_ns()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC (vDSO: tens of ns)
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end
-- CLOCK_THREAD_CPUTIME_ID: user + system time of this thread (page faults included), so a
-- shared machine's preemption does not count; a system call, about 0.5 µs per read here.
local function cpu_ns()
  ffi.C.clock_gettime(3, ts)
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

-- Minor page faults of the process so far (getrusage, RUSAGE_SELF): each one is a fresh
-- page the kernel had to find, zero and map, which no allocator can skip on first touch.
local usage = ffi.new("bench_rusage")
local function minor_faults()
  ffi.C.getrusage(0, usage)
  return tonumber(usage.minflt)
end

local function status_kib(field)
  local f = assert(io.open("/proc/self/status", "r"))
  local text = f:read("*a")
  f:close()
  return tonumber(text:match(field .. ":%s*(%d+)")) or -1
end

local variant, size, count, capacity, evict, mode =
  arg[1], tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4]), tonumber(arg[5]), arg[6]
local VARIANTS = { native = true, buffer = true, dynatom = true, ["dynatom-retain"] = true }
assert(VARIANTS[variant], "variant: native|buffer|dynatom|dynatom-retain")
assert(mode == "similar" or mode == "random", "mode: similar|random")
local tail_len = 16
assert(size > tail_len, "SIZE must exceed the 16-byte tail")
local body_len = size - tail_len

-- Inputs, all made before any clock starts: a 16-byte distinct tail per value; for
-- "similar" one shared body, for "random" a random body per value cut from a 256 KiB
-- random pool (4 KiB blocks for large values, a random window for small ones).
local seed = 12345
local function rand()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed
end
local tails = {}
for i = 1, count do
  tails[i] = string.format("%016d", i)
end
local base = string.rep("v", body_len)
local chunks, pool = {}, nil
if mode == "random" then
  for c = 1, 64 do
    local bytes = {}
    for j = 1, 4096 do
      bytes[j] = string.char(97 + rand() % 26)
    end
    chunks[c] = table.concat(bytes)
  end
  pool = table.concat(chunks)
end
local function random_body()
  if body_len <= 4096 then
    local off = rand() % (#pool - body_len) + 1
    return pool:sub(off, off + body_len - 1)
  end
  local parts = {}
  local n = math.floor(body_len / 4096)
  for j = 1, n do
    parts[j] = chunks[rand() % 64 + 1]
  end
  local rest = body_len - n * 4096
  local off = rand() % (#pool - rest) + 1
  parts[n + 1] = pool:sub(off, off + rest - 1)
  return table.concat(parts)
end

-- How each variant makes a value from its body and tail (`#value` is its length in all three).
local make
if variant == "native" then
  make = function(body, tail)
    return body .. tail
  end
elseif variant == "buffer" then
  local buffer = require("string.buffer")
  make = function(body, tail)
    return buffer.new(size):put(body, tail)
  end
else
  local dynatom = require("dynatom")
  if variant == "dynatom-retain" then
    dynatom.retain_freed_memory(256 * 1024 * 1024)
  end
  if mode == "similar" then
    base = dynatom.str(base) -- the shared body, made once like the Lua string above
  end
  make = function(body, tail)
    return body .. tail -- similar: str .. string; random: a Lua body, so concat explicitly
  end
  if mode == "random" then
    make = function(body, tail)
      return dynatom.concat(body, tail)
    end
  end
end

collectgarbage("collect")
local base_rss = status_kib("VmRSS")
local wall, cpu = {}, {}
local cache, cached = {}, 0
local order, first, next_slot = {}, 1, 1
local checksum = 0
local faults_at_start, faults_when_full = minor_faults(), nil
for i = 1, count do
  local body = base
  if mode == "random" then
    body = random_body() -- a fresh random body, built before the clock starts
  end
  local tail = tails[i]
  local c0 = cpu_ns()
  local t0 = now_ns()
  local value = make(body, tail)
  local t1 = now_ns()
  wall[i], cpu[i] = t1 - t0, cpu_ns() - c0
  checksum = checksum + #value
  cache[i] = value
  cached = cached + 1
  order[next_slot] = i
  next_slot = next_slot + 1
  if cached >= capacity then
    faults_when_full = faults_when_full or minor_faults()
    for k = first, first + evict - 1 do
      cache[order[k]] = nil
      order[k] = nil
    end
    first = first + evict
    cached = cached - evict
  end
end

-- Check the values that are still cached hold the right bytes (last and first kept).
local function text(v)
  return tostring(v)
end
local last = text(cache[count])
assert(#last == size and last:sub(-tail_len) == tails[count], "last value does not round-trip")
assert(text(cache[order[first]]):sub(-tail_len) == tails[order[first]], "oldest value does not round-trip")

local faults_at_end = minor_faults()
faults_when_full = faults_when_full or faults_at_end

print("checksum " .. checksum)
-- Minor faults during the timed loop: over the creations until the cache first filled
-- (nothing freed yet), and over all of them.
print("faults_until_full " .. (faults_when_full - faults_at_start))
print("faults_total " .. (faults_at_end - faults_at_start))
print("peak_rss_kib " .. status_kib("VmHWM"))
print("base_rss_kib " .. base_rss)
local lines = {}
for i = 1, count do
  lines[i] = string.format("%d %d", wall[i], cpu[i])
end
io.write(table.concat(lines, "\n"), "\n")
