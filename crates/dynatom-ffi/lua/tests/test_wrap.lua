-- dynatom.wrap / wrap_utf8: strs over FFI memory the program owns, without a copy; the
-- cdata anchored while a handle lives, on_release called once, from a module call only.
local ffi = require("ffi")
local dynatom = require("dynatom")
local h = require("harness")

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

local TEXT = "a response body chunk, longer than fifteen bytes"

local function buffer(text)
  local buf = ffi.new("uint8_t[?]", #text)
  ffi.copy(buf, text, #text)
  return buf
end

local function address(p)
  return tonumber(ffi.cast("uintptr_t", p))
end

-- An on_release that counts its calls and records whether a test's module call was
-- running (`inside`), so a call from a finaliser or anywhere else is caught.
local function recorder()
  local r = { calls = 0, outside = 0, inside = false }
  function r.on_release(cdata)
    r.calls = r.calls + 1
    r.last = cdata
    if not r.inside then
      r.outside = r.outside + 1
    end
  end
  function r.collect()
    r.inside = true
    local n = dynatom.collect_releases()
    r.inside = false
    return n
  end
  return r
end

-- Collects the garbage twice (finalisers run in the first, their objects go in the second).
local function full_gc()
  collectgarbage("collect")
  collectgarbage("collect")
end

test("the str reads the cdata's own bytes: no copy", function()
  local buf = buffer(TEXT)
  local s = dynatom.wrap(buf, #TEXT)
  local p, n = s:data()
  assert(address(p) == address(buf) and n == #TEXT)
  assert(s == TEXT and #s == #TEXT and tostring(s) == TEXT)
  local part = s:sub(3, 40) -- longer than 15 bytes: a slice shares the bytes
  assert(address((part:data())) == address(buf) + 2 and part == TEXT:sub(3, 40))
  local u = dynatom.wrap_utf8(buf, #TEXT)
  assert(address(u:data()) == address(buf) and u:is_utf8())
  s:release()
  part:release()
  u:release()
  dynatom.collect_releases()
end)

test("the cdata survives collections while a handle lives, though the program dropped it", function()
  local collected = false
  local s
  do
    local buf = ffi.gc(buffer(TEXT), function()
      collected = true
    end)
    s = dynatom.wrap(buf, #TEXT)
  end
  for _ = 1, 3 do
    full_gc()
    dynatom.collect_releases()
  end
  assert(not collected, "the anchored cdata was collected")
  assert(s == TEXT, "the bytes changed under the str")
  s = nil -- luacheck: ignore (the finaliser releases it)
  full_gc()
  assert(not collected, "unanchored before a module call drained the release")
  dynatom.collect_releases()
  full_gc()
  assert(collected, "the cdata stays anchored after its release was collected")
end)

test("on_release runs once, after the last clone and slice, and only in a module call", function()
  local r = recorder()
  local buf = buffer(TEXT)
  local before = dynatom.wrapped()
  local s = dynatom.wrap(buf, #TEXT, r.on_release)
  assert(dynatom.wrapped() == before + 1)
  local copy = s:clone()
  local slice = s:sub(10, 30)
  s:release()
  copy:release()
  full_gc()
  assert(r.collect() == 0 and r.calls == 0, "released while a slice lives")
  slice = nil -- luacheck: ignore (its finaliser gives the last handle back)
  full_gc()
  assert(r.calls == 0, "on_release ran from a finaliser")
  assert(r.collect() == 1)
  assert(r.calls == 1 and r.outside == 0 and r.last == buf)
  assert(dynatom.wrapped() == before)
  full_gc()
  assert(r.collect() == 0 and r.calls == 1, "called twice")
end)

test("handles dropped in compiled loops queue their release without calling on_release", function()
  local r = recorder()
  local s = dynatom.wrap(buffer(TEXT), #TEXT, r.on_release)
  -- Hot loops (compiled by the JIT) make clones and slices and drop them; the collector
  -- finalises them while the loops run, the last one's release included.
  for _ = 1, 2000 do
    local c = s:clone()
    local part = c:sub(2, 30)
    assert(#part == 29)
  end
  s:release()
  local junk = 0
  for i = 1, 200000 do
    local t = { i }
    junk = junk + #t
  end
  full_gc()
  assert(junk == 200000 and r.calls == 0, "on_release ran outside a module call")
  assert(r.collect() == 1 and r.calls == 1 and r.outside == 0)
end)

test("a wrap drains the releases queued before it", function()
  local r = recorder()
  local first = dynatom.wrap(buffer(TEXT), #TEXT, r.on_release)
  first:release()
  assert(r.calls == 0)
  r.inside = true
  local second = dynatom.wrap(buffer(TEXT), #TEXT)
  r.inside = false
  assert(r.calls == 1 and r.outside == 0)
  second:release()
  dynatom.collect_releases()
end)

test("interning a wrapped str gives the atom of the equal Lua string", function()
  local text = "x-wrapped-header-name-" .. tostring(os.time())
  local buf = buffer(text)
  local r = recorder()
  local s = dynatom.wrap(buf, #text, r.on_release)
  local from_lua = dynatom.atom(text)
  local from_wrap = s:intern()
  assert(rawequal(from_wrap, from_lua) and from_wrap:key() == from_lua:key())
  assert(rawequal(dynatom.atom(buf, #text), from_lua))
  s:release()
  assert(r.collect() == 1, "the atom keeps a copy, not the wrapped bytes")
  assert(from_lua == text)
end)

test("invalid UTF-8 raises the usual error, anchors nothing and releases nothing", function()
  local bad = "\xff\xfe not UTF-8, and longer than fifteen bytes"
  local buf = buffer(bad)
  local r = recorder()
  local before = dynatom.wrapped()
  h.raises("dynatom: bytes are not valid UTF-8", dynatom.wrap_utf8, buf, #bad, r.on_release)
  assert(dynatom.wrapped() == before, "a refused cdata stays anchored")
  full_gc()
  assert(r.collect() == 0 and r.calls == 0, "the library released memory it refused")
  local as_bytes = dynatom.wrap(buf, #bad, r.on_release) -- the byte variant takes it
  assert(as_bytes == bad and not as_bytes:is_utf8())
  as_bytes:release()
  assert(r.collect() == 1 and r.calls == 1)
end)

test("zero and short lengths are copied into the handle and released at once", function()
  -- The library copies up to 15 bytes and releases the memory before wrap returns: the
  -- release is queued, and on_release runs at the next module call that drains.
  local r = recorder()
  local empty = dynatom.wrap(buffer("x"), 0, r.on_release)
  assert(#empty == 0 and empty == "")
  assert(r.calls == 0, "called inside wrap")
  assert(r.collect() == 1 and r.calls == 1)
  local none = dynatom.wrap(nil, 0, r.on_release)
  assert(#none == 0 and r.collect() == 1)
  local short = dynatom.wrap_utf8(buffer("short"), 5, r.on_release)
  assert(short == "short" and r.collect() == 1)
  assert(r.calls == 3 and r.outside == 0)
  assert(short == "short" and #empty == 0, "the handles still hold their copies")
end)

test("bad arguments raise without anchoring", function()
  local before = dynatom.wrapped()
  h.raises("a required pointer was NULL", dynatom.wrap, nil, 4)
  h.raises("on_release must be a function", dynatom.wrap, buffer(TEXT), #TEXT, 42)
  assert(dynatom.wrapped() == before)
end)

test("an on_release error is raised after every other release ran", function()
  local calls = 0
  local function boom()
    calls = calls + 1
    error("on_release failed")
  end
  local function count()
    calls = calls + 1
  end
  local first = dynatom.wrap(buffer(TEXT), #TEXT, boom)
  local second = dynatom.wrap(buffer(TEXT), #TEXT, count)
  first:release()
  second:release()
  h.raises("on_release failed", dynatom.collect_releases)
  assert(calls == 2)
  assert(dynatom.collect_releases() == 0)
  -- Raised by the drain at the start of a wrap, the error leaves that wrap undone.
  dynatom.wrap(buffer(TEXT), #TEXT, boom):release()
  h.raises("on_release failed", dynatom.wrap, buffer(TEXT), #TEXT)
  assert(calls == 3 and dynatom.collect_releases() == 0)
end)

test("ids are reused and many wraps unanchor them all", function()
  local before = dynatom.wrapped()
  local released = 0
  local function on_release()
    released = released + 1
  end
  for round = 1, 3 do
    local strs = {}
    for i = 1, 200 do
      strs[i] = dynatom.wrap(buffer(TEXT .. i), #TEXT + #tostring(i), on_release)
    end
    assert(dynatom.wrapped() == before + 200)
    strs = nil -- luacheck: ignore
    full_gc()
    dynatom.collect_releases()
    assert(released == 200 * round and dynatom.wrapped() == before)
  end
end)

h.run(tests)
