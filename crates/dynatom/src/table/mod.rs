//! [`AtomTable`]: where atoms are interned.

mod reclaim;
mod report;
mod shared;
// `remove` and `is_migrating` serve the set's own tests; the table unlinks with `retain`.
#[allow(dead_code)]
mod slots;

pub use report::MemoryReport;
use shared::TableKind;
pub(crate) use shared::TableShared;

use std::convert::Infallible;

use crate::atom::Atom;
use crate::byte_atom::ByteAtom;
use crate::byte_str::ByteStr;
use crate::error::StrError;
use crate::repr::atom_word::AtomWord;
use crate::repr::heap::Fallibility;
use crate::repr::str_word::StrForm;
use crate::repr::utf8::Utf8;
use crate::str::Str;
use crate::sync::Arc;

/// A set of interned strings: each distinct byte string has exactly one entry here, so
/// atoms of one table compare by a single word. Text and bytes share the entries: the
/// [`Atom`] for `"abc"` and the [`ByteAtom`] for `b"abc"` are one atom seen two ways.
///
/// Most programs use [`AtomTable::global()`] through [`Str::intern`], [`Atom::from`] and
/// [`Atom::lookup`]. An independent table (`AtomTable::new()`) has its own entries; its
/// atoms are distinct from the global table's (an atom's identity is its table entry),
/// except texts of up to 7 bytes, which are atoms by value in every table.
///
/// * Sharded: 64 shards chosen by the text's hash, each an open-addressing array of
///   one-word slots (the atom's address plus 16 bits of its hash). A hit takes no lock and
///   writes nothing but the atom's count; filing a new atom locks its shard, which grows
///   a few slots per write rather than all at once.
/// * Adopting: interning a heap [`Str`] that spans its buffer files that very buffer when
///   the text is new (global table and `AtomTable::new()` tables alike), so the atom and
///   the string share one allocation.
/// * Deferred reclamation: the table holds one count of every atom it files. When the
///   last [`Str`] and [`Atom`] of an interned text are dropped, the atom stays, *unused*,
///   and a later intern of the same text revives it without allocating. A shard frees its
///   unused atoms in one sweep once they outnumber `max(floor, in_use / 2)`, where `floor`
///   is the table's unused limit ([`AtomTable::set_unused_limit`], 4096 atoms by default,
///   divided among the shards): beyond that fixed floor the table holds at most half
///   again as many atoms as are in use. [`AtomTable::shrink`] sweeps at once, and a local
///   table frees its unused atoms when it is dropped (atoms still in use stay valid).
///   [`AtomTable::lookup`] finds only atoms in use.
/// * Hashing: rapidhash over every byte, computed at most once per heap string and
///   cached in its header. The global table and `AtomTable::new()` tables share the
///   process's random seed, so a cached hash serves them all; `AtomTable::with_seed`
///   tables hash with their own seed and copy rather than adopt.
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
    shared: Arc<TableShared>,
}

#[cfg(not(loom))]
static GLOBAL: std::sync::LazyLock<AtomTable> =
    std::sync::LazyLock::new(|| AtomTable::from_shared(TableShared::new(process_seed(), TableKind::Global)));

/// The seed of the global table and of every `AtomTable::new()` table.
#[cfg(not(loom))]
fn process_seed() -> u64 {
    static SEED: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *SEED.get_or_init(crate::hash::random_seed)
}

#[cfg(loom)]
fn process_seed() -> u64 {
    1
}

#[cfg(loom)]
loom::lazy_static! {
    static ref GLOBAL: AtomTable = AtomTable::from_shared(TableShared::new(process_seed(), TableKind::Global));
}

impl AtomTable {
    fn from_shared(shared: TableShared) -> AtomTable {
        AtomTable { shared: Arc::new(shared) }
    }

    /// A new, empty table. It hashes with the process's random seed, as the global table
    /// does, so it adopts a [`Str`]'s buffer as the global table does.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.is_empty());
    /// let s = dynatom::Str::from("kept in place by a local table");
    /// assert_eq!(s.intern_in(&table).as_ptr(), s.as_ptr());
    /// ```
    #[must_use]
    pub fn new() -> AtomTable {
        AtomTable::from_shared(TableShared::new(process_seed(), TableKind::Local))
    }

    /// A new, empty table with a fixed hash seed, for reproducible runs. A string's
    /// header caches the process seed's hash, so this table copies what it interns rather
    /// than adopting a [`Str`]'s buffer.
    ///
    /// ```
    /// let a = dynatom::AtomTable::with_seed(7);
    /// let b = dynatom::AtomTable::with_seed(7);
    /// assert_eq!(a.intern("same seed, same hash").hash64(), b.intern("same seed, same hash").hash64());
    /// ```
    #[must_use]
    pub fn with_seed(seed: u64) -> AtomTable {
        AtomTable::from_shared(TableShared::new(seed, TableKind::OwnSeed))
    }

    /// The process-wide table behind [`Str::intern`], [`Atom::from`] and [`Atom::lookup`].
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable};
    ///
    /// assert_eq!(AtomTable::global().intern("shared by everyone"), Atom::from("shared by everyone"));
    /// ```
    pub fn global() -> &'static AtomTable {
        &GLOBAL
    }

    pub(crate) fn shared(&self) -> &TableShared {
        &self.shared
    }

    /// The atom for `text`, filing a copy of it if it is new.
    ///
    /// # Panics
    /// If `text` is longer than [`Str::MAX_LEN`]; aborts if memory runs out
    /// ([`AtomTable::try_intern`] reports both instead).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert_eq!(table.intern("hello, atoms").as_str(), "hello, atoms");
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    pub fn intern(&self, text: &str) -> Atom {
        match self.try_intern_with(text, Fallibility::Infallible) {
            Ok(atom) => atom,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`AtomTable::intern`], but reports over-long input and allocation failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.try_intern("fits").is_ok());
    /// ```
    pub fn try_intern(&self, text: &str) -> Result<Atom, StrError> {
        self.try_intern_with(text, Fallibility::Fallible)
    }

    fn try_intern_with(&self, text: &str, fallibility: Fallibility) -> Result<Atom, StrError> {
        // The table's atom for these bytes holds exactly these bytes.
        Utf8::from_text(text, |bytes| self.try_intern_bytes_with(bytes, fallibility)).map(Atom::from_utf8_handle)
    }

    /// The atom for `bytes`, filing a copy of them if they are new. Text and bytes share
    /// the entries: equal bytes give the atom that equal text gives.
    ///
    /// # Panics
    /// If `bytes` is longer than [`ByteStr::MAX_LEN`]; aborts if memory runs out
    /// ([`AtomTable::try_intern_bytes`] reports both instead).
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteAtom};
    ///
    /// let table = AtomTable::new();
    /// let bytes = table.intern_bytes(b"shared by bytes and text");
    /// assert_eq!(bytes, ByteAtom::from(table.intern("shared by bytes and text")));
    /// assert_eq!(table.len(), 1);
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    pub fn intern_bytes(&self, bytes: &[u8]) -> ByteAtom {
        match self.try_intern_bytes_with(bytes, Fallibility::Infallible) {
            Ok(atom) => atom,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`AtomTable::intern_bytes`], but reports over-long input and allocation
    /// failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.try_intern_bytes(b"\xff fits").is_ok());
    /// ```
    pub fn try_intern_bytes(&self, bytes: &[u8]) -> Result<ByteAtom, StrError> {
        self.try_intern_bytes_with(bytes, Fallibility::Fallible)
    }

    fn try_intern_bytes_with(&self, bytes: &[u8], fallibility: Fallibility) -> Result<ByteAtom, StrError> {
        // Before hashing: an over-long text would be read whole only to be refused.
        if bytes.len() > ByteStr::MAX_LEN {
            return Err(StrError::TooLong { len: bytes.len() });
        }
        if let Some(word) = AtomWord::inline(bytes) {
            return Ok(ByteAtom::from_word(word));
        }
        self.shared.intern_copy(bytes, fallibility).map(ByteAtom::from_word)
    }

    /// The atom for the text of `s`; deprecated, the same as [`Str::intern_in`]
    /// (`s.intern_in(&table)`). A heap `Str` that spans its whole buffer is adopted
    /// when its text is new and no table has adopted it yet (`with_seed` tables copy); a
    /// `Str` already interned in the global table costs O(1); anything else is copied.
    ///
    /// ```
    /// use dynatom::{AtomTable, Str};
    ///
    /// let s = Str::from("adopted rather than copied");
    /// let atom = s.intern_in(AtomTable::global());
    /// assert_eq!(atom.as_ptr(), s.as_ptr());
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.intern_in(&table)`: `str` in a name means std's `&str`")]
    pub fn intern_str(&self, s: &Str) -> Atom {
        s.intern_in(self)
    }

    /// Like the deprecated [`AtomTable::intern_str`], but reports allocation failure;
    /// deprecated, the same as [`Str::try_intern_in`].
    ///
    /// ```
    /// let table = dynatom::AtomTable::with_seed(3);
    /// let s = dynatom::Str::from("copied into a table of its own seed");
    /// assert_eq!(s.try_intern_in(&table).unwrap(), table.intern("copied into a table of its own seed"));
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.try_intern_in(&table)`: `str` in a name means std's `&str`")]
    pub fn try_intern_str(&self, s: &Str) -> Result<Atom, StrError> {
        s.try_intern_in(self)
    }

    /// [`Str::intern_in`] and [`Str::try_intern_in`]: adopts, finds or copies.
    pub(crate) fn try_intern_str_with(&self, s: &Str, fallibility: Fallibility) -> Result<Atom, StrError> {
        // The table's atom for a string's bytes holds exactly those bytes.
        s.utf8_handle()
            .same_bytes(|bytes| self.try_intern_byte_str_with(bytes, fallibility))
            .map(Atom::from_utf8_handle)
    }

    /// The atom for the bytes of `s`; deprecated, the same as [`ByteStr::intern_in`]
    /// (`s.intern_in(&table)`).
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteStr};
    ///
    /// let s = ByteStr::copy_from_slice(b"adopted rather than copied: \xff");
    /// let atom = s.intern_in(AtomTable::global());
    /// assert_eq!(atom.as_ptr(), s.as_ptr());
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.intern_in(&table)`: a suffix after a verb names the argument")]
    pub fn intern_byte_str(&self, s: &ByteStr) -> ByteAtom {
        s.intern_in(self)
    }

    /// Like the deprecated [`AtomTable::intern_byte_str`], but reports allocation
    /// failure; deprecated, the same as [`ByteStr::try_intern_in`].
    ///
    /// ```
    /// let table = dynatom::AtomTable::with_seed(3);
    /// let s = dynatom::ByteStr::copy_from_slice(b"copied into a table of its own seed");
    /// assert_eq!(s.try_intern_in(&table).unwrap(), table.intern_bytes(b"copied into a table of its own seed"));
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.try_intern_in(&table)`: a suffix after a verb names the argument")]
    pub fn try_intern_byte_str(&self, s: &ByteStr) -> Result<ByteAtom, StrError> {
        s.try_intern_in(self)
    }

    /// [`ByteStr::intern_in`] and [`ByteStr::try_intern_in`]: adopts, finds or copies.
    pub(crate) fn try_intern_byte_str_with(&self, s: &ByteStr, fallibility: Fallibility) -> Result<ByteAtom, StrError> {
        let bytes = s.as_bytes();
        if let Some(word) = AtomWord::inline(bytes) {
            return Ok(ByteAtom::from_word(word));
        }
        let word = match s.word().form() {
            StrForm::Heap { block, offset: 0, len } if len == block.len() => {
                self.shared.intern_block(block, fallibility)?
            }
            StrForm::Static(bytes) => self.shared.intern_static(bytes),
            _ => self.shared.intern_copy(bytes, fallibility)?,
        };
        Ok(ByteAtom::from_word(word))
    }

    /// The atom for `text`, keeping the bytes in the binary if the text is new. Only the
    /// global table does that (its static atoms are immortal); a local table files a copy
    /// that is freed with its last handle, so the table itself can be freed.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern_static("a static keyword");
    /// assert_eq!(atom, table.intern("a static keyword"));
    /// ```
    pub fn intern_static(&self, text: &'static str) -> Atom {
        // The table's atom for these bytes holds exactly these bytes.
        let Ok(atom) = Utf8::from_text(text, |_| Ok::<_, Infallible>(self.intern_static_bytes(text.as_bytes())));
        Atom::from_utf8_handle(atom)
    }

    fn intern_static_bytes(&self, bytes: &'static [u8]) -> ByteAtom {
        if let Some(word) = AtomWord::inline(bytes) {
            return ByteAtom::from_word(word);
        }
        ByteAtom::from_word(self.shared.intern_static(bytes))
    }

    /// The atom for `text` if one is in use (an unused atom kept for reuse is not found);
    /// never files anything. Texts of up to 7 bytes are atoms by value, so for them this
    /// is always `Some`.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.lookup("nobody interned this").is_none());
    /// let atom = table.intern("somebody interned this");
    /// assert_eq!(table.lookup("somebody interned this"), Some(atom));
    /// ```
    pub fn lookup(&self, text: &str) -> Option<Atom> {
        // The table's atom for these bytes holds exactly these bytes.
        Utf8::from_text(text, |bytes| self.lookup_bytes(bytes).ok_or(())).ok().map(Atom::from_utf8_handle)
    }

    /// The atom for `bytes` if one is in use (filed from bytes or from text); never files
    /// anything. Up to 7 bytes are atoms by value, so for them this is always `Some`.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.lookup_bytes(b"nobody interned this").is_none());
    /// let atom = table.intern("somebody interned this as text");
    /// assert_eq!(table.lookup_bytes(b"somebody interned this as text").unwrap(), atom);
    /// ```
    pub fn lookup_bytes(&self, bytes: &[u8]) -> Option<ByteAtom> {
        if let Some(word) = AtomWord::inline(bytes) {
            return Some(ByteAtom::from_word(word));
        }
        self.shared.lookup(bytes).map(ByteAtom::from_word)
    }

    /// Whether `atom` is filed in this table (inline atoms belong to every table).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern("filed here, not globally");
    /// assert!(table.contains(&atom));
    /// assert!(!dynatom::AtomTable::global().contains(&atom));
    /// ```
    pub fn contains(&self, atom: &Atom) -> bool {
        atom.word().is_inline() || self.shared.lists(atom.word())
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
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// drop(table.intern("dropped at once, kept until the sweep"));
    /// let before = table.memory_report();
    /// assert_eq!(table.shrink(), 1);
    /// let after = table.memory_report();
    /// assert_eq!((after.unused_atoms, after.unused_bytes), (0, 0));
    /// assert_eq!(before.total_bytes() - after.total_bytes(), before.unused_bytes);
    /// ```
    pub fn shrink(&self) -> usize {
        self.shared.sweep()
    }

    /// Sets how many unused atoms the table keeps, beyond half of the atoms in use,
    /// before it sweeps them (4096 by default; 0 keeps the unused at most half the used).
    /// The limit is shared among the table's 64 shards, each sweeping on its own.
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
        MemoryReport::collect(&self.shared)
    }
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
