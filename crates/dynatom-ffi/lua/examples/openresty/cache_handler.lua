-- The OpenResty handler that scripts/openresty-tests loads into nginx and puts under wrk
-- load: each worker keeps a cache keyed by atoms, of values built from bytes that arrive
-- in FFI buffers (as a socket read leaves them) and are wrapped, never copied into Lua
-- strings. `serve_strings` is the same handler on Lua strings, for the report's
-- comparison.
--
-- A request names its key as `?k=item-<n>`; the body is the key, "=", and the payload of
-- `payload_of(key)`. The cache starts over past `CACHE_LIMIT` entries, so under load its
-- wrapped buffers keep being released (by finalisers, queued, then drained by the next
-- `dynatom.wrap`).
local ffi = require("ffi")
local dynatom = require("dynatom")

local handler = {}

local CACHE_LIMIT = 1000

-- The payload of key "item-<n>": the key and ";" repeated 1 + n % 16 times. The wrk script
-- checks each body against the same rule.
local function payload_of(key)
    local n = tonumber(key:match("^item%-(%d+)$"))
    if not n then
        return nil
    end
    return string.rep(key .. ";", 1 + n % 16)
end

-- The payload in a fresh FFI buffer, as bytes read from a socket would be.
local function read_into_buffer(key)
    local payload = payload_of(key)
    if not payload then
        return nil
    end
    local buffer = ffi.new("uint8_t[?]", #payload)
    ffi.copy(buffer, payload, #payload)
    return buffer, #payload
end

local atom_cache, atom_entries = {}, 0

-- Body built once per key with a builder, from the key's atom and the wrapped buffer; the
-- cache holds the wrapped payload too, so its buffer stays anchored while cached.
function handler.serve_atoms()
    local k = ngx.var.arg_k
    if not k then
        return ngx.exit(ngx.HTTP_BAD_REQUEST)
    end
    local key = dynatom.atom(k)
    local cached = atom_cache[key]
    if not cached then
        local buffer, len = read_into_buffer(k)
        if not buffer then
            return ngx.exit(ngx.HTTP_BAD_REQUEST)
        end
        local payload = dynatom.wrap(buffer, len)
        local body = dynatom.builder(#key + 1 + len)
        body:put(key)
        body:put("=")
        body:put(payload)
        if atom_entries >= CACHE_LIMIT then
            atom_cache, atom_entries = {}, 0
        end
        cached = { payload = payload, body = body:finish() }
        atom_cache[key] = cached
        atom_entries = atom_entries + 1
    end
    ngx.header["X-Payload-Length"] = #cached.payload
    ngx.print(tostring(cached.body))
end

local string_cache, string_entries = {}, 0

-- The same on Lua strings: `ffi.string` copies (and LuaJIT interns) each payload.
function handler.serve_strings()
    local k = ngx.var.arg_k
    if not k then
        return ngx.exit(ngx.HTTP_BAD_REQUEST)
    end
    local cached = string_cache[k]
    if not cached then
        local buffer, len = read_into_buffer(k)
        if not buffer then
            return ngx.exit(ngx.HTTP_BAD_REQUEST)
        end
        local payload = ffi.string(buffer, len)
        if string_entries >= CACHE_LIMIT then
            string_cache, string_entries = {}, 0
        end
        cached = { payload = payload, body = k .. "=" .. payload }
        string_cache[k] = cached
        string_entries = string_entries + 1
    end
    ngx.header["X-Payload-Length"] = #cached.payload
    ngx.print(cached.body)
end

return handler
