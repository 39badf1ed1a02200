-- The Lua tests' runner: each test file returns an array of { name, function } and
-- hands it to run(), which prints one line per test and a closing "N passed, M failed"
-- (scripts/lua-tests adds those lines up) and exits non-zero on a failure.
local M = {}

function M.run(tests)
  local passed, failed = 0, 0
  for _, t in ipairs(tests) do
    local name, fn = t[1], t[2]
    local ok, err = xpcall(fn, debug.traceback)
    if ok then
      passed = passed + 1
      print("ok     " .. name)
    else
      failed = failed + 1
      print("FAILED " .. name .. "\n" .. tostring(err))
    end
  end
  print(string.format("%d passed, %d failed", passed, failed))
  io.stdout:flush()
  os.exit(failed == 0 and 0 or 1)
end

-- Asserts that fn raises an error whose text contains `needle` (plain find).
function M.raises(needle, fn, ...)
  local ok, err = pcall(fn, ...)
  assert(not ok, "expected an error containing " .. needle)
  assert(tostring(err):find(needle, 1, true), "error " .. tostring(err) .. " lacks " .. needle)
end

-- Deterministic bytes 0..255 of length n (a linear congruential generator).
function M.bytes(n, seed)
  local t = {}
  local x = seed or 1
  for i = 1, n do
    x = (x * 1103515245 + 12345) % 2147483648
    t[i] = string.char(x % 256)
  end
  return table.concat(t)
end

-- The process's resident set in KiB (VmRSS) or its high-water mark (VmHWM).
function M.status_kib(field)
  local f = assert(io.open("/proc/self/status", "r"))
  local text = f:read("*a")
  f:close()
  return assert(tonumber(text:match(field .. ":%s*(%d+)")), field)
end

return M
