-- Article 000's OpenResty cache workload, run in real LuaJIT: put COUNT values of SIZE
-- bytes into a cache of 800 entries that evicts 300 when full, and time each creation of
-- a value string (where LuaJIT interns: hash, chain walk, memcmp, allocate).
-- Usage: luajit cache_workload.lua SIZE COUNT CAPACITY EVICT similar|random
-- Prints the checksum on the first line, then every creation's latency in ns, one a line.
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } timespec_t;
int clock_gettime(int clock_id, timespec_t *tp);
]]
local ts = ffi.new("timespec_t")
local function now_ns()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

local size, count, capacity, evict, mode = tonumber(arg[1]), tonumber(arg[2]), tonumber(arg[3]), tonumber(arg[4]), arg[5]
local tail_len = 16
local base = string.rep("v", size - tail_len)

-- Pre-build the varying parts so only the value creation is timed.
local tails = {}
local seed = 12345
local function rand_byte()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return 97 + seed % 26
end
local chunks = {}
if mode == "random" then
  -- Random values: a random body per value, assembled from a pool of random 4 KiB blocks.
  for i = 1, 64 do
    local bytes = {}
    for j = 1, 4096 do bytes[j] = string.char(rand_byte()) end
    chunks[i] = table.concat(bytes)
  end
end
for i = 1, count do tails[i] = string.format("%016d", i) end

local latencies = {}
local cache, cached = {}, 0
local order = {}
local checksum = 0
for i = 1, count do
  local value
  local t0
  if mode == "random" then
    local parts = {}
    local n = math.floor((size - tail_len) / 4096)
    for j = 1, n do parts[j] = chunks[(i * 7 + j * 13) % 64 + 1] end
    parts[n + 1] = string.rep("r", size - n * 4096 - tail_len)
    local body = table.concat(parts) -- a fresh random body, built before the clock starts
    t0 = now_ns()
    value = body .. tails[i]
  else
    t0 = now_ns()
    value = base .. tails[i]
  end
  latencies[i] = now_ns() - t0
  checksum = checksum + #value
  cache[i] = value
  cached = cached + 1
  order[#order + 1] = i
  if cached >= capacity then
    for k = 1, evict do
      cache[order[k]] = nil
    end
    local rest = {}
    for k = evict + 1, #order do rest[#rest + 1] = order[k] end
    order = rest
    cached = cached - evict
  end
end

print(checksum)
io.write(table.concat(latencies, "\n"), "\n")
