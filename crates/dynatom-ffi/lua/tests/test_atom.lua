-- dynatom atoms from Lua: identity, lookup without interning, key() as a Lua table key,
-- back to strs, hashes, and independent tables.
local ffi = require("ffi")
local dynatom = require("dynatom")
local h = require("harness")

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

-- Names of every atom form: inline (0..7 bytes, ASCII and not), heap, and the 7-byte
-- ASCII and non-ASCII cases whose words the key registry encodes differently (a word
-- that would read as a NaN becomes a string there).
local function names()
  local v = { "", "a", "ab", "host", "accept", "referer", "upgrade", "\0", "\0\0", "a\0", "\255",
    "\255\254\253\252\251\250\249", "\255\255\255\255\255\255\255", "\127\127\127\127\127\127\127", "abcdefg", "abcdefh",
    "user-agent", "content-type", "x-forwarded-for" }
  for i = 1, 200 do
    v[#v + 1] = h.bytes(i % 12, i) -- random bytes of 0..11 (many inline, some heap)
    v[#v + 1] = "header-" .. i
  end
  return v
end

test("equal bytes are the same atom; == is one word compare", function()
  local a, b = dynatom.atom("x-request-id"), dynatom.atom("x-request-id")
  assert(a == b and a.w == b.w)
  assert(a ~= dynatom.atom("x-request-ie"))
  assert(a == "x-request-id" and a ~= "x-request")
  assert(a ~= nil and a ~= 1)
  assert(dynatom.atom("ab") == dynatom.atom("ab") and dynatom.atom("ab"):is_inline())
  assert(not dynatom.atom("x-request-id"):is_inline())
end)

test("atoms round-trip their bytes, through str too", function()
  for _, n in ipairs(names()) do
    local a = dynatom.atom(n)
    assert(tostring(a) == n and #a == #n)
    assert(tostring(a:str()) == n)
    assert(a:str():intern() == a)
  end
end)

test("lookup never interns", function()
  local text = "never-interned-" .. os.time() .. "-header"
  assert(dynatom.lookup(text) == nil)
  assert(dynatom.lookup(text) == nil, "the first lookup did not insert it")
  local a = dynatom.atom(text)
  assert(dynatom.lookup(text) == a)
end)

test("contains asks without making an atom", function()
  local text = "never-interned-" .. os.time() .. "-contains"
  assert(dynatom.contains(text) == false)
  assert(dynatom.lookup(text) == nil, "contains did not insert it")
  local a = dynatom.atom(text)
  assert(dynatom.contains(text) == true)
  assert(dynatom.contains("seven!!") == true, "up to 7 bytes: always")
  local t = dynatom.table()
  assert(t:contains(text) == false, "the global atom is not in another table")
  local b = t:intern(text)
  assert(t:contains(text) == true and b ~= a)
  local ok, err = pcall(dynatom.contains, nil)
  assert(not ok and err:find("dynatom"), err)
end)

test("key() is equal for equal atoms and distinct for distinct ones", function()
  local list = names()
  local seen = {}
  local atoms = {}
  for i, n in ipairs(list) do
    local a = dynatom.atom(n)
    atoms[i] = a -- keep every atom alive while its key is in use
    local k = a:key()
    assert(type(k) == "number" and k >= 1 and k % 1 == 0, "a positive integer id")
    assert(k == k, "never NaN (NaN cannot be a table key)")
    if seen[k] ~= nil then
      assert(list[seen[k]] == n, string.format("%q and %q share key %s", list[seen[k]], n, tostring(k)))
    end
    seen[k] = i
    assert(dynatom.atom(n):key() == k, "a fresh atom of the same bytes has the same key")
  end
  local nan_word = dynatom.atom("\255\255\255\255\255\255\255") -- its word reads as NaN
  assert(type(nan_word:key()) == "number" and nan_word:key() == dynatom.atom("\255\255\255\255\255\255\255"):key())
  assert(nan_word:key() ~= dynatom.atom("\255\254\253\252\251\250\249"):key())
  assert(type(dynatom.atom("referer"):key()) == "number")
  assert(type(dynatom.atom("user-agent"):key()) == "number")
  local distinct_names, distinct_keys = {}, {}
  for i, n in ipairs(list) do
    distinct_names[n] = true
    distinct_keys[atoms[i]:key()] = true
  end
  local function count(set)
    local c = 0
    for _ in pairs(set) do
      c = c + 1
    end
    return c
  end
  assert(count(distinct_keys) == count(distinct_names), "one key per distinct atom")
  assert(count(distinct_keys) <= dynatom.key_stats().live)
end)

test("equal atoms are one Lua value: the same table key, whichever call made them", function()
  local t = dynatom.table()
  local keep = {}
  for i, n in ipairs(names()) do
    local a = dynatom.atom(n)
    keep[i] = a
    local map = { [a] = i }
    local buf = ffi.new("uint8_t[?]", #n + 1)
    ffi.copy(buf, n, #n)
    local made = {
      dynatom.atom(n),
      dynatom.atom(buf, #n),
      dynatom.atom(dynatom.str(n)),
      dynatom.str(n):intern(),
      dynatom.lookup(n),
      dynatom.lookup(buf, #n),
      a:clone(),
      a:str():intern(),
    }
    if a:is_inline() then
      made[#made + 1] = t:intern(n) -- an inline atom is the same atom in every table
    end
    for k, b in ipairs(made) do
      assert(rawequal(b, a), string.format("making %d of %q is another object", k, n))
      assert(map[b] == i, string.format("making %d of %q misses the table key", k, n))
    end
    map[dynatom.atom(n)] = "again"
    assert(map[a] == "again" and next(map, next(map)) == nil, "one key, not two")
  end
  -- Made by compiled code (the loop runs often enough to be traced): the same objects.
  local list = names()
  for _ = 1, 3 do
    for i, n in ipairs(list) do
      assert(rawequal(dynatom.atom(n), keep[i]), n)
    end
  end
  -- A heap atom of another table is another atom, so another key.
  local other = t:intern("x-one-value-heap-atom")
  local global = dynatom.atom("x-one-value-heap-atom")
  assert(not rawequal(other, global) and ({ [global] = 1 })[other] == nil)
  assert(rawequal(t:intern("x-one-value-heap-atom"), other) and rawequal(t:lookup("x-one-value-heap-atom"), other))
end)

test("an unreferenced atom object is collected; one that keys a table stays the key", function()
  collectgarbage("collect")
  collectgarbage("collect")
  local name = "x-one-value-collected-" .. os.time()
  local before = dynatom.key_stats().live
  local first = tostring(dynatom.atom(name)) -- the object is dropped at once
  assert(first == name)
  collectgarbage("collect")
  collectgarbage("collect")
  assert(dynatom.key_stats().live == before, "the dropped object was collected and its id freed")
  local t = {}
  local a = dynatom.atom(name)
  t[a] = "kept"
  a = nil
  collectgarbage("collect")
  collectgarbage("collect")
  assert(t[dynatom.atom(name)] == "kept", "a table key keeps the atom's object alive, so it stays the key")
end)

test("keys are ids: small, dense, reused after release and after collection", function()
  collectgarbage("collect")
  collectgarbage("collect")
  local function batch(tag, n)
    local list, largest = {}, 0
    for i = 1, n do
      local a = dynatom.atom(i % 3 == 0 and string.format("%s%d", tag, i % 1000) or string.format("x-ids-%s-%d", tag, i))
      list[i] = a
      largest = math.max(largest, a:key())
    end
    return list, largest
  end
  local before = dynatom.key_stats()
  local first, largest = batch("a", 3000)
  assert(largest <= before.live + 3000, "ids beyond the live atoms: " .. largest)
  for _, a in ipairs(first) do
    a:release()
  end
  assert(dynatom.key_stats().live <= before.live, "release freed the ids")
  local second, largest2 = batch("b", 3000) -- new words, the freed ids
  assert(largest2 <= largest, string.format("released ids not reused: %d > %d", largest2, largest))
  second = nil
  collectgarbage("collect")
  collectgarbage("collect")
  assert(dynatom.key_stats().live <= before.live, "the finalisers freed the ids")
  local _, largest3 = batch("c", 3000)
  assert(largest3 <= largest, string.format("collected ids not reused: %d > %d", largest3, largest))
  assert(dynatom.key_stats().largest <= before.largest + 3000 + 100)
end)

test("equal atoms share a key across handles of every kind; released handles have none", function()
  local t = dynatom.table()
  for _, n in ipairs({ "x-every-handle-kind", "kinds" }) do
    local a = dynatom.atom(n)
    local k = a:key()
    assert(a:clone():key() == k and dynatom.lookup(n):key() == k and dynatom.str(n):intern():key() == k)
    assert(a:str():intern():key() == k)
    local loc = t:intern(n)
    if a:is_inline() then
      assert(loc:key() == k and t:lookup(n):key() == k, "an inline atom is the same atom in every table")
    else
      assert(loc:key() ~= k, "a heap atom of another table is another atom")
      assert(t:lookup(n):key() == loc:key() and t:intern(dynatom.str(n)):key() == loc:key())
    end
    local c = a:clone()
    assert(rawequal(c, a), "a clone is the atom's object")
    c:release()
    assert(a:key() == k, "releasing one claim leaves the others' key")
  end
  local once = dynatom.atom("x-every-handle-kind-released-" .. os.time())
  once:release()
  h.raises("released", once.key, once)
  h.raises("uninitialised", function()
    return dynatom.Atom():key()
  end)
end)

test("keys made by JIT-compiled code equal the interpreter's", function()
  local list = names()
  local atoms, expected = {}, {}
  -- The keys of the held atoms, and of fresh atoms of the same bytes: a fresh atom's id
  -- comes from the registry, looked up by its word as compiled code computes it.
  local function keys_of(into)
    for i, a in ipairs(atoms) do
      into[i] = a:key()
      into[#atoms + i] = dynatom.atom(list[i]):key()
    end
  end
  for i, n in ipairs(list) do
    atoms[i] = dynatom.atom(n)
  end
  jit.off(keys_of)
  keys_of(expected)
  jit.on(keys_of)
  for i = 1, #atoms do
    assert(expected[#atoms + i] == expected[i], "interpreted: a fresh atom has the held atom's key")
  end
  for round = 1, 300 do -- hot: the loop is compiled after a few dozen rounds
    local got = {}
    keys_of(got)
    for i = 1, 2 * #atoms do
      if got[i] ~= expected[i] then
        local n = list[(i - 1) % #atoms + 1]
        error(string.format("round %d: key of %q is %s under the JIT, %s interpreted", round, n, tostring(got[i]), tostring(expected[i])))
      end
    end
  end
end)

test("atoms as Lua table keys by key()", function()
  local t = {}
  local keep = {}
  for i, n in ipairs(names()) do
    local a = dynatom.atom(n)
    keep[#keep + 1] = a
    t[a:key()] = n
  end
  for _, n in ipairs(names()) do
    assert(t[dynatom.atom(n):key()] == n, n)
  end
  assert(t[dynatom.atom("no-such-header-anywhere"):key()] == nil)
end)

test("put sets t[a:key()] and pins heap and inline atoms until the key is removed", function()
  local t = {}
  local heap, inline = dynatom.atom("x-put-pinned-heap-name"), dynatom.atom("put")
  dynatom.put(t, heap, 1)
  dynatom.put(t, inline, 2)
  assert(t[heap:key()] == 1 and t[dynatom.atom("x-put-pinned-heap-name"):key()] == 1)
  assert(t[inline:key()] == 2)
  assert(dynatom.pinned(t) == 2, "an inline atom's key is an id too: it needs a pin")
  dynatom.put(t, dynatom.atom("x-put-pinned-heap-name"), 3)
  assert(t[heap:key()] == 3 and dynatom.pinned(t) == 2, "one pin per key")
  dynatom.put(t, heap, nil)
  assert(t[heap:key()] == nil and dynatom.pinned(t) == 1)
  assert(t[inline:key()] == 2)
  dynatom.put(t, inline, nil)
  assert(t[inline:key()] == nil and next(t) == nil)
  h.raises("put expects a dynatom atom", dynatom.put, t, "host", 1)
  assert(dynatom.pinned({}) == 0)
end)

-- Releases `count` distinct atoms nobody else holds, so the global table's shards pass
-- their unused-atom limit and sweep (free) their unused atoms.
local function churn_global_table(count, tag)
  for i = 1, count do
    dynatom.atom(string.format("x-churn-%s-%d-padding", tag, i)):release()
  end
end

test("a key stored with put keeps naming its atom after sweeps free unpinned ones", function()
  local t = {}
  local pinned_name = "x-put-survives-sweep-" .. os.time()
  local control_name = "x-put-control-swept-" .. os.time()
  local a = dynatom.atom(pinned_name)
  local key = a:key()
  dynatom.put(t, a, "value")
  a:release()
  dynatom.atom(control_name):release()
  local removals = dynatom.memory_report().removals
  churn_global_table(40000, "put")
  assert(dynatom.memory_report().removals > removals, "the churn swept nothing")
  assert(dynatom.lookup(control_name) == nil, "the unpinned control atom was not swept")
  local again = dynatom.lookup(pinned_name)
  assert(again ~= nil, "the pinned atom was swept")
  assert(again:key() == key and t[again:key()] == "value")
end)

test("a collected table releases the atoms put pinned to it", function()
  local name = "x-put-table-collected-" .. os.time()
  do
    local t = {}
    local a = dynatom.atom(name)
    dynatom.put(t, a, true)
    a:release()
  end
  collectgarbage("collect") -- t and its pins become garbage
  collectgarbage("collect") -- the pins' finalisers have run
  churn_global_table(40000, "collected")
  assert(dynatom.lookup(name) == nil, "the atom is still held after its table was collected")
end)

test("key_of finds the key of existing atoms from bytes, never interning", function()
  local t = {}
  local keep = {}
  for i, n in ipairs(names()) do
    local a = dynatom.atom(n)
    keep[#keep + 1] = a
    dynatom.put(t, a, i)
    assert(dynatom.key_of(n) == a:key(), n)
    local buf = ffi.new("uint8_t[?]", #n)
    ffi.copy(buf, n, #n)
    assert(dynatom.key_of(buf, #n) == a:key(), n)
  end
  for i, n in ipairs(names()) do
    local v = t[dynatom.key_of(n)]
    assert(v ~= nil and names()[v] == n, n)
  end
  local absent = "x-key-of-absent-" .. os.time() .. "-header"
  assert(dynatom.key_of(absent) == nil)
  assert(dynatom.lookup(absent) == nil, "key_of interned")
  h.raises("expected a string", dynatom.key_of, {})
end)

test("key_of of an atom no Lua handle holds matches no key", function()
  collectgarbage("collect")
  collectgarbage("collect")
  for _, n in ipairs({ "kOf7", "x-key-of-unheld-" .. os.time() }) do
    assert(dynatom.key_of(n) == nil, "no handle yet: " .. n)
    local a = dynatom.atom(n)
    local k = a:key()
    assert(dynatom.key_of(n) == k, "held: " .. n)
    local t = {}
    dynatom.put(t, a, "v")
    a:release()
    assert(dynatom.key_of(n) == k and t[dynatom.key_of(n)] == "v", "held by the pin: " .. n)
    dynatom.put(t, dynatom.lookup(n), nil)
    collectgarbage("collect")
    collectgarbage("collect")
    assert(dynatom.key_of(n) == nil, "every handle gone: " .. n)
    assert(t[dynatom.key_of(n)] == nil)
  end
end)

test("put's pins keep keys from going stale when every other handle is gone", function()
  -- Without the pins, releasing the last handle frees the id and the next new atom
  -- takes it (the most recently freed id is reused first): t would then answer for it,
  -- and the original bytes would get a new id that t does not hold.
  for _, n in ipairs({ "st4le", "x-stale-key-heap-name-" .. os.time() }) do
    local t = {}
    local a = dynatom.atom(n)
    local k = a:key()
    dynatom.put(t, a, "mine")
    a:release()
    a = nil
    collectgarbage("collect")
    collectgarbage("collect")
    local others = {}
    for i = 1, 50 do
      others[i] = dynatom.atom(string.format("x-stale-other-%s-%d", n, i))
      assert(others[i]:key() ~= k, "a new atom took the pinned key of " .. n)
      assert(t[others[i]:key()] == nil, "t answers for another atom")
    end
    assert(dynatom.atom(n):key() == k and t[dynatom.atom(n):key()] == "mine", n)
    assert(t[dynatom.key_of(n)] == "mine", n)
  end
end)

test("hashes are cached and equal for equal atoms", function()
  local a, b = dynatom.atom("content-length"), dynatom.atom("content-length")
  assert(a:hash() == b:hash())
  assert(type(a:hash()) == "cdata")
end)

test("a permanent atom is found after its last release", function()
  local text = "x-lua-atom-made-permanent-then-released"
  local a = dynatom.atom(text)
  assert(a:make_permanent() == true)
  assert(a:make_permanent() == true)
  a:release()
  assert(a:make_permanent() == false, "a released atom")
  local found = dynatom.lookup(text)
  assert(found ~= nil, "no handle, still in use: permanent")
  assert(dynatom.memory_report().permanent_atoms >= 1)
  assert(dynatom.atom("short"):make_permanent() == true)
  local local_atom = dynatom.table():intern("an atom of a table that can be freed")
  assert(local_atom:make_permanent() == false)
end)

test("release and clone", function()
  local a = dynatom.atom("x-released-atom-test")
  local c = a:clone()
  assert(rawequal(c, a), "a clone is the atom's object, claimed once more")
  a:release() -- gives back the first claim: the clone's keeps the object
  assert(tostring(c) == "x-released-atom-test" and c:key() >= 1)
  c:release() -- the last claim: released for every holder
  h.raises("released", a.key, a)
  h.raises("released", function()
    return tostring(a)
  end)
  h.raises("released", function()
    a:release()
  end)
  h.raises("released", function()
    return c:clone()
  end)
  local again = dynatom.atom("x-released-atom-test")
  assert(not rawequal(again, a) and tostring(again) == "x-released-atom-test", "a new object after the release")
end)

test("independent tables keep their own atoms", function()
  local t = dynatom.table()
  local a = t:intern("x-table-local-name")
  local g = dynatom.atom("x-table-local-name")
  assert(a == "x-table-local-name" and tostring(a) == tostring(g))
  assert(a.w ~= g.w, "heap atoms of different tables are different atoms")
  assert(t:lookup("x-table-local-name") == a)
  assert(t:lookup("x-not-in-this-table") == nil)
  assert(t:intern(dynatom.str("x-table-local-name")) == a)
  assert(t:len() >= 1)
  local report = t:memory_report()
  assert(type(report.atoms) == "number" and report.atoms >= 1)
  assert(type(dynatom.memory_report().atoms) == "number")
end)

test("large atoms released at once keep the global table's unused bytes within its bound", function()
  local chunk = string.rep("b", 1024 * 1024 - 16)
  local held = {}
  for i = 1, 200 do
    local a = dynatom.atom(chunk .. string.format("%016d", i))
    if i % 20 == 0 then
      held[#held + 1] = a
    else
      a:release()
    end
    local r = dynatom.memory_report()
    assert(r.unused_bytes <= r.unused_bytes_limit,
      ("unused bytes %d over the bound %d after %d texts"):format(r.unused_bytes, r.unused_bytes_limit, i))
  end
  local r = dynatom.memory_report()
  assert(r.unused_bytes_limit >= 4 * 1024 * 1024 and r.unused_bytes_limit < 200 * 1024 * 1024)
  for _, a in ipairs(held) do
    a:release()
  end
end)

h.run(tests)
