//! [`Atom`]: an interned string, eight bytes, compared by one word.

pub(crate) mod atom_conversions;
pub(crate) mod atom_hasher;
pub(crate) mod byte_atom;
mod byte_atom_raw;
pub(crate) mod byte_atom_traits;
pub(crate) mod declared_atoms;
// Only the maps hash atoms as keys.
#[cfg(feature = "small-map")]
pub(crate) mod key_hash;
mod permanent_atoms;
#[cfg(feature = "static-atoms")]
pub(crate) mod static_set;
pub(crate) mod static_set_error;
pub(crate) mod table;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use self::byte_atom::ByteAtom;
use self::table::AtomTable;
use crate::repr::atom_word::AtomWord;
use crate::utf8::Utf8;

/// An interned string: one word that is equal exactly when the text is (within a table).
///
/// * 8 bytes, and `Option<Atom>` too.
/// * `==` compares one word; [`Hash`] feeds the cached hash, reading no bytes.
/// * Texts of up to 7 bytes are stored inside the atom and never touch a table.
/// * `Str::from(atom)` hands the text out as a [`Str`](crate::Str) in O(1), without copying.
/// * Ordered by text ([`Ord`]); atoms of different tables with equal text (see
///   [`AtomTable`]) are distinct atoms, ordered by address among themselves.
///
/// `Atom` deliberately does not implement `Borrow<str>`: its `Hash` is the table's hash,
/// not `str`'s, so a `HashMap<Atom, _>` cannot be searched by `&str` (use
/// [`Atom::lookup`] first, or key the map by [`Str`](crate::Str)).
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
#[derive(Clone, PartialEq, Eq)]
pub struct Atom {
    text: Utf8<ByteAtom>,
}

const _: () = {
    assert!(std::mem::size_of::<Atom>() == 8);
    assert!(std::mem::size_of::<Option<Atom>>() == 8);
};

impl Atom {
    #[inline]
    pub(crate) const fn from_utf8_handle(text: Utf8<ByteAtom>) -> Atom {
        Atom { text }
    }

    #[inline]
    pub(crate) fn word(&self) -> &AtomWord {
        self.text.get().word()
    }

    #[cfg(feature = "small-map")]
    #[inline]
    pub(crate) fn into_word(self) -> AtomWord {
        self.text.into_inner().into_word()
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

    /// Like [`Atom::new`], but reports over-long text (more than [`Str::MAX_LEN`](crate::Str::MAX_LEN)(crate::Str::MAX_LEN)
    /// bytes) and allocation failure (as [`ByteAtom::try_new`] does for bytes).
    ///
    /// ```
    /// assert_eq!(dynatom::Atom::try_new("fits").unwrap(), "fits");
    /// ```
    #[inline]
    pub fn try_new(text: &str) -> Result<Atom, crate::StrError> {
        AtomTable::global().try_intern(text)
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

    /// The global atom for `text` if one is alive; never inserts. Texts of up to 7 bytes
    /// are atoms by value, held by no table, so for them this is always `Some` (the atom
    /// every `Atom::from` of that text gives), whether or not anyone made one. To ask
    /// only whether the atom is in use, [`AtomTable::contains_text`] does not make a
    /// handle (and so takes no count).
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// assert!(Atom::lookup("a text nobody has interned yet").is_none());
    /// assert!(Atom::lookup("short").is_some()); // 5 bytes: an atom by value
    /// let atom = Atom::from("a text somebody has interned");
    /// assert_eq!(Atom::lookup("a text somebody has interned"), Some(atom));
    /// ```
    #[inline]
    pub fn lookup(text: &str) -> Option<Atom> {
        AtomTable::global().lookup(text)
    }

    crate::accessors::handle_accessors!(text Atom);

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

    /// The atom as checked UTF-8 over its byte atom, for `Str::from(&atom)`.
    #[inline]
    pub(crate) fn utf8_handle(&self) -> &Utf8<ByteAtom> {
        &self.text
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

impl From<&String> for Atom {
    #[inline]
    fn from(text: &String) -> Atom {
        Atom::new(text)
    }
}

impl std::str::FromStr for Atom {
    /// Text longer than [`Str::MAX_LEN`](crate::Str::MAX_LEN) and allocation failure are errors, not panics.
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
