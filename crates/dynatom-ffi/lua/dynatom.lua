-- dynatom for LuaJIT: byte strings that are not interned until you ask, and atoms that
-- compare in one word, through the C library `libdynatom_ffi` (crates/dynatom-ffi).
--
--   local dynatom = require "dynatom"
--   local body = dynatom.str(data)        -- one allocation and a copy: no hash, no table
--   local name = dynatom.atom("host")     -- interned in dynatom's global table
--   local t = { [name] = "value" }        -- an atom is its own table key: one object per atom
--   assert(t[dynatom.atom("host")] == "value")
--   local u = { [name:key()] = "value" }  -- faster: a small integer per atom (see Keys)
--   dynatom.put(u, name, "value")         -- the same, and u keeps `name` alive
--
-- The library is loaded from $DYNATOM_LIB when set, else by `ffi.load("dynatom_ffi")`
-- (the system's search path: LD_LIBRARY_PATH, ld.so.cache).
--
-- Objects
--   dynatom.str(s) / dynatom.str(ptr, len)  a `dt_str` cdata: 16 bytes, strings of up to
--       15 bytes live inside it, longer ones own one reference to a heap block.
--   dynatom.atom(s) / dynatom.atom(ptr, len) the atom's object (`dtlua_atom`, 16 bytes:
--       the library's 8-byte `dt_atom` word `w`, interned, the atom's key id `id` and the
--       claims on the object `claims`; see "One object per atom").
--   A str is not a table key for its bytes (every str is its own object, and LuaJIT asks
--   no metamethod of a key, so `t[str]` cannot even raise): key by `s:intern()`.
--   #x, x == y (bytes; atoms compare their word), x .. y, x:sub(i, j) (O(1), shares the
--   block), x:intern(), x:clone(), x:release(), x:data() (pointer and length, no copy).
--   tostring(x) makes a Lua string: that is a copy AND an intern in LuaJIT's own string
--   table (a hash and a chain walk with memcmp, the cost dynatom exists to avoid), so keep
--   it for the edges where a Lua API insists on a string.
--
-- One object per atom
--   LuaJIT keys a table by a cdata's identity, so two objects of one atom would be two
--   keys and `t[dynatom.atom(text)]` would miss `t[a]` without a word. So the module
--   hands out one object per live atom: every call that makes or finds an atom
--   (dynatom.atom, lookup, s:intern(), static_atom, static_lookup, tbl:intern, tbl:lookup,
--   a:clone()) returns the atom's object when one is alive (found through the key
--   registry below; the library's new reference is given back at once, and nothing is
--   allocated) and makes it otherwise. Equal atoms are then one Lua value: `t[a]` finds
--   any equal atom, and a table keeps the atoms it is keyed by alive. An object that
--   nothing references is collected as any other (its entry is weak). Each of those calls
--   claims the object once; `a:release()` gives one claim back, and the last claim's
--   release gives the library's reference back now and releases the object for every
--   holder (later uses raise "released", and the atom's next making gets a new object).
--   A claim that is never given back (a dropped handle) only leaves the freeing to the
--   collector. A loop making 8 header names over and over, their objects alive: 37-55 ns
--   a making, where a new object per making cost 650-890 ns with its finalisation (a
--   shared 2-core machine, best of 5); a making of a new atom costs what it did.
--
-- Keys
--   a:key() is a small positive integer naming the atom, for `t[a:key()]`: equal atoms
--   have equal keys, different atoms different keys. Every atom object the module hands
--   out carries it (the `id` field), so key() is one field load (no allocation, no
--   library call). The ids come from a registry in the module: the atom's word -> id,
--   with a count of the live Lua handles (atom objects: the atom's object, put's pins)
--   that carry it. Making a handle looks the word up (or assigns the next free id); the
--   last handle's release() or finaliser removes the entry and frees the id, which a
--   later atom may then get (freed ids are reused first, so ids stay within 1 .. the most
--   distinct atoms held at once, and a table keyed by them keeps its keys in its array
--   part: 0.86-1.22x the cost of Lua string keys in BENCHMARKS.md). So a key names its
--   atom while some Lua handle of that atom is alive, for short (inline) atoms and heap
--   atoms alike; a key holds nothing alive itself. A table keyed by key() must therefore
--   keep its atoms alive while their keys are in it: store them with `dynatom.put(t,
--   atom, value)`, which sets t[atom:key()] = value and pins a handle of its own on the atom to t
--   (released when put(t, atom, nil) removes the key, or when t is collected), or keep
--   the atoms yourself (in the values, or in a list). Reading is a plain `t[a:key()]`, or
--   `t[dynatom.key_of(ptr, len)]` straight from bytes (no atom object made; nil, which
--   matches no key, when no Lua handle holds that atom). `dynatom.key_stats()` shows the
--   registry. What a lookup costs against a Lua string key is in BENCHMARKS.md
--   ("header-keyed table").
--
-- Static atoms: a set registered from C (the register function of a header written by
-- dt-static-header) or with dynatom.register_static_set gives its texts fixed atoms.
-- dynatom.static_atom(set, name) finds one by its entry's name ("CONTENT_TYPE"),
-- dynatom.static_lookup(set, bytes) by text without interning; either is the same atom as
-- dynatom.atom(text), with the same key(), so it keys a table like any atom.
--
-- Release: every handle is released by its `__gc` metamethod; `x:release()` releases
-- early (a released handle raises "released" errors; the later finaliser is harmless; an
-- atom's object is released by its last claim's release, see "One object per atom").
-- A handle is a reference object: `local y = x` is the same handle. Never copy one with
-- `ffi.new("dt_str", x)` or by storing it into a C array: the copy would not own a
-- reference (nor, for an atom, be counted as a holder of its key id; use `x:clone()`).
--
-- GC pressure: LuaJIT's collector sees a 16-byte cdata, not the megabyte block behind it
-- (LuaJIT issue 872, the same problem `string.buffer` users meet). The module counts the
-- bytes it allocates outside the Lua heap and, every 64 KiB of them, advances the
-- collector by an incremental step sized so that a whole cycle finishes within a budget of
-- external bytes: max(16 MiB, a quarter of the external bytes believed live) (so garbage
-- adds at most about a quarter to the live bytes before it is freed). It steps only while
-- the collector lags (no cycle finished, whoever drove it, for half a budget), so a
-- program whose own Lua allocation keeps the collector cycling pays nothing extra. No
-- creation pays a whole collection; should the steps fall behind by two budgets, one full collection
-- restores the bound. A loop that creates and drops 1 MiB strings stays within a few tens
-- of MiB.
-- `dynatom.gc_stats()` shows the counters; `dynatom.set_gc_budget(bytes)` sets the floor.
--
-- Large strs and glibc: a freed 1 MiB block would go back to the system and the next one
-- be a fresh mmap whose pages all fault in again (most of a 1 MiB creation's time on a
-- VM). The library keeps freed blocks of 32 KiB and more for reuse, bounded (the module
-- sizes the bound to half the live external bytes, at least 64 MiB; `dynatom.set_block_cache_limit(bytes)` pins it,
-- `dynatom.trim_block_cache()` empties it). `dynatom.retain_freed_memory(bytes)` also
-- opts the whole process's malloc into reusing freed memory.
--
-- Wrapped memory: dynatom.wrap(cdata, len [, on_release]) (and wrap_utf8, which checks
-- the bytes are UTF-8) makes a str over memory the program owns (an FFI buffer) without
-- copying it; the module anchors the cdata (in a table, under an integer id) while any
-- handle may read it. The last handle's release may happen in a finaliser, in compiled
-- code or on another thread, where calling into Lua is not allowed, so it only files the
-- id on the library's release queue (dt_release_queue_push, in C); the module drains
-- the queue, unanchors the cdata and calls on_release(cdata) at the start of the next
-- dynatom.wrap or wrap_utf8 and in dynatom.collect_releases(), never elsewhere. The
-- queue is one per process: each Lua state drains only the ids filed under its own tag
-- (dt_release_queue_new_tag). Wrapped bytes count as external memory for the
-- collector's pacing, as a str's do: the anchored cdata cannot be collected before the
-- str is, so a str the collector reaches late holds its whole buffer (uncounted, 1 MiB
-- values peaked at 271 MiB resident where counted ones stayed at 31 MiB).
--
-- Errors from the library raise Lua errors carrying `dt_status_message`'s text.
local ffi = require("ffi")
local bit = require("bit")

local band = bit.band
local tonumber, type, error, select = tonumber, type, error, select
local ffi_string, ffi_copy, ffi_istype = ffi.string, ffi.copy, ffi.istype

-- The declarations of include/dynatom.h (the Lua tests check every dt_ function of the
-- header is declared here, so the two cannot drift apart).
local CDEF = [[
typedef struct dt_str { uint64_t w0; uint64_t w1; } dt_str;
typedef struct dt_atom { uint64_t w; } dt_atom;
typedef struct dt_table dt_table;
typedef struct dt_builder dt_builder;
typedef struct dt_pieces dt_pieces;
typedef struct dt_interner dt_interner;
typedef enum dt_status {
  DT_OK = 0, DT_ERR_NULL = 1, DT_ERR_TOO_LONG = 2, DT_ERR_ALLOC = 3, DT_ERR_RANGE = 4,
  DT_ERR_UTF8 = 5, DT_ERR_INVALID_HANDLE = 6, DT_ERR_RELEASED = 7, DT_ERR_NOT_FOUND = 8,
  DT_ERR_IO = 9, DT_ERR_LIMIT = 10, DT_ERR_INVALID_SYMBOL = 11, DT_ERR_PANIC = 12,
  DT_ERR_WORD_MISMATCH = 13, DT_ERR_DUPLICATE = 14, DT_ERR_INTERNED_BEFORE = 15
} dt_status;
typedef struct dt_static_entry {
  const uint8_t *name; size_t name_len; const uint8_t *text; size_t text_len; uint64_t word;
} dt_static_entry;
typedef struct dt_memory_report {
  size_t atoms; size_t unused_atoms; size_t unused_bytes; size_t unused_bytes_limit;
  size_t table_bytes; size_t header_bytes; size_t char_bytes; size_t static_char_bytes;
  size_t static_atoms; size_t declared_atoms;
  int64_t slop_bytes;
  uint64_t locked_lookups; uint64_t locked_hits; uint64_t locked_misses;
  uint64_t inserts; uint64_t removals;
  size_t permanent_atoms; size_t permanent_bytes;
} dt_memory_report;

typedef void (*dt_release_fn)(void *ctx);

const char *dt_status_message(dt_status s);

dt_status dt_str_from_bytes(const uint8_t *p, size_t len, dt_str *out);
dt_status dt_str_from_external(const uint8_t *p, size_t len, dt_release_fn release, void *ctx, dt_str *out);
dt_status dt_str_from_external_utf8(const uint8_t *p, size_t len, dt_release_fn release, void *ctx, dt_str *out);
dt_status dt_str_empty(dt_str *out);
dt_status dt_str_clone(const dt_str *s, dt_str *out);
dt_status dt_str_release(dt_str *s);
dt_status dt_str_bytes(const dt_str *s, const uint8_t **data, size_t *len);
size_t dt_str_len(const dt_str *s);
dt_status dt_str_slice(const dt_str *s, size_t start, size_t end, dt_str *out);
dt_status dt_str_concat(const dt_str *parts, size_t count, dt_str *out);
int dt_str_equal(const dt_str *a, const dt_str *b);
int dt_str_is_utf8(const dt_str *s);

dt_status dt_atom_clone(const dt_atom *a, dt_atom *out);
dt_status dt_atom_release(dt_atom *a);
int dt_atom_equal(const dt_atom *a, const dt_atom *b);
uint64_t dt_atom_hash(const dt_atom *a);
int dt_atom_make_permanent(const dt_atom *a);
dt_status dt_atom_bytes(const dt_atom *a, const uint8_t **data, size_t *len);
dt_status dt_atom_to_str(const dt_atom *a, dt_str *out);

void dt_release_queue_push(void *ctx);
dt_status dt_release_queue_new_tag(uint64_t *tag);
dt_status dt_release_queue_drain(uint64_t tag, uint64_t *ids, size_t cap, size_t *count);

size_t dt_block_cache_set_limit(size_t bytes);
size_t dt_block_cache_trim(void);
size_t dt_block_cache_bytes(void);

dt_table *dt_table_global(void);
dt_status dt_table_new(dt_table **out);
dt_status dt_table_free(dt_table *t);
dt_status dt_table_intern_bytes(dt_table *t, const uint8_t *p, size_t len, dt_atom *out);
dt_status dt_table_intern_str(dt_table *t, const dt_str *s, dt_atom *out);
dt_status dt_table_lookup_bytes(dt_table *t, const uint8_t *p, size_t len, dt_atom *out);
dt_status dt_table_contains_bytes(dt_table *t, const uint8_t *p, size_t len);
size_t dt_table_len(const dt_table *t);
dt_status dt_table_memory_report(const dt_table *t, dt_memory_report *out);
dt_status dt_table_memory_report_json(const dt_table *t, dt_str *out);

dt_status dt_static_set_register(const uint8_t *set, size_t set_len, const dt_static_entry *entries, size_t count);
dt_status dt_static_set_lookup_name(const uint8_t *set, size_t set_len, const uint8_t *name, size_t name_len, dt_atom *out);
dt_status dt_static_set_lookup_bytes(const uint8_t *set, size_t set_len, const uint8_t *data, size_t len, dt_atom *out);

dt_status dt_builder_new(size_t capacity, dt_builder **out);
dt_status dt_builder_append_bytes(dt_builder *b, const uint8_t *p, size_t len);
dt_status dt_builder_append_str(dt_builder *b, const dt_str *s);
size_t dt_builder_len(const dt_builder *b);
dt_status dt_builder_finish(dt_builder *b, dt_str *out);
dt_status dt_builder_free(dt_builder *b);

dt_status dt_pieces_new(dt_pieces **out);
dt_status dt_pieces_append_str(dt_pieces *p, const dt_str *s);
dt_status dt_pieces_append_atom(dt_pieces *p, const dt_atom *a);
dt_status dt_pieces_append_bytes(dt_pieces *p, const uint8_t *data, size_t len);
size_t dt_pieces_len(const dt_pieces *p);
size_t dt_pieces_count(const dt_pieces *p);
dt_status dt_pieces_writev(const dt_pieces *p, int fd, size_t *written);
dt_status dt_pieces_to_str(const dt_pieces *p, dt_str *out);
dt_status dt_pieces_free(dt_pieces *p);

dt_status dt_interner_new(dt_interner **out);
dt_status dt_interner_new_with_limits(size_t max_symbols, size_t max_bytes, dt_interner **out);
dt_status dt_interner_free(dt_interner *i);
dt_status dt_interner_intern_bytes(dt_interner *i, const uint8_t *p, size_t len, uint32_t *sym);
dt_status dt_interner_lookup_bytes(const dt_interner *i, const uint8_t *p, size_t len, uint32_t *sym);
dt_status dt_interner_resolve(const dt_interner *i, uint32_t sym, const uint8_t **data, size_t *len);
size_t dt_interner_len(const dt_interner *i);

/* Only in a library built with the test-hooks feature (the test suites' build): declared
   here so the cdef matches the header; resolving one in the production library fails. */
void dt_test_fail_allocations(size_t min_size);
dt_status dt_test_panic(void);
]]
ffi.cdef(CDEF)

-- The atom objects the module hands to Lua: the library's dt_atom word (`w`, so the C
-- functions read and write it through a pointer to the object), the key id (`id`, see
-- "Keys"; 0 while the object holds no atom) and the claims on the object (`claims`, see
-- "One object per atom"), in what would otherwise be the struct's padding. The library's
-- functions that take an atom are declared a second time for this type, under the same
-- symbols, so calls pass the object itself (no cast, no reference cdata in the
-- interpreter). The functions that make an atom write it to a scratch dt_atom instead:
-- most makings find the atom's object already made, and then allocate nothing.
ffi.cdef([[
typedef struct dtlua_atom { uint64_t w; int32_t id; int32_t claims; } dtlua_atom;
dt_status dtlua_atom_clone(const dtlua_atom *a, dtlua_atom *out) __asm__("dt_atom_clone");
dt_status dtlua_atom_release(dtlua_atom *a) __asm__("dt_atom_release");
uint64_t dtlua_atom_hash(const dtlua_atom *a) __asm__("dt_atom_hash");
int dtlua_atom_make_permanent(const dtlua_atom *a) __asm__("dt_atom_make_permanent");
dt_status dtlua_atom_bytes(const dtlua_atom *a, const uint8_t **data, size_t *len) __asm__("dt_atom_bytes");
dt_status dtlua_atom_to_str(const dtlua_atom *a, dt_str *out) __asm__("dt_atom_to_str");
dt_status dtlua_pieces_append_atom(dt_pieces *p, const dtlua_atom *a) __asm__("dt_pieces_append_atom");
]])

local C = ffi.load(os.getenv("DYNATOM_LIB") or "dynatom_ffi")
-- The global table: dynatom.atom, dynatom.lookup, dynatom.contains, x:intern() and key_of use it.
local GLOBAL = C.dt_table_global()

local M = { _CDEF = CDEF, C = C }

-- Sizes the library keeps inside the handle (no heap block, nothing to account).
local STR_INLINE_MAX = 15
-- Concatenations up to this size are assembled in a scratch buffer and copied once
-- (one library call); longer ones go through a builder (one copy, no scratch pass).
local SCRATCH_MAX = 1024

local scratch = ffi.new("uint8_t[?]", SCRATCH_MAX)
local out_data = ffi.new("const uint8_t *[1]")
local out_len = ffi.new("size_t[1]")
local out_builder = ffi.new("dt_builder *[1]")
local out_pieces = ffi.new("dt_pieces *[1]")
local out_table = ffi.new("dt_table *[1]")
local out_written = ffi.new("size_t[1]")

local function fail(status, level)
  error("dynatom: " .. ffi_string(C.dt_status_message(status)), (level or 1) + 1)
end

-- External-memory accounting (see "GC pressure" above). Module-level upvalues so the
-- JIT keeps the hot path to two additions and a compare.
local GC_FLOOR_DEFAULT = 16 * 1024 * 1024
-- External bytes between two incremental steps: small enough that no step does much,
-- large enough that small strs do not call into the collector each time. A step also
-- runs the finalisers that are due, about 20 per KiB of step, so the quantum sets the
-- longest pause a creation of a mid-sized str takes. The OpenResty cache workload with
-- 64 KiB values (luajit_cache.lua, 3,000 creations, 5 interleaved runs, thread CPU time):
-- at 256 KiB, p99 of the last 1,000 creations 51-66 us (median 56); at 64 KiB 22-66 us
-- (median 26; Lua strings 39-57, median 46), the mean unchanged (13.1 us over all 3,000).
local GC_QUANTUM = 64 * 1024
local gc_floor = GC_FLOOR_DEFAULT
local gc_budget = GC_FLOOR_DEFAULT
local gc_pending = 0 -- external bytes created since the last step
local gc_since_cycle = 0 -- external bytes created since the last finished cycle
local gc_created = 0 -- external bytes created, ever
local gc_freed = 0 -- external bytes whose handles were finalised or released, ever
local gc_collections = 0 -- cycles finished under pressure (stepped or forced)
local gc_steps = 0
local gc_forced = 0

-- The library can keep freed blocks of 32 KiB and more for reuse (off by default in the
-- library, where a lone Rust builder grows faster in place by realloc; the module turns it on). A
-- program that drops a batch of large strs (a cache evicting a third of its entries) frees
-- them in one cycle and then makes as many new ones; unless set by hand, the module lets
-- the cache hold max(64 MiB, half the external bytes believed live), so such a batch is
-- reused instead of faulting fresh pages in, and the memory held for reuse stays within
-- half of what the program keeps live.
local BLOCK_CACHE_DEFAULT = 64 * 1024 * 1024
local block_cache_auto = true
local block_cache_limit = BLOCK_CACHE_DEFAULT
C.dt_block_cache_set_limit(block_cache_limit)

local function cycle_finished()
  gc_collections = gc_collections + 1
  gc_since_cycle = 0
  local live = gc_created - gc_freed
  if live < 0 then
    live = 0
  end
  gc_budget = live / 4
  if gc_budget < gc_floor then
    gc_budget = gc_floor
  end
  if block_cache_auto then
    local limit = math.max(BLOCK_CACHE_DEFAULT, math.floor(live / 2))
    if limit ~= block_cache_limit then
      block_cache_limit = limit
      C.dt_block_cache_set_limit(limit)
    end
  end
end

-- LuaJIT's `collectgarbage("step", k)` does the collector work it would do for k KiB of
-- Lua allocation, and a whole cycle costs about as much work as the Lua heap's size; so
-- stepping by heap * pending / budget finishes a cycle within about one budget of
-- external bytes, with each creation paying only its share (finalisers included: the
-- collector runs them a few per step). If the cycles still lag (a heap growing fast), a
-- full collection after two budgets keeps the bound.
local gc_work = 0 -- KiB of collector work owed, carried until it reaches a whole KiB
-- A sentinel finalised once per finished cycle, whoever drove it: a program that
-- allocates Lua memory of its own keeps the collector cycling without our steps.
local gc_cycles_seen = 0 -- finished cycles, counted by the sentinel
local gc_cycles_known = 0 -- the count at the last check
local function arm_sentinel()
  local sentinel = newproxy(true)
  getmetatable(sentinel).__gc = function()
    gc_cycles_seen = gc_cycles_seen + 1
    arm_sentinel()
  end
end
arm_sentinel()

local function step_for_pressure()
  if gc_cycles_seen ~= gc_cycles_known then
    gc_cycles_known = gc_cycles_seen
    cycle_finished()
  end
  -- Step only while the collector lags: no cycle has finished for half a budget.
  if gc_since_cycle < gc_budget / 2 then
    gc_pending = 0
    return
  end
  gc_work = gc_work + collectgarbage("count") * 2 * gc_pending / gc_budget
  gc_pending = 0
  if gc_work >= 1 then
    local k = math.floor(gc_work)
    gc_work = gc_work - k
    gc_steps = gc_steps + 1
    if collectgarbage("step", k) then
      gc_cycles_known = gc_cycles_seen -- the sentinel saw this cycle too
      cycle_finished()
      return
    end
  end
  if gc_since_cycle > 2 * gc_budget then
    collectgarbage("collect") -- runs the finalisers, which count what they free
    gc_cycles_known = gc_cycles_seen
    gc_forced = gc_forced + 1
    cycle_finished()
  end
end

local function account(n)
  if n > STR_INLINE_MAX then
    gc_created = gc_created + n
    gc_pending = gc_pending + n
    gc_since_cycle = gc_since_cycle + n
    if gc_pending >= GC_QUANTUM then
      step_for_pressure()
    end
  end
end

-- Slices share their parent's block, so counting their length as freed overestimates
-- what was freed; the error only makes collections a little more frequent.
local function release_str(s)
  local n = tonumber(C.dt_str_len(s))
  if C.dt_str_release(s) == 0 and n > STR_INLINE_MAX then
    gc_freed = gc_freed + n
  end
end

local Str, Atom -- ctypes, set below

-- The key registry (see "Keys" at the top). Every atom object the module hands out
-- carries an id: a small positive integer, the same for every live object of one atom
-- (one word) and different for different live atoms. The registry maps the word, as a
-- Lua value, to its id and counts per id the live objects that carry it; the last one's
-- finaliser or release() removes the entry and frees the id for reuse (most recently
-- freed first), so ids stay within 1 .. the most distinct atoms held at once, and a
-- table keyed by them mostly lives in its array part.
local id_of = {} -- word value -> id
local word_of = {} -- id -> word value (false while the id is free)
-- id -> the atom's object (see "One object per atom"). Weak values: an object nobody
-- references is collected as before, and the collector clears its entry before its
-- finaliser runs, so a later making of the atom gets a new object, never a finalised one.
local object_of = setmetatable({}, { __mode = "v" })
local holders = {} -- id -> live atom objects carrying it
local free_ids = {} -- a stack of freed ids
local free_top = 0
local id_count = 0 -- ids ever handed out: the largest id

local NAN_EXPONENT = 0x7FF0000000000000ULL
local WORD_ROTATION = 4
-- Where word_value turns a rotated word into a double. One union, written and read
-- through its own fields: LuaJIT's alias analysis sees one base and offset, so under the
-- JIT the read is never forwarded past or hoisted above the write (the Lua tests compare
-- keys of atoms made by compiled code with the interpreter's).
local word_bits = ffi.new("union { uint64_t word; double number; }")

-- The word as a Lua value that equals only itself: rotated right by 4 bits and read as a
-- double, bit for bit (a heap atom's word is a 16-byte-aligned address; rotating its
-- zero low bits to the top spreads LuaJIT's number hash), except the patterns that
-- would read as NaN (only 7-byte inline atoms ending in 0xff), which become a string.
-- Integer tests only: a NaN pattern must never be loaded as a double (LuaJIT NaN-tags its
-- values, so a foreign NaN would read as another type).
local function word_value(w)
  local rotated = bit.ror(w, WORD_ROTATION)
  if band(rotated, NAN_EXPONENT) == NAN_EXPONENT then
    return tostring(w) -- "<digits>ULL": rare, never a number
  end
  word_bits.word = rotated
  return word_bits.number
end

-- Gives a freshly filled atom object its id (the word's, or a new one); `v` is its word's
-- value when the caller has it.
local function hold(a, v)
  v = v or word_value(a.w)
  local id = id_of[v]
  if id then
    holders[id] = holders[id] + 1
  else
    if free_top > 0 then
      id = free_ids[free_top]
      free_ids[free_top] = nil
      free_top = free_top - 1
    else
      id_count = id_count + 1
      id = id_count
    end
    id_of[v] = id
    word_of[id] = v
    holders[id] = 1
  end
  a.id = id
end

-- Claims counted on one object: past this the count sticks, and only the collector ends
-- the object (a program that makes one atom 2^31 times without releasing it).
local CLAIMS_MAX = 2147483647

-- One more claim on an existing object (none past CLAIMS_MAX: the count sticks there).
local function claim(a)
  local claims = a.claims
  if claims < CLAIMS_MAX then
    a.claims = claims + 1
  end
  return a
end

-- Where the functions that make an atom receive the library's reference.
local fresh = ffi.new("dt_atom[1]")

-- The object of the atom whose new reference the library just wrote to `fresh`: the live
-- object of that atom, claimed once more, when there is one (the new reference is given
-- back: the object holds one already), else a new object that holds the reference.
local function adopt()
  local w = fresh[0].w
  local v = word_value(w)
  local id = id_of[v]
  if id then
    local a = object_of[id]
    if a then
      C.dt_atom_release(fresh)
      return claim(a)
    end
  end
  local a = Atom()
  a.w = w
  a.claims = 1
  hold(a, v)
  object_of[a.id] = a
  return a
end

-- One object carrying `id` is gone (finalised or released).
local function unhold(id)
  local n = holders[id] - 1
  holders[id] = n
  if n == 0 then
    id_of[word_of[id]] = nil
    word_of[id] = false
    free_top = free_top + 1
    free_ids[free_top] = id
  end
end

-- Pointer and length of anything that can take part in a string: a Lua string, a
-- number (as Lua would print it), a dt_str or a dt_atom. For inline handles the pointer
-- points into the handle itself, which the caller keeps alive.
local function bytes_of(v)
  local tv = type(v)
  if tv == "string" then
    return v, #v
  elseif tv == "number" then
    local s = tostring(v)
    return s, #s
  elseif ffi_istype(Str, v) then
    local st = C.dt_str_bytes(v, out_data, out_len)
    if st ~= 0 then
      fail(st, 3)
    end
    return out_data[0], tonumber(out_len[0])
  elseif ffi_istype(Atom, v) then
    local st = C.dtlua_atom_bytes(v, out_data, out_len)
    if st ~= 0 then
      fail(st, 3)
    end
    return out_data[0], tonumber(out_len[0])
  end
  error("dynatom: expected a string, number, dynatom str or atom, got " .. tv, 3)
end

local function new_str(p, n)
  local out = Str()
  local st = C.dt_str_from_bytes(p, n, out)
  if st ~= 0 then
    fail(st, 3)
  end
  account(n)
  return out
end

--- dynatom.str(s) copies a Lua string; dynatom.str(ptr, len) copies `len` bytes at a
--- cdata pointer (e.g. a socket buffer). Neither hashes nor interns.
function M.str(s, len)
  if len ~= nil then
    return new_str(s, len)
  end
  if type(s) == "string" then
    return new_str(s, #s)
  end
  local p, n = bytes_of(s)
  return new_str(p, n)
end

--- dynatom.atom(s) / dynatom.atom(ptr, len): the atom of these bytes in the global table.
function M.atom(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local st = C.dt_table_intern_bytes(GLOBAL, p, n, fresh)
  if st ~= 0 then
    fail(st, 2)
  end
  return adopt()
end

-- The object of the atom a lookup wrote to `fresh`, or nil when the library found none
-- (DT_ERR_NOT_FOUND); other statuses raise in the caller's caller.
local function adopted_or_nil(st)
  if st == 8 then -- DT_ERR_NOT_FOUND
    return nil
  elseif st ~= 0 then
    fail(st, 3)
  end
  return adopt()
end

--- dynatom.lookup(s): the atom of these bytes if one exists, else nil; never interns.
function M.lookup(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local st = C.dt_table_lookup_bytes(GLOBAL, p, n, fresh)
  local atom = adopted_or_nil(st) -- not a tail call: errors name our caller
  return atom
end

-- Whether an atom of bytes `p`/`n` is in use in table `t` (no atom made, no reference
-- taken): the status of dt_table_contains_bytes as a boolean.
local function table_contains(t, p, n)
  local st = C.dt_table_contains_bytes(t, p, n)
  if st == 8 then -- DT_ERR_NOT_FOUND
    return false
  elseif st ~= 0 then
    fail(st, 3)
  end
  return true
end

--- dynatom.contains(s): whether an atom of these bytes is in use, asked without making
--- one (no reference taken); true for up to 7 bytes.
function M.contains(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local found = table_contains(GLOBAL, p, n) -- not a tail call: errors name our caller
  return found
end

-- Static atoms (see "Static atoms" at the top).
local function set_name(set)
  if type(set) ~= "string" then
    error("dynatom: a static set's name is a string, got " .. type(set), 3)
  end
  return set
end

--- dynatom.register_static_set(set, entries): registers the static set `set`, as the
--- register function of a C header written by dt-static-header does: `entries` is a list
--- of { name, text, word } (or { name = , text = , word = }), `word` the header's constant
--- for the text as a uint64_t cdata (0x...ULL). Call it before any of the texts is first
--- interned. Raises the library's error: a word that is not this library's (the header
--- came from another version), a text or name twice, a text interned before (the set is
--- registered all the same).
function M.register_static_set(set, entries)
  set = set_name(set)
  local count = #entries
  local list = ffi.new("dt_static_entry[?]", count)
  for k = 1, count do
    local e = entries[k]
    local name, text, word = e[1] or e.name, e[2] or e.text, e[3] or e.word
    if type(name) ~= "string" or type(text) ~= "string" or word == nil then
      error("dynatom: static entry " .. k .. " needs a name and a text (strings) and a word", 2)
    end
    local c = list[k - 1]
    c.name, c.name_len = name, #name -- the strings stay alive in `entries` during the call
    c.text, c.text_len = text, #text
    c.word = word
  end
  local st = C.dt_static_set_register(set, #set, list, count)
  if st ~= 0 then
    fail(st, 2)
  end
end

--- dynatom.static_atom(set, name): the static atom named `name` in the registered set
--- `set` (a C header's entry name, e.g. "CONTENT_TYPE"), or nil. The same atom as
--- dynatom.atom(text), with the same key(): look it up once and keep it.
function M.static_atom(set, name)
  set = set_name(set)
  if type(name) ~= "string" then
    error("dynatom: a static atom's name is a string, got " .. type(name), 2)
  end
  local st = C.dt_static_set_lookup_name(set, #set, name, #name, fresh)
  local atom = adopted_or_nil(st) -- not a tail call: errors name our caller
  return atom
end

--- dynatom.static_lookup(set, bytes) / dynatom.static_lookup(set, ptr, len): the static
--- atom of these bytes if the registered set `set` declares them, else nil; never interns.
function M.static_lookup(set, s, len)
  set = set_name(set)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local st = C.dt_static_set_lookup_bytes(set, #set, p, n, fresh)
  local atom = adopted_or_nil(st) -- not a tail call: errors name our caller
  return atom
end

-- Joins the parts in one allocation: a scratch copy plus one library call when small,
-- a builder sized exactly (one copy per part, finish without copy) otherwise.
local function join(n, ...)
  local count = select("#", ...)
  local total = 0
  for k = 1, count do
    local _, len = bytes_of((select(k, ...)))
    total = total + len
  end
  local out = Str()
  if total <= SCRATCH_MAX then
    local at = 0
    for k = 1, count do
      local p, len = bytes_of((select(k, ...)))
      ffi_copy(scratch + at, p, len)
      at = at + len
    end
    local st = C.dt_str_from_bytes(scratch, total, out)
    if st ~= 0 then
      fail(st, n)
    end
  else
    local st = C.dt_builder_new(total, out_builder)
    if st ~= 0 then
      fail(st, n)
    end
    local b = out_builder[0]
    for k = 1, count do
      local p, len = bytes_of((select(k, ...)))
      st = C.dt_builder_append_bytes(b, p, len)
      if st ~= 0 then
        C.dt_builder_free(b)
        fail(st, n)
      end
    end
    st = C.dt_builder_finish(b, out)
    if st ~= 0 then
      fail(st, n)
    end
  end
  account(total)
  return out
end

-- The two-part case of `..`, written out so the JIT sees no vararg.
local function concat2(a, b)
  local pa, na = bytes_of(a)
  local pb, nb = bytes_of(b)
  local total = na + nb
  local out = Str()
  if total <= SCRATCH_MAX then
    ffi_copy(scratch, pa, na)
    ffi_copy(scratch + na, pb, nb)
    local st = C.dt_str_from_bytes(scratch, total, out)
    if st ~= 0 then
      fail(st, 2)
    end
  else
    local st = C.dt_builder_new(total, out_builder)
    if st ~= 0 then
      fail(st, 2)
    end
    local bld = out_builder[0]
    st = C.dt_builder_append_bytes(bld, pa, na)
    if st == 0 then
      st = C.dt_builder_append_bytes(bld, pb, nb)
    end
    if st ~= 0 then
      C.dt_builder_free(bld)
      fail(st, 2)
    end
    st = C.dt_builder_finish(bld, out)
    if st ~= 0 then
      fail(st, 2)
    end
  end
  account(total)
  return out
end

--- dynatom.concat(...): one new str holding every part (strings, numbers, strs, atoms).
function M.concat(...)
  return join(2, ...)
end

-- Byte equality of a handle with anything string-like; never raises (== must not).
local function equal_bytes(a, b)
  local tb = type(b)
  if tb ~= "string" and not ffi_istype(Str, b) and not ffi_istype(Atom, b) then
    return false
  end
  local ok, pa, na = pcall(bytes_of, a)
  if not ok then
    return false
  end
  local ok2, pb, nb = pcall(bytes_of, b)
  if not ok2 or na ~= nb then
    return false
  end
  if tb == "string" then
    for k = 0, na - 1 do
      if pa[k] ~= b:byte(k + 1) then
        return false
      end
    end
    return true
  end
  for k = 0, na - 1 do
    if pa[k] ~= pb[k] then
      return false
    end
  end
  return true
end

-- string.sub's index arguments as LuaJIT reads them (lj_lib_checkint): a number, or a
-- string that converts to one (Lua 5.1's coercion: "2", " 3 ", "0x2"), made an int32 by C's
-- cast: toward zero (2.7 -> 2, -2.7 -> -2), and a number outside the int32 range (or NaN)
-- to whatever the machine's conversion gives (on x86-64 -2^31, so `s:sub(math.huge)` is
-- the whole string and `s:sub(1, math.huge)` is empty, as string.sub answers there). The
-- out-of-range results are asked of string.sub itself once, so the module agrees with the
-- LuaJIT that runs it; a probe that keeps "x" means a positive int32 (the cast saturated),
-- one that empties it means -2^31 or 0, which act alike on strings shorter than 2^31.
local INT32_MIN, INT32_MAX = -2147483648, 2147483647
local function out_of_range_index(v)
  return ("x"):sub(1, v) == "x" and INT32_MAX or INT32_MIN
end
local ABOVE_INT32 = out_of_range_index(math.huge)
local BELOW_INT32 = out_of_range_index(-math.huge)
local NAN_INDEX = out_of_range_index(0 / 0)
local floor, ceil = math.floor, math.ceil

local function sub_index(v, arg)
  if type(v) ~= "number" then
    local n = type(v) == "string" and tonumber(v) or nil
    if n == nil then
      error(string.format("bad argument #%d to 'sub' (number expected, got %s)", arg, type(v)), 4)
    end
    v = n
  end
  if v ~= v then
    return NAN_INDEX
  end
  local t = v >= 0 and floor(v) or ceil(v)
  if t > INT32_MAX then
    return ABOVE_INT32
  elseif t < INT32_MIN then
    return BELOW_INT32
  end
  return t
end

-- string.sub's range: 1-based, negative counts from the end, clamped to the string; i > j
-- (after that) is empty.
local function sub_range(len, i, j)
  i = sub_index(i, 1)
  if j == nil then
    j = -1
  else
    j = sub_index(j, 2)
  end
  if i < 0 then
    i = len + i + 1
  end
  if j < 0 then
    j = len + j + 1
  elseif j > len then
    j = len
  end
  if i < 1 then
    i = 1
  end
  return i, j
end

local str_methods = {}

--- x:data(): pointer and length of the bytes, without a copy (valid while x lives; for
--- short strings the pointer points into x itself).
function str_methods.data(s)
  local st = C.dt_str_bytes(s, out_data, out_len)
  if st ~= 0 then
    fail(st, 2)
  end
  return out_data[0], tonumber(out_len[0])
end

--- x:sub(i [, j]): the bytes i..j with string.sub's rules (LuaJIT 2.1's: the indices it
--- accepts, how it converts them, its "bad argument" errors), in O(1) (shares the block).
function str_methods.sub(s, i, j)
  local len = tonumber(C.dt_str_len(s))
  i, j = sub_range(len, i, j)
  local out = Str()
  if i > j then
    i, j = 1, 0
  end
  local st = C.dt_str_slice(s, i - 1, j, out)
  if st ~= 0 then
    fail(st, 2)
  end
  return out
end

--- x:byte(i): the byte at position i (string.byte's rules for one index), or nil.
function str_methods.byte(s, i)
  local p, n = str_methods.data(s)
  i = i or 1
  if i < 0 then
    i = n + i + 1
  end
  if i < 1 or i > n then
    return nil
  end
  return p[i - 1]
end

--- x:intern(): the atom of x's bytes; adopts x's block when the bytes are new.
function str_methods.intern(s)
  local st = C.dt_table_intern_str(GLOBAL, s, fresh)
  if st ~= 0 then
    fail(st, 2)
  end
  return adopt()
end

--- x:clone(): a second handle on the same bytes (O(1), shares the block).
function str_methods.clone(s)
  local out = Str()
  local st = C.dt_str_clone(s, out)
  if st ~= 0 then
    fail(st, 2)
  end
  return out
end

--- x:release(): gives the reference back now instead of at garbage collection.
function str_methods.release(s)
  local n = tonumber(C.dt_str_len(s))
  local st = C.dt_str_release(s)
  if st ~= 0 then
    fail(st, 2)
  end
  if n > STR_INLINE_MAX then
    gc_freed = gc_freed + n
  end
end

function str_methods.is_utf8(s)
  return C.dt_str_is_utf8(s) ~= 0
end

function str_methods.len(s)
  local n = C.dt_str_len(s)
  if n == 0 then
    -- dt_str_len answers 0 for a released or invalid handle too; dt_str_bytes tells them
    -- from the empty string.
    local st = C.dt_str_bytes(s, out_data, out_len)
    if st ~= 0 then
      fail(st, 2)
    end
  end
  return tonumber(n)
end

--- x:tostring(): a Lua string (a copy, interned by LuaJIT; see the header comment).
function str_methods.tostring(s)
  local p, n = str_methods.data(s)
  return ffi_string(p, n)
end

Str = ffi.metatype("dt_str", {
  __index = str_methods,
  __len = str_methods.len,
  __tostring = str_methods.tostring,
  __concat = concat2,
  __eq = function(a, b)
    if ffi_istype(Str, a) and ffi_istype(Str, b) then
      return C.dt_str_equal(a, b) ~= 0
    end
    if ffi_istype(Str, a) then
      return equal_bytes(a, b)
    end
    return equal_bytes(b, a)
  end,
  __gc = release_str,
})

local atom_methods = {}

function atom_methods.data(a)
  local st = C.dtlua_atom_bytes(a, out_data, out_len)
  if st ~= 0 then
    fail(st, 2)
  end
  return out_data[0], tonumber(out_len[0])
end

--- a:str(): the atom's bytes as a str, O(1) (shares the block).
function atom_methods.str(a)
  local out = Str()
  local st = C.dtlua_atom_to_str(a, out)
  if st ~= 0 then
    fail(st, 2)
  end
  return out
end

--- a:hash(): the cached 64-bit hash (a uint64_t cdata).
function atom_methods.hash(a)
  return C.dtlua_atom_hash(a)
end

--- a:make_permanent(): true if the atom is permanent now (its clones and releases write
--- nothing shared, and it is never freed): the global table's atoms, within its budget for
--- permanent atoms; atoms of up to 7 bytes are permanent already. False for a released
--- atom or one of a table made with dynatom.table().
function atom_methods.make_permanent(a)
  return C.dtlua_atom_make_permanent(a) == 1
end

-- A second object holding its own reference to `a`'s atom, for dynatom.put's pins: never
-- handed to the program (it is not the atom's object, so not the same table key).
local function pin_of(a)
  local out = Atom()
  local st = C.dtlua_atom_clone(a, out)
  if st ~= 0 then
    fail(st, 3)
  end
  local id = a.id -- the same word, so the same id
  holders[id] = holders[id] + 1
  out.id = id
  out.claims = 1
  return out
end

--- a:clone(): the atom's object itself, claimed once more (see "One object per atom"):
--- equal atoms are one Lua value, so a second object would be a second table key.
function atom_methods.clone(a)
  if a.id == 0 then -- released or never filled: the library's status says which
    local st = C.dt_atom_clone(ffi.cast("const dt_atom *", a), fresh)
    if st == 0 then
      C.dt_atom_release(fresh)
      st = 6 -- DT_ERR_INVALID_HANDLE: a word without an id was not made by this module
    end
    fail(st, 2)
  end
  return claim(a)
end

-- Gives an object's id back (its handle was just released); a second call does nothing.
local function drop_id(a)
  local id = a.id
  if id ~= 0 then
    a.id = 0
    unhold(id)
  end
end

--- a:release(): gives back one claim on the atom's object; the last one gives the
--- library's reference back now, and the object is released for every holder.
function atom_methods.release(a)
  local claims = a.claims
  if claims > 1 then
    if claims < CLAIMS_MAX then
      a.claims = claims - 1
    end
    return
  end
  local id = a.id
  local st = C.dtlua_atom_release(a)
  if st ~= 0 then
    fail(st, 2)
  end
  a.claims = 0
  if id ~= 0 and rawequal(object_of[id], a) then
    object_of[id] = nil -- the atom's next making gets a new object
  end
  drop_id(a)
end

function atom_methods.len(a)
  local _, n = atom_methods.data(a)
  return n
end

function atom_methods.is_inline(a)
  return band(a.w, 1ULL) ~= 0
end

function atom_methods.tostring(a)
  local p, n = atom_methods.data(a)
  return ffi_string(p, n)
end

-- dt_atom_release's marker word (DT_RELEASED_MARK in the header).
local RELEASED_MARK = 16045690981097406495ULL

-- key() of an object without an id: a released or uninitialised handle.
local function no_key(a)
  if a.w == RELEASED_MARK then
    error("dynatom: released", 3)
  end
  error("dynatom: key of an uninitialised atom", 3)
end

--- a:key(): a Lua value for use as a Lua table key, the same for equal atoms and
--- different for different ones: a small positive integer id that the object carries
--- (one field load; no Lua string made, no library call, no allocation). Ids are dense
--- (1 .. the most distinct atoms held at once), so a table keyed by them keeps its keys
--- in its array part: LuaJIT looks such a key up about as fast as a Lua string key,
--- where the atom's word read as a double (the key before ids) hashed slowly (2.2x the
--- cost of a string key in the header-keyed table). An id names its atom while some Lua
--- handle of the atom (an object from this module: the atom's object, a pin of
--- dynatom.put) is alive; once the last one is released or collected the id is freed
--- and a later atom may get it (see "Keys" at the top, and dynatom.put).
function atom_methods.key(a)
  local id = a.id
  if id == 0 then
    return no_key(a)
  end
  return id
end

Atom = ffi.metatype("dtlua_atom", {
  __index = atom_methods,
  __len = atom_methods.len,
  __tostring = atom_methods.tostring,
  __concat = concat2,
  __eq = function(a, b)
    if ffi_istype(Atom, a) and ffi_istype(Atom, b) then
      return a.w == b.w
    end
    if ffi_istype(Atom, a) then
      return equal_bytes(a, b)
    end
    return equal_bytes(b, a)
  end,
  __gc = function(a)
    C.dtlua_atom_release(a)
    drop_id(a)
  end,
})

M.Str, M.Atom = Str, Atom

-- Wrapped memory (dynatom.wrap, see "Wrapped memory" at the top). Each wrapped cdata
-- gets an id; `anchored[id]` keeps the cdata alive and `on_release_of[id]` holds its
-- callback (false for none) while the library may read the bytes. The library's release
-- of the last handle runs wherever that handle dies (a finaliser, compiled code, another
-- thread), so it must not call into Lua: the `release` callback is the library's
-- dt_release_queue_push, which only files `tag | id`, and collect_releases() drains the
-- ids filed under this state's tag and unanchors them here, on a Lua call.
local RELEASE_QUEUE_MAX_ID = 0xFFFFFFFF
local release_push = ffi.cast("dt_release_fn", C.dt_release_queue_push)
local release_tag -- this Lua state's tag (a uint64_t): other states' ids never reach it
do
  local out_tag = ffi.new("uint64_t[1]")
  local st = C.dt_release_queue_new_tag(out_tag)
  if st ~= 0 then
    fail(st)
  end
  release_tag = out_tag[0]
end
local DRAIN_BATCH = 64
local drained_ids = ffi.new("uint64_t[?]", DRAIN_BATCH)
local drained_count = ffi.new("size_t[1]")
local anchored = {} -- id -> the wrapped cdata
local on_release_of = {} -- id -> on_release, or false
local anchored_count = 0
local free_wrap_ids = {} -- a stack of ids whose cdata was unanchored
local free_wrap_top = 0
local wrap_id_count = 0 -- ids ever handed out: the largest id

local function unanchor(id)
  local cdata, on_release = anchored[id], on_release_of[id]
  anchored[id] = nil
  on_release_of[id] = nil
  anchored_count = anchored_count - 1
  free_wrap_top = free_wrap_top + 1
  free_wrap_ids[free_wrap_top] = id
  return cdata, on_release
end

--- dynatom.collect_releases(): unanchors every wrapped cdata whose last handle was
--- released since the last drain and calls its on_release(cdata), here. Returns how many
--- it handled. wrap and wrap_utf8 call it first too. An error raised by an on_release is
--- raised again after the others have run (each is called once, error or not).
function M.collect_releases()
  local handled = 0
  local first_error
  repeat
    local st = C.dt_release_queue_drain(release_tag, drained_ids, DRAIN_BATCH, drained_count)
    if st ~= 0 then
      fail(st, 2)
    end
    local n = tonumber(drained_count[0])
    for k = 0, n - 1 do
      local cdata, on_release = unanchor(tonumber(drained_ids[k]))
      handled = handled + 1
      if on_release then
        local ok, err = pcall(on_release, cdata)
        if not ok and first_error == nil then
          first_error = err
        end
      end
    end
  until n < DRAIN_BATCH
  if first_error ~= nil then
    error(first_error, 0)
  end
  return handled
end

local function wrap(make, cdata, len, on_release)
  M.collect_releases()
  if on_release ~= nil and type(on_release) ~= "function" then
    error("dynatom: on_release must be a function, got " .. type(on_release), 3)
  end
  local id
  if free_wrap_top > 0 then
    id = free_wrap_ids[free_wrap_top]
    free_wrap_top = free_wrap_top - 1
  else
    if wrap_id_count >= RELEASE_QUEUE_MAX_ID then
      error("dynatom: too many wrapped cdata at once", 3)
    end
    wrap_id_count = wrap_id_count + 1
    id = wrap_id_count
  end
  anchored[id] = cdata
  on_release_of[id] = on_release or false
  anchored_count = anchored_count + 1
  local out = Str()
  local st = make(cdata, len, release_push, ffi.cast("void *", release_tag + id), out)
  if st ~= 0 then
    -- The library refused the memory and will never release it: the caller still owns
    -- it, so it is unanchored now and on_release is not called.
    unanchor(id)
    fail(st, 3)
  end
  account(len)
  return out
end

--- dynatom.wrap(cdata, len [, on_release]): a str over the `len` bytes at `cdata`,
--- without copying them (up to 15 bytes are copied into the handle). The cdata is
--- anchored while any handle (clones and slices included) may read it; after the last
--- one is released, the next collect_releases() (or wrap) unanchors it and calls
--- on_release(cdata). The bytes must not change until then.
function M.wrap(cdata, len, on_release)
  return wrap(C.dt_str_from_external, cdata, len, on_release)
end

--- dynatom.wrap_utf8(cdata, len [, on_release]): dynatom.wrap for text: raises
--- "dynatom: bytes are not valid UTF-8" (and anchors nothing, calls nothing) otherwise.
function M.wrap_utf8(cdata, len, on_release)
  return wrap(C.dt_str_from_external_utf8, cdata, len, on_release)
end

--- dynatom.wrapped(): how many wrapped cdata the module anchors now (their releases not
--- yet collected).
function M.wrapped()
  return anchored_count
end


--- dynatom.is_str(v), dynatom.is_atom(v)
function M.is_str(v)
  return ffi_istype(Str, v)
end

function M.is_atom(v)
  return ffi_istype(Atom, v)
end

-- The atoms that dynatom.put pinned to each table: table -> { key -> pin }. Weak keys,
-- so a collected table drops its pins and the pins' finalisers release the atoms.
local pins_of = setmetatable({}, { __mode = "k" })

--- dynatom.put(t, atom, value): t[atom:key()] = value, and t keeps a pin of the atom
--- alive for as long as the key is in it, so the key keeps naming the atom (a key is an
--- id, valid while some handle of its atom lives: inline atoms are pinned too).
--- put(t, atom, nil) removes the key and releases the pin; a collected t releases its
--- pins. Keys removed by a plain `t[k] = nil` stay pinned until t is collected.
function M.put(t, a, v)
  if not ffi_istype(Atom, a) then
    error("dynatom: put expects a dynatom atom, got " .. type(a), 2)
  end
  local k = atom_methods.key(a)
  local pins = pins_of[t]
  if v == nil then
    t[k] = nil
    local pin = pins and pins[k]
    if pin then
      pins[k] = nil
      atom_methods.release(pin) -- `a` still holds the id
    end
    return
  end
  t[k] = v
  if pins == nil then
    pins = {}
    pins_of[t] = pins
  end
  if pins[k] == nil then
    pins[k] = pin_of(a)
  end
end

--- dynatom.pinned(t): how many atoms dynatom.put has pinned to t.
function M.pinned(t)
  local n = 0
  for _ in pairs(pins_of[t] or {}) do
    n = n + 1
  end
  return n
end

-- Where key_of receives the atom it only looks at (released before returning).
local key_of_scratch = ffi.new("dt_atom[1]")

--- dynatom.key_of(s) / dynatom.key_of(ptr, len): the key (as a:key() gives it) of the
--- atom of these bytes when some Lua handle of that atom is alive, else nil (which
--- matches no key: `t[nil]` reads nil). Makes no atom object (no cdata, no finaliser:
--- most of what dynatom.atom costs from Lua) and never interns: one library call that
--- finds the atom and takes a reference, a registry lookup of its word, one call that
--- gives the reference back. For reading a table keyed by atoms straight from a socket's
--- bytes: `t[dynatom.key_of(ptr, len)]`. Sound for any table whose keys are sound (their
--- atoms held, e.g. stored with put): a key can be in a table only while a handle of its
--- atom lives, and then key_of finds that handle's id.
function M.key_of(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local st = C.dt_table_lookup_bytes(GLOBAL, p, n, key_of_scratch)
  if st == 8 then -- DT_ERR_NOT_FOUND
    return nil
  elseif st ~= 0 then
    fail(st, 2)
  end
  local id = id_of[word_value(key_of_scratch[0].w)]
  C.dt_atom_release(key_of_scratch)
  return id
end

--- dynatom.key_stats(): the key registry: `live` ids (distinct atoms held by Lua
--- handles), `largest` id ever handed out, `free` ids waiting for reuse. A handle counts
--- until it is released or finalised, and a compiled trace keeps the objects it was
--- specialised on alive until it is flushed (`jit.flush()`), so `live` can exceed the
--- atoms a program still references even after a full collection.
function M.key_stats()
  return { live = id_count - free_top, largest = id_count, free = free_top }
end

-- Builder: appends strings, numbers, strs and atoms; finish() hands the buffer to a str
-- without copying it.
local Builder = {}
Builder.__index = Builder

--- dynatom.builder([capacity])
function M.builder(capacity)
  local st = C.dt_builder_new(capacity or 0, out_builder)
  if st ~= 0 then
    fail(st, 2)
  end
  return setmetatable({ ptr = ffi.gc(out_builder[0], C.dt_builder_free) }, Builder)
end

local function live_builder(b)
  if b.ptr == nil then
    error("dynatom: builder already finished", 3)
  end
  return b.ptr
end

function Builder:put(...)
  local ptr = live_builder(self)
  for k = 1, select("#", ...) do
    local p, n = bytes_of((select(k, ...)))
    local st = C.dt_builder_append_bytes(ptr, p, n)
    if st ~= 0 then
      fail(st, 2)
    end
  end
  return self
end

function Builder:len()
  return tonumber(C.dt_builder_len(live_builder(self)))
end

function Builder:finish()
  local ptr = live_builder(self)
  self.ptr = nil
  ffi.gc(ptr, nil) -- finish consumes the builder, even when it fails
  local n = tonumber(C.dt_builder_len(ptr))
  local out = Str()
  local st = C.dt_builder_finish(ptr, out)
  if st ~= 0 then
    fail(st, 2)
  end
  account(n)
  return out
end

-- Pieces: a list of strs, atoms and copied Lua strings written with vectored I/O.
local Pieces = {}
Pieces.__index = Pieces

--- dynatom.pieces(...): a piece list, optionally with first pieces.
function M.pieces(...)
  local st = C.dt_pieces_new(out_pieces)
  if st ~= 0 then
    fail(st, 2)
  end
  local p = setmetatable({ ptr = ffi.gc(out_pieces[0], C.dt_pieces_free) }, Pieces)
  if select("#", ...) > 0 then
    p:push(...)
  end
  return p
end

--- p:push(...): strs and atoms are referenced (no copy); Lua strings and numbers copied.
function Pieces:push(...)
  for k = 1, select("#", ...) do
    local v = select(k, ...)
    local st
    if ffi_istype(Str, v) then
      st = C.dt_pieces_append_str(self.ptr, v)
    elseif ffi_istype(Atom, v) then
      st = C.dtlua_pieces_append_atom(self.ptr, v)
    else
      local p, n = bytes_of(v)
      st = C.dt_pieces_append_bytes(self.ptr, p, n)
    end
    if st ~= 0 then
      fail(st, 2)
    end
  end
  return self
end

function Pieces:len()
  return tonumber(C.dt_pieces_len(self.ptr))
end

function Pieces:count()
  return tonumber(C.dt_pieces_count(self.ptr))
end

--- p:writev(fd): writes every piece to the file descriptor with writev (one call per
--- 1,024 pieces, partial writes resumed); returns the bytes written. On an I/O error
--- raises "dynatom: <message> after N bytes (errno E)".
function Pieces:writev(fd)
  local st = C.dt_pieces_writev(self.ptr, fd, out_written)
  if st ~= 0 then
    local msg = ffi_string(C.dt_status_message(st))
    error(
      string.format("dynatom: %s after %d bytes (errno %d)", msg, tonumber(out_written[0]), ffi.errno()),
      2
    )
  end
  return tonumber(out_written[0])
end

function Pieces:to_str()
  local out = Str()
  local st = C.dt_pieces_to_str(self.ptr, out)
  if st ~= 0 then
    fail(st, 2)
  end
  account(tonumber(C.dt_str_len(out)))
  return out
end

-- Independent atom tables (atoms of different tables are different atoms).
local Table = {}
Table.__index = Table

--- dynatom.table(): a new atom table, freed when collected.
function M.table()
  local st = C.dt_table_new(out_table)
  if st ~= 0 then
    fail(st, 2)
  end
  return setmetatable({ ptr = ffi.gc(out_table[0], C.dt_table_free) }, Table)
end

function Table:intern(s, len)
  local st
  if ffi_istype(Str, s) then
    st = C.dt_table_intern_str(self.ptr, s, fresh)
  else
    local p, n = s, len
    if len == nil then
      p, n = bytes_of(s)
    end
    st = C.dt_table_intern_bytes(self.ptr, p, n, fresh)
  end
  if st ~= 0 then
    fail(st, 2)
  end
  return adopt()
end

function Table:contains(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local found = table_contains(self.ptr, p, n)
  return found
end

function Table:lookup(s, len)
  local p, n = s, len
  if len == nil then
    p, n = bytes_of(s)
  end
  local st = C.dt_table_lookup_bytes(self.ptr, p, n, fresh)
  local atom = adopted_or_nil(st) -- not a tail call: errors name our caller
  return atom
end

function Table:len()
  return tonumber(C.dt_table_len(self.ptr))
end

local REPORT_FIELDS = {
  "atoms",
  "unused_atoms",
  "unused_bytes",
  "unused_bytes_limit",
  "table_bytes",
  "header_bytes",
  "char_bytes",
  "static_char_bytes",
  "static_atoms",
  "declared_atoms",
  "slop_bytes",
  "locked_lookups",
  "locked_hits",
  "locked_misses",
  "inserts",
  "removals",
  "permanent_atoms",
  "permanent_bytes",
}

local function memory_report(ptr)
  local r = ffi.new("dt_memory_report")
  local st = C.dt_table_memory_report(ptr, r)
  if st ~= 0 then
    fail(st, 3)
  end
  local t = {}
  for _, f in ipairs(REPORT_FIELDS) do
    t[f] = tonumber(r[f])
  end
  return t
end

function Table:memory_report()
  return memory_report(self.ptr)
end

--- dynatom.memory_report(): the global table's report as a Lua table of numbers.
function M.memory_report()
  return memory_report(GLOBAL)
end

--- dynatom.retain_freed_memory(bytes): asks glibc's malloc (process-wide) to keep up to
--- `bytes` of freed memory for reuse instead of returning it to the system, and to serve
--- blocks up to min(bytes, 32 MiB) from its heap rather than from fresh mmaps. A program
--- that creates and drops many large strs then reuses warm pages instead of faulting
--- new ones in (each 4 KiB page fault costs microseconds on a VM). Opt-in because it
--- changes the allocator for the whole process; returns true when glibc accepted it.
function M.retain_freed_memory(bytes)
  pcall(ffi.cdef, "int mallopt(int param, int value);")
  local M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
  local mmap = math.min(bytes, 32 * 1024 * 1024)
  local ok1, r1 = pcall(function()
    return ffi.C.mallopt(M_TRIM_THRESHOLD, bytes)
  end)
  local ok2, r2 = pcall(function()
    return ffi.C.mallopt(M_MMAP_THRESHOLD, mmap)
  end)
  return ok1 and ok2 and r1 == 1 and r2 == 1
end

--- dynatom.set_block_cache_limit(bytes): the most bytes of freed large blocks (32 KiB
--- and more) the library keeps for reuse, process-wide; 0 turns the cache off. Unless
--- set, the module keeps it at max(64 MiB, half the external bytes believed live).
--- Returns the previous limit.
function M.set_block_cache_limit(bytes)
  block_cache_auto = false
  block_cache_limit = bytes
  return tonumber(C.dt_block_cache_set_limit(bytes))
end

--- dynatom.trim_block_cache(): frees every block the cache holds (e.g. after a burst of
--- large strs); returns the bytes freed. dynatom.block_cache_bytes(): what it holds now.
function M.trim_block_cache()
  return tonumber(C.dt_block_cache_trim())
end

function M.block_cache_bytes()
  return tonumber(C.dt_block_cache_bytes())
end

--- dynatom.gc_stats(): the external-memory counters behind the GC-pressure policy.
function M.gc_stats()
  return {
    created = gc_created,
    freed = gc_freed,
    pending = gc_pending,
    budget = gc_budget,
    floor = gc_floor,
    collections = gc_collections,
    steps = gc_steps,
    forced = gc_forced,
  }
end

--- dynatom.set_gc_budget(bytes): the least external allocation between forced
--- collections (default 16 MiB). Returns the previous value.
function M.set_gc_budget(bytes)
  local old = gc_floor
  gc_floor = bytes
  gc_budget = bytes -- the next forced collection recomputes it from the live bytes
  return old
end

return M
