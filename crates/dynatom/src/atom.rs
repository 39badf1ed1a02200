//! [`Atom`]: an interned string, eight bytes, compared by one word.

use std::cmp::Ordering;
use std::convert::Infallible;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use crate::byte_atom::ByteAtom;
use crate::error::{Fallibility, StrError};
use crate::repr::atom_word::AtomWord;
use crate::str::Str;
use crate::table::AtomTable;
use crate::utf8::Utf8;

/// An interned string: one word that is equal exactly when the text is (within a table).
///
/// * 8 bytes, and `Option<Atom>` too.
/// * `==` compares one word; [`Hash`] feeds the cached hash, reading no bytes.
/// * Texts of up to 7 bytes are stored inside the atom and never touch a table.
/// * `Str::from(atom)` hands the text out as a [`Str`] in O(1), without copying.
/// * Ordered by text ([`Ord`]); atoms of different tables with equal text (see
///   [`AtomTable`]) are distinct atoms, ordered by address among themselves.
///
/// `Atom` deliberately does not implement `Borrow<str>`: its `Hash` is the table's hash,
/// not `str`'s, so a `HashMap<Atom, _>` cannot be searched by `&str` (use
/// [`Atom::lookup`] first, or key the map by [`Str`]).
///
/// ```
/// use dynatom::{Atom, Str};
///
/// let a = Atom::from("content-type-header");
/// let b = Str::from(String::from("content-type-header")).intern();
/// assert_eq!(a, b); // one pointer compare
/// assert_eq!(std::mem::size_of::<Atom>(), 8);
/// let s = Str::from(&a); // no copy
/// assert_eq!(s.as_ptr(), a.as_ptr());
/// ```
///
/// An `Atom` is a [`ByteAtom`] that promises UTF-8 (`#[repr(transparent)]` over it):
/// [`Atom::as_byte_atom`] is free, and text and bytes of equal content are one atom.
#[repr(transparent)]
#[derive(Clone)]
pub struct Atom {
    text: Utf8<ByteAtom>,
}

const _: () = {
    assert!(std::mem::size_of::<Atom>() == 8);
    assert!(std::mem::size_of::<Option<Atom>>() == 8);
};

impl Atom {
    #[inline]
    pub(crate) fn from_utf8_handle(text: Utf8<ByteAtom>) -> Atom {
        Atom { text }
    }

    #[inline]
    pub(crate) fn word(&self) -> &AtomWord {
        self.text.get().word()
    }

    /// The same atom seen as a byte atom: free.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom};
    ///
    /// let atom = Atom::from("one entry, two views of it");
    /// assert_eq!(*atom.as_byte_atom(), ByteAtom::new(b"one entry, two views of it"));
    /// ```
    #[must_use]
    #[inline]
    pub fn as_byte_atom(&self) -> &ByteAtom {
        self.text.get()
    }

    /// The atom as a byte atom, giving up the UTF-8 promise: free.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom};
    ///
    /// let atom = Atom::from("a text atom, now bytes");
    /// assert_eq!(atom.clone().into_byte_atom(), ByteAtom::new(b"a text atom, now bytes"));
    /// ```
    #[must_use]
    #[inline]
    pub fn into_byte_atom(self) -> ByteAtom {
        self.text.into_inner()
    }

    /// The global table's atom for `text` (same as `Atom::from(text)`).
    ///
    /// ```
    /// assert_eq!(dynatom::Atom::new("abc").as_str(), "abc");
    /// ```
    #[must_use]
    #[inline]
    pub fn new(text: &str) -> Atom {
        AtomTable::global().intern(text)
    }

    /// The global atom for a `'static` text. If the text is new, its bytes stay in the
    /// binary (no copy) and the atom is never freed; either way it is the same atom as
    /// `Atom::from` of equal text.
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// let keyword = Atom::from_static("function_keyword");
    /// assert_eq!(keyword, Atom::from(String::from("function_keyword")));
    /// ```
    #[must_use]
    #[inline]
    pub fn from_static(text: &'static str) -> Atom {
        AtomTable::global().intern_static(text)
    }

    /// The global atom for `text` if one is alive; never inserts.
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// assert!(Atom::lookup("a text nobody has interned yet").is_none());
    /// let atom = Atom::from("a text somebody has interned");
    /// assert_eq!(Atom::lookup("a text somebody has interned"), Some(atom));
    /// ```
    #[inline]
    pub fn lookup(text: &str) -> Option<Atom> {
        AtomTable::global().lookup(text)
    }

    /// The text.
    ///
    /// ```
    /// assert_eq!(dynatom::Atom::from("text").as_str(), "text");
    /// ```
    #[must_use]
    #[inline]
    pub fn as_str(&self) -> &str {
        self.text.as_str()
    }

    /// Pointer to the first byte of the text (inside the atom itself for inline atoms).
    ///
    /// ```
    /// let atom = dynatom::Atom::from("pointer to the bytes");
    /// assert_eq!(atom.as_ptr(), atom.as_str().as_ptr());
    /// ```
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.as_str().as_ptr()
    }

    /// The text's length in bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Atom::from("four").len(), 4);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.as_str().len()
    }

    /// Whether the text is empty.
    ///
    /// ```
    /// assert!(dynatom::Atom::from("").is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text (up to 7 bytes) is stored inside the atom itself.
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// assert!(Atom::from("seven!!").is_inline());
    /// assert!(!Atom::from("eight!!!").is_inline());
    /// ```
    #[inline]
    pub fn is_inline(&self) -> bool {
        self.text.get().is_inline()
    }

    /// What `Str::from(&atom)` returns: the text as a [`Str`] sharing the atom's bytes.
    #[inline]
    pub(crate) fn str_handle(&self) -> Str {
        let Ok(text) = self.text.same_bytes(|atom| Ok::<_, std::convert::Infallible>(atom.to_byte_str()));
        Str::from_utf8_handle(text)
    }

    /// The atom's cached hash: the hash its table filed it under (for inline atoms, a mix
    /// of the word under a random per-process seed, the same in every table and thread).
    /// Reads no bytes.
    ///
    /// ```
    /// let atom = dynatom::Atom::from("hashed once");
    /// assert_eq!(atom.hash64(), atom.clone().hash64());
    /// ```
    #[inline]
    pub fn hash64(&self) -> u64 {
        self.text.get().hash64()
    }
}

impl PartialEq for Atom {
    #[inline]
    fn eq(&self, other: &Atom) -> bool {
        self.text.get() == other.text.get()
    }
}

impl Eq for Atom {}

impl Hash for Atom {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.hash64());
    }
}

impl Ord for Atom {
    #[inline]
    fn cmp(&self, other: &Atom) -> Ordering {
        if self == other {
            return Ordering::Equal;
        }
        self.as_str().cmp(other.as_str()).then_with(|| self.word().bits().cmp(&other.word().bits()))
    }
}

impl PartialOrd for Atom {
    #[inline]
    fn partial_cmp(&self, other: &Atom) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Deref for Atom {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Atom {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for Atom {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_str().as_bytes()
    }
}

impl fmt::Display for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Atom {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Atom {
    #[inline]
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Atom {
    #[inline]
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl From<&str> for Atom {
    #[inline]
    fn from(text: &str) -> Atom {
        Atom::new(text)
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

impl From<&String> for Atom {
    #[inline]
    fn from(text: &String) -> Atom {
        Atom::new(text)
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

impl std::str::FromStr for Atom {
    /// Text longer than [`Str::MAX_LEN`] and allocation failure are errors, not panics.
    type Err = crate::error::StrError;
    #[inline]
    fn from_str(text: &str) -> Result<Atom, Self::Err> {
        AtomTable::global().try_intern(text)
    }
}

impl Default for Atom {
    #[inline]
    fn default() -> Atom {
        Atom::new("")
    }
}

/// A global [`Atom`] for a string literal, filed once per call site (later calls clone
/// it) with its bytes left in the binary.
///
/// ```
/// use dynatom::{atom, Atom};
///
/// fn keyword() -> Atom {
///     atom!("a_keyword_of_some_length")
/// }
/// assert_eq!(keyword(), Atom::from("a_keyword_of_some_length"));
/// assert_eq!(keyword(), keyword());
/// ```
#[macro_export]
macro_rules! atom {
    ($text:literal) => {{
        static CELL: ::std::sync::OnceLock<$crate::Atom> = ::std::sync::OnceLock::new();
        CELL.get_or_init(|| $crate::Atom::from_static($text)).clone()
    }};
}

/// Interning text: the table files words (`table/`); these make them [`Atom`]s.
impl AtomTable {
    /// The atom for `text`, filing a copy of it if it is new.
    ///
    /// # Panics
    /// If `text` is longer than [`Str::MAX_LEN`]; aborts if memory runs out
    /// ([`AtomTable::try_intern`] reports both instead).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert_eq!(table.intern("hello, atoms").as_str(), "hello, atoms");
    /// ```
    #[must_use = "an atom nobody holds is freed again at once; keep it or use `lookup`"]
    pub fn intern(&self, text: &str) -> Atom {
        match self.try_intern_with(text, Fallibility::Infallible) {
            Ok(atom) => atom,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`AtomTable::intern`], but reports over-long input and allocation failure.
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// assert!(table.try_intern("fits").is_ok());
    /// ```
    pub fn try_intern(&self, text: &str) -> Result<Atom, StrError> {
        self.try_intern_with(text, Fallibility::Fallible)
    }

    fn try_intern_with(&self, text: &str, fallibility: Fallibility) -> Result<Atom, StrError> {
        // The table's atom for these bytes holds exactly these bytes.
        Utf8::from_text(text, |bytes| self.try_intern_bytes_with(bytes, fallibility)).map(Atom::from_utf8_handle)
    }

    /// [`Str::intern_in`] and [`Str::try_intern_in`]: adopts, finds or copies.
    pub(crate) fn try_intern_str_with(&self, s: &Str, fallibility: Fallibility) -> Result<Atom, StrError> {
        // The table's atom for a string's bytes holds exactly those bytes.
        s.utf8_handle()
            .same_bytes(|bytes| self.try_intern_byte_str_with(bytes, fallibility))
            .map(Atom::from_utf8_handle)
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

    /// Whether `atom` is filed in this table (inline atoms belong to every table).
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

impl Str {
    /// The global atom for this text. O(1) if the string is already interned; a heap
    /// string spanning its whole buffer is adopted when its text is new (no copy); a
    /// slice of a larger buffer is copied, so an atom never pins a parent.
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
        match table.try_intern_str_with(self, Fallibility::Infallible) {
            Ok(atom) => atom,
            Err(err) => panic!("{err}"),
        }
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
        table.try_intern_str_with(self, Fallibility::Fallible)
    }
}

impl ByteAtom {
    /// The same atom as text: O(1) plus one UTF-8 check. The result is the very atom
    /// [`Atom::from`] gives for that text.
    ///
    /// # Errors
    /// [`StrError::InvalidUtf8`] if the bytes are not UTF-8.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom, StrError};
    ///
    /// let atom = ByteAtom::new(b"a header name as bytes").to_text().unwrap();
    /// assert_eq!(atom, Atom::from("a header name as bytes"));
    /// assert!(matches!(ByteAtom::new(b"\xc3(").to_text(), Err(StrError::InvalidUtf8(_))));
    /// ```
    #[inline]
    pub fn to_text(&self) -> Result<Atom, StrError> {
        match Utf8::check(self.clone()) {
            Ok(text) => Ok(Atom::from_utf8_handle(text)),
            Err((_, err)) => Err(StrError::InvalidUtf8(err)),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn bytes_and_text_share_one_entry() {
        let table = AtomTable::new();
        let text = table.intern("one entry for bytes and text alike");
        let bytes = table.intern_bytes(b"one entry for bytes and text alike");
        assert_eq!(ByteAtom::from(text.clone()), bytes);
        assert_eq!(bytes.to_text().unwrap(), text);
        assert_eq!(table.len(), 1);
        let binary = table.intern_bytes(b"not text: \xff\xfe and long");
        assert_eq!(table.len(), 2);
        assert!(binary.to_text().is_err());
        assert_eq!(table.lookup_bytes(b"not text: \xff\xfe and long"), Some(binary));
    }
}
