//! [`Resolver`]: the frozen, read-only form of a `SyncInterner`.

use super::{InternerMemoryReport, Symbol, SyncInterner};

/// A read-only interner from [`SyncInterner::freeze`]: `Send + Sync`, and every
/// operation is wait-free (no lock, no store, no retry loop — all inserts are
/// complete, so `resolve` never waits).
///
/// ```
/// use dynatom::interner::{Resolver, SyncInterner};
/// let i = SyncInterner::new();
/// let x = i.intern("x");
/// let r: Resolver = i.freeze();
/// std::thread::scope(|s| { s.spawn(|| assert_eq!(r.resolve(x), "x")); });
/// ```
pub struct Resolver {
    inner: SyncInterner,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver").field("len", &self.len()).finish()
    }
}

impl Resolver {
    pub(crate) fn new(inner: SyncInterner) -> Resolver {
        Resolver { inner }
    }

    /// Number of symbols.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.freeze().len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.inner.len()
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
    pub fn get(&self, s: &str) -> Option<Symbol> {
        self.inner.get(s)
    }

    /// `get(s).is_some()`.
    ///
    /// ```
    /// assert!(!dynatom::interner::SyncInterner::new().freeze().contains("a"));
    /// ```
    pub fn contains(&self, s: &str) -> bool {
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
        self.inner.resolve(sym)
    }

    /// The text of `sym`, or `None` if out of range.
    ///
    /// ```
    /// use dynatom::interner::{Symbol, SyncInterner};
    /// let r = SyncInterner::new().freeze();
    /// assert_eq!(r.try_resolve(Symbol::from_usize(0).unwrap()), None);
    /// ```
    pub fn try_resolve(&self, sym: Symbol) -> Option<&str> {
        self.inner.try_resolve(sym)
    }

    /// `(symbol, text)` pairs in symbol order.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.freeze().iter().count(), 1);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Symbol, &str)> + '_ {
        self.inner.iter()
    }

    /// Sizes and counters (see [`SyncInterner::memory_report`]).
    ///
    /// ```
    /// let r = dynatom::interner::SyncInterner::new().freeze();
    /// assert_eq!(r.memory_report().strings, 0);
    /// ```
    pub fn memory_report(&self) -> InternerMemoryReport {
        self.inner.memory_report()
    }

    /// Back to an interner that accepts inserts, with the same symbols.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// let i = i.freeze().into_interner();
    /// assert_eq!(i.intern("a"), a);
    /// ```
    pub fn into_interner(self) -> SyncInterner {
        self.inner
    }
}
