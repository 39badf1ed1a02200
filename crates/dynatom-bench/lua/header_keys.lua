-- The third article's side of LuaJIT strings: a table keyed by request-header names,
-- looked up LOOKUPS times from a stream of requests, with Lua strings as keys (native)
-- or dynatom atoms as keys (`t[atom:key()]`, the small integer id that every atom object
-- carries, read per lookup from the atom in hand: dynatom; equal atoms carry equal ids
-- while a handle lives, here the `atoms` table's, so the keys sit in t's array part).
-- The "-bytes" variants start from each header name as a C buffer and a length, as a
-- server's parser has it: native-bytes makes a Lua string of it (`ffi.string`, an intern),
-- dynatom-bytes finds its key with `dynatom.key_of` in a table filled by `dynatom.put`.
-- Usage: luajit header_keys.lua native|dynatom|native-bytes|dynatom-bytes LOOKUPS
-- Prints "ns_per_lookup X" (thread CPU time), "checksum N", "distinct N".
local ffi = require("ffi")
ffi.cdef([[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clock_id, bench_timespec *tp);
]])
local ts = ffi.new("bench_timespec")
-- CLOCK_THREAD_CPUTIME_ID: the loop's CPU time, so that preemption by the other
-- processes of a shared machine does not count.
local function now_ns()
  ffi.C.clock_gettime(3, ts)
  return tonumber(ts.tv_sec) * 1e9 + tonumber(ts.tv_nsec)
end

local variant, lookups = arg[1], tonumber(arg[2])
local VARIANTS = { native = true, dynatom = true, ["native-bytes"] = true, ["dynatom-bytes"] = true }
assert(VARIANTS[variant], "variant: native|dynatom|native-bytes|dynatom-bytes")

-- Request-header names as they arrive (lower-cased): short ones fit an inline atom,
-- the rest are heap atoms; a few have exactly 7 bytes.
local NAMES = {
  "host", "user-agent", "accept", "accept-language", "accept-encoding", "connection",
  "cookie", "referer", "cache-control", "content-type", "content-length", "origin",
  "authorization", "if-none-match", "if-modified-since", "pragma", "upgrade",
  "x-forwarded-for", "x-forwarded-proto", "x-forwarded-host", "x-real-ip", "x-request-id",
  "dnt", "te", "via", "range", "expect", "forwarded", "sec-fetch-mode", "sec-fetch-site",
  "sec-fetch-dest", "sec-ch-ua", "sec-ch-ua-mobile", "sec-ch-ua-platform", "priority",
  "upgrade-insecure-requests", "x-csrf-token", "x-api-key", "traceparent", "tracestate",
}

-- The request stream: 4,096 header references drawn with a fixed seed, cycled.
local STREAM = 4096
local seed = 4242
local stream = {}
for k = 1, STREAM do
  seed = (seed * 1103515245 + 12345) % 2147483648
  stream[k] = NAMES[seed % #NAMES + 1]
end

-- The same stream as a parser would hand it over: each reference a C buffer and a length.
local stream_bytes, stream_len = {}, {}
for k = 1, STREAM do
  local name = stream[k]
  stream_bytes[k] = ffi.new("uint8_t[?]", #name)
  ffi.copy(stream_bytes[k], name, #name)
  stream_len[k] = #name
end

local run
if variant == "native-bytes" then
  local t = {}
  for i, name in ipairs(NAMES) do
    t[name] = i
  end
  run = function(n)
    local sum = 0
    for k = 0, n - 1 do
      local j = k % STREAM + 1
      sum = sum + t[ffi.string(stream_bytes[j], stream_len[j])]
    end
    return sum
  end
elseif variant == "dynatom-bytes" then
  local dynatom = require("dynatom")
  local t = {}
  for i, name in ipairs(NAMES) do
    dynatom.put(t, dynatom.atom(name), i) -- t keeps the atoms alive
  end
  run = function(n)
    local sum = 0
    for k = 0, n - 1 do
      local j = k % STREAM + 1
      sum = sum + t[dynatom.key_of(stream_bytes[j], stream_len[j])]
    end
    return sum
  end
elseif variant == "native" then
  local t = {}
  for i, name in ipairs(NAMES) do
    t[name] = i
  end
  run = function(n)
    local sum = 0
    for k = 0, n - 1 do
      sum = sum + t[stream[k % STREAM + 1]]
    end
    return sum
  end
else
  local dynatom = require("dynatom")
  local atoms = {}
  local t = {}
  for i, name in ipairs(NAMES) do
    atoms[name] = dynatom.atom(name)
    t[atoms[name]:key()] = i
  end
  local keyed = {}
  for k = 1, STREAM do
    keyed[k] = dynatom.atom(stream[k]) -- the atom a parser would hand over for this header
  end
  run = function(n)
    local sum = 0
    for k = 0, n - 1 do
      sum = sum + t[keyed[k % STREAM + 1]:key()]
    end
    return sum
  end
end

local expected = 0
for k = 0, lookups - 1 do
  for i, name in ipairs(NAMES) do
    if name == stream[k % STREAM + 1] then
      expected = expected + i
      break
    end
  end
end

run(lookups) -- warm up: let the JIT compile the loop
local t0 = now_ns()
local sum = run(lookups)
local elapsed = now_ns() - t0
assert(sum == expected, "lookups returned the wrong values")
print(string.format("ns_per_lookup %.4f", elapsed / lookups))
print("checksum " .. sum)
print("distinct " .. #NAMES)
