//! [`Resolver`]: the frozen, read-only form of a `SyncInterner`.

use super::{Interner, InternerMemoryReport, Limits, Symbol, SyncInterner};

/// A read-only interner from [`SyncInterner::freeze`]: `Send + Sync`, and every
/// operation is wait-free (no lock, no atomic read-modify-write, no store of any kind,
/// not even a statistics counter, and no retry loop).
///
/// Freezing copies the strings, in symbol order, into the single-threaded
/// [`Interner`]'s layout (one table bucket, a 2-byte offset and the characters per
/// lookup), which nothing will insert into again: lookups are as fast as the
/// `Interner`'s, and it holds about 8 bytes per string beyond the characters instead
/// of the `SyncInterner`'s ≈45. The copy costs O(total characters) once, and the
/// `SyncInterner`'s memory is freed when it is done.
///
/// ```
/// use dynatom::interner::{Resolver, SyncInterner};
/// let i = SyncInterner::new();
/// let x = i.intern("x");
/// let r: Resolver = i.freeze();
/// std::thread::scope(|s| { s.spawn(|| assert_eq!(r.resolve(x), "x")); });
/// ```
pub struct Resolver {
    frozen: Interner,
    /// What [`Resolver::into_interner`] rebuilds the `SyncInterner` with.
    rebuild: Rebuild,
}

/// The settings of the `SyncInterner` a [`Resolver`] was frozen from.
#[derive(Clone, Copy)]
pub(crate) struct Rebuild {
    pub(crate) seed: u64,
    pub(crate) shards: usize,
    pub(crate) limits: Limits,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver").field("len", &self.len()).finish()
    }
}

impl Resolver {
    /// The settings [`Resolver::into_interner`] rebuilds with.
    pub(crate) fn rebuild(&self) -> &Rebuild {
        &self.rebuild
    }

    /// Copies `strings` (every symbol's text, in symbol order) into a fresh
    /// single-threaded layout.
    pub(crate) fn freeze<'a>(strings: impl ExactSizeIterator<Item = (Symbol, &'a str)>, rebuild: Rebuild) -> Resolver {
        let mut frozen = Interner::with_seed_and_capacity(rebuild.seed, strings.len());
        for (sym, text) in strings {
            // Distinct texts in symbol order get the same numbers back; no limit is
            // set, so this cannot fail short of running out of memory.
            let copy = frozen.intern(text);
            debug_assert_eq!(copy, sym, "frozen symbol of {text:?}");
        }
        frozen.shrink_to_fit();
        frozen.reset_counters();
        Resolver { frozen, rebuild }
    }

    /// Number of symbols.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.freeze().len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.frozen.len()
    }

    /// `len() == 0`.
    ///
    /// ```
    /// assert!(dynatom::interner::SyncInterner::new().freeze().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The symbol of `s` if present.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// assert_eq!(i.freeze().get("a"), Some(a));
    /// ```
    pub fn get(&self, s: impl AsRef<str>) -> Option<Symbol> {
        let s = s.as_ref();
        self.frozen.get_uncounted(s)
    }

    /// `get(s).is_some()`.
    ///
    /// ```
    /// assert!(!dynatom::interner::SyncInterner::new().freeze().contains("a"));
    /// ```
    pub fn contains(&self, s: impl AsRef<str>) -> bool {
        let s = s.as_ref();
        self.get(s).is_some()
    }

    /// The text of `sym`.
    ///
    /// # Panics
    /// If `sym` is not from this resolver's interner.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// assert_eq!(i.freeze().resolve(a), "a");
    /// ```
    pub fn resolve(&self, sym: Symbol) -> &str {
        self.frozen.resolve(sym)
    }

    /// The text of `sym`, or `None` if out of range.
    ///
    /// ```
    /// use dynatom::interner::{Symbol, SyncInterner};
    /// let r = SyncInterner::new().freeze();
    /// assert_eq!(r.try_resolve(Symbol::from_usize(0).unwrap()), None);
    /// ```
    pub fn try_resolve(&self, sym: Symbol) -> Option<&str> {
        self.frozen.try_resolve(sym)
    }

    /// `(symbol, text)` pairs in symbol order.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.freeze().iter().count(), 1);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Symbol, &str)> + '_ {
        self.frozen.iter()
    }

    /// Sizes, in the single-threaded layout (see [`Interner::memory_report`]). The
    /// counters stay zero: a resolver's reads count nothing, since they write nothing.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// let r = i.freeze();
    /// r.get("a");
    /// let report = r.memory_report();
    /// assert_eq!((report.strings, report.char_bytes, report.lookups), (1, 1, 0));
    /// ```
    pub fn memory_report(&self) -> InternerMemoryReport {
        self.frozen.memory_report()
    }

    /// Back to an interner that accepts inserts, with the same symbols, seed, shard
    /// count and limits. The strings are copied again, in symbol order (O(total
    /// characters)).
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// let i = i.freeze().into_interner();
    /// assert_eq!(i.intern("a"), a);
    /// ```
    #[must_use]
    pub fn into_interner(self) -> SyncInterner {
        let Rebuild { seed, shards, limits } = self.rebuild;
        let interner = SyncInterner::with_seed(seed).with_shards(shards).expect("a new interner is empty");
        for (sym, text) in self.frozen.iter() {
            // One thread inserting distinct texts in order numbers them 0, 1, 2, ...;
            // the limits are set afterwards, since these strings were admitted under
            // them once already.
            let again = interner.intern(text);
            debug_assert_eq!(again, sym, "thawed symbol of {text:?}");
        }
        interner.with_limits(limits)
    }
}
