//! [`Symbol`]: the 4-byte handle an interner hands out.

use std::fmt;
use std::num::NonZeroU32;

/// A 4-byte, `Copy` handle to a string in an [`Interner`](super::Interner) or
/// [`SyncInterner`](super::SyncInterner).
///
/// It stores `index + 1` in a [`NonZeroU32`], so `Option<Symbol>` is also 4 bytes.
/// Symbols are numbered contiguously from 0 in insertion order, and `Ord` follows that
/// order (not the text's order).
///
/// # A symbol from another interner resolves to an unrelated string
///
/// A symbol is an index, and nothing in its 4 bytes says which interner made it. Given
/// to another interner, it resolves **silently to whatever string has that index
/// there**, or panics in `resolve` (`None` from `try_resolve`) if the index is out of
/// range. There is no checked mode: an interner id would not fit in 4 bytes without
/// shrinking the symbol space, and a debug-only field would make `Option<Symbol>` a
/// different size in debug and release builds. When a program holds several
/// interners, give each its own symbol type so the compiler keeps them apart:
///
/// ```
/// use dynatom::interner::{Interner, Symbol};
///
/// #[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// struct FieldName(Symbol);
/// #[derive(Clone, Copy, PartialEq, Eq, Debug)]
/// struct TypeName(Symbol);
///
/// let (mut fields, mut types) = (Interner::new(), Interner::new());
/// let x = FieldName(fields.intern("x"));
/// let point = TypeName(types.intern("Point"));
/// assert_eq!(types.resolve(point.0), "Point");
/// // `types.resolve(x.0)` would compile but answer "Point": index 0 of the other
/// // interner. Keeping `x` a `FieldName` makes that mistake visible at the call site.
/// assert_eq!(types.resolve(x.0), "Point");
/// ```
///
/// ```
/// use dynatom::interner::{Interner, Symbol};
/// assert_eq!(std::mem::size_of::<Option<Symbol>>(), 4);
/// let mut i = Interner::new();
/// let a = i.intern("a");
/// let b = i.intern("b");
/// assert!(a < b);
/// assert_eq!((a.to_usize(), b.to_usize()), (0, 1));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Symbol(NonZeroU32);

impl Symbol {
    /// The largest number of symbols any interner can hold (`u32::MAX`: indices
    /// `0..=u32::MAX - 1`). Interners may stop earlier (see their `try_intern`).
    ///
    /// ```
    /// assert_eq!(dynatom::interner::Symbol::MAX_COUNT, u32::MAX as usize);
    /// ```
    pub const MAX_COUNT: usize = u32::MAX as usize;

    /// The symbol with this 0-based index, or `None` if `index >= MAX_COUNT`.
    ///
    /// This is a checked conversion; it does not check that any interner holds it.
    ///
    /// ```
    /// use dynatom::interner::Symbol;
    /// assert_eq!(Symbol::from_usize(7).unwrap().to_usize(), 7);
    /// assert!(Symbol::from_usize(u32::MAX as usize).is_none());
    /// ```
    #[inline]
    pub fn from_usize(index: usize) -> Option<Symbol> {
        let plus_one = u32::try_from(index).ok()?.checked_add(1)?;
        NonZeroU32::new(plus_one).map(Symbol)
    }

    /// The 0-based index of this symbol (its position in insertion order).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// assert_eq!(i.intern("x").to_usize(), 0);
    /// ```
    #[must_use]
    #[inline]
    pub fn to_usize(self) -> usize {
        // u32 -> usize is lossless on the 32/64-bit targets this crate supports.
        (self.0.get() - 1) as usize
    }

    /// The raw `index + 1` value (never zero), e.g. for packing into other structures.
    ///
    /// ```
    /// let s = dynatom::interner::Symbol::from_usize(0).unwrap();
    /// assert_eq!(s.to_raw().get(), 1);
    /// ```
    #[must_use]
    #[inline]
    pub fn to_raw(self) -> NonZeroU32 {
        self.0
    }

    /// Rebuilds a symbol from [`to_raw`](Symbol::to_raw).
    ///
    /// ```
    /// use dynatom::interner::Symbol;
    /// let s = Symbol::from_usize(3).unwrap();
    /// assert_eq!(Symbol::from_raw(s.to_raw()), s);
    /// ```
    #[must_use]
    #[inline]
    pub fn from_raw(raw: NonZeroU32) -> Symbol {
        Symbol(raw)
    }

    /// Index as `u32` (always `< u32::MAX`).
    #[inline]
    pub(crate) fn index_u32(self) -> u32 {
        self.0.get() - 1
    }
}

impl fmt::Debug for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Symbol({})", self.to_usize())
    }
}

impl From<Symbol> for usize {
    /// ```
    /// let s = dynatom::interner::Symbol::from_usize(2).unwrap();
    /// assert_eq!(usize::from(s), 2);
    /// ```
    fn from(s: Symbol) -> usize {
        s.to_usize()
    }
}
