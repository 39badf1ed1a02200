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

-- A per-worker cache that starts over past CACHE_LIMIT entries (releasing what it held).
local function new_cache()
    return { entries = {}, count = 0 }
end

local function remember(cache, key, value)
    if cache.count >= CACHE_LIMIT then
        cache.entries, cache.count = {}, 0
    end
    cache.entries[key] = value
    cache.count = cache.count + 1
    return value
end

-- Serves the request's key from `cache` (under `key_of(k)`), making the entry with
-- `make(k, buffer, len)` from the payload's buffer on a miss.
local function serve(cache, key_of, make)
    local k = ngx.var.arg_k
    if not k then
        return ngx.exit(ngx.HTTP_BAD_REQUEST)
    end
    local key = key_of(k)
    local cached = cache.entries[key]
    if not cached then
        local buffer, len = read_into_buffer(k)
        if not buffer then
            return ngx.exit(ngx.HTTP_BAD_REQUEST)
        end
        cached = remember(cache, key, make(key, buffer, len))
    end
    ngx.header["X-Payload-Length"] = #cached.payload
    ngx.print(tostring(cached.body))
end

local atom_cache = new_cache()

-- Body built once per key with a builder, from the key's atom and the wrapped buffer; the
-- cache holds the wrapped payload too, so its buffer stays anchored while cached. The body
-- goes out as a Lua string: ngx.print takes no cdata.
function handler.serve_atoms()
    serve(atom_cache, dynatom.atom, function(key, buffer, len)
        local payload = dynatom.wrap(buffer, len)
        local body = dynatom.builder(#key + 1 + len)
        body:put(key)
        body:put("=")
        body:put(payload)
        return { payload = payload, body = body:finish() }
    end)
end

local string_cache = new_cache()

-- The same on Lua strings: `ffi.string` copies (and LuaJIT interns) each payload.
function handler.serve_strings()
    serve(string_cache, tostring, function(key, buffer, len)
        local payload = ffi.string(buffer, len)
        return { payload = payload, body = key .. "=" .. payload }
    end)
end

return handler
