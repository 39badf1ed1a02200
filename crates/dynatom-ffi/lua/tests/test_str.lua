-- dynatom strs from Lua: creation, length, bytes, slices with string.sub's rules,
-- equality, concatenation, interning, clone/release and the errors.
local ffi = require("ffi")
local dynatom = require("dynatom")
local h = require("harness")

local LENGTHS = { 0, 1, 7, 8, 15, 16, 17, 100, 1023, 1024, 1025, 4096, 65536, 1048576 }

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

test("str round-trips any bytes at every length class", function()
  for _, n in ipairs(LENGTHS) do
    local text = h.bytes(n, n + 7)
    local s = dynatom.str(text)
    assert(#s == n, "length " .. n)
    assert(tostring(s) == text, "bytes at length " .. n)
    assert(dynatom.is_str(s) and not dynatom.is_atom(s))
  end
  local zeros = "a\0b\0\255"
  assert(tostring(dynatom.str(zeros)) == zeros, "NUL and 0xff bytes")
end)

test("str(ptr, len) copies from a C buffer", function()
  local buf = ffi.new("uint8_t[64]")
  for i = 0, 63 do
    buf[i] = 200 - i
  end
  local s = dynatom.str(buf, 64)
  buf[0] = 0 -- the str owns a copy
  local p, n = s:data()
  assert(n == 64 and p[0] == 200 and p[63] == 137)
  assert(tostring(dynatom.str(buf + 10, 5)) == ffi.string(buf + 10, 5))
end)

test("sub follows string.sub for every i, j (inline and heap strs)", function()
  for _, text in ipairs({ "abcde", "the quick brown fox jumps", h.bytes(40, 3) }) do
    local s = dynatom.str(text)
    local n = #text
    for i = -n - 3, n + 3 do
      for j = -n - 3, n + 3 do
        local got = tostring(s:sub(i, j))
        local want = text:sub(i, j)
        assert(got == want, string.format("sub(%d, %d) of %q: %q vs %q", i, j, text, got, want))
      end
      assert(tostring(s:sub(i)) == text:sub(i), "sub(" .. i .. ")")
    end
  end
end)

-- Every kind of index string.sub accepts: integers around both ends, 0, the int32 limits
-- and beyond, infinities, NaN, fractions (truncated toward zero) and numeric strings.
local function sub_indices(n)
  local v = {
    0, 1, 2, -1, -2, n - 1, n, n + 1, n + 2, -n + 1, -n, -n - 1, -n - 2,
    math.huge, -math.huge, 0 / 0, 1e308, -1e308, 2 ^ 53, -2 ^ 53,
    2 ^ 31, 2 ^ 31 - 1, 2 ^ 31 - 0.5, -2 ^ 31, -2 ^ 31 - 1, -2 ^ 31 - 0.5, 2 ^ 32 + 2,
    2.7, -2.7, 0.5, -0.5, 0.999, -0.999, n + 0.5, -n - 0.5, n - 0.5,
    "2", " 3 ", "0x2", "2.9", "-1", "-2.5", "1e1", tostring(n), tostring(-n),
  }
  return v
end

local function show(v)
  return type(v) == "string" and string.format("%q", v) or tostring(v)
end

-- The reference answers come from string.sub in the interpreter: the Debian LuaJIT
-- 2.1.0-beta3's compiled string.sub once answered ("a"):sub(0, "-2.5") with "a" inside this
-- loop, where the interpreter (and the same call on its own, compiled or not) gives "".
local function string_sub(text, ...)
  return string.sub(text, ...)
end
jit.off(string_sub)

test("sub follows string.sub on every index Lua accepts (empty, inline and heap strs)", function()
  local texts = { "", "a", "abcdef", h.bytes(15, 21), h.bytes(16, 22), h.bytes(40, 23), h.bytes(3000, 24) }
  local compared = 0
  for _, text in ipairs(texts) do
    local s = dynatom.str(text)
    local values = sub_indices(#text)
    -- Twice, so that the second pass runs the loop compiled by the JIT as well.
    for _ = 1, 2 do
      for _, i in ipairs(values) do
        local want = string_sub(text, i)
        local got = tostring(s:sub(i))
        assert(got == want, string.format("sub(%s) of %d bytes: %d bytes, want %d", show(i), #text, #got, #want))
        for _, j in ipairs(values) do
          want = string_sub(text, i, j)
          got = tostring(s:sub(i, j))
          assert(
            got == want,
            string.format("sub(%s, %s) of %d bytes: %d bytes, want %d", show(i), show(j), #text, #got, #want)
          )
          compared = compared + 1
        end
      end
    end
  end
  assert(compared > 10000, "compared " .. compared)
  local s = dynatom.str("abcdef")
  assert(s:sub(math.huge) == "abcdef" and s:sub("2", 2.7) == "b" and s:sub(-2.7) == "ef")
end)

test("sub raises string.sub's bad-argument error where string.sub raises", function()
  local text = "abcdef"
  local s = dynatom.str(text)
  local bad = { nil, {}, true, false, "abc", "", "2x", print, coroutine.create(print), ffi.new("int64_t", 2) }
  for k = 1, 10 do -- ipairs would stop at the nil
    local v = bad[k]
    assert(not pcall(string.sub, text, v), "string.sub accepts " .. show(v))
    local ok, err = pcall(s.sub, s, v)
    assert(not ok, "sub accepts i = " .. show(v))
    local want = "bad argument #1 to 'sub' (number expected, got " .. type(v) .. ")"
    assert(err == want, "sub(" .. show(v) .. "): " .. tostring(err))
    if v ~= nil then
      assert(not pcall(string.sub, text, 1, v), "string.sub accepts j = " .. show(v))
      ok, err = pcall(s.sub, s, 1, v)
      assert(not ok, "sub accepts j = " .. show(v))
      want = "bad argument #2 to 'sub' (number expected, got " .. type(v) .. ")"
      assert(err == want, "sub(1, " .. show(v) .. "): " .. tostring(err))
    end
  end
  -- Called from Lua code (not as a tail call), the error names the caller's line.
  local ok, err = pcall(function()
    local r = s:sub()
    return r
  end)
  assert(not ok and err:find("^[^:]+:%d+: bad argument #1 to 'sub' %(number expected, got nil%)$"), err)
end)

test("sub of a large str shares its buffer (O(1))", function()
  local text = h.bytes(1048576, 11)
  local s = dynatom.str(text)
  local p = s:data()
  local tail = s:sub(2)
  local q, n = tail:data()
  assert(n == #text - 1)
  assert(q == p + 1, "the slice points into the parent's bytes")
  local mid = s:sub(1000, -1000)
  local r = mid:data()
  assert(r == p + 999, "a middle slice shares the buffer too")
  assert(tostring(mid) == text:sub(1000, -1000))
end)

test("== compares bytes: strs, Lua strings, atoms; never raises", function()
  local a, b = dynatom.str("same bytes here, long enough"), dynatom.str("same bytes here, long enough")
  assert(a == b and rawequal(a, a) and not rawequal(a, b))
  assert(a == "same bytes here, long enough")
  assert("same bytes here, long enough" == tostring(a))
  assert(a ~= dynatom.str("same bytes here, long enougH"))
  assert(a ~= "same bytes here")
  assert(a ~= nil and a ~= 5 and a ~= {})
  assert(dynatom.str("host") == dynatom.atom("host"))
  assert(dynatom.str("") == "")
end)

test(".. joins strs, Lua strings, numbers and atoms (small and large)", function()
  local s = dynatom.str("left-")
  local big = h.bytes(3000, 5)
  local cases = {
    { s .. "right", "left-right" },
    { "pre:" .. s, "pre:left-" },
    { s .. s, "left-left-" },
    { s .. 42, "left-42" },
    { s .. dynatom.atom("host"), "left-host" },
    { dynatom.atom("user-agent") .. s, "user-agentleft-" },
    { s .. big, "left-" .. big },
    { dynatom.str(big) .. dynatom.str(big), big .. big },
  }
  for k, c in ipairs(cases) do
    assert(dynatom.is_str(c[1]), "case " .. k .. " makes a str")
    assert(tostring(c[1]) == c[2], "case " .. k)
  end
  assert(tostring(dynatom.concat("a", s, 1, dynatom.atom("b"), big)) == "aleft-1b" .. big)
  assert(tostring(dynatom.concat()) == "")
  h.raises("expected a string", function()
    return s .. {}
  end)
end)

test("intern gives the global atom and adopts the str's buffer", function()
  local text = "an interned value, unique to this test " .. os.time()
  local s = dynatom.str(text)
  local a = s:intern()
  assert(dynatom.is_atom(a))
  assert(a == dynatom.atom(text))
  local p = s:data()
  local q = a:data()
  assert(p == q, "the atom adopted the str's bytes")
  assert(dynatom.lookup(text) == a)
  assert(tostring(a:str()) == text)
end)

test("clone shares; release gives the reference back; use after release raises", function()
  local s = dynatom.str(h.bytes(100, 9))
  local c = s:clone()
  assert(c == s and c:data() == s:data())
  s:release()
  h.raises("released", function()
    return tostring(s)
  end)
  h.raises("released", function()
    s:release()
  end)
  h.raises("released", function()
    return s:sub(1, 2)
  end)
  h.raises("released", function()
    return #s
  end)
  h.raises("released", s.len, s)
  assert(#dynatom.str("") == 0, "an empty str still has length 0")
  assert(#c == 100, "the clone is still alive")
  c:release()
end)

test("is_utf8 and bad arguments", function()
  assert(dynatom.str("héllo"):is_utf8())
  assert(not dynatom.str("\255\254"):is_utf8())
  h.raises("expected a string", dynatom.str, nil)
  h.raises("expected a string", dynatom.str, {})
  h.raises("expected a string", dynatom.atom, true)
end)

test("byte reads one byte with string.byte's index rules", function()
  local s = dynatom.str("abcdefghijklmnopqrstu")
  assert(s:byte(1) == 97 and s:byte(-1) == 117 and s:byte() == 97)
  assert(s:byte(0) == nil and s:byte(22) == nil)
end)

test("allocation failure raises the library's message and leaves nothing behind", function()
  local msg = require("ffi").string(dynatom.C.dt_status_message(3)) -- DT_ERR_ALLOC
  local text = string.rep("z", 100000)
  dynatom.C.dt_test_fail_allocations(4096)
  local ok, err = pcall(dynatom.str, text)
  local ok2, err2 = pcall(function()
    return dynatom.str("small") .. text -- the builder path
  end)
  dynatom.C.dt_test_fail_allocations(0)
  assert(not ok and tostring(err):find(msg, 1, true), tostring(err))
  assert(not ok2 and tostring(err2):find(msg, 1, true), tostring(err2))
  assert(tostring(dynatom.str(text)) == text, "works again once allocations succeed")
end)

h.run(tests)
