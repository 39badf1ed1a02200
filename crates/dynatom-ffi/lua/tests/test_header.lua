-- The module's ffi.cdef against include/dynatom.h: every dt_ function the header
-- declares must be declared in the module too (so the two cannot drift apart), with the
-- same return type and parameter count; and every status name must agree.
local dynatom = require("dynatom")
local h = require("harness")

local HEADER = os.getenv("DYNATOM_HEADER") or "../include/dynatom.h"

local function read(path)
  local f = assert(io.open(path, "r"), "cannot open " .. path)
  local text = f:read("*a")
  f:close()
  return text
end

-- name -> { ret = "type", params = n } for every `type dt_name(params);` declaration.
local function functions(text)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " ")
  local found = {}
  for ret, name, params in text:gmatch("([%w_%s%*]-)%s*%f[%w_](dt_[%w_]+)%s*(%b())%s*;") do
    ret = ret:gsub("^.*[;}]", ""):gsub("extern", ""):gsub("%s+", " "):gsub("^ ", ""):gsub(" $", "")
    ret = ret:gsub(" %*", "*")
    local inner = params:sub(2, -2):gsub("^%s+", ""):gsub("%s+$", "")
    local n = 0
    if inner ~= "" and inner ~= "void" then
      n = select(2, inner:gsub(",", ",")) + 1
    end
    found[name] = { ret = ret:match("([%w_]+%**)$") or ret, params = n }
  end
  return found
end

local tests = {}
local function test(name, fn)
  tests[#tests + 1] = { name, fn }
end

test("every dt_ function of the header is declared in the module's cdef", function()
  local header = functions(read(HEADER))
  local module = functions(dynatom._CDEF)
  local count = 0
  for name, decl in pairs(header) do
    count = count + 1
    local mine = module[name]
    assert(mine, name .. " is in include/dynatom.h but not in dynatom.lua's cdef")
    assert(mine.params == decl.params, string.format("%s: %d parameters vs %d", name, mine.params, decl.params))
    assert(mine.ret == decl.ret, string.format("%s returns %s in the header, %s in the module", name, decl.ret, mine.ret))
  end
  assert(count >= 50, "found only " .. count .. " functions in the header")
end)

test("every status name of the header has the same value in the module", function()
  local text = read(HEADER)
  local n = 0
  for name, value in text:gmatch("(DT_[%w_]+)%s*=%s*(%d+)") do
    local mine = dynatom._CDEF:match(name .. "%s*=%s*(%d+)")
    assert(mine == value, name .. " = " .. value .. " in the header, " .. tostring(mine) .. " in the module")
    n = n + 1
  end
  assert(n >= 13, "found only " .. n .. " status values")
end)

test("the extractor sees through comments and qualifiers", function()
  local f = functions("/* dt_fake(int); */\nconst uint8_t *dt_a(const dt_str *s, size_t n);\nsize_t dt_b(void);")
  assert(f.dt_a and f.dt_a.params == 2 and f.dt_a.ret == "uint8_t*", tostring(f.dt_a and f.dt_a.ret))
  assert(f.dt_b and f.dt_b.params == 0 and f.dt_b.ret == "size_t")
  assert(f.dt_fake == nil)
end)

h.run(tests)
