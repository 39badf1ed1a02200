//! The standard traits users of other interners reach for: `interner[sym]`, `Clone`,
//! `clear()`, and `Symbol`'s conversions and `Display`.

use std::fmt;
use std::ops::Index;

use super::resolver::Rebuild;
use super::{Interner, InternerError, Resolver, Symbol, SyncInterner};

impl Index<Symbol> for Interner {
    type Output = str;

    /// `interner[sym]` is [`Interner::resolve`].
    ///
    /// # Panics
    /// If `sym`'s index is not below `len()`.
    #[inline]
    fn index(&self, sym: Symbol) -> &str {
        self.resolve(sym)
    }
}

impl Index<Symbol> for SyncInterner {
    type Output = str;

    /// `interner[sym]` is [`SyncInterner::resolve`].
    ///
    /// # Panics
    /// If `sym`'s index is not below `len()`.
    #[inline]
    fn index(&self, sym: Symbol) -> &str {
        self.resolve(sym)
    }
}

impl Index<Symbol> for Resolver {
    type Output = str;

    /// `resolver[sym]` is [`Resolver::resolve`].
    ///
    /// # Panics
    /// If `sym`'s index is not below `len()`.
    #[inline]
    fn index(&self, sym: Symbol) -> &str {
        self.resolve(sym)
    }
}

impl Clone for Interner {
    /// A copy with the same symbols, hash seed and limits: the strings are interned
    /// again in symbol order (O(total characters)), so they are numbered alike.
    /// `intern_static` strings are copied like the others. The statistics counters
    /// start from zero.
    fn clone(&self) -> Interner {
        let mut copy = Interner::with_seed_and_capacity(self.seed(), self.len());
        for (sym, text) in self.iter() {
            let again = copy.intern(text);
            debug_assert_eq!(again, sym, "cloned symbol of {text:?}");
        }
        copy.with_limits(self.limits)
    }
}

impl Interner {
    /// Forgets every string and frees the memory, keeping the hash seed and limits.
    /// Symbols handed out before no longer resolve (or resolve to new strings: see
    /// [`Symbol`] on foreign symbols).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("gone");
    /// i.clear();
    /// assert!(i.is_empty());
    /// assert_eq!(i.intern("new").to_usize(), 0);
    /// ```
    pub fn clear(&mut self) {
        *self = Interner::with_seed(self.seed()).with_limits(self.limits);
    }

    /// Like [`Interner::with_capacity`], but an impossible capacity (more strings than
    /// the table can index) or a failed allocation of the index is an error instead of
    /// a panic or an abort.
    ///
    /// ```
    /// use dynatom::interner::{Interner, InternerError};
    ///
    /// assert!(Interner::try_with_capacity(1000).is_ok());
    /// assert!(matches!(Interner::try_with_capacity(usize::MAX), Err(InternerError::SymbolsExhausted { .. })));
    /// ```
    pub fn try_with_capacity(n: usize) -> Result<Interner, InternerError> {
        Interner::try_with_seed_and_capacity(crate::hash::random_seed(), n)
    }
}

impl Clone for Resolver {
    /// A copy with the same symbols, re-interned in symbol order.
    fn clone(&self) -> Resolver {
        let Rebuild { seed, shards, limits } = *self.rebuild();
        Resolver::freeze(self.iter(), Rebuild { seed, shards, limits })
    }
}

impl fmt::Display for Symbol {
    /// The symbol's index, as in `Debug`'s `Symbol(3)`:
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("a");
    /// let b = i.intern("b");
    /// assert_eq!(b.to_string(), "#1");
    /// assert_eq!(format!("{b:?}"), "Symbol(1)");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.to_usize())
    }
}

impl TryFrom<usize> for Symbol {
    type Error = InternerError;

    /// The symbol with this index: [`Symbol::from_usize`] with an error instead of `None`.
    ///
    /// ```
    /// use dynatom::interner::Symbol;
    ///
    /// assert_eq!(Symbol::try_from(5usize).unwrap().to_usize(), 5);
    /// assert!(Symbol::try_from(usize::MAX).is_err());
    /// ```
    fn try_from(index: usize) -> Result<Symbol, InternerError> {
        Symbol::from_usize(index).ok_or(InternerError::SymbolsExhausted { max: Symbol::MAX_COUNT })
    }
}

impl TryFrom<u32> for Symbol {
    type Error = InternerError;

    /// The symbol with this index; `u32::MAX` is the one index without a symbol.
    ///
    /// ```
    /// use dynatom::interner::Symbol;
    ///
    /// assert_eq!(Symbol::try_from(5u32).unwrap().to_usize(), 5);
    /// assert!(Symbol::try_from(u32::MAX).is_err());
    /// ```
    fn try_from(index: u32) -> Result<Symbol, InternerError> {
        Symbol::try_from(index as usize)
    }
}

impl From<Symbol> for u32 {
    /// The symbol's index (always below `u32::MAX`).
    ///
    /// ```
    /// let s = dynatom::interner::Symbol::from_usize(9).unwrap();
    /// assert_eq!(u32::from(s), 9);
    /// ```
    fn from(sym: Symbol) -> u32 {
        sym.index_u32()
    }
}
