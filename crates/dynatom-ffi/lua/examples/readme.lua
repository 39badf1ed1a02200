local dynatom = require("dynatom")

-- A body read from a socket: copied once, not hashed, not interned by LuaJIT.
local body = dynatom.str("GET /index.html HTTP/1.1\r\nHost: example.org\r\n\r\n")
local path = body:sub(5, 15)                 -- "/index.html": O(1), shares the bytes
assert(#path == 11 and path == "/index.html")

-- Used as a key: now it becomes an atom; equal bytes give the same atom (one word compare).
local route = path:intern()
assert(route == dynatom.atom("/index.html"))
-- As a Lua table key: one object per atom, so every equal atom finds the entry.
local handlers = { [route] = "static" }
assert(handlers[dynatom.atom("/index.html")] == "static")
-- Faster: a:key(), a small integer per atom, naming it while a handle of the atom lives
-- (route, here); dynatom.put keeps one in the table for you.
local by_key = { [route:key()] = "static" }
assert(by_key[dynatom.atom("/index.html"):key()] == "static")
local methods = {}
dynatom.put(methods, dynatom.atom("GET"), "read") -- `methods` pins the atom
assert(methods[dynatom.key_of(body:sub(1, 3))] == "read") -- found from bytes, no atom made

-- A response from pieces, sent with one writev and never joined in memory.
local reply = dynatom.pieces("served ", route, " by ", handlers[route], "\n")
io.stdout:flush()                            -- writev bypasses Lua's buffered io
assert(reply:writev(1) == #"served /index.html by static\n")

-- tostring() makes a Lua string: a copy that LuaJIT interns (keep it for the edges).
print(tostring(body:sub(1, 3)) .. " " .. tostring(route))
