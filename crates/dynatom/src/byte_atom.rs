//! [`ByteAtom`]: an interned byte string, eight bytes, compared by one word.

use crate::byte_str::ByteStr;
use crate::error::{Fallibility, StrError};
use crate::repr::atom_word::AtomWord;
use crate::table::AtomTable;

/// An interned string of any bytes: [`Atom`](crate::Atom)'s representation and table,
/// without the UTF-8 promise.
///
/// * 8 bytes, and `Option<ByteAtom>` too; up to 7 bytes are stored inside the atom.
/// * `==` compares one word; `Hash` feeds the cached hash; `Ord` orders by bytes.
/// * Equal bytes are the **same** atom whether they came in as bytes or as text: one
///   table entry, so `ByteAtom::from(atom)` and [`ByteAtom::to_text`] cost O(1) (plus one
///   UTF-8 check for the latter).
/// * [`ByteAtom::to_byte_str`] hands the bytes out as a [`ByteStr`] without copying.
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
#[derive(Clone)]
pub struct ByteAtom {
    word: AtomWord,
}

const _: () = {
    assert!(std::mem::size_of::<ByteAtom>() == 8);
    assert!(std::mem::size_of::<Option<ByteAtom>>() == 8);
};

impl ByteAtom {
    #[inline]
    pub(crate) fn from_word(word: AtomWord) -> ByteAtom {
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
    /// If `bytes` is longer than [`ByteStr::MAX_LEN`]; aborts if memory runs out.
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

    /// The bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::ByteAtom::new(b"bytes").as_bytes(), b"bytes");
    /// ```
    #[must_use]
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.word.as_bytes()
    }

    /// Pointer to the first byte (inside the atom itself for inline atoms).
    ///
    /// ```
    /// let atom = dynatom::ByteAtom::new(b"pointer to the bytes");
    /// assert_eq!(atom.as_ptr(), atom.as_bytes().as_ptr());
    /// ```
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.as_bytes().as_ptr()
    }

    /// Length in bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::ByteAtom::new(b"four").len(), 4);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether there are no bytes.
    ///
    /// ```
    /// assert!(dynatom::ByteAtom::new(b"").is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

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

    /// The bytes as a [`ByteStr`], in O(1) for every length: no copy.
    ///
    /// ```
    /// let atom = dynatom::ByteAtom::new(b"handed out without a copy");
    /// let s = atom.to_byte_str();
    /// assert_eq!(s.as_ptr(), atom.as_ptr());
    /// assert!(s.is_interned());
    /// ```
    #[must_use]
    #[inline]
    pub fn to_byte_str(&self) -> ByteStr {
        ByteStr::from_word(self.word.to_str_word())
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
        match self.word.table_hash() {
            Some(hash) => hash,
            // Inline atoms are values, in no table: a mix of the word (which holds all the
            // bytes) under the process's word seed, so that every table and thread agrees
            // on it while no one can compute colliding atoms offline.
            None => crate::hash::hash_word(self.word.bits() as u64, crate::hash::word_seed()),
        }
    }

    /// Whether the bytes are UTF-8 (one check, O(n)).
    ///
    /// ```
    /// assert!(!dynatom::ByteAtom::new(b"\xff").is_utf8());
    /// ```
    #[inline]
    pub fn is_utf8(&self) -> bool {
        std::str::from_utf8(self.as_bytes()).is_ok()
    }
}

impl PartialEq for ByteAtom {
    #[inline]
    fn eq(&self, other: &ByteAtom) -> bool {
        self.word.bits() == other.word.bits()
    }
}

impl Eq for ByteAtom {}

/// Interning bytes: the table files words (`table/`); these make them [`ByteAtom`]s.
impl AtomTable {
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

    #[inline]
    pub(crate) fn try_intern_bytes_with(&self, bytes: &[u8], fallibility: Fallibility) -> Result<ByteAtom, StrError> {
        self.try_intern_bytes_word(bytes, fallibility).map(ByteAtom::from_word)
    }

    /// [`ByteStr::intern_in`] and [`ByteStr::try_intern_in`]: adopts, finds or copies.
    #[inline]
    pub(crate) fn try_intern_byte_str_with(&self, s: &ByteStr, fallibility: Fallibility) -> Result<ByteAtom, StrError> {
        self.try_intern_str_word(s.word(), fallibility).map(ByteAtom::from_word)
    }

    #[inline]
    pub(crate) fn intern_static_bytes(&self, bytes: &'static [u8]) -> ByteAtom {
        ByteAtom::from_word(self.intern_static_word(bytes))
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
        self.lookup_word(bytes).map(ByteAtom::from_word)
    }
}

impl ByteStr {
    /// The global atom for these bytes: O(1) if already interned; a heap string spanning
    /// its whole buffer is adopted when the bytes are new (no copy); a slice of a larger
    /// buffer is copied, so an atom never pins a parent. The same atom as text of equal
    /// bytes would get.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom, ByteStr};
    ///
    /// let s = ByteStr::copy_from_slice(b"GET /a/long/enough/path HTTP/1.1");
    /// let atom = s.intern();
    /// assert_eq!(atom.as_ptr(), s.as_ptr()); // adopted
    /// assert_eq!(atom, ByteAtom::from(Atom::from("GET /a/long/enough/path HTTP/1.1")));
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    #[inline]
    pub fn intern(&self) -> ByteAtom {
        self.intern_in(AtomTable::global())
    }

    /// Like [`ByteStr::intern`], but reports allocation failure.
    ///
    /// ```
    /// let s = dynatom::ByteStr::copy_from_slice(b"interned fallibly, if need be");
    /// assert_eq!(s.try_intern().unwrap(), s.intern());
    /// ```
    #[inline]
    pub fn try_intern(&self) -> Result<ByteAtom, StrError> {
        self.try_intern_in(AtomTable::global())
    }

    /// The atom for these bytes in `table`, as [`ByteStr::intern`] does in the global
    /// table: O(1) if already interned there; a heap string spanning its whole buffer is
    /// adopted by the global table when its bytes are new; anything else is copied.
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteStr};
    ///
    /// let table = AtomTable::new();
    /// let atom = ByteStr::copy_from_slice(b"bytes in a table: \xff").intern_in(&table);
    /// assert_eq!(atom, table.intern_bytes(b"bytes in a table: \xff"));
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    #[inline]
    pub fn intern_in(&self, table: &AtomTable) -> ByteAtom {
        match table.try_intern_byte_str_with(self, Fallibility::Infallible) {
            Ok(atom) => atom,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`ByteStr::intern_in`], but reports allocation failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let s = dynatom::ByteStr::copy_from_slice(b"copied into a local table");
    /// assert_eq!(s.try_intern_in(&table).unwrap(), table.intern_bytes(b"copied into a local table"));
    /// ```
    #[inline]
    pub fn try_intern_in(&self, table: &AtomTable) -> Result<ByteAtom, StrError> {
        table.try_intern_byte_str_with(self, Fallibility::Fallible)
    }
}
