//! Strings and atoms, both ways: interning a [`Str`] or [`ByteStr`] (the table adopts a
//! whole heap buffer whose text is new, so interning copies nothing; the bytes of an
//! owner, `from_owner`, are copied: atoms own their bytes) and handing an atom's text back
//! out as a string in O(1).

use std::convert::Infallible;

use super::Str;
use super::byte_str::ByteStr;
use crate::atom::Atom;
use crate::atom::byte_atom::ByteAtom;
use crate::atom::table::AtomTable;
use crate::error::{Fallibility, StrError};

impl Str {
    /// The global atom for this text. O(1) if the string is already interned; a heap
    /// string spanning its whole buffer is adopted when its text is new (no copy); a
    /// slice of a larger buffer is copied, so an atom never pins a parent, and so is a
    /// string over an owner's bytes ([`Str::from_owner`]): an atom never keeps an owner.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from(format!("user:{}:profile", 12345));
    /// let atom = s.intern();
    /// assert_eq!(atom.as_ptr(), s.as_ptr()); // adopted
    /// assert_eq!(s.intern(), atom); // O(1) from now on
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    #[inline]
    pub fn intern(&self) -> Atom {
        self.intern_in(AtomTable::global())
    }

    /// Like [`Str::intern`], but reports allocation failure.
    ///
    /// ```
    /// let s = dynatom::Str::from("interned fallibly, if need be");
    /// assert_eq!(s.try_intern().unwrap(), s.intern());
    /// ```
    #[inline]
    pub fn try_intern(&self) -> Result<Atom, StrError> {
        self.try_intern_in(AtomTable::global())
    }

    /// The atom for this text in `table`, as [`Str::intern`] does in the global table:
    /// O(1) if the string is already interned there; a heap string spanning its whole
    /// buffer is adopted by the global table when its text is new; anything else is
    /// copied (a local table always copies, so it can be freed on its own).
    ///
    /// ```
    /// use dynatom::{AtomTable, Str};
    ///
    /// let table = AtomTable::new();
    /// let s = Str::from("interned in a table of its own");
    /// let atom = s.intern_in(&table);
    /// assert_eq!(atom, table.intern("interned in a table of its own"));
    /// assert_eq!(table.len(), 1);
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    #[inline]
    pub fn intern_in(&self, table: &AtomTable) -> Atom {
        // Interning a string is interning its bytes: the atom for them holds exactly
        // those bytes, so it is the same text.
        let Ok(atom) = self.utf8_handle().same_bytes(|bytes| Ok::<_, Infallible>(bytes.intern_in(table)));
        Atom::from_utf8_handle(atom)
    }

    /// Like [`Str::intern_in`], but reports allocation failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let s = dynatom::Str::from("copied into a local table");
    /// assert_eq!(s.try_intern_in(&table).unwrap(), table.intern("copied into a local table"));
    /// ```
    #[inline]
    pub fn try_intern_in(&self, table: &AtomTable) -> Result<Atom, StrError> {
        // Interning a string is interning its bytes: the atom for them holds exactly
        // those bytes, so it is the same text.
        self.utf8_handle().same_bytes(|bytes| bytes.try_intern_in(table)).map(Atom::from_utf8_handle)
    }

    /// What `Str::from(&atom)` returns: the atom's text as a string sharing its bytes.
    #[inline]
    pub(crate) fn from_atom(atom: &Atom) -> Str {
        let Ok(text) = atom.utf8_handle().same_bytes(|bytes| Ok::<_, Infallible>(ByteStr::from_byte_atom(bytes)));
        Str::from_utf8_handle(text)
    }
}

impl ByteStr {
    /// The global atom for these bytes: O(1) if already interned; a heap string spanning
    /// its whole buffer is adopted when the bytes are new (no copy); a slice of a larger
    /// buffer is copied, so an atom never pins a parent, and so are an owner's bytes
    /// ([`ByteStr::from_owner`]). The same atom as text of equal bytes would get.
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
        ByteAtom::from_word(table.intern_str_word(self.word()))
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
        // The table adopts, finds or copies the string's block (see `ByteStr::intern_in`).
        table.try_intern_str_word(self.word(), Fallibility::Fallible).map(ByteAtom::from_word)
    }

    /// What `ByteStr::from(&atom)` returns: the atom's bytes, shared, in O(1) for every
    /// length.
    #[inline]
    pub(crate) fn from_byte_atom(atom: &ByteAtom) -> ByteStr {
        ByteStr::from_word(atom.word().to_str_word())
    }
}

impl From<String> for Atom {
    /// Moves the text into a `Str` (one copy into the single-allocation layout) and lets
    /// the global table adopt that buffer.
    #[inline]
    fn from(text: String) -> Atom {
        Str::from(text).intern()
    }
}

impl From<Str> for Atom {
    #[inline]
    fn from(s: Str) -> Atom {
        s.intern()
    }
}

impl From<&Str> for Atom {
    #[inline]
    fn from(s: &Str) -> Atom {
        s.intern()
    }
}
