//! String interners handing out 4-byte [`Symbol`]s, for compilers, parsers and
//! query engines.
//!
//! * [`Interner`]: single-threaded (`&mut self` to insert, `&self` to read).
//! * [`SyncInterner`]: shared across threads; reads take no lock and write nothing.
//! * [`Resolver`]: the read-only, wait-free form of a `SyncInterner` ([`SyncInterner::freeze`]).
//!
//! Strings are never freed one at a time; symbols are numbered `0..len` in insertion
//! order. The single-threaded interner costs about 7–11 bytes per distinct string
//! beyond its characters (a 2-byte end offset, a page pointer per 32 strings and a
//! packed 4-byte hash-table slot at 45–90 % load; see [`Interner`]).
//!
//! ```
//! use dynatom::interner::Interner;
//! let mut names = Interner::new();
//! let x = names.intern("x");
//! assert_eq!(names.intern("x"), x);
//! assert_eq!(names.resolve(x), "x");
//! assert_eq!(names.get("y"), None);
//! ```

// The interners' storage and its byte compares: used by nothing else in the crate.
mod arena;
mod column;
mod cuckoo_table;
mod interner_error;
mod interner_report;
#[cfg(feature = "serde")]
mod interner_serde;
mod interner_traits;
mod resolver;
mod segments;
mod shard_table;
mod simd;
mod symbol;
mod sync_interner;
mod text_store;

pub use interner_error::{InternerError, Limits, ShardsError};
pub use interner_report::InternerMemoryReport;
pub use resolver::Resolver;
pub use symbol::Symbol;
pub use sync_interner::SyncInterner;

use cuckoo_table::{SymTable, hash27};
use text_store::TextStore;

use self::arena::AllocFailed;
use crate::counters::{Counter, RelaxedCounters, Uncounted};
use crate::hash::{DETERMINISTIC_SEED, StrHasher, random_seed};

use std::num::NonZeroU32;

/// Longest key the interner's inline lookup path takes (hashing and comparing without a
/// call); longer keys go out of line.
const SHORT: usize = 32;

/// Outcome of [`Interner::find_fast`].
enum Fast {
    Hit(Symbol),
    /// Absent: no tag matched and the primary bucket has room.
    Miss,
    /// Needs the full lookup.
    Unsure,
}

#[cold]
#[inline(never)]
fn intern_failed(e: InternerError) -> ! {
    panic!("Interner::intern: {e}")
}

/// A single-threaded string interner with 4-byte [`Symbol`]s.
///
/// Layout: characters packed into chunks of at most 32 KiB that are never
/// reallocated (strings over 8 KiB get their own block). Symbols are grouped in
/// pages of 32 whose strings lie back to back, so the symbol → text index is one
/// `u16` end offset per symbol plus one pointer per page (strings over 255 bytes
/// and `intern_static` strings are reached through a small side list). The hash
/// table is a cuckoo table of packed `u32` slots, sixteen to a cache line (symbol +
/// 27 hash bits, so growth never re-reads strings and mismatches are rejected
/// without touching them). A lookup that hits costs one bucket, one index entry
/// and the characters; an insert after a miss, in the common case, writes a free
/// slot of the bucket the lookup read, the characters and one index entry, with
/// no call and no second lookup. Reading (`get`, `resolve`, `iter`) works through `&self`,
/// so a finished interner can be shared by reference across threads.
///
/// Limits: at most [`Symbol::MAX_COUNT`] symbols in principle, about 1.93 billion in
/// practice (the table's size); [`try_intern`](Interner::try_intern) reports these,
/// [`Limits`] and a refused allocation as errors, and adds nothing then.
///
/// ```
/// use dynatom::interner::Interner;
/// let mut i = Interner::deterministic();
/// let kw = i.intern_static("fn");
/// let id = i.intern("main");
/// assert_eq!(i.iter().collect::<Vec<_>>(), [(kw, "fn"), (id, "main")]);
/// ```
pub struct Interner {
    hasher: StrHasher,
    text: TextStore,
    table: SymTable,
    limits: Limits,
    /// Below this many strings an insert needs no check of the limits: the symbol
    /// limit (and the table's) when there is no byte limit, else 0.
    fast_cap: usize,
    stats: RelaxedCounters,
}

impl Default for Interner {
    /// Same as [`Interner::new`].
    ///
    /// ```
    /// assert!(dynatom::interner::Interner::default().is_empty());
    /// ```
    fn default() -> Interner {
        Interner::new()
    }
}

impl std::fmt::Debug for Interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interner").field("len", &self.len()).finish()
    }
}

impl Interner {
    /// An empty interner with a random hash seed. Allocates nothing until used.
    ///
    /// ```
    /// let i = dynatom::interner::Interner::new();
    /// assert_eq!(i.len(), 0);
    /// ```
    #[must_use]
    pub fn new() -> Interner {
        Interner::with_seed(random_seed())
    }

    /// An empty interner with a fixed hash seed: its memory layout and statistics
    /// are reproducible run to run. (Symbol numbering and iteration order are
    /// insertion order whatever the seed.) Not resistant to chosen-collision inputs.
    ///
    /// ```
    /// use dynatom::interner::Interner;
    /// let (mut a, mut b) = (Interner::deterministic(), Interner::deterministic());
    /// assert_eq!(a.intern("q"), b.intern("q"));
    /// ```
    #[must_use]
    pub fn deterministic() -> Interner {
        Interner::with_seed(DETERMINISTIC_SEED)
    }

    /// An empty interner hashing with `seed`.
    ///
    /// ```
    /// let i = dynatom::interner::Interner::with_seed(42);
    /// assert!(i.is_empty());
    /// ```
    #[must_use]
    pub fn with_seed(seed: u64) -> Interner {
        Interner {
            hasher: StrHasher::new(seed),
            text: TextStore::new(),
            table: SymTable::new(),
            limits: Limits::default(),
            fast_cap: Self::fast_cap(&Limits::default()),
            stats: RelaxedCounters::default(),
        }
    }

    /// An empty interner (random seed) with room for `n` strings without growing
    /// its table or index.
    ///
    /// # Panics
    /// If `n` is more strings than an interner can index (about 1.93 billion), or the
    /// index cannot be allocated; [`Interner::try_with_capacity`] reports both instead.
    ///
    /// ```
    /// let i = dynatom::interner::Interner::with_capacity(1000);
    /// assert!(i.memory_report().table_bytes > 0);
    /// ```
    #[must_use]
    pub fn with_capacity(n: usize) -> Interner {
        Interner::with_seed_and_capacity(random_seed(), n)
    }

    /// [`with_capacity`](Interner::with_capacity) with a given hash seed.
    ///
    /// # Panics
    /// As [`with_capacity`](Interner::with_capacity).
    pub(crate) fn with_seed_and_capacity(seed: u64, n: usize) -> Interner {
        Interner::try_with_seed_and_capacity(seed, n).unwrap_or_else(|e| panic!("Interner::with_capacity({n}): {e}"))
    }

    /// [`try_with_capacity`](Interner::try_with_capacity) with a given hash seed.
    pub(crate) fn try_with_seed_and_capacity(seed: u64, n: usize) -> Result<Interner, InternerError> {
        let max = SymTable::max_entries();
        if n > max {
            return Err(InternerError::SymbolsExhausted { max });
        }
        let mut i = Interner::with_seed(seed);
        i.text.try_reserve(n).map_err(|_| InternerError::AllocFailed { strings: n })?;
        if n > 0 {
            i.table.try_reserve(n).map_err(|_| InternerError::AllocFailed { strings: n })?;
        }
        Ok(i)
    }

    /// The hash seed, for copies that must hash alike.
    pub(crate) fn seed(&self) -> u64 {
        self.hasher.seed()
    }

    /// Sets the limits that make [`try_intern`](Interner::try_intern) fail.
    ///
    /// ```
    /// use dynatom::interner::{Interner, Limits};
    /// let mut i = Interner::new().with_limits(Limits { max_bytes: 64, ..Limits::default() });
    /// assert!(i.try_intern("needs a chunk").is_err());
    /// ```
    #[must_use = "a `with_` method consumes the interner and returns the configured one"]
    pub fn with_limits(mut self, limits: Limits) -> Interner {
        self.limits = limits;
        self.fast_cap = Self::fast_cap(&limits);
        self
    }

    /// The `fast_cap` of an interner with these limits.
    fn fast_cap(limits: &Limits) -> usize {
        if limits.max_bytes == usize::MAX { limits.symbol_cap().min(SymTable::max_entries()) } else { 0 }
    }

    /// Number of distinct strings (the next symbol's index).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("a"); i.intern("a");
    /// assert_eq!(i.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// `len() == 0`.
    ///
    /// ```
    /// assert!(dynatom::interner::Interner::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline(always)]
    fn hash(&self, s: &str) -> u32 {
        hash27(self.hasher.hash(s.as_bytes()))
    }

    /// The inline part of a lookup of `q` (at most [`SHORT`] bytes, 27-bit hash
    /// `h`): the first tag match in the primary bucket is the string, or no tag
    /// matches and the bucket has room. Makes no call, so that the callers' hot
    /// paths need no saved registers and hand every other case to an out-of-line
    /// function as a tail call.
    #[inline(always)]
    fn find_fast(&self, h: u32, q: &[u8], counter: &impl Counter) -> Fast {
        let probe = self.table.probe(h);
        if probe.matches != 0 {
            let raw = self.table.sym_plus_one(probe.first());
            // SAFETY: a matching slot holds a real entry, whose index (raw - 1) is
            // below `len()` and whose symbol field `raw` is not 0; `q` is short.
            unsafe {
                if self.text.eq_short((raw - 1) as usize, q) {
                    counter.fast_hit();
                    return Fast::Hit(Symbol::from_raw(NonZeroU32::new_unchecked(raw)));
                }
            }
            Fast::Unsure
        } else if probe.has_room() {
            counter.fast_miss();
            Fast::Miss
        } else {
            Fast::Unsure
        }
    }

    /// The symbol of `s`, if present (any length).
    fn find(&self, s: &str, counter: &impl Counter) -> (u32, Option<Symbol>) {
        let q = s.as_bytes();
        let h = self.hash(s);
        if q.len() <= SHORT {
            match self.find_fast(h, q, counter) {
                Fast::Hit(sym) => return (h, Some(sym)),
                Fast::Miss => return (h, None),
                Fast::Unsure => {}
            }
        }
        (h, self.find_slow(h, q, counter))
    }

    /// Every other lookup: later matches, long strings, the alternate bucket, the stash.
    #[inline(never)]
    fn find_slow(&self, h: u32, q: &[u8], counter: &impl Counter) -> Option<Symbol> {
        self.find_full(h, q, counter)
    }

    /// [`find_slow`](Self::find_slow), inline.
    #[inline(always)]
    fn find_full(&self, h: u32, q: &[u8], counter: &impl Counter) -> Option<Symbol> {
        let found = self.table.find(h, |i| self.text.eq(i as usize, q));
        counter.lookup(found.index.is_some(), found.probes);
        found.index.and_then(|i| Symbol::from_usize(i as usize))
    }

    /// The symbol of `s`, adding it if new.
    ///
    /// # Panics
    /// On any [`InternerError`] (see [`try_intern`](Interner::try_intern)).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// let a = i.intern("a");
    /// assert_eq!(i.intern("a"), a);
    /// ```
    #[inline]
    pub fn intern(&mut self, s: impl AsRef<str>) -> Symbol {
        let s = s.as_ref();
        let q = s.as_bytes();
        if q.len() <= SHORT {
            let h = self.hash(s);
            return match self.find_fast(h, q, &self.stats) {
                Fast::Hit(sym) => sym,
                Fast::Miss => self.intern_new(h, s),
                Fast::Unsure => self.intern_unsure(h, s),
            };
        }
        self.intern_slow(s)
    }

    /// `intern` of a string known to be absent (hash `h`, at most [`SHORT`] bytes)
    /// whose primary bucket has room. The common case makes no call, so it saves no
    /// registers; every other one goes on as a tail call.
    #[inline(never)]
    fn intern_new(&mut self, h: u32, s: &str) -> Symbol {
        if let Some(sym) = self.insert_fast(h, s, false) {
            return sym;
        }
        self.intern_absent(h, s)
    }

    /// `intern` of a string known to be absent (hash `h`), any case.
    #[inline(never)]
    fn intern_absent(&mut self, h: u32, s: &str) -> Symbol {
        match self.insert_owned(h, s) {
            Ok(sym) => sym,
            Err(e) => intern_failed(e),
        }
    }

    /// `intern` of a short string (hash `h`) that the inline lookup could not settle.
    #[inline(never)]
    fn intern_unsure(&mut self, h: u32, s: &str) -> Symbol {
        if let Some(sym) = self.find_full(h, s.as_bytes(), &self.stats) {
            return sym;
        }
        // Most often the primary bucket was full and the alternate has room.
        if let Some(sym) = self.insert_fast(h, s, true) {
            return sym;
        }
        self.intern_absent(h, s)
    }

    /// `intern` the slow way: a full lookup, then an insert if absent.
    #[inline(never)]
    fn intern_slow(&mut self, s: &str) -> Symbol {
        match self.try_intern_slow(s) {
            Ok(sym) => sym,
            Err(e) => intern_failed(e),
        }
    }

    /// The symbol of `s`, adding a copy of it if new; errors instead of exceeding
    /// the symbol space or the configured [`Limits`], and when the allocator refuses
    /// memory ([`InternerError::OutOfMemory`]). On an error nothing is added and every
    /// string already present still resolves.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// assert_eq!(i.try_intern("a").unwrap().to_usize(), 0);
    /// ```
    #[inline]
    pub fn try_intern(&mut self, s: impl AsRef<str>) -> Result<Symbol, InternerError> {
        let s = s.as_ref();
        let q = s.as_bytes();
        if q.len() <= SHORT {
            let h = self.hash(s);
            return match self.find_fast(h, q, &self.stats) {
                Fast::Hit(sym) => Ok(sym),
                Fast::Miss => self.try_intern_new(h, s),
                Fast::Unsure => self.try_intern_unsure(h, s),
            };
        }
        self.try_intern_slow(s)
    }

    #[inline(never)]
    fn try_intern_new(&mut self, h: u32, s: &str) -> Result<Symbol, InternerError> {
        self.insert_owned(h, s)
    }

    #[inline(never)]
    fn try_intern_unsure(&mut self, h: u32, s: &str) -> Result<Symbol, InternerError> {
        match self.find_slow(h, s.as_bytes(), &self.stats) {
            Some(sym) => Ok(sym),
            None => self.insert_owned(h, s),
        }
    }

    #[inline(never)]
    fn try_intern_slow(&mut self, s: &str) -> Result<Symbol, InternerError> {
        let (h, found) = self.find(s, &self.stats);
        match found {
            Some(sym) => Ok(sym),
            None => self.insert_owned(h, s),
        }
    }

    /// Adds a copy of `s` (hash `h`), known to be absent, when that needs no check of
    /// the limits, no allocation, and no move of another entry: `s` is at most 32
    /// bytes and goes into a free slot of its primary bucket (or, with `alt`, of its
    /// alternate when the primary is full). Returns `None`, having changed nothing,
    /// otherwise.
    #[inline(always)]
    fn insert_fast(&mut self, h: u32, s: &str, alt: bool) -> Option<Symbol> {
        let index = self.len();
        if index >= self.fast_cap {
            return None;
        }
        // `index < fast_cap <= SymTable::max_entries() < u32::MAX`: `raw` is not 0.
        let raw = NonZeroU32::new((index as u32).wrapping_add(1))?;
        let at = if alt { self.table.free_slot(h)? } else { self.table.free_primary_slot(h)? };
        if !self.text.can_push_fast(s.len()) {
            return None;
        }
        // Nothing can fail from here on: the table first, so that fewer values stay live.
        self.table.fill(at, h, index as u32);
        self.text.push_fast(s.as_bytes());
        self.stats.insert();
        Some(Symbol::from_raw(raw))
    }

    /// Adds a copy of `s` (hash `h`), known to be absent.
    #[inline(never)]
    fn insert_owned(&mut self, h: u32, s: &str) -> Result<Symbol, InternerError> {
        if let Some(sym) = self.insert_fast(h, s, true) {
            return Ok(sym);
        }
        self.insert_new(h, s.len(), false, |text| text.try_push_owned(s))
    }

    /// Like [`intern`](Interner::intern) but keeps a reference to `s` instead of
    /// copying it when it is new.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// let kw = i.intern_static("while");
    /// assert_eq!(i.intern("while"), kw);
    /// assert_eq!(i.memory_report().char_bytes, 0);
    /// ```
    pub fn intern_static(&mut self, s: &'static str) -> Symbol {
        match self.try_intern_static(s) {
            Ok(sym) => sym,
            Err(e) => panic!("Interner::intern_static: {e}"),
        }
    }

    /// Fallible [`intern_static`](Interner::intern_static).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// assert!(i.try_intern_static("let").is_ok());
    /// ```
    pub fn try_intern_static(&mut self, s: &'static str) -> Result<Symbol, InternerError> {
        let (h, found) = self.find(s, &self.stats);
        match found {
            Some(sym) => Ok(sym),
            None => self.insert_new(h, 0, true, |text| text.try_push_static(s)),
        }
    }

    fn insert_new(
        &mut self,
        h: u32,
        copy_len: usize,
        is_static: bool,
        push: impl FnOnce(&mut TextStore) -> Result<(), AllocFailed>,
    ) -> Result<Symbol, InternerError> {
        let index = self.len();
        let max = self.limits.symbol_cap().min(SymTable::max_entries());
        let sym = Symbol::from_usize(index).filter(|_| index < max).ok_or(InternerError::SymbolsExhausted { max })?;
        let table_cost = self.table.reserve_cost(1).ok_or(InternerError::SymbolsExhausted { max })?;
        if self.limits.max_bytes != usize::MAX {
            let needed = self.memory_report().total_bytes() + table_cost + self.text.push_cost(copy_len, is_static);
            self.limits.check_bytes(needed)?;
        }
        // Every allocation before any change: the table's room first, then the text
        // (whose steps each leave the store as it was when they fail).
        self.table.try_reserve_insert(h)?;
        push(&mut self.text)?;
        self.table.insert(h, sym.index_u32());
        self.stats.insert();
        Ok(sym)
    }

    /// The symbol of `s` if it is present; never inserts.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// assert_eq!(i.get("a"), None);
    /// let a = i.intern("a");
    /// assert_eq!(i.get("a"), Some(a));
    /// ```
    #[inline]
    pub fn get(&self, s: impl AsRef<str>) -> Option<Symbol> {
        let s = s.as_ref();
        self.get_counted(s, &self.stats)
    }

    /// [`get`](Interner::get) that writes no memory at all, not even the statistics
    /// counters: what a [`Resolver`] shared by many threads reads through.
    #[inline]
    pub(crate) fn get_uncounted(&self, s: &str) -> Option<Symbol> {
        self.get_counted(s, &Uncounted)
    }

    #[inline(always)]
    fn get_counted(&self, s: &str, counter: &impl Counter) -> Option<Symbol> {
        let q = s.as_bytes();
        if q.len() <= SHORT {
            let h = self.hash(s);
            return match self.find_fast(h, q, counter) {
                Fast::Hit(sym) => Some(sym),
                Fast::Miss => None,
                Fast::Unsure => self.find_slow(h, q, counter),
            };
        }
        self.get_slow(s, counter)
    }

    #[inline(never)]
    fn get_slow(&self, s: &str, counter: &impl Counter) -> Option<Symbol> {
        self.find(s, counter).1
    }

    /// Forgets the lookup and insert counters (a frozen copy starts from zero).
    pub(crate) fn reset_counters(&mut self) {
        self.stats = RelaxedCounters::default();
    }

    /// `get(s).is_some()`.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("a");
    /// assert!(i.contains("a") && !i.contains("b"));
    /// ```
    #[inline]
    pub fn contains(&self, s: impl AsRef<str>) -> bool {
        let s = s.as_ref();
        self.get(s).is_some()
    }

    /// The text of `sym`.
    ///
    /// A symbol from another interner is not detected when its index is in range: it
    /// resolves to this interner's string with that index (see [`Symbol`]).
    ///
    /// # Panics
    /// If `sym`'s index is `>= len()` (for example a symbol from a larger interner).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// let s = i.intern("text");
    /// assert_eq!(i.resolve(s), "text");
    /// ```
    #[inline]
    pub fn resolve(&self, sym: Symbol) -> &str {
        self.text.get(sym.to_usize())
    }

    /// The text of `sym`, or `None` if its index is out of range.
    ///
    /// ```
    /// use dynatom::interner::{Interner, Symbol};
    /// let i = Interner::new();
    /// assert_eq!(i.try_resolve(Symbol::from_usize(0).unwrap()), None);
    /// ```
    #[inline]
    pub fn try_resolve(&self, sym: Symbol) -> Option<&str> {
        (sym.to_usize() < self.len()).then(|| self.resolve(sym))
    }

    /// `(symbol, text)` pairs in symbol (insertion) order.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("a"); i.intern("b");
    /// let texts: Vec<&str> = i.iter().map(|(_, t)| t).collect();
    /// assert_eq!(texts, ["a", "b"]);
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        Iter { interner: self, next: 0 }
    }

    /// Sizes and lookup counters.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("a");
    /// assert_eq!(i.memory_report().inserts, 1);
    /// ```
    pub fn memory_report(&self) -> InternerMemoryReport {
        let mut r = InternerMemoryReport {
            strings: self.len(),
            table_bytes: self.table.bytes(),
            index_bytes: self.text.index_bytes(),
            char_bytes: self.text.char_bytes(),
            slack_bytes: self.text.slack_bytes(),
            ..InternerMemoryReport::default()
        };
        r.set_counters(&self.stats.snapshot());
        r
    }

    /// Releases spare capacity: the index, the open chunk's unused tail, and
    /// the hash table (rebuilt at the smallest size that holds every string).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::with_capacity(10_000);
    /// i.intern("a");
    /// let before = i.memory_report().total_bytes();
    /// i.shrink_to_fit();
    /// assert!(i.memory_report().total_bytes() < before);
    /// assert_eq!(i.get("a").map(|s| s.to_usize()), Some(0));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        self.text.shrink_to_fit();
        self.table.shrink_to_fit();
    }
}

/// Iterator over an [`Interner`]'s `(Symbol, &str)` pairs, in symbol order.
///
/// ```
/// let mut i = dynatom::interner::Interner::new();
/// i.intern("z");
/// let mut it: dynatom::interner::Iter<'_> = i.iter();
/// assert_eq!(it.next().map(|(_, s)| s), Some("z"));
/// assert_eq!(format!("{it:?}"), "Iter { next: 1, len: 1 }");
/// ```
pub struct Iter<'a> {
    interner: &'a Interner,
    next: usize,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (Symbol, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.interner.len() {
            return None;
        }
        let sym = Symbol::from_usize(self.next)?;
        self.next += 1;
        Some((sym, self.interner.resolve(sym)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.interner.len() - self.next;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// Where the iteration stands, not the strings (an interner may hold millions).
impl std::fmt::Debug for Iter<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Iter").field("next", &self.next).field("len", &self.interner.len()).finish()
    }
}

impl<'a> IntoIterator for &'a Interner {
    type Item = (Symbol, &'a str);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl<'s> FromIterator<&'s str> for Interner {
    /// Interns every string, in order.
    ///
    /// ```
    /// let i: dynatom::interner::Interner = ["a", "b", "a"].into_iter().collect();
    /// assert_eq!(i.len(), 2);
    /// ```
    fn from_iter<T: IntoIterator<Item = &'s str>>(iter: T) -> Interner {
        let mut i = Interner::new();
        i.extend(iter);
        i
    }
}

impl<'s> Extend<&'s str> for Interner {
    /// Interns every string, in order.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.extend(["x", "y"]);
    /// assert_eq!(i.len(), 2);
    /// ```
    fn extend<T: IntoIterator<Item = &'s str>>(&mut self, iter: T) {
        for s in iter {
            self.intern(s);
        }
    }
}
