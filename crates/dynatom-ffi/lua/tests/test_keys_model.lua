-- The key registry against a model: random interleavings of making, cloning, releasing
-- and dropping atom handles (global and a local table's, inline and heap), pinning them
-- with dynatom.put, reading key_of and collecting, checked after every step against a plain
-- Lua model of which atoms the test holds. What the model checks:
--   * handles of the same atom are one object (the same Lua table key) and have the same
--     key, handles of different atoms different keys (an inline atom is the same atom in
--     every table, a heap atom is its table's);
--   * release() gives back one claim on the object (making and cloning claim it): the
--     object stays usable until the claims the test made on it are all given back;
--   * a key is a positive integer no larger than key_stats().largest;
--   * a handle released of every claim raises on key(), and put's pins keep their values
--     under their keys;
--   * key_of of the bytes of a held global atom is that atom's key;
--   * after a full collection, the registry holds exactly the atoms the test still holds
--     or has pinned (key_stats().live), and key_of of an atom nobody holds is nil.
local dynatom = require("dynatom")
local h = require("harness")

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

local INLINE_MAX = 7

-- A full collection that frees every handle the test no longer references. The traces
-- LuaJIT compiled keep the objects they were specialised on (an upvalue's table, say) as
-- constants, alive until the trace is flushed: without the flush, a later run_model found
-- the registry holding the earlier run's pins (ids the traces kept alive, not a leak;
-- with -joff or the flush the counts agree).
local function collect_all()
  jit.flush()
  collectgarbage("collect")
  collectgarbage("collect")
end

-- A small pool, so that handles of one atom meet often: inline names (the 7-byte one
-- whose word reads as a NaN included) and heap names.
local POOL = { "", "a", "host", "accept", "\255\255\255\255\255\255\255", "abcdefg",
  "user-agent", "content-type", "x-forwarded-for", "x-model-heap-1", "x-model-heap-2" }

local function identity(name, space)
  if #name <= INLINE_MAX then
    return "inline:" .. name
  end
  return space .. ":" .. name
end

local function run_model(seed, steps)
  -- An earlier run's objects, unreferenced but not yet collected, would be handed out
  -- again with that run's claims on them, which this run's model never saw.
  collect_all()
  local x = seed
  local function rand(n)
    x = (x * 1103515245 + 12345) % 2147483648
    return x % n + 1
  end
  local locals = dynatom.table()
  local held = {} -- { a = handle, id = identity, name = name, space = "global" | "local" }
  local pinned = {} -- identity -> { value = v, key = k, name = name, space = space }
  local pins = {} -- the table put pins into
  local serial = 0
  -- The claims the test made on each atom object and has not given back: making and
  -- cloning claim, release() gives one back, and a dropped handle's claim stays until its
  -- object is collected. Weak keys: a collected object leaves the model as it leaves the
  -- module.
  local claims = setmetatable({}, { __mode = "k" })
  local function claimed(a)
    claims[a] = (claims[a] or 0) + 1
    return a
  end

  local function make(name, space)
    if space == "local" then
      return claimed(locals:intern(name))
    end
    local how = rand(3)
    if how == 1 then
      return claimed(dynatom.atom(name))
    elseif how == 2 then
      return claimed(dynatom.lookup(name) or dynatom.atom(name))
    end
    return claimed(dynatom.str(name):intern())
  end

  local function take(i)
    local e = held[i]
    held[i] = held[#held]
    held[#held] = nil
    return e
  end

  local function check(after_collect)
    local id_of_key, key_of_id, object_of_id = {}, {}, {}
    local largest = dynatom.key_stats().largest
    for _, e in ipairs(held) do
      local o = object_of_id[e.id]
      assert(not o or rawequal(o, e.a), "two objects for " .. e.id)
      object_of_id[e.id] = e.a
      local k = e.a:key()
      assert(type(k) == "number" and k >= 1 and k <= largest and k % 1 == 0, "not an id: " .. tostring(k))
      assert(key_of_id[e.id] == nil or key_of_id[e.id] == k, "two keys for " .. e.id)
      assert(id_of_key[k] == nil or id_of_key[k] == e.id, "one key for " .. e.id .. " and " .. tostring(id_of_key[k]))
      key_of_id[e.id], id_of_key[k] = k, e.id
      if e.space == "global" then
        assert(dynatom.key_of(e.name) == k, "key_of of a held atom: " .. e.id)
      end
    end
    local live = 0
    for id, p in pairs(pinned) do
      assert(pins[p.key] == p.value, "a pinned key lost its value: " .. id)
      assert(key_of_id[id] == nil or key_of_id[id] == p.key, "a pinned atom changed key: " .. id)
      assert(id_of_key[p.key] == nil or id_of_key[p.key] == id, "a pinned key names another atom: " .. id)
      if key_of_id[id] == nil then
        live = live + 1
      end
    end
    if after_collect then
      for _ in pairs(key_of_id) do
        live = live + 1
      end
      local stats = dynatom.key_stats()
      assert(stats.live == live, string.format("registry holds %d atoms, the test %d", stats.live, live))
      for _, name in ipairs(POOL) do
        local id = identity(name, "global")
        if key_of_id[id] == nil and pinned[id] == nil then
          assert(dynatom.key_of(name) == nil, "key_of of an atom nobody holds: " .. id)
        end
      end
    end
  end

  for step = 1, steps do
    local op = rand(100)
    if op <= 30 or #held == 0 then
      local name = POOL[rand(#POOL)]
      local space = rand(5) == 1 and "local" or "global"
      held[#held + 1] = { a = make(name, space), id = identity(name, space), name = name, space = space }
    elseif op <= 45 then
      local e = held[rand(#held)]
      local c = claimed(e.a:clone())
      assert(rawequal(c, e.a), "a clone is the atom's object")
      held[#held + 1] = { a = c, id = e.id, name = e.name, space = e.space }
    elseif op <= 60 then
      local e = take(rand(#held))
      e.a:release()
      claims[e.a] = claims[e.a] - 1
      if claims[e.a] == 0 then
        h.raises("released", e.a.key, e.a)
      else
        assert(e.a:key() >= 1, "released while claimed elsewhere: " .. e.id)
      end
    elseif op <= 75 then
      take(rand(#held)) -- dropped: collected some time later
    elseif op <= 85 then
      local e = held[rand(#held)]
      serial = serial + 1
      dynatom.put(pins, e.a, serial)
      pinned[e.id] = { value = serial, key = e.a:key(), name = e.name, space = e.space }
    elseif op <= 92 then
      local id, p = next(pinned)
      if id then
        dynatom.put(pins, make(p.name, p.space), nil) -- the made handle is dropped
        pinned[id] = nil
        assert(pins[p.key] == nil, "put(t, a, nil) removed the key")
      end
    elseif op <= 98 then
      local name = POOL[rand(#POOL)]
      local k = dynatom.key_of(name)
      assert(k == nil or (type(k) == "number" and k >= 1), "key_of: " .. tostring(k))
    else
      collect_all()
      check(true)
    end
    check(false)
    if step % 500 == 0 then
      collect_all()
      check(true)
    end
  end
  return held, pinned
end

test("the key registry follows a model of the held atoms (seed 1, 20,000 steps)", function()
  run_model(1, 20000)
end)

test("the key registry follows a model of the held atoms (seed 7, 20,000 steps)", function()
  run_model(7, 20000)
end)

test("everything dropped: a full collection empties the registry", function()
  run_model(3, 5000)
  collect_all()
  assert(dynatom.key_stats().live == 0, "ids left: " .. dynatom.key_stats().live)
end)

h.run(tests)
