//! [`ByteAtom`]: an interned byte string, eight bytes, compared by one word.

use crate::atom::table::AtomTable;
use crate::error::StrError;
use crate::repr::atom_word::AtomWord;

/// An interned string of any bytes: [`Atom`](crate::Atom)'s representation and table,
/// without the UTF-8 promise.
///
/// * 8 bytes, and `Option<ByteAtom>` too; up to 7 bytes are stored inside the atom.
/// * `==` compares one word; `Hash` feeds the cached hash; `Ord` orders by bytes.
/// * Equal bytes are the **same** atom whether they came in as bytes or as text: one
///   table entry, so `ByteAtom::from(atom)` and [`ByteAtom::to_text`] cost O(1) (plus one
///   UTF-8 check for the latter).
/// * `ByteStr::from(&atom)` hands the bytes out as a [`ByteStr`](crate::ByteStr) without copying.
///
/// Like [`Atom`](crate::Atom), it is not `Borrow<[u8]>`: its hash is the table's, not `[u8]`'s.
///
/// ```
/// use dynatom::{Atom, ByteAtom};
///
/// let from_bytes = ByteAtom::new(b"x-request-id, a header name");
/// let from_text = ByteAtom::from(Atom::from("x-request-id, a header name"));
/// assert_eq!(from_bytes, from_text); // one word compare: one table entry
/// assert_eq!(std::mem::size_of::<ByteAtom>(), 8);
/// ```
#[repr(transparent)]
#[derive(Clone, PartialEq, Eq)]
pub struct ByteAtom {
    word: AtomWord,
}

const _: () = {
    assert!(std::mem::size_of::<ByteAtom>() == 8);
    assert!(std::mem::size_of::<Option<ByteAtom>>() == 8);
};

impl ByteAtom {
    #[inline]
    pub(crate) const fn from_word(word: AtomWord) -> ByteAtom {
        ByteAtom { word }
    }

    #[inline]
    pub(crate) fn word(&self) -> &AtomWord {
        &self.word
    }

    #[inline]
    pub(crate) fn into_word(self) -> AtomWord {
        self.word
    }

    /// The global table's atom for `bytes`, filing a copy if they are new.
    ///
    /// # Panics
    /// If `bytes` is longer than [`ByteStr::MAX_LEN`](crate::ByteStr::MAX_LEN); aborts if memory runs out.
    ///
    /// ```
    /// assert_eq!(dynatom::ByteAtom::new(b"\xff\x00").as_bytes(), b"\xff\x00");
    /// ```
    #[must_use]
    #[inline]
    pub fn new(bytes: &[u8]) -> ByteAtom {
        AtomTable::global().intern_bytes(bytes)
    }

    /// Like [`ByteAtom::new`], but reports over-long input and allocation failure.
    ///
    /// ```
    /// assert!(dynatom::ByteAtom::try_new(b"fits").is_ok());
    /// ```
    #[inline]
    pub fn try_new(bytes: &[u8]) -> Result<ByteAtom, StrError> {
        AtomTable::global().try_intern_bytes(bytes)
    }

    /// The global atom for `'static` bytes. If they are new, they stay in the binary (no
    /// copy) and the atom is never freed; either way it is the same atom as
    /// `ByteAtom::new` of equal bytes (as [`Atom::from_static`](crate::Atom::from_static) is for text).
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// let magic = ByteAtom::from_static(b"\x7fELF and a static tail");
    /// assert_eq!(magic, ByteAtom::new(b"\x7fELF and a static tail"));
    /// ```
    #[must_use]
    #[inline]
    pub fn from_static(bytes: &'static [u8]) -> ByteAtom {
        AtomTable::global().intern_static_bytes(bytes)
    }

    /// The global atom for `bytes` if one is alive (made from bytes or from text); never
    /// inserts. Up to 7 bytes are atoms by value, so for them this is always `Some`.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom};
    ///
    /// assert!(ByteAtom::lookup(b"bytes nobody has interned yet").is_none());
    /// let atom = Atom::from("a text somebody interned as text");
    /// assert_eq!(ByteAtom::lookup(b"a text somebody interned as text"), Some(ByteAtom::from(atom)));
    /// ```
    #[inline]
    pub fn lookup(bytes: &[u8]) -> Option<ByteAtom> {
        AtomTable::global().lookup_bytes(bytes)
    }

    crate::accessors::handle_accessors!(bytes ByteAtom);

    /// Whether the bytes (up to 7) are stored inside the atom itself.
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// assert!(ByteAtom::new(b"seven!!").is_inline());
    /// assert!(!ByteAtom::new(b"eight!!!").is_inline());
    /// ```
    #[inline]
    pub fn is_inline(&self) -> bool {
        self.word.is_inline()
    }

    /// The atom's cached hash: the hash its table filed it under (for inline atoms, a mix
    /// of the word under a random per-process seed). Reads no bytes; equal to [`Atom::hash64`](crate::Atom::hash64) of
    /// the same atom.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom};
    ///
    /// let atom = Atom::from("hashed once, as text or as bytes");
    /// assert_eq!(ByteAtom::from(atom.clone()).hash64(), atom.hash64());
    /// ```
    #[inline]
    pub fn hash64(&self) -> u64 {
        if let Some(hash) = self.word.table_hash() {
            return hash;
        }
        // Inline and declared atoms are values, in no table: a mix of the word (which holds
        // all the bytes, or the declared key) under the process's word seed, so that every
        // table and thread agrees on it while no one can compute colliding atoms offline.
        crate::hash::hash_word(self.word.bits() as u64, crate::hash::word_seed())
    }
}
