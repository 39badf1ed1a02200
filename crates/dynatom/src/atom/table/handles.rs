//! What the table files as words ([`table`](super)) made into handles: [`Atom`]s from
//! text, [`ByteAtom`]s from bytes. Text and bytes of equal content are one entry.

use std::convert::Infallible;

use super::AtomTable;
use crate::atom::Atom;
use crate::atom::byte_atom::ByteAtom;
use crate::error::{Fallibility, StrError};
use crate::utf8::Utf8;

/// Interning text: the table files words (`table/`); these make them [`Atom`]s.
impl AtomTable {
    /// The atom for `text`, filing a copy of it if it is new.
    ///
    /// # Panics
    /// If `text` is longer than [`Str::MAX_LEN`](crate::Str::MAX_LEN); aborts if memory runs out
    /// ([`AtomTable::try_intern`] reports both instead).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert_eq!(table.intern("hello, atoms").as_str(), "hello, atoms");
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    pub fn intern(&self, text: &str) -> Atom {
        // The table's atom for these bytes holds exactly these bytes.
        let Ok(atom) =
            Utf8::from_text(text, |bytes| Ok::<_, Infallible>(ByteAtom::from_word(self.intern_bytes_word(bytes))));
        Atom::from_utf8_handle(atom)
    }

    /// Like [`AtomTable::intern`], but reports over-long input and allocation failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.try_intern("fits").is_ok());
    /// ```
    pub fn try_intern(&self, text: &str) -> Result<Atom, StrError> {
        // The table's atom for these bytes holds exactly these bytes.
        Utf8::from_text(text, |bytes| self.try_intern_bytes_fallibly(bytes)).map(Atom::from_utf8_handle)
    }

    /// The atom for `text`, keeping the bytes in the binary if the text is new. Only the
    /// global table does that (its static atoms are immortal); a local table files a copy
    /// that is freed with its last handle, so the table itself can be freed.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern_static("a static keyword");
    /// assert_eq!(atom, table.intern("a static keyword"));
    /// ```
    pub fn intern_static(&self, text: &'static str) -> Atom {
        // The table's atom for these bytes holds exactly these bytes.
        let Ok(atom) = Utf8::from_text(text, |_| Ok::<_, Infallible>(self.intern_static_bytes(text.as_bytes())));
        Atom::from_utf8_handle(atom)
    }

    /// The atom for `text` if one is in use (an unused atom kept for reuse is not found);
    /// never files anything. Texts of up to 7 bytes are atoms by value, so for them this
    /// is always `Some`.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.lookup("nobody interned this").is_none());
    /// let atom = table.intern("somebody interned this");
    /// assert_eq!(table.lookup("somebody interned this"), Some(atom));
    /// ```
    pub fn lookup(&self, text: &str) -> Option<Atom> {
        // The table's atom for these bytes holds exactly these bytes.
        Utf8::from_text(text, |bytes| self.lookup_bytes(bytes).ok_or(())).ok().map(Atom::from_utf8_handle)
    }

    /// Whether an atom for `text` is in use here: what `lookup(text).is_some()` says,
    /// without making the atom. No count is taken or given back, so the look writes no
    /// memory that other threads share. Texts of up to 7 bytes are atoms by value: for
    /// them this is always `true`.
    ///
    /// The answer holds when it is given: another thread may drop the atom's last handle,
    /// or intern the text, right after.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(!table.contains_text("nobody interned this"));
    /// let atom = table.intern("somebody interned this");
    /// assert!(table.contains_text("somebody interned this"));
    /// drop(atom);
    /// // Unused now: kept for reuse until a sweep, but not in use.
    /// assert!(!table.contains_text("somebody interned this"));
    /// assert!(table.contains_text("short"));
    /// ```
    #[must_use]
    pub fn contains_text(&self, text: &str) -> bool {
        self.holds_in_use(text.as_bytes())
    }

    /// Whether `atom` is filed in this table (inline atoms belong to every table). Takes
    /// no count.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern("filed here, not globally");
    /// assert!(table.contains(&atom));
    /// assert!(!dynatom::AtomTable::global().contains(&atom));
    /// ```
    pub fn contains(&self, atom: &Atom) -> bool {
        self.lists(atom.word())
    }
}

/// Interning bytes: the table files words (`table/`); these make them [`ByteAtom`]s.
impl AtomTable {
    /// The atom for `bytes`, filing a copy of them if they are new. Text and bytes share
    /// the entries: equal bytes give the atom that equal text gives.
    ///
    /// # Panics
    /// If `bytes` is longer than [`ByteStr::MAX_LEN`](crate::ByteStr::MAX_LEN); aborts if memory runs out
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
        ByteAtom::from_word(self.intern_bytes_word(bytes))
    }

    /// Like [`AtomTable::intern_bytes`], but reports over-long input and allocation
    /// failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.try_intern_bytes(b"\xff fits").is_ok());
    /// ```
    pub fn try_intern_bytes(&self, bytes: &[u8]) -> Result<ByteAtom, StrError> {
        self.try_intern_bytes_fallibly(bytes)
    }

    #[inline]
    fn try_intern_bytes_fallibly(&self, bytes: &[u8]) -> Result<ByteAtom, StrError> {
        self.try_intern_bytes_word(bytes, Fallibility::Fallible).map(ByteAtom::from_word)
    }

    /// The atom for `bytes`, keeping them in the binary if they are new:
    /// [`AtomTable::intern_static`] for bytes. Only the global table keeps them there; a
    /// local table files a copy.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern_static_bytes(b"a static \xff key");
    /// assert_eq!(atom, table.intern_bytes(b"a static \xff key"));
    /// ```
    #[inline]
    pub fn intern_static_bytes(&self, bytes: &'static [u8]) -> ByteAtom {
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

    /// Whether an atom for `bytes` is in use here (filed from bytes or from text), without
    /// making it: as [`AtomTable::contains_text`].
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// let atom = table.intern("interned as text, looked at as bytes");
    /// assert!(table.contains_bytes(b"interned as text, looked at as bytes"));
    /// assert!(!table.contains_bytes(b"interned as text, looked at as \xff"));
    /// ```
    #[must_use]
    pub fn contains_bytes(&self, bytes: &[u8]) -> bool {
        self.holds_in_use(bytes)
    }
}
