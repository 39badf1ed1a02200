-- The README's "From LuaJIT" example is examples/readme.lua, byte for byte
-- (scripts/lua-tests runs that file, so the README shows code that runs).
local h = require("harness")

local README = os.getenv("DYNATOM_README") or "../../../README.md"
local EXAMPLE = os.getenv("DYNATOM_LUA_EXAMPLE") or "examples/readme.lua"

local function read(path)
  local f = assert(io.open(path, "r"), "cannot open " .. path)
  local text = f:read("*a")
  f:close()
  return text
end

h.run({
  {
    "the README's From LuaJIT block equals examples/readme.lua",
    function()
      local readme = read(README)
      local section = readme:match("\n## From LuaJIT\n(.*)")
      assert(section, "README.md has no '## From LuaJIT' section")
      local block = section:match("```lua\n(.-)```")
      assert(block, "the From LuaJIT section has no ```lua block")
      assert(block == read(EXAMPLE), "README block and examples/readme.lua differ")
    end,
  },
})
