-- wrk script for the cache handler: requests random keys item-0 .. item-4999 on the path
-- given after `--`, and checks every body against the rule the handler follows (the key,
-- "=", then the key and ";" repeated 1 + n % 16 times). `done` prints one line that
-- scripts/openresty-tests reads:
--   checked N bad B p50_us P50 p90_us P90 p99_us P99 requests R seconds S
local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

function init(args)
    path = args[1] or "/atoms"
    checked, bad = 0, 0
    math.randomseed(os.time() + tonumber(tostring({}):match("0x(%x+)"), 16) % 100000)
end

function request()
    return wrk.format("GET", path .. "?k=item-" .. math.random(0, 4999))
end

function response(status, headers, body)
    checked = checked + 1
    local key, n, payload = body:match("^(item%-(%d+))=(.*)$")
    if status ~= 200 or not key or payload ~= string.rep(key .. ";", 1 + tonumber(n) % 16) then
        bad = bad + 1
    end
end

function done(summary, latency, requests)
    local all_checked, all_bad = 0, 0
    for _, thread in ipairs(threads) do
        all_checked = all_checked + thread:get("checked")
        all_bad = all_bad + thread:get("bad")
    end
    io.write(string.format(
        "checked %d bad %d p50_us %d p90_us %d p99_us %d requests %d seconds %.3f\n",
        all_checked, all_bad, latency:percentile(50), latency:percentile(90), latency:percentile(99),
        summary.requests, summary.duration / 1e6))
end
