//! [`AtomTable`]: where atoms are interned.

mod handles;
mod permanent;
#[cfg(all(test, loom))]
mod read_protocol_loom;
mod reclaim;
mod report_collect;
mod shared;
// `remove` and `is_migrating` serve the set's own tests; the table unlinks with `retain`.
#[allow(dead_code)]
mod slots;
#[cfg(all(test, dynatom_count_stores))]
mod store_count_tests;

use crate::memory_report::MemoryReport;
use shared::HASHED_IN_LINE_UP_TO;
use shared::SharedRef;
use shared::TableKind;
pub(crate) use shared::TableShared;
#[cfg(feature = "small-map")]
pub(crate) use shared::drop_together;

use crate::atom::static_set_error::StaticSetError;
use crate::error::{Fallibility, MAX_LEN, StrError, or_panic};
use crate::repr::atom_word::{AtomWord, INLINE_ATOM_CAPACITY};
use crate::repr::declared::{DeclaredSet, LateRegistration, StaticText};
use crate::repr::str_word::{StrForm, StrWord};

/// A set of interned strings: each distinct byte string has exactly one entry here, so
/// atoms of one table compare by a single word. Text and bytes share the entries: the
/// [`Atom`](crate::Atom) for `"abc"` and the [`ByteAtom`](crate::ByteAtom) for `b"abc"` are
/// one atom seen two ways.
///
/// Most programs use [`AtomTable::global()`] through [`Str::intern`](crate::Str::intern),
/// [`Atom::from`](crate::Atom::from) and [`Atom::lookup`](crate::Atom::lookup). An
/// independent table (`AtomTable::new()`) has its own entries; its atoms are distinct from
/// the global table's (an atom's identity is its table entry), except texts of up to 7
/// bytes, which are atoms by value in every table, and texts of declared static sets
/// (`static_atoms!`): the global table files those when it is made,
/// and every other table hands out the same declared atom on its own misses (one
/// length-and-prefix filter test per miss; a hash and a probe only when it passes), never
/// filing it.
///
/// * Sharded: four shards per core the process may run on (a power of two from 8 to 64),
///   chosen by the text's hash, each an open-addressing array of
///   one-word slots (the atom's address plus 15 bits of its hash), filled to at most 7/8
///   before it doubles: 9.1 B of slots per atom at the limit, 18.3 B just after a
///   doubling. A hit takes no
///   lock and writes nothing but the atom's count, and not even that for a *permanent*
///   atom (below); filing a new atom locks its shard,
///   which grows a few slots per write rather than all at once: the next array is
///   allocated at the load limit, zeroed memory that no write has to clear (a large one is
///   faulted in by one call as it is made), and the old array is copied into it 32 or more
///   slots per write (one of up to 256 slots, 2 KiB, whole, by the write that grows it),
///   so no single intern rewrites a large shard
///   ([`MemoryReport::max_insert_slots`] reports the most one insert touched). Slot
///   arrays come from the table's own pool (on Linux): arrays up to 4 KiB share the pages
///   of one region per table, larger ones are mappings of their own; a page whose arrays
///   are all freed, and a freed large array, hand their memory back to the system and
///   keep the address for the table's next arrays, so a freed array's memory only ever
///   holds this table's slots (or zeros). [`MemoryReport::table_bytes`] counts the arrays
///   and what the pool keeps resident for none.
/// * Adopting: interning a heap [`Str`](crate::Str) that spans its buffer files that very
///   buffer when the text is new (global table and `AtomTable::new()` tables alike), so the
///   atom and the string share one allocation.
/// * Deferred reclamation: the table holds one count of every atom it files. When the last
///   [`Str`](crate::Str) and [`Atom`](crate::Atom) of an interned text are dropped, the
///   atom stays, *unused*, and a later intern of the same text revives it without
///   allocating. Unused atoms are bounded in number and in bytes (headers and texts, as
///   [`MemoryReport::unused_bytes`] counts them): at most `max(floor, in_use / 2)` atoms,
///   where `floor` is the table's unused limit ([`AtomTable::set_unused_limit`], 4096
///   atoms by default), and at most `max(byte floor, in-use bytes / 2)` bytes, where the
///   byte floor is [`AtomTable::set_unused_bytes_limit`]'s (4 MiB by default). Both are
///   shared among the shards, each checking its share when drops or filings could
///   have passed it and sweeping its unused atoms once they pass half of it: an atom
///   larger than a shard's share (64 KiB by default with 64 shards, 512 KiB with 8) is
///   freed as soon as it is unused.
///   In the global table a drop that leaves an atom unused makes the check; a table made
///   with `AtomTable::new()` or `with_seed` hears of no drop and checks when it files
///   atoms, so its unused atoms may pass the bounds by what was dropped since its last
///   filing. [`AtomTable::shrink`] sweeps at once, and a local table frees its unused
///   atoms when it is dropped (atoms still in use stay valid). [`AtomTable::lookup`]
///   finds only atoms in use. A swept atom's memory is freed at once unless another
///   thread is in the middle of a lock-free lookup or intern (*pinned*) as it is swept;
///   then it waits, shown as [`MemoryReport::retired_bytes`] and counted against the byte
///   bound as unused bytes are. It is freed by the first *collection* that finds the epoch
///   moved two steps since its sweep. A collection moves the epoch one step unless a thread
///   is still pinned from before the last step; filing a new atom, checking or sweeping a
///   shard makes one, in any shard, and so does one in 256 of each thread's lookups and
///   intern hits while memory waits. So once no reader that was pinned at its sweep still
///   is, the second collection frees it, unless a thread pinned before the first is still
///   pinned at the second (then a later one does). A collection skips a shard that another
///   thread holds locked; that thread collects it as it writes there.
/// * Permanent atoms: the global table stops counting an atom's handles when two threads
///   raise its count at the same moment, or when asked ([`Atom::make_permanent`](crate::Atom::make_permanent)),
///   so that its clones, drops and hits write nothing to the cache line all its users
///   share. Such an atom is never swept or freed; the table keeps these atoms' bytes under
///   `max(1 MiB, in-use bytes / 8)` and reports them ([`MemoryReport::permanent_atoms`]).
///   Static atoms are permanent from birth; tables other than the global one make none.
/// * Storage: an atom the table copies in (header and text together up to 256 bytes)
///   lies in the table's *slabs*, 32 KiB blocks of memory of one block size each (in
///   steps of 8 bytes; mapped from the kernel on Linux), with no allocator header. A freed
///   atom's block is reused only for another atom of the same table and size. A slab whose
///   last block is freed hands its pages back to the system (on Linux; it keeps its
///   mapping, [`MemoryReport::idle_slabs`], and is the next slab its size takes), unless it
///   is the last of its size with room, so the table holds its atoms' blocks plus at most one slab of free room
///   per block size (per *stripe*: the global table brings more sets of slabs into use,
///   up to one per core and at most 16, when its threads contend for one, each made as
///   it comes into use), plus whatever free blocks sit in slabs that still hold an atom: in
///   the worst case (one atom left in each slab after a mass drop) a whole slab per atom in
///   use, until the slab's other blocks are reused. [`MemoryReport::slab_spare_bytes`]
///   reports that room. Atoms of a dropped table that are still held keep their slabs
///   until the last of them goes. Adopted [`Str`](crate::Str) buffers and longer texts
///   are allocations of their own.
/// * Hashing: every byte counts (folded multiplies of overlapping words under keys drawn
///   from the seed for 8 to 32 bytes, then one more that carries every bit to the top,
///   where the shard and tag are read; rapidhash for other lengths), computed at most once
///   per heap string and cached in its header. The global table and `AtomTable::new()`
///   tables share the process's random seed, so a cached hash serves them all;
///   `AtomTable::with_seed` tables hash with their own seed and copy rather than adopt.
///
/// ```
/// use dynatom::AtomTable;
///
/// let table = AtomTable::new();
/// let a = table.intern("a longer identifier");
/// let b = table.intern("a longer identifier");
/// assert_eq!(a, b);
/// assert_eq!(table.len(), 1);
/// assert_eq!(table.lookup("a longer identifier"), Some(a.clone()));
/// drop((a, b));
/// assert_eq!(table.len(), 0);
/// assert_eq!(table.lookup("a longer identifier"), None);
/// assert_eq!(table.memory_report().unused_atoms, 1, "kept for a later intern");
/// table.shrink();
/// assert_eq!(table.memory_report().unused_atoms, 0);
/// ```
#[derive(Clone)]
pub struct AtomTable {
    shared: SharedRef,
}

/// The global table, made on first use. A `OnceLock` rather than a `LazyLock`, so that
/// [`global_table_if_made`] can read it without the code that would make it.
#[cfg(not(loom))]
static GLOBAL: std::sync::OnceLock<AtomTable> = std::sync::OnceLock::new();

/// The global table if it has been made, which it has wherever one of its atoms exists
/// and wherever the drop hook runs: for that hook, whose common path then needs no stack
/// frame (the inlined code that makes the table made every call save registers).
#[cfg(not(loom))]
#[inline]
pub(crate) fn global_table_if_made() -> Option<&'static AtomTable> {
    GLOBAL.get()
}

#[cfg(loom)]
pub(crate) fn global_table_if_made() -> Option<&'static AtomTable> {
    Some(AtomTable::global())
}

/// The seed of the global table and of every `AtomTable::new()` table: random per
/// process. No call fixes it, since all the code in the process shares these tables (see
/// [`crate::hash::process_wide_seed`] for the one build where the environment can).
#[cfg(not(loom))]
static PROCESS_SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

#[cfg(not(loom))]
fn process_seed() -> u64 {
    *PROCESS_SEED.get_or_init(crate::hash::process_wide_seed)
}

#[cfg(loom)]
fn process_seed() -> u64 {
    1
}

#[cfg(loom)]
loom::lazy_static! {
    static ref GLOBAL: AtomTable = AtomTable::infallibly(TableKind::Global);
}

impl AtomTable {
    fn try_with_kind(seed: u64, kind: TableKind) -> Result<AtomTable, StrError> {
        let shared = TableShared::try_new(seed, kind)?;
        #[cfg(not(loom))]
        let shared = SharedRef::try_new(shared)?;
        #[cfg(loom)]
        let shared = SharedRef::new(shared);
        Ok(AtomTable { shared })
    }

    /// A table of `kind` with the process seed; out of memory, it aborts as any
    /// allocation does.
    fn infallibly(kind: TableKind) -> AtomTable {
        AtomTable::try_with_kind(process_seed(), kind).unwrap_or_else(|_| out_of_memory())
    }

    /// A new, empty table. It hashes with the process's random seed, as the global table
    /// does, so it adopts a [`Str`](crate::Str)'s buffer as the global table does.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.is_empty());
    /// let s = dynatom::Str::from("kept in place by a local table");
    /// assert_eq!(s.intern_in(&table).as_ptr(), s.as_ptr());
    /// ```
    #[must_use]
    pub fn new() -> AtomTable {
        AtomTable::infallibly(TableKind::Local)
    }

    /// Like [`AtomTable::new`], but reports allocation failure instead of aborting.
    ///
    /// ```
    /// let table = dynatom::AtomTable::try_new().expect("memory for a table");
    /// assert_eq!(table.try_intern("filed in a table made fallibly").unwrap(), "filed in a table made fallibly");
    /// ```
    pub fn try_new() -> Result<AtomTable, StrError> {
        AtomTable::try_with_kind(process_seed(), TableKind::Local)
    }

    /// A new, empty table with a fixed hash seed, for reproducible runs. A string's
    /// header caches the process seed's hash, so this table copies what it interns rather
    /// than adopting a [`Str`](crate::Str)'s buffer.
    ///
    /// ```
    /// let a = dynatom::AtomTable::with_seed(7);
    /// let b = dynatom::AtomTable::with_seed(7);
    /// assert_eq!(a.intern("same seed, same hash").hash64(), b.intern("same seed, same hash").hash64());
    /// ```
    #[must_use]
    pub fn with_seed(seed: u64) -> AtomTable {
        AtomTable::try_with_kind(seed, TableKind::OwnSeed).unwrap_or_else(|_| out_of_memory())
    }

    /// The process-wide table behind [`Str::intern`](crate::Str::intern),
    /// [`Atom::from`](crate::Atom::from) and [`Atom::lookup`](crate::Atom::lookup).
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable};
    ///
    /// assert_eq!(AtomTable::global().intern("shared by everyone"), Atom::from("shared by everyone"));
    /// ```
    #[inline]
    pub fn global() -> &'static AtomTable {
        #[cfg(not(loom))]
        return match GLOBAL.get() {
            Some(table) => table,
            None => AtomTable::make_global_once(),
        };
        #[cfg(loom)]
        return &GLOBAL;
    }

    /// The global table, made by the first caller, which then installs the hook that drops
    /// call when an atom of it becomes unused: installed only once the table is in place,
    /// the hook need not ask whether it is. (A drop in the moment between the two finds no
    /// hook: that is a hint to sweep sooner missed, never needed for safety.)
    #[cfg(not(loom))]
    #[cold]
    fn make_global_once() -> &'static AtomTable {
        // Before the gate, which it takes itself while it is made.
        crate::repr::declared::linked_sets();
        // Under the fork gate: a child of `fork()` never finds the table half made.
        let _gate = crate::sync::fork_gate::enter();
        let table = GLOBAL.get_or_init(AtomTable::make_global);
        crate::repr::heap::set_unused_hook(shared::note_global_unused);
        table
    }

    /// The global table, with every static set the program declared filed in it: one
    /// pass over them, once per process.
    #[cfg(not(loom))]
    #[cold]
    fn make_global() -> AtomTable {
        let table = AtomTable::infallibly(TableKind::Global);
        for set in crate::repr::declared::linked_sets() {
            if let Err(err) = table.shared.file_declared_set(set.texts) {
                unreachable!("nothing is interned before the global table is made: {err}");
            }
        }
        table
    }

    /// Registers a static set at run time, for programs that cannot declare theirs with
    /// `static_atoms!` (the C ABI's). Its atoms are the words of
    /// [`StaticText::bits`](crate::StaticText::bits), equal to every table's atoms of the
    /// same texts from then on, in every way an atom is made (`Atom::from`, any table's
    /// `intern`, [`ByteAtom::from_static_text`](crate::ByteAtom::from_static_text),
    /// `AtomMap` keys by text or by atom, the C ABI).
    ///
    /// Registering is all or nothing, and exact at every moment: while it checks, every
    /// table's shards are locked, so no atom of the set's texts is made meanwhile. Unused
    /// atoms of its texts (interned earlier, then dropped, and kept by a table for reuse)
    /// are evicted; an atom of one of them still in use refuses the set. Registering a set
    /// of the same name and texts again does nothing and succeeds.
    ///
    /// # Errors
    /// Nothing is registered when the set is refused:
    /// [`StaticSetError::is_interned_before`] when an ordinary atom of one of its texts
    /// is in use in any table (drop it, or register the set before interning; a permanent
    /// atom is in use for good: [`StaticSetError::is_interned_permanently`]); a text
    /// twice in the set, a text whose key collides with another set's text, or another set
    /// already registered under the same name.
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable, StaticText};
    ///
    /// static TEXTS: [StaticText; 2] =
    ///     [StaticText::new("GREETING", b"hello, registered world"), StaticText::new("BYE", b"bye")];
    /// AtomTable::register_static_set("greetings", &TEXTS).unwrap();
    /// AtomTable::register_static_set("greetings", &TEXTS).unwrap(); // again: nothing to do
    /// let atom = Atom::from("hello, registered world");
    /// assert!(atom.is_declared());
    /// assert_eq!(atom.into_byte_atom().into_raw(), TEXTS[0].bits()); // a value: nothing to give back
    /// ```
    pub fn register_static_set(name: &'static str, texts: &'static [StaticText]) -> Result<(), StaticSetError> {
        let global = AtomTable::global();
        let registration = match LateRegistration::begin(DeclaredSet { name, texts }) {
            Ok(Some(registration)) => registration,
            Ok(None) => return Ok(()),
            Err(err) => return Err(StaticSetError(err)),
        };
        shared::register_late_set(global.shared(), &registration).map_err(StaticSetError)
    }

    /// The texts of the static set registered under `name` (by
    /// `static_atoms!` or [`register_static_set`](Self::register_static_set)),
    /// if any: for bindings that check a set before copying it to register it.
    ///
    /// ```
    /// use dynatom::{AtomTable, StaticText};
    ///
    /// static COLOURS: [StaticText; 2] = [StaticText::new("RED", b"red"), StaticText::new("GREEN", b"green")];
    /// AtomTable::register_static_set("colours", &COLOURS).unwrap();
    /// assert_eq!(AtomTable::registered_static_set("colours").map(<[StaticText]>::len), Some(2));
    /// assert!(AtomTable::registered_static_set("no such set").is_none());
    /// ```
    #[must_use]
    pub fn registered_static_set(name: &str) -> Option<&'static [StaticText]> {
        crate::repr::declared::sets_named(name).next().map(|set| set.texts)
    }

    pub(crate) fn shared(&self) -> &TableShared {
        &self.shared
    }

    /// Makes `word` permanent if it is the global table's and the table's permanent
    /// budget allows (see `table/permanent.rs`); says whether it is permanent now.
    pub(crate) fn make_word_permanent(word: &AtomWord) -> bool {
        if word.is_permanent() {
            return true;
        }
        // A heap atom of the global table exists only once that table is made.
        global_table_if_made().is_some_and(|global| global.shared.make_permanent(word))
    }

    /// The atom for `bytes`, filing a copy of them if they are new, aborting if memory runs
    /// out: what the handles' `intern` and `intern_bytes` come to. In line, with the hit of
    /// a short text (see [`TableShared::intern_short_copy`]); the rest out of line.
    ///
    /// # Panics
    /// If `bytes` is longer than [`MAX_LEN`].
    #[inline(always)]
    pub(crate) fn intern_bytes_word(&self, bytes: &[u8]) -> AtomWord {
        if let Some(word) = AtomWord::inline(bytes) {
            return word;
        }
        self.intern_copied_word(bytes)
    }

    /// [`AtomTable::intern_bytes_word`] of a text longer than an inline atom.
    #[inline(always)]
    fn intern_copied_word(&self, bytes: &[u8]) -> AtomWord {
        if bytes.len() <= HASHED_IN_LINE_UP_TO {
            return self.intern_short_word(bytes);
        }
        self.intern_long_word(bytes)
    }

    /// [`AtomTable::intern_bytes_word`] of a text longer than an inline atom and of at
    /// most [`HASHED_IN_LINE_UP_TO`] bytes. Out of line, so that an inline atom's path
    /// saves no registers.
    #[inline(never)]
    fn intern_short_word(&self, bytes: &[u8]) -> AtomWord {
        self.shared.intern_short_copy(bytes)
    }

    /// [`AtomTable::intern_bytes_word`] of a text longer than [`HASHED_IN_LINE_UP_TO`]
    /// bytes.
    #[inline(never)]
    fn intern_long_word(&self, bytes: &[u8]) -> AtomWord {
        // Not through `try_intern_bytes_word`, whose inline-atom test this length has
        // passed already: one call fewer on every long intern (counted: 3 est. cycles of
        // a 64-byte hit).
        if bytes.len() > MAX_LEN {
            panic!("{}", StrError::TooLong { len: bytes.len() });
        }
        or_panic(self.shared.intern_copy(bytes, Fallibility::Infallible))
    }

    /// The atom for `bytes`, filing a copy of them if they are new: what the handles'
    /// `try_intern` and `try_intern_bytes` come to.
    pub(crate) fn try_intern_bytes_word(&self, bytes: &[u8], fallibility: Fallibility) -> Result<AtomWord, StrError> {
        // Before hashing: an over-long text would be read whole only to be refused.
        if bytes.len() > MAX_LEN {
            return Err(StrError::TooLong { len: bytes.len() });
        }
        if let Some(word) = AtomWord::inline(bytes) {
            return Ok(word);
        }
        self.shared.intern_copy(bytes, fallibility)
    }

    /// [`AtomTable::try_intern_str_word`] for a caller that aborts on allocation failure:
    /// a string whose block cannot be adopted takes the path of
    /// [`AtomTable::intern_bytes_word`], whose hit returns in a register.
    #[inline]
    pub(crate) fn intern_str_word(&self, s: &StrWord) -> AtomWord {
        let bytes = match s.form() {
            StrForm::Heap { block, offset: 0, len } if len == block.len() && len > INLINE_ATOM_CAPACITY => {
                return or_panic(self.shared.intern_block(block, Fallibility::Infallible));
            }
            StrForm::Static(bytes) => {
                return AtomWord::inline(bytes).unwrap_or_else(|| self.shared.intern_static(bytes));
            }
            StrForm::Inline(bytes) => bytes,
            StrForm::Heap { block, offset, len } => &block.bytes()[offset..offset + len],
            StrForm::Owned { block, offset, len } => &block.bytes()[offset..offset + len],
        };
        self.intern_bytes_word(bytes)
    }

    /// The atom for the bytes of a string: adopts its block (a heap string spanning its
    /// buffer whose bytes are new), finds it, or copies.
    pub(crate) fn try_intern_str_word(&self, s: &StrWord, fallibility: Fallibility) -> Result<AtomWord, StrError> {
        // The form is read once: its bytes, and whether the table may adopt its block.
        let (bytes, whole_block) = match s.form() {
            StrForm::Inline(bytes) => (bytes, None),
            StrForm::Static(bytes) => {
                return Ok(AtomWord::inline(bytes).unwrap_or_else(|| self.shared.intern_static(bytes)));
            }
            StrForm::Heap { block, offset, len } => {
                let whole = offset == 0 && len == block.len();
                (&block.bytes()[offset..offset + len], whole.then_some(block))
            }
            StrForm::Owned { block, offset, len } => (&block.bytes()[offset..offset + len], None),
        };
        if let Some(word) = AtomWord::inline(bytes) {
            return Ok(word);
        }
        match whole_block {
            Some(block) => self.shared.intern_block(block, fallibility),
            None => self.shared.intern_copy(bytes, fallibility),
        }
    }

    /// The atom for `bytes`, keeping them in the binary if they are new (see
    /// [`AtomTable::intern_static`]).
    ///
    /// # Panics
    /// If `bytes` are longer than [`MAX_LEN`]: before hashing them, and outside every lock.
    pub(crate) fn intern_static_word(&self, bytes: &'static [u8]) -> AtomWord {
        if bytes.len() > MAX_LEN {
            panic!("{}", StrError::TooLong { len: bytes.len() });
        }
        if let Some(word) = AtomWord::inline(bytes) {
            return word;
        }
        self.shared.intern_static(bytes)
    }

    /// The atom for `bytes` if one is in use; never files anything.
    pub(crate) fn lookup_word(&self, bytes: &[u8]) -> Option<AtomWord> {
        if let Some(word) = AtomWord::inline(bytes) {
            return Some(word);
        }
        self.shared.lookup(bytes)
    }

    /// Whether an atom for `bytes` is in use (one [`AtomTable::lookup_word`] would
    /// give), without making one.
    pub(crate) fn holds_in_use(&self, bytes: &[u8]) -> bool {
        AtomWord::inline(bytes).is_some() || self.shared.holds_in_use(bytes)
    }

    /// Whether `word` is filed in this table (inline atoms belong to every table).
    #[inline]
    pub(crate) fn lists(&self, word: &AtomWord) -> bool {
        word.is_value() || self.shared.lists(word)
    }

    /// The number of atoms in use filed here (unused atoms kept for reuse are not counted,
    /// nor are inline atoms of up to 7 bytes, which are values and never filed).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let _kept = table.intern("one long enough to be filed");
    /// let _inline = table.intern("short");
    /// assert_eq!(table.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.shared.len_in_use()
    }

    /// Frees every unused atom now (atoms whose handles are all gone, kept for a later
    /// intern) and gives back spare table storage. Returns the number of atoms freed.
    ///
    /// An atom the table copied in (up to 240 bytes) goes back to its slab, for the
    /// table's next atom of that size; a slab that empties hands its pages back to the
    /// system (on Linux) unless it is the last of its size with room. Larger atoms go back
    /// to the allocator.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// drop(table.intern("dropped at once, kept until the sweep"));
    /// let before = table.memory_report();
    /// assert_eq!(table.shrink(), 1);
    /// let after = table.memory_report();
    /// assert_eq!((after.unused_atoms, after.unused_bytes), (0, 0));
    /// // Its block is free room in the table's one slab now.
    /// assert_eq!(after.slabs, 1);
    /// assert_eq!(after.slab_spare_bytes - before.slab_spare_bytes, before.unused_bytes);
    /// ```
    pub fn shrink(&self) -> usize {
        self.shared.sweep()
    }

    /// Sets how many unused atoms the table keeps, beyond half of the atoms in use,
    /// before it sweeps them (4096 by default; 0 keeps the unused at most half the used).
    /// The limit is shared among the table's shards, each sweeping on its own.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// table.set_unused_limit(0);
    /// let kept = table.intern("in use, so never swept");
    /// for i in 0..1000 {
    ///     drop(table.intern(&format!("a passing text, number {i}")));
    /// }
    /// let report = table.memory_report();
    /// assert!(report.unused_atoms <= 1000 / 2 + 64, "{report}");
    /// assert_eq!(table.lookup("in use, so never swept"), Some(kept));
    /// ```
    pub fn set_unused_limit(&self, atoms: usize) {
        self.shared.set_unused_limit(atoms);
    }

    /// Sets how many bytes of unused atoms (headers and texts) the table keeps, beyond
    /// half the bytes of its atoms in use, before it sweeps them (4 MiB by default; 0 keeps
    /// them at most half the bytes in use). Like the atom limit it is shared among the
    /// table's shards, so an unused atom larger than a shard's share of it is freed at
    /// once.
    /// Setting it checks every shard against the new bound.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// table.set_unused_bytes_limit(1 << 20);
    /// for i in 0..50 {
    ///     drop(table.intern(&format!("{i}{}", "x".repeat(64 << 10))));
    /// }
    /// let report = table.memory_report();
    /// assert_eq!(report.unused_bytes_limit, 1 << 20);
    /// assert!(report.unused_bytes <= report.unused_bytes_limit, "{report}");
    /// ```
    pub fn set_unused_bytes_limit(&self, bytes: usize) {
        self.shared.set_unused_bytes_limit(bytes);
    }

    /// Sets whether the table makes an atom permanent by itself when two threads raise
    /// its count at the same moment (on by default; see
    /// [`Atom::make_permanent`](crate::Atom::make_permanent)). Only the global table
    /// makes permanent atoms, so the setting matters only there. Off, atoms become
    /// permanent only when asked, and every other atom is counted and swept as usual.
    ///
    /// ```
    /// let global = dynatom::AtomTable::global();
    /// global.set_permanent_on_contention(false);
    /// // ... threads contending on atoms leave them counted ...
    /// global.set_permanent_on_contention(true);
    /// ```
    pub fn set_permanent_on_contention(&self, on: bool) {
        self.shared.set_permanent_on_contention(on);
    }

    /// Sets whether the table makes an atom permanent by itself when the atom keeps coming
    /// back from unused (on by default): one in 4 of a thread's interns that find an atom
    /// no handle held makes that atom permanent, within the permanent budget. An atom a
    /// program drops and interns again on every request is soon made permanent, and from
    /// then on its interns and drops write nothing; one interned again now and then
    /// rarely is. Only the global table makes permanent atoms, so the setting matters only
    /// there. Off, such atoms stay counted and are swept as usual.
    ///
    /// ```
    /// let global = dynatom::AtomTable::global();
    /// global.set_permanent_on_reuse(false);
    /// for _ in 0..100 {
    ///     let atom = dynatom::Atom::new("interned, dropped, interned again");
    ///     assert!(!atom.is_permanent());
    /// }
    /// global.set_permanent_on_reuse(true);
    /// let mut made_permanent = false;
    /// for _ in 0..100 {
    ///     made_permanent |= dynatom::Atom::new("dropped and interned again, many times").is_permanent();
    /// }
    /// assert!(made_permanent);
    /// ```
    pub fn set_permanent_on_reuse(&self, on: bool) {
        self.shared.set_permanent_on_reuse(on);
    }

    /// Turns the global table's permanent atoms back into counted, unused ones, for loom's
    /// models: they end with no handle left and must free every allocation (`shrink` then
    /// does). Only in `--cfg loom` builds.
    #[cfg(loom)]
    #[doc(hidden)]
    pub fn demote_permanent_for_model(&self) {
        self.shared.demote_permanent_for_model();
    }

    /// Whether no atom is filed here.
    ///
    /// ```
    /// assert!(dynatom::AtomTable::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where this table's memory goes, and how its lookups went: see [`MemoryReport`].
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let _a = table.intern("counted in the report");
    /// let report = table.memory_report();
    /// assert_eq!(report.atoms, 1);
    /// assert_eq!(report.char_bytes, "counted in the report".len());
    /// ```
    pub fn memory_report(&self) -> MemoryReport {
        report_collect::collect(&self.shared)
    }
}

/// What an allocation that failed does in the infallible constructors: what `Box::new`
/// does.
#[cold]
fn out_of_memory() -> ! {
    std::alloc::handle_alloc_error(std::alloc::Layout::new::<TableShared>())
}

impl Default for AtomTable {
    fn default() -> AtomTable {
        AtomTable::new()
    }
}

impl std::fmt::Debug for AtomTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomTable").field("global", &self.shared.is_global()).field("len", &self.len()).finish()
    }
}
