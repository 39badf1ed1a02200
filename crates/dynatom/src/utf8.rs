//! The one place where bytes are read as UTF-8 without checking.
//!
//! The raw representations below ([`StrWord`](crate::repr::str_word::StrWord),
//! [`AtomWord`](crate::repr::atom_word::AtomWord), blocks, the growable buffer) hold any
//! bytes, and so do the byte handles built on them ([`ByteStr`](crate::ByteStr),
//! [`ByteAtom`](crate::ByteAtom)).
//! The text types ([`Str`](crate::Str), [`Atom`](crate::Atom),
//! [`StrBuilder`](crate::StrBuilder)) hold their byte counterpart inside a [`Utf8`],
//! and this module is what keeps the promise that name makes.
//!
//! # Invariant
//!
//! A `Utf8<T>` holds a `T` whose bytes ([`ByteView::bytes`]) are valid UTF-8, for as long
//! as the `Utf8<T>` exists. The bytes of a `ByteView` never change behind a shared
//! reference, and the only `&mut T` handed out ([`Utf8::append`], [`Utf8::truncate`])
//! keeps them UTF-8. Every way in either checks ([`Utf8::check`]) or builds the value
//! from bytes that already are text:
//!
//! * [`Utf8::from_text`]: `make` builds a value holding exactly the bytes of a `&str`;
//! * [`Utf8::same_bytes`] / [`Utf8::into_same_bytes`]: `f` builds a value holding the
//!   same bytes as a value already known to be text (a clone, an atom for a string, a
//!   string for an atom);
//! * [`Utf8::slice`]: a sub-range that starts and ends on char boundaries (checked).
//!
//! The closures are the crate's own byte-level constructors (copies, table look-ups
//! keyed by these very bytes, O(1) views); that they hold the bytes they were given is
//! what the whole crate's tests check, and debug builds assert it on every call. This
//! keeps the text types free of `unsafe` and their hot paths (`as_str`, clone, compare,
//! hash, intern hit) exactly as cheap as the byte types': no check ever runs there.

use std::str::Utf8Error;

use crate::repr::growable::GrowableBlock;
use crate::repr::owned::NewOwned;
use crate::repr::str_word::ExactSink;

/// Byte containers whose bytes a [`Utf8`] may vouch for.
///
/// # Safety
/// `bytes` returns the same bytes on every call until the value is mutated through
/// `&mut` (none of the implementors has interior mutability of its bytes).
pub(crate) unsafe trait ByteView {
    fn bytes(&self) -> &[u8];

    /// Whether an earlier [`Utf8::check`] of these very bytes succeeded (remembered in a
    /// block header's flags), so the next check can be skipped.
    #[inline]
    fn known_utf8(&self) -> bool {
        false
    }

    /// Remembers, where there is room for it, that the bytes passed a check.
    #[inline]
    fn remember_utf8(&self) {}
}

// SAFETY: the filled bytes change only through `&mut GrowableBlock`.
unsafe impl ByteView for GrowableBlock {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

// SAFETY: the filled bytes change only through `&mut ExactSink`.
unsafe impl ByteView for ExactSink {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.filled()
    }
}

// SAFETY: the bytes are the owner's first `as_ref` answer, recorded once and never
// changed (the owner is never asked again).
unsafe impl<O> ByteView for NewOwned<O> {
    #[inline]
    fn bytes(&self) -> &[u8] {
        NewOwned::bytes(self)
    }
}

/// A byte container known to hold UTF-8 (see the module's invariant).
#[repr(transparent)]
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Utf8<T>(T);

impl<T> Utf8<T> {
    /// Vouches for `inner` without checking it, in `const` contexts (a `'static` text).
    ///
    /// # Safety
    /// `inner`'s bytes are UTF-8.
    #[inline]
    pub(crate) const unsafe fn new_unchecked(inner: T) -> Utf8<T> {
        Utf8(inner)
    }
}

impl Utf8<GrowableBlock> {
    /// An empty buffer (nothing is text).
    #[inline]
    pub(crate) const fn empty_buffer() -> Utf8<GrowableBlock> {
        Utf8(GrowableBlock::new())
    }
}

impl<T> Utf8<T> {
    /// The byte container.
    #[inline]
    pub(crate) const fn get(&self) -> &T {
        &self.0
    }

    /// Gives the byte container up (it stays UTF-8, but nothing vouches for it any more).
    #[inline]
    pub(crate) fn into_inner(self) -> T {
        self.0
    }
}

impl<T: ByteView> Utf8<T> {
    /// The bytes as text, without a check: the invariant is this type's whole point.
    #[inline]
    pub(crate) fn as_str(&self) -> &str {
        // SAFETY: the module invariant: a `Utf8<T>` only exists around UTF-8 bytes, and
        // `ByteView` promises they do not change behind `&self`.
        unsafe { std::str::from_utf8_unchecked(self.0.bytes()) }
    }

    /// Vouches for `inner` after checking its bytes.
    #[inline]
    pub(crate) fn check(inner: T) -> Result<Utf8<T>, (T, Utf8Error)> {
        // A block's flag covers its whole buffer, and `known_utf8` reports it only for a
        // view of the whole buffer: the very bytes that were checked.
        if inner.known_utf8() {
            debug_assert!(std::str::from_utf8(inner.bytes()).is_ok());
            return Ok(Utf8(inner));
        }
        match std::str::from_utf8(inner.bytes()) {
            Ok(_) => {
                inner.remember_utf8();
                Ok(Utf8(inner))
            }
            Err(err) => Err((inner, err)),
        }
    }

    /// Wraps what `make` builds from the bytes of `text`; `make` must return a value
    /// holding exactly those bytes (a copy, a view, or the table's atom for them).
    #[inline]
    pub(crate) fn from_text<E>(text: &str, make: impl FnOnce(&[u8]) -> Result<T, E>) -> Result<Utf8<T>, E> {
        let made = make(text.as_bytes())?;
        debug_assert_eq!(made.bytes(), text.as_bytes(), "from_text: made other bytes");
        Ok(Utf8(made))
    }

    /// Wraps what `f` builds from `self`'s container; `f` must return a value holding the
    /// same bytes (a clone, the atom for a string, the string of an atom).
    #[inline]
    pub(crate) fn same_bytes<U: ByteView, E>(&self, f: impl FnOnce(&T) -> Result<U, E>) -> Result<Utf8<U>, E> {
        let made = f(&self.0)?;
        debug_assert_eq!(made.bytes(), self.0.bytes(), "same_bytes: made other bytes");
        Ok(Utf8(made))
    }

    /// Like [`Utf8::same_bytes`], consuming `self` (a builder becoming its string).
    #[inline]
    pub(crate) fn into_same_bytes<U: ByteView, E>(self, f: impl FnOnce(T) -> Result<U, E>) -> Result<Utf8<U>, E> {
        #[cfg(debug_assertions)]
        let before = self.0.bytes().to_vec();
        let made = f(self.0)?;
        #[cfg(debug_assertions)]
        debug_assert_eq!(made.bytes(), &before[..], "into_same_bytes: made other bytes");
        Ok(Utf8(made))
    }

    /// The sub-text `start..end` if it lies inside the text on char boundaries (else
    /// `None`), built by `f`, which must return a value holding exactly
    /// `self.bytes()[start..end]`.
    #[inline]
    pub(crate) fn slice<U: ByteView>(&self, start: usize, end: usize, f: impl FnOnce(&T) -> U) -> Option<Utf8<U>> {
        let text = self.as_str().get(start..end)?;
        let made = f(&self.0);
        debug_assert_eq!(made.bytes(), text.as_bytes(), "slice: made other bytes");
        Some(Utf8(made))
    }

    /// Lets `f` append `text`: `f` must append exactly the bytes it is given, or nothing
    /// (when it fails). Text after text is text.
    #[inline]
    pub(crate) fn append<R>(&mut self, text: &str, f: impl FnOnce(&mut T, &[u8]) -> R) -> R {
        #[cfg(debug_assertions)]
        let before = self.0.bytes().len();
        let result = f(&mut self.0, text.as_bytes());
        #[cfg(debug_assertions)]
        {
            let after = self.0.bytes();
            debug_assert!(after.len() == before || &after[before..] == text.as_bytes(), "append: other bytes");
        }
        result
    }

    /// Lets `f` cut the text back to `len` bytes (`f` must do exactly that).
    ///
    /// # Panics
    /// If `len` is inside the text but not on a char boundary.
    #[inline]
    pub(crate) fn truncate(&mut self, len: usize, f: impl FnOnce(&mut T, usize)) {
        if len < self.0.bytes().len() {
            assert!(self.as_str().is_char_boundary(len), "truncate inside a character");
            f(&mut self.0, len);
            debug_assert_eq!(self.0.bytes().len(), len, "truncate: other length");
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    #[should_panic(expected = "truncate inside a character")]
    fn truncation_keeps_whole_chars() {
        let mut buf = Utf8(GrowableBlock::new());
        buf.append("é", |b, bytes| b.push_bytes(bytes, crate::error::Fallibility::Infallible)).unwrap();
        buf.truncate(1, GrowableBlock::truncate);
    }
}
