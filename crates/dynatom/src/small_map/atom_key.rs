//! [`AtomMapKey`]: what [`AtomMap`](super::AtomMap)'s lookups accept, so that an atom
//! goes the atom path and text the text path, whichever the caller writes.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use super::entry::Entry;
use super::key::HintKey;
use super::map::SmallMap;
use crate::atom::Atom;
use crate::atom::key_hash::TextProbe;
use crate::builder::StrBuilder;
use crate::hash;
use crate::str::Str;

mod sealed {
    use crate::atom::Atom;

    /// What a key is to an [`AtomMap`](crate::AtomMap)'s search.
    pub trait Sealed {
        fn key_ref(&self) -> KeyRef<'_>;
    }

    /// A key as an [`AtomMap`](crate::AtomMap) searches for it: an atom (by its word),
    /// or text (by the hash and bytes its atom would have, without the atom). Public in
    /// a private module, like the trait that hands it out: nameable in this crate only.
    #[derive(Clone, Copy, Debug)]
    pub enum KeyRef<'a> {
        Atom(&'a Atom),
        Text(&'a str),
    }
}

pub(crate) use sealed::KeyRef;

mod sealed_entry {
    use super::{Atom, Entry, SmallMap};

    /// How a key finds (or makes) its entry in an [`AtomMap`](crate::AtomMap)'s map.
    pub trait Sealed: Sized {
        fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V>;
    }
}

/// A key [`AtomMap`](super::AtomMap) can be searched by: an [`Atom`] (no text byte read)
/// or text (`str`, `String`, [`Str`], ...: hashed as its atom would be and compared with
/// the keys, without asking the atom table and without taking a count of any atom).
///
/// Without it, `map.get(&atom)` would deref the atom to its `&str` and silently take the
/// slower text path. Sealed: the set of key types is this crate's to choose.
///
/// ```
/// use dynatom::{Atom, AtomMap, Str};
///
/// let key = Atom::from("a key held as an atom");
/// let map: AtomMap<u8> = [(key.clone(), 1)].into_iter().collect();
/// assert_eq!(map.get(&key), Some(&1)); // the atom path
/// assert_eq!(map.get("a key held as an atom"), Some(&1)); // the text path
/// assert_eq!(map.get(&String::from("a key held as an atom")), Some(&1));
/// assert_eq!(map.get(&Str::from("a key held as an atom")), Some(&1));
/// ```
pub trait AtomMapKey: sealed::Sealed {
    /// The global atom for this key, if one is alive.
    ///
    /// ```
    /// use dynatom::small_map::AtomMapKey;
    /// use dynatom::Atom;
    ///
    /// let atom = Atom::from("looked up by its own atom");
    /// assert_eq!(atom.find_atom().as_deref(), Some(&atom));
    /// assert!("text no one has interned, ever".find_atom().is_none());
    /// ```
    fn find_atom(&self) -> Option<Cow<'_, Atom>>;
}

impl sealed::Sealed for Atom {
    #[inline]
    fn key_ref(&self) -> KeyRef<'_> {
        KeyRef::Atom(self)
    }
}

impl AtomMapKey for Atom {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        Some(Cow::Borrowed(self))
    }
}

impl sealed::Sealed for str {
    #[inline]
    fn key_ref(&self) -> KeyRef<'_> {
        KeyRef::Text(self)
    }
}

impl AtomMapKey for str {
    /// One lookup in the global table.
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        Atom::lookup(self).map(Cow::Owned)
    }
}

impl sealed::Sealed for Str {
    #[inline]
    fn key_ref(&self) -> KeyRef<'_> {
        KeyRef::Text(self.as_str())
    }
}

impl AtomMapKey for Str {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        self.as_str().find_atom()
    }
}

macro_rules! text_keys {
    ($($ty:ty),*) => {$(
        impl sealed::Sealed for $ty {
            #[inline]
            fn key_ref(&self) -> KeyRef<'_> {
                KeyRef::Text(self)
            }
        }
        impl AtomMapKey for $ty {
            #[inline]
            fn find_atom(&self) -> Option<Cow<'_, Atom>> {
                str::find_atom(self)
            }
        }
    )*};
}

text_keys!(String, Box<str>, Rc<str>, Arc<str>, Cow<'_, str>);

impl<T: AtomMapKey + ?Sized> sealed::Sealed for &T {
    #[inline]
    fn key_ref(&self) -> KeyRef<'_> {
        T::key_ref(self)
    }
}

impl<T: AtomMapKey + ?Sized> AtomMapKey for &T {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        T::find_atom(self)
    }
}

/// A key [`AtomMap::entry`](super::AtomMap::entry) takes: text, borrowed or owned (`&str`,
/// `String`, [`Str`], `Box<str>`, `Cow<str>`, `Rc<str>`, `Arc<str>`, `&String`, a
/// [`StrBuilder`], a `char`), or an [`Atom`].
///
/// Text is searched for by its hash and bytes, as [`AtomMap::get`](super::AtomMap::get)
/// does, before anything is built from it: a key already in the map costs no allocation,
/// no table lookup and no count. Only a new key is interned, an owned heap string's
/// buffer adopted. An atom is searched for by its word.
///
/// ```
/// use dynatom::{Atom, AtomMap, Str};
///
/// let mut map: AtomMap<u32> = AtomMap::new();
/// *map.entry("a key given as text").or_insert(0) += 1;
/// *map.entry(String::from("a key given as text")).or_insert(0) += 1;
/// *map.entry(Str::from("a key given as text")).or_insert(0) += 1;
/// *map.entry(Atom::from("a key given as text")).or_insert(0) += 1;
/// *map.entry('c').or_insert(0) += 1;
/// assert_eq!(map.get("a key given as text"), Some(&4));
/// assert_eq!(map.len(), 2);
/// ```
pub trait IntoAtomKey: sealed_entry::Sealed {}

/// The entry of the text `text` in an `AtomMap`'s `map`, `make()` its atom if it is new.
#[inline]
fn text_entry<'m, V>(map: &'m mut SmallMap<Atom, V>, text: &str, make: impl FnOnce() -> Atom) -> Entry<'m, Atom, V> {
    let (hash, found) = search_text(map, text.as_bytes());
    map.entry_found(hash, found, make)
}

/// The key hash of `bytes`' atom, and the position of its entry in `map` if it has one:
/// the search of an insert, so under the chosen word seed.
#[inline]
fn search_text<V>(map: &SmallMap<Atom, V>, bytes: &[u8]) -> (u64, Option<usize>) {
    let probe = TextProbe::new(bytes, hash::word_seed());
    (probe.hash, map.find_by(probe.hash, |key| probe.is_key(key)))
}

/// The key hash and position in `map` of an atom of the global table (or a value): its
/// word is the key. `None` for an atom of another table, whose text is searched for
/// instead (the global atom of that text is the key).
#[inline]
fn atom_search<V>(map: &SmallMap<Atom, V>, atom: &Atom) -> Option<(u64, Option<usize>)> {
    if !atom.is_value_or_global() {
        return None;
    }
    Some((atom.key_hash(), map.get_index_of(atom)))
}

/// The entry of `atom`, `make()` the key if it is new and `atom` is the global table's.
#[inline]
fn atom_entry<'m, V>(map: &'m mut SmallMap<Atom, V>, atom: &Atom, make: impl FnOnce() -> Atom) -> Entry<'m, Atom, V> {
    match atom_search(map, atom) {
        Some((hash, found)) => map.entry_found(hash, found, make),
        None => text_entry(map, atom.as_str(), || Atom::from(atom.as_str())),
    }
}

/// Borrowed text: copied into a new atom only when new.
macro_rules! borrowed_text_entry_keys {
    ($($ty:ty),*) => {$(
        impl sealed_entry::Sealed for $ty {
            #[inline]
            fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
                let text: &str = self;
                text_entry(map, text, || Atom::from(text))
            }
        }
        impl IntoAtomKey for $ty {}
    )*};
}

borrowed_text_entry_keys!(&str, &mut str, &String);

/// Owned text: interned as a [`Str`] when new, so that a heap buffer is adopted.
macro_rules! owned_text_entry_keys {
    ($($ty:ty),*) => {$(
        impl sealed_entry::Sealed for $ty {
            #[inline]
            fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
                let (hash, found) = search_text(map, self.as_bytes());
                map.entry_found(hash, found, || Str::from(self).intern())
            }
        }
        impl IntoAtomKey for $ty {}
    )*};
}

owned_text_entry_keys!(String, Str, Box<str>, Cow<'_, str>, Rc<str>, Arc<str>);

impl sealed_entry::Sealed for StrBuilder {
    #[inline]
    fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
        let (hash, found) = search_text(map, self.as_str().as_bytes());
        map.entry_found(hash, found, || Str::from(self).intern())
    }
}

impl IntoAtomKey for StrBuilder {}

impl sealed_entry::Sealed for char {
    #[inline]
    fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
        let mut buffer = [0; 4];
        let text: &str = self.encode_utf8(&mut buffer);
        text_entry(map, text, || Atom::from(text))
    }
}

impl IntoAtomKey for char {}

impl sealed_entry::Sealed for Atom {
    #[inline]
    fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
        match atom_search(map, &self) {
            Some((hash, found)) => map.entry_found(hash, found, || self),
            None => text_entry(map, self.as_str(), || Atom::from(self.as_str())),
        }
    }
}

impl IntoAtomKey for Atom {}

impl sealed_entry::Sealed for &Atom {
    #[inline]
    fn entry_in<V>(self, map: &mut SmallMap<Atom, V>) -> Entry<'_, Atom, V> {
        atom_entry(map, self, || self.clone())
    }
}

impl IntoAtomKey for &Atom {}
