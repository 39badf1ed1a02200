//! [`AtomMap`]: a [`SmallMap`] whose keys are interned on insert.

use std::fmt;
use std::ops::Index;

use super::atom_key::{AtomMapKey, IntoAtomKey, KeyRef};
use super::entry::Entry;
use super::iter::{IntoIter, Iter, IterMut, Keys, Values, ValuesMut};
use super::map::SmallMap;
use super::stats;
use crate::atom::Atom;
use crate::atom::byte_atom::ByteAtom;
use crate::atom::key_hash::TextProbe;
use crate::error::StrError;
use crate::hash;
use crate::str::Str;
use crate::str::byte_str::ByteStr;

/// A map keyed by text that interns each new key on insert, so that the map itself only
/// ever holds [`Atom`]s: one-word keys, hashed by their text's hash (see [`HintKey` for
/// `Atom`](crate::HintKey)) without reading the text.
///
/// * [`AtomMap::get`], [`AtomMap::entry`] and the other searches by text never ask the
///   atom table and take no count of any atom: the text is hashed as its atom is (a text
///   of up to 7 bytes is packed into the word its atom would be and mixed; a longer one
///   is hashed with the global table's hash, which its atom caches) and compared with the
///   keys whose hash matches (one word compare, or the bytes of one entry).
/// * [`AtomMap::insert`] and [`AtomMap::entry`] intern a key only when it is new: a text
///   already in the map is found as above, the key kept. A new key becomes a global
///   [`Atom`] ([`Str::intern`]): a heap string spanning its buffer is adopted, not copied.
/// * `get(&atom)` and [`AtomMap::get_atom`] take the atom path (see [`AtomMapKey`]): the
///   fastest lookup, one word compare and no text byte read.
///
/// Keys of up to 7 bytes are atoms by value and never touch the table at all.
///
/// One text is one key: every key is the global table's atom of its text. An atom of
/// another table ([`AtomTable::new`](crate::AtomTable::new)) given to
/// [`AtomMap::insert_atom`] is re-interned in the global table first, and a lookup by
/// such an atom finds the entry of its text.
///
/// Keys may also come as bytes ([`AtomMap::get_bytes`], [`AtomMap::insert_bytes`]): text
/// and bytes share atoms, so `b"host"` finds the entry `"host"` made. For keys that need
/// not be UTF-8 at all, use a `SmallMap<ByteAtom, V>`.
///
/// # Large maps
///
/// `AtomMap` is meant for large maps too, not only the small ones its hints serve: past 8
/// entries it keeps its entries in insertion order in one vector and finds them through a
/// hashbrown table of 4-byte positions, so one map serves a config of five fields and a
/// symbol table of 300,000 keys alike. Figures, from this project's own runs:
///
/// * Memory: with 300,000 keys of 17 bytes and `u32` values, the map's own heap
///   ([`SmallMap::heap_bytes`]) was 11,010,120 bytes, 36.7 bytes per entry; the keys'
///   atoms live in the atom table, counted apart (see `memory_report`).
/// * Speed: counting the 1,683,862 identifiers of real Rust sources into 99,590 keys (the
///   `count-identifiers` workload in BENCHMARKS.md) ran 1.16× and 1.24× as fast (two full
///   runs) with `AtomMap::entry` than with `HashMap<String, u32>`, drop included. A map's
///   drop (and [`AtomMap::clear`]) gives up every key's count first and then tells the atom
///   table about the keys it left unused, one shard at a time, so each shard is swept once.
///
/// ```
/// use dynatom::AtomMap;
///
/// let mut symbols = AtomMap::new();
/// for i in 0..10_000u32 {
///     symbols.insert(format!("symbol_{i}"), i);
/// }
/// assert_eq!(symbols.get("symbol_9999"), Some(&9999));
/// assert_eq!(symbols.keys().next().unwrap(), "symbol_0"); // insertion order, at any size
/// ```
///
/// ```
/// use dynatom::AtomMap;
///
/// let mut config = AtomMap::new();
/// config.insert("listen_address", "0.0.0.0:8080");
/// config.insert(String::from("worker_threads"), "8");
///
/// assert_eq!(config.get("worker_threads"), Some(&"8"));
/// assert_eq!(config.get("a text that was never interned by anyone"), None);
/// assert_eq!(config.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["listen_address", "worker_threads"]);
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct AtomMap<V> {
    map: SmallMap<Atom, V>,
}

impl<V> AtomMap<V> {
    /// An empty map. Allocates nothing.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u32> = dynatom::AtomMap::new();
    /// assert!(map.is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> AtomMap<V> {
        AtomMap { map: SmallMap::new() }
    }

    /// An empty map with room for `capacity` entries.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u64> = dynatom::AtomMap::with_capacity(4);
    /// assert_eq!(map.as_small_map().heap_bytes(), 4 * 16);
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> AtomMap<V> {
        AtomMap { map: SmallMap::with_capacity(capacity) }
    }

    /// The number of entries.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("a", 1), ("b", 2)].into_iter().collect();
    /// assert_eq!(map.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether the map has no entries.
    ///
    /// ```
    /// assert!(dynatom::AtomMap::<u8>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Interns `key` and inserts `value` under it, returning the value it replaces.
    ///
    /// ```
    /// use dynatom::{AtomMap, Str};
    ///
    /// let mut map = AtomMap::new();
    /// let key = Str::from(format!("built at run time: {}", 7));
    /// assert_eq!(map.insert(key.clone(), 1), None);
    /// assert_eq!(map.keys().next().unwrap().as_ptr(), key.as_ptr()); // buffer adopted
    /// assert_eq!(map.insert("built at run time: 7", 2), Some(1));
    /// ```
    pub fn insert(&mut self, key: impl Into<Str>, value: V) -> Option<V> {
        match self.entry(key.into()) {
            Entry::Occupied(mut occupied) => Some(occupied.insert(value)),
            Entry::Vacant(vacant) => {
                vacant.insert(value);
                None
            }
        }
    }

    /// Inserts `value` under an atom the caller already holds. An atom of the global
    /// table (or of up to 7 bytes) is the key as it is; one of another table is
    /// re-interned in the global table, so that its text has one entry, found by text too.
    ///
    /// ```
    /// use dynatom::{Atom, AtomMap, AtomTable};
    ///
    /// let mut map = AtomMap::new();
    /// map.insert_atom(Atom::from("an atom already"), 1);
    /// assert_eq!(map.get("an atom already"), Some(&1));
    ///
    /// let local = AtomTable::new();
    /// assert_eq!(map.insert_atom(local.intern("an atom already"), 2), Some(1));
    /// assert_eq!(map.len(), 1);
    /// ```
    pub fn insert_atom(&mut self, key: Atom, value: V) -> Option<V> {
        self.map.insert(global_atom(key), value)
    }

    /// The position of the entry whose key is `atom` or, for an atom of another table,
    /// has its text.
    #[inline]
    fn index_of_atom(&self, atom: &Atom) -> Option<usize> {
        match self.map.get_index_of(atom) {
            Some(at) => Some(at),
            None => self.index_of_foreign(atom.is_inline_or_global(), atom.as_bytes()),
        }
    }

    /// The miss of a search by atom: for an atom of another table, the entry of its text.
    #[cold]
    fn index_of_foreign(&self, inline_or_global: bool, bytes: &[u8]) -> Option<usize> {
        if inline_or_global {
            return None;
        }
        self.index_of_text(bytes)
    }

    /// The position of the entry whose key has the text `bytes`: no table lookup, no count.
    #[inline]
    fn index_of_text(&self, bytes: &[u8]) -> Option<usize> {
        let probe = TextProbe::new(bytes, hash::word_seed_if_chosen());
        let found = self.map.find_by(probe.hash, |key| probe.is_key(key));
        if found.is_none() {
            stats::unknown_text();
        }
        found
    }

    /// The position of the entry for `key`.
    #[inline]
    fn index_of<Q: AtomMapKey + ?Sized>(&self, key: &Q) -> Option<usize> {
        match key.key_ref() {
            KeyRef::Atom(atom) => self.index_of_atom(atom),
            KeyRef::Text(text) => self.index_of_text(text.as_bytes()),
        }
    }

    /// The entry for `key`, to insert or update with one search. A key already in the map
    /// is found by its text, as [`AtomMap::get`] finds it (no table lookup, no count);
    /// only a new key is interned, here, before the entry is handed out.
    ///
    /// ```
    /// let mut counts = dynatom::AtomMap::new();
    /// for word in ["to", "be", "or", "not", "to", "be"] {
    ///     *counts.entry(word).or_insert(0) += 1;
    /// }
    /// assert_eq!(counts.get("be"), Some(&2));
    /// ```
    #[inline]
    pub fn entry(&mut self, key: impl IntoAtomKey) -> Entry<'_, Atom, V> {
        key.entry_in(&mut self.map)
    }

    /// The value for `key`, found by its text (or by its atom, for an [`Atom`]) without
    /// asking the atom table.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("present key", 1)].into_iter().collect();
    /// assert_eq!(map.get("present key"), Some(&1));
    /// assert_eq!(map.get("absent key"), None);
    /// ```
    pub fn get<Q: AtomMapKey + ?Sized>(&self, key: &Q) -> Option<&V> {
        Some(&self.map.entries()[self.index_of(key)?].1)
    }

    /// The value for `key`, mutable.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("key", 1)].into_iter().collect();
    /// *map.get_mut("key").unwrap() = 2;
    /// assert_eq!(map.get("key"), Some(&2));
    /// ```
    pub fn get_mut<Q: AtomMapKey + ?Sized>(&mut self, key: &Q) -> Option<&mut V> {
        let at = self.index_of(key)?;
        Some(&mut self.map.entries_mut()[at].1)
    }

    /// The value for `key` given as bytes, found as [`AtomMap::get`] finds text (bytes
    /// that are not UTF-8 are never a key here).
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("content-length", 1)].into_iter().collect();
    /// assert_eq!(map.get_bytes(b"content-length"), Some(&1));
    /// assert_eq!(map.get_bytes(b"\xff"), None);
    /// ```
    pub fn get_bytes(&self, key: &[u8]) -> Option<&V> {
        Some(&self.map.entries()[self.index_of_text(key)?].1)
    }

    /// The value for a byte atom (the same atom as the text key, seen as bytes): no table
    /// lookup and no byte read.
    ///
    /// ```
    /// use dynatom::{AtomMap, ByteAtom};
    ///
    /// let map: AtomMap<u8> = [("x-forwarded-for", 1)].into_iter().collect();
    /// assert_eq!(map.get_byte_atom(&ByteAtom::new(b"x-forwarded-for")), Some(&1));
    /// ```
    #[inline]
    pub fn get_byte_atom(&self, key: &ByteAtom) -> Option<&V> {
        match self.map.get(key) {
            Some(value) => Some(value),
            None => self.get_bytes_of_foreign(key),
        }
    }

    /// [`AtomMap::get_byte_atom`]'s miss: a byte atom of another table finds the entry
    /// of its bytes.
    #[cold]
    fn get_bytes_of_foreign(&self, key: &ByteAtom) -> Option<&V> {
        Some(&self.map.entries()[self.index_of_foreign(key.is_inline_or_global(), key.as_bytes())?].1)
    }

    /// Inserts `value` under a key given as bytes, which must be UTF-8 (checked once, no
    /// copy; the buffer is adopted as [`AtomMap::insert`] does).
    ///
    /// # Errors
    /// [`StrError::InvalidUtf8`] if the bytes are not UTF-8; the map is unchanged.
    ///
    /// ```
    /// use dynatom::{AtomMap, ByteStr};
    ///
    /// let mut map = AtomMap::new();
    /// assert_eq!(map.insert_bytes(ByteStr::from(&b"accept-encoding"[..]), 1), Ok(None));
    /// assert_eq!(map.get("accept-encoding"), Some(&1));
    /// assert!(map.insert_bytes(ByteStr::from(&b"\xff"[..]), 2).is_err());
    /// ```
    pub fn insert_bytes(&mut self, key: impl Into<ByteStr>, value: V) -> Result<Option<V>, StrError> {
        let key = key.into().to_text()?;
        Ok(self.insert(key, value))
    }

    /// Removes a key given as bytes, returning its value.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.remove_bytes(b"a"), Some(1));
    /// ```
    pub fn remove_bytes(&mut self, key: &[u8]) -> Option<V> {
        self.remove_text(key)
    }

    /// Removes the key whose text is `bytes`, found without asking the atom table.
    fn remove_text(&mut self, bytes: &[u8]) -> Option<V> {
        let probe = TextProbe::new(bytes, hash::word_seed_if_chosen());
        self.map.remove_by(probe.hash, |key| probe.is_key(key)).map(|(_, value)| value)
    }

    /// The value for an atom: no table lookup and no text byte read.
    ///
    /// ```
    /// use dynatom::{Atom, AtomMap};
    ///
    /// let key = Atom::from("a key the caller keeps around");
    /// let map: AtomMap<u8> = [(key.clone(), 1)].into_iter().collect();
    /// assert_eq!(map.get_atom(&key), Some(&1));
    /// ```
    #[inline]
    pub fn get_atom(&self, key: &Atom) -> Option<&V> {
        match self.map.get(key) {
            Some(value) => Some(value),
            None => Some(&self.map.entries()[self.index_of_foreign(key.is_inline_or_global(), key.as_bytes())?].1),
        }
    }

    /// Whether `key` is present.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("key", 1)].into_iter().collect();
    /// assert!(map.contains_key("key"));
    /// assert!(!map.contains_key("other"));
    /// ```
    pub fn contains_key<Q: AtomMapKey + ?Sized>(&self, key: &Q) -> bool {
        self.get(key).is_some()
    }

    /// Removes `key`, returning its value; the other entries keep their order.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1), ("b", 2)].into_iter().collect();
    /// assert_eq!(map.remove("a"), Some(1));
    /// assert_eq!(map.remove("a"), None);
    /// ```
    pub fn remove<Q: AtomMapKey + ?Sized>(&mut self, key: &Q) -> Option<V> {
        match key.key_ref() {
            KeyRef::Atom(atom) => self.remove_atom(atom),
            KeyRef::Text(text) => self.remove_text(text.as_bytes()),
        }
    }

    /// Removes an atom key, returning its value.
    ///
    /// ```
    /// use dynatom::{Atom, AtomMap};
    ///
    /// let mut map: AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.remove_atom(&Atom::from("a")), Some(1));
    /// ```
    pub fn remove_atom(&mut self, key: &Atom) -> Option<V> {
        match self.map.remove(key) {
            Some(value) => Some(value),
            None if key.is_inline_or_global() => None,
            None => self.remove_text(key.as_bytes()),
        }
    }

    /// Keeps only the entries for which `keep` returns `true`, in order.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1), ("b", 2)].into_iter().collect();
    /// map.retain(|_, v| *v > 1);
    /// assert_eq!(map.len(), 1);
    /// ```
    pub fn retain(&mut self, keep: impl FnMut(&Atom, &mut V) -> bool) {
        self.map.retain(keep);
    }

    /// Removes every entry and frees the storage.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// map.clear();
    /// assert!(map.is_empty());
    /// ```
    pub fn clear(&mut self) {
        crate::atom::table::drop_together(std::mem::take(&mut self.map).into_iter().map(|(key, _)| key.into_word()));
    }

    /// The entries in insertion order.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// let (key, value) = map.iter().next().unwrap();
    /// assert_eq!((key.as_str(), *value), ("a", 1));
    /// ```
    pub fn iter(&self) -> Iter<'_, Atom, V> {
        self.map.iter()
    }

    /// The entries in insertion order, values mutable.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// map.iter_mut().for_each(|(_, v)| *v = 3);
    /// assert_eq!(map.get("a"), Some(&3));
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, Atom, V> {
        self.map.iter_mut()
    }

    /// The keys in insertion order.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("b", 1), ("a", 2)].into_iter().collect();
    /// assert_eq!(map.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["b", "a"]);
    /// ```
    pub fn keys(&self) -> Keys<'_, Atom, V> {
        self.map.keys()
    }

    /// The values in insertion order.
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("b", 1), ("a", 2)].into_iter().collect();
    /// assert_eq!(map.values().copied().collect::<Vec<_>>(), [1, 2]);
    /// ```
    pub fn values(&self) -> Values<'_, Atom, V> {
        self.map.values()
    }

    /// The values in insertion order, mutable.
    ///
    /// ```
    /// let mut map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// map.values_mut().for_each(|v| *v += 1);
    /// assert_eq!(map.get("a"), Some(&2));
    /// ```
    pub fn values_mut(&mut self) -> ValuesMut<'_, Atom, V> {
        self.map.values_mut()
    }

    /// The underlying [`SmallMap`].
    ///
    /// ```
    /// let map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// assert!(map.as_small_map().is_small());
    /// ```
    #[must_use]
    pub fn as_small_map(&self) -> &SmallMap<Atom, V> {
        &self.map
    }

    /// The underlying [`SmallMap`], by value.
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// let map: dynatom::AtomMap<u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.into_small_map().get(&Atom::from("a")), Some(&1));
    /// ```
    #[must_use]
    pub fn into_small_map(mut self) -> SmallMap<Atom, V> {
        std::mem::take(&mut self.map)
    }
}

/// Dropping a map tells the atom table about the keys it leaves unused together, one add
/// per shard instead of one per key: a large map's keys are then freed in one sweep of
/// each shard (see `drop_together`), not two or more.
impl<V> Drop for AtomMap<V> {
    fn drop(&mut self) {
        self.clear();
    }
}

impl<V> Default for AtomMap<V> {
    fn default() -> Self {
        AtomMap::new()
    }
}

impl<V: fmt::Debug> fmt::Debug for AtomMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.map, f)
    }
}

impl<V> From<SmallMap<Atom, V>> for AtomMap<V> {
    /// Keeps the map as it is if every key is a global (or inline) atom; otherwise
    /// re-interns the others' texts, and of keys with equal text the first keeps its
    /// place and the last value stays (as [`AtomMap::insert_atom`] would leave them).
    fn from(map: SmallMap<Atom, V>) -> Self {
        if map.keys().all(Atom::is_inline_or_global) {
            return AtomMap { map };
        }
        let mut atoms = AtomMap::with_capacity(map.len());
        for (key, value) in map {
            atoms.insert_atom(key, value);
        }
        atoms
    }
}

/// The global table's atom of `key`'s text: `key` itself if it is one already.
fn global_atom(key: Atom) -> Atom {
    if key.is_inline_or_global() {
        return key;
    }
    Atom::from(key.as_str())
}

impl<S: Into<Str>, V> FromIterator<(S, V)> for AtomMap<V> {
    fn from_iter<I: IntoIterator<Item = (S, V)>>(entries: I) -> Self {
        let mut map = AtomMap::new();
        map.extend(entries);
        map
    }
}

impl<S: Into<Str>, V> Extend<(S, V)> for AtomMap<V> {
    fn extend<I: IntoIterator<Item = (S, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

impl<V> IntoIterator for AtomMap<V> {
    type Item = (Atom, V);
    type IntoIter = IntoIter<Atom, V>;

    fn into_iter(mut self) -> IntoIter<Atom, V> {
        std::mem::take(&mut self.map).into_iter()
    }
}

impl<'a, V> IntoIterator for &'a AtomMap<V> {
    type Item = (&'a Atom, &'a V);
    type IntoIter = Iter<'a, Atom, V>;

    fn into_iter(self) -> Iter<'a, Atom, V> {
        self.map.iter()
    }
}

impl<V, Q: AtomMapKey + ?Sized> Index<&Q> for AtomMap<V> {
    type Output = V;

    /// # Panics
    /// If the key is absent.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("key not in AtomMap")
    }
}
