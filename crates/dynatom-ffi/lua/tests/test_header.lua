-- The module's ffi.cdef against include/dynatom.h: every dt_ function the header
-- declares must be declared in the module too (so the two cannot drift apart), with the
-- same return type and parameter count; every status name must agree; and every struct
-- the header defines must have the module's size and field offsets.
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

-- name -> { body = "the struct's fields", fields = { names in order } } for every
-- `typedef struct name { ... } name;` of `text` (comments removed).
local function structs(text)
  text = text:gsub("/%*.-%*/", " "):gsub("//[^\n]*", " ")
  local found = {}
  for name, body in text:gmatch("typedef%s+struct%s+([%w_]+)%s*(%b{})%s*[%w_]+%s*;") do
    local fields = {}
    for statement in body:sub(2, -2):gmatch("([^;]+);") do
      local declarator = statement:gsub("%b[]", ""):gsub("%s+$", "")
      fields[#fields + 1] = declarator:match("([%w_]+)$")
    end
    found[name] = { body = body, fields = fields }
  end
  return found
end

test("every struct of the header has the module's size and field offsets", function()
  local ffi = require("ffi")
  local header = structs(read(HEADER))
  local count = 0
  for name, struct in pairs(header) do
    count = count + 1
    -- The header's own definition, under another name, beside the module's.
    local body = struct.body:gsub("%f[%w_](dt_[%w_]+)", "header_%1")
    ffi.cdef(string.format("typedef struct header_%s %s header_%s;", name, body, name))
    local theirs, mine = ffi.typeof("header_" .. name), ffi.typeof(name)
    assert(ffi.sizeof(mine) == ffi.sizeof(theirs),
      string.format("%s: %d bytes in the module, %d in the header", name, ffi.sizeof(mine), ffi.sizeof(theirs)))
    assert(#struct.fields > 0, name .. ": no field found")
    for _, field in ipairs(struct.fields) do
      local at_mine, at_theirs = ffi.offsetof(mine, field), ffi.offsetof(theirs, field)
      assert(at_mine == at_theirs,
        string.format("%s.%s: at %s in the module, %s in the header", name, field, tostring(at_mine), tostring(at_theirs)))
    end
  end
  assert(header.dt_memory_report and #header.dt_memory_report.fields >= 15, "the memory report's fields were not found")
  assert(count >= 4, "found only " .. count .. " structs in the header")
end)

test("the struct extractor finds fields through comments and arrays", function()
  local s = structs("typedef struct dt_x {\n  /** a */ uint64_t a; // b;\n  const uint8_t *p;\n  char tail[4];\n} dt_x;")
  assert(s.dt_x, "dt_x not found")
  assert(table.concat(s.dt_x.fields, ",") == "a,p,tail", table.concat(s.dt_x.fields, ","))
end)

test("the extractor sees through comments and qualifiers", function()
  local f = functions("/* dt_fake(int); */\nconst uint8_t *dt_a(const dt_str *s, size_t n);\nsize_t dt_b(void);")
  assert(f.dt_a and f.dt_a.params == 2 and f.dt_a.ret == "uint8_t*", tostring(f.dt_a and f.dt_a.ret))
  assert(f.dt_b and f.dt_b.params == 0 and f.dt_b.ret == "size_t")
  assert(f.dt_fake == nil)
end)

h.run(tests)
