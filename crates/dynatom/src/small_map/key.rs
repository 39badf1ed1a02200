//! [`HintKey`]: where a key's hint comes from.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use crate::atom::Atom;
use crate::atom::byte_atom::ByteAtom;
use crate::atom::table::AtomTable;
use crate::hash;
use crate::str::Str;
use crate::str::byte_str::ByteStr;

/// A key type for [`SmallMap`](crate::SmallMap): equality plus a 64-bit hash that the
/// map turns into one-byte [hints](crate::Hint) (small form) or table buckets (large form).
///
/// Contract: equal keys have equal `key_hash`es, and when `K: Borrow<Q>`, a key and its
/// borrowed form hash alike (`k.key_hash() == k.borrow().key_hash()`). A broken contract
/// makes lookups miss; it is never unsound. The hash should be well mixed, its top seven
/// bits above all: they are the small form's hint, and hashbrown (the large form) takes
/// its tags from the top bits and its buckets from the low ones. Poor top bits only cost
/// speed (more key compares).
///
/// * [`Atom`]: the hash of its text, without reading the text. For an atom of up to 7
///   bytes (the text is inside the word), and for a declared one, a mix of its 8-byte
///   word under a random per-process seed; for an atom held by a table, the hash the
///   table filed it under, cached in its header (one load). So the key hash of a global
///   atom is computed from its text alone, and an [`AtomMap`](crate::AtomMap) searches
///   by text without asking the atom table.
/// * [`Str`]: [`Str::hash64`], cached in the header of a heap string.
/// * `str`, `String`, `Box<str>`, `Rc<str>`, `Arc<str>`, `Cow<str>`: the same global-table
///   hash of the text as `Str`, so a `SmallMap<Str, V>` or `SmallMap<String, V>` can be
///   searched with a `&str`. (An `Atom` of up to 7 bytes hashes differently from that
///   text, which is one reason `Atom` is not `Borrow<str>`.)
/// * [`ByteAtom`]: the same mix of the same word as the equal [`Atom`] (text and bytes
///   share atoms), so a `SmallMap<Atom, V>` can be searched with a `&ByteAtom`.
/// * [`ByteStr`], `[u8]`, `Vec<u8>`, `Box<[u8]>`: the global-table hash of the bytes, as
///   for text, so a `SmallMap<ByteStr, V>` can be searched with a `&[u8]`.
/// * `&T` for any `T: HintKey`.
/// * The integer types, `char`, `bool`, [`Symbol`](crate::Symbol), and pairs and
///   triples of keys: a folded multiply under a random per-process seed.
/// * Any other `Hash + Eq` type, your own or another crate's, wrapped in
///   [`Hashed`](crate::small_map::Hashed) (the orphan rule forbids implementing this
///   trait for a type of another crate).
///
/// ```
/// use dynatom::{HintKey, SmallMap};
///
/// // A key type of your own: a small integer id, hashed by a multiply.
/// #[derive(PartialEq, Eq)]
/// struct Id(u32);
///
/// impl HintKey for Id {
///     fn key_hash(&self) -> u64 {
///         u64::from(self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15)
///     }
/// }
///
/// let mut map = SmallMap::new();
/// map.insert(Id(7), "seven");
/// assert_eq!(map.get(&Id(7)), Some(&"seven"));
/// ```
pub trait HintKey: Eq {
    /// The key's 64-bit hash.
    ///
    /// ```
    /// use dynatom::{HintKey, Str};
    ///
    /// assert_eq!(Str::from("text").key_hash(), "text".key_hash());
    /// ```
    fn key_hash(&self) -> u64;

    /// Whether comparing two keys costs no more than a word compare (true for
    /// [`Atom`]). A small form of at most 4 entries is then
    /// searched by comparing keys directly: for such keys that is cheaper than making
    /// the hint, whose computation the lookup would otherwise have to wait for.
    ///
    /// ```
    /// use dynatom::{Atom, HintKey, Str};
    ///
    /// assert!(<Atom as HintKey>::WORD_EQ);
    /// assert!(!<Str as HintKey>::WORD_EQ);
    /// ```
    const WORD_EQ: bool = false;

    /// The hash a map's lookup uses: always equal to [`HintKey::key_hash`] (the default
    /// returns it) wherever the map holds an entry. A key type may compute it more
    /// cheaply from state that inserting any key has set up: [`Atom`] skips the check
    /// that its per-process seed has been chosen. Not meant to be overridden elsewhere.
    ///
    /// ```
    /// use dynatom::{Atom, HintKey, SmallMap};
    ///
    /// let key = Atom::from("k");
    /// let map: SmallMap<Atom, u8> = [(key.clone(), 1)].into_iter().collect();
    /// assert_eq!(key.lookup_hash(), key.key_hash());
    /// ```
    #[doc(hidden)]
    #[inline]
    fn lookup_hash(&self) -> u64 {
        self.key_hash()
    }
}

impl HintKey for Atom {
    const WORD_EQ: bool = true;

    /// A keyed mix of the word for an atom that is a value (up to 7 bytes, or declared),
    /// else the hash its table filed it under, read from its header: equal atoms are
    /// equal words, so either is a key hash; and both come from the text alone, which
    /// lets an [`AtomMap`](crate::AtomMap) find a key by text without its atom.
    #[inline]
    fn key_hash(&self) -> u64 {
        self.map_key_hash(hash::word_seed())
    }

    /// [`Atom`]'s `key_hash` without the check that the seed has been chosen: a map that
    /// holds an entry chose it when it hashed that entry's key.
    #[inline]
    fn lookup_hash(&self) -> u64 {
        self.map_key_hash(hash::word_seed_if_chosen())
    }
}

impl HintKey for ByteAtom {
    const WORD_EQ: bool = true;

    /// Exactly [`Atom`]'s: the same atom seen as bytes has the same word.
    #[inline]
    fn key_hash(&self) -> u64 {
        self.map_key_hash(hash::word_seed())
    }

    #[inline]
    fn lookup_hash(&self) -> u64 {
        self.map_key_hash(hash::word_seed_if_chosen())
    }
}

impl HintKey for Str {
    #[inline]
    fn key_hash(&self) -> u64 {
        self.hash64()
    }
}

impl HintKey for ByteStr {
    /// [`ByteStr::hash64`]: cached in the header of a heap string.
    #[inline]
    fn key_hash(&self) -> u64 {
        self.hash64()
    }
}

impl HintKey for [u8] {
    /// The global table's hash of the bytes: what [`ByteStr::hash64`] gives.
    fn key_hash(&self) -> u64 {
        AtomTable::global().shared().hash(self)
    }
}

/// Owned and shared byte types hash as their bytes do.
macro_rules! hint_key_as_bytes {
    ($($ty:ty),*) => {$(
        impl HintKey for $ty {
            #[inline]
            fn key_hash(&self) -> u64 {
                <[u8]>::key_hash(self)
            }
        }
    )*};
}

hint_key_as_bytes!(Vec<u8>, Box<[u8]>, Rc<[u8]>, Arc<[u8]>, Cow<'_, [u8]>);

impl HintKey for str {
    /// The global table's hash of the text: what [`Str::hash64`] gives.
    fn key_hash(&self) -> u64 {
        AtomTable::global().shared().hash(self.as_bytes())
    }
}

/// Owned and shared string types hash as their text does.
macro_rules! hint_key_as_str {
    ($($ty:ty),*) => {$(
        impl HintKey for $ty {
            #[inline]
            fn key_hash(&self) -> u64 {
                str::key_hash(self)
            }
        }
    )*};
}

hint_key_as_str!(String, Box<str>, Rc<str>, Arc<str>, Cow<'_, str>);

impl<T: HintKey + ?Sized> HintKey for &T {
    const WORD_EQ: bool = T::WORD_EQ;

    #[inline]
    fn key_hash(&self) -> u64 {
        T::key_hash(self)
    }

    #[inline]
    fn lookup_hash(&self) -> u64 {
        T::lookup_hash(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_types_hash_like_their_text() {
        for text in ["", "short", "fifteen bytes!!", "a heap string, longer than fifteen bytes"] {
            let expected = text.key_hash();
            assert_eq!(Str::from(text).key_hash(), expected);
            assert_eq!(String::from(text).key_hash(), expected);
            assert_eq!(Box::<str>::from(text).key_hash(), expected);
            assert_eq!(Rc::<str>::from(text).key_hash(), expected);
            assert_eq!(Arc::<str>::from(text).key_hash(), expected);
            assert_eq!(Cow::Borrowed(text).key_hash(), expected);
            assert_eq!((&text).key_hash(), expected);
        }
    }

    #[test]
    fn byte_types_hash_like_their_bytes_and_like_text() {
        for bytes in [&b""[..], b"short", b"\xff\xfe not text", b"a heap byte string, longer than 15"] {
            let expected = bytes.key_hash();
            assert_eq!(ByteStr::from(bytes).key_hash(), expected);
            assert_eq!(bytes.to_vec().key_hash(), expected);
            assert_eq!(Box::<[u8]>::from(bytes).key_hash(), expected);
            assert_eq!(Cow::Borrowed(bytes).key_hash(), expected);
        }
        assert_eq!(b"text"[..].key_hash(), "text".key_hash());
        let atom = Atom::from("an atom seen as bytes keeps its hint");
        assert_eq!(atom.as_byte_atom().key_hash(), atom.key_hash());
    }

    #[test]
    fn atoms_hash_by_identity() {
        let atom = Atom::from("long enough to live in the table");
        assert_eq!(atom.key_hash(), Atom::from("long enough to live in the table").key_hash());
        assert_eq!(atom.key_hash(), atom.clone().key_hash());
        assert_ne!(atom.key_hash(), Atom::from("another text, another atom").key_hash());
        assert_eq!(Atom::from("short").key_hash(), Atom::from("short").key_hash());
    }
}
