-- GC pressure (LuaJIT issue 872): LuaJIT's collector does not see the bytes behind a
-- 16-byte str, so the module counts them and steps the collector in proportion. A loop
-- that creates and drops 1 MiB strs must stay bounded; the control shows the same loop
-- grows without the budget (so the bound is the module's doing, not luck).
local dynatom = require("dynatom")
local h = require("harness")

local MIB = 1048576
local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

test("10,000 dropped 1 MiB strs keep the RSS under 64 MiB", function()
  local text = string.rep("x", MIB - 16)
  local before = h.status_kib("VmRSS")
  for i = 1, 10000 do
    local s
    if i % 3 == 0 then
      s = dynatom.str(text, MIB - 16) .. "0123456789abcdef" -- copy, then the builder path
    elseif i % 3 == 1 then
      s = dynatom.str(text .. "0123456789abcdef") -- a copy of one Lua string (interned once)
    else
      s = dynatom.concat(text, string.format("%016d", i))
    end
    assert(#s == MIB)
  end
  local hwm = h.status_kib("VmHWM")
  local stats = dynatom.gc_stats()
  print(string.format("  RSS before %d KiB, peak %d KiB, %d cycles in %d steps, %d forced", before, hwm,
    stats.collections, stats.steps, stats.forced))
  assert(hwm < 64 * 1024, "peak RSS " .. hwm .. " KiB")
  assert(stats.collections > 0)
end)

test("control: without the budget the same loop grows past 64 MiB", function()
  collectgarbage("collect")
  dynatom.set_gc_budget(2 ^ 50)
  collectgarbage("stop") -- and with LuaJIT left to its own pacing the cdata are too small to matter
  local text = string.rep("y", MIB)
  for _ = 1, 200 do
    local s = dynatom.str(text)
    assert(#s == MIB)
  end
  local hwm = h.status_kib("VmHWM")
  collectgarbage("restart")
  dynatom.set_gc_budget(16 * MIB)
  collectgarbage("collect")
  assert(hwm > 64 * 1024, "the control stayed at " .. hwm .. " KiB")
end)

test("retain_freed_memory is accepted and the loop stays bounded with it", function()
  assert(dynatom.retain_freed_memory(64 * MIB), "glibc refused the malloc settings")
  local text = string.rep("z", MIB)
  for _ = 1, 1000 do
    assert(#dynatom.str(text) == MIB)
  end
  -- 1,000 MiB went through; glibc may keep up to 64 MiB free plus what its heap
  -- fragments into, so the bound is loose (one run saw 209 MiB), but far below 1,000.
  local rss = h.status_kib("VmRSS")
  assert(rss < 400 * 1024, "RSS " .. rss .. " KiB with 64 MiB retained")
end)

test("freed 1 MiB strs wait in the block cache, within its limit, until trimmed", function()
  collectgarbage("collect")
  dynatom.trim_block_cache()
  assert(dynatom.block_cache_bytes() == 0)
  local text = string.rep("c", MIB)
  local kept = {}
  for i = 1, 4 do
    kept[i] = dynatom.str(text)
  end
  kept = nil
  collectgarbage("collect") -- the finalisers free the four blocks into the cache
  local held = dynatom.block_cache_bytes()
  assert(held >= 4 * MIB, "cache holds " .. held)
  local previous = dynatom.set_block_cache_limit(2 * MIB + 4096)
  assert(previous >= 64 * MIB, "previous limit " .. previous)
  assert(dynatom.block_cache_bytes() <= 2 * MIB + 4096, "lowering the limit trims")
  local before = dynatom.block_cache_bytes()
  local s = dynatom.str(text) -- takes one back
  assert(dynatom.block_cache_bytes() < before, "a new 1 MiB str reuses a cached block")
  s = nil
  collectgarbage("collect")
  assert(dynatom.trim_block_cache() > MIB)
  assert(dynatom.block_cache_bytes() == 0)
  dynatom.set_block_cache_limit(previous)
end)

h.run(tests)
