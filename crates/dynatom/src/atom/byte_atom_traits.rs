//! The standard traits of [`ByteAtom`], and its conversions to and from [`Atom`] and byte
//! slices (those involving `ByteStr` live with it, in `str/`).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use super::Atom;
use super::byte_atom::ByteAtom;
use crate::error::StrError;

/// `b"..."` with non-printable bytes escaped, as a byte-string literal reads (the `Debug` of both byte handles).
pub(crate) fn debug_bytes(bytes: &[u8], f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "b\"{}\"", bytes.escape_ascii())
}

impl Hash for ByteAtom {
    /// Feeds the cached hash (no bytes are read), as [`Atom`] does: equal atoms are one
    /// entry, and an atom and the same atom as text hash alike.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash64());
    }
}

impl Ord for ByteAtom {
    /// By bytes; atoms of different tables with equal bytes are ordered by address.
    #[inline]
    fn cmp(&self, other: &ByteAtom) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.as_bytes().cmp(other.as_bytes()).then_with(|| self.word().bits().cmp(&other.word().bits()))
    }
}

impl PartialOrd for ByteAtom {
    #[inline]
    fn partial_cmp(&self, other: &ByteAtom) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Deref for ByteAtom {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for ByteAtom {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::Debug for ByteAtom {
    /// ```
    /// assert_eq!(format!("{:?}", dynatom::ByteAtom::new(b"\xffab")), r#"b"\xffab""#);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_bytes(self.as_bytes(), f)
    }
}

impl Default for ByteAtom {
    #[inline]
    fn default() -> ByteAtom {
        ByteAtom::new(b"")
    }
}

impl PartialEq<[u8]> for ByteAtom {
    #[inline]
    fn eq(&self, other: &[u8]) -> bool {
        self.as_bytes() == other
    }
}

impl PartialEq<&[u8]> for ByteAtom {
    #[inline]
    fn eq(&self, other: &&[u8]) -> bool {
        self.as_bytes() == *other
    }
}

impl PartialEq<Atom> for ByteAtom {
    /// One word compare: text and bytes share the table's entries.
    #[inline]
    fn eq(&self, other: &Atom) -> bool {
        self == other.as_byte_atom()
    }
}

impl PartialEq<ByteAtom> for Atom {
    #[inline]
    fn eq(&self, other: &ByteAtom) -> bool {
        self.as_byte_atom() == other
    }
}

impl Borrow<ByteAtom> for Atom {
    /// An atom and the same atom seen as bytes are one word: they compare, hash and
    /// order alike, so maps keyed by [`Atom`] can be searched with a [`ByteAtom`].
    #[inline]
    fn borrow(&self) -> &ByteAtom {
        self.as_byte_atom()
    }
}

impl From<&[u8]> for ByteAtom {
    #[inline]
    fn from(bytes: &[u8]) -> ByteAtom {
        ByteAtom::new(bytes)
    }
}

impl From<Atom> for ByteAtom {
    /// Free: the same atom without the UTF-8 promise.
    #[inline]
    fn from(atom: Atom) -> ByteAtom {
        atom.into_byte_atom()
    }
}

impl From<&Atom> for ByteAtom {
    #[inline]
    fn from(atom: &Atom) -> ByteAtom {
        atom.as_byte_atom().clone()
    }
}

impl TryFrom<ByteAtom> for Atom {
    type Error = StrError;
    /// O(1) plus one UTF-8 check ([`ByteAtom::to_text`]).
    #[inline]
    fn try_from(atom: ByteAtom) -> Result<Atom, StrError> {
        atom.to_text()
    }
}
