//! [`SmallMap`]: the type and its operations.

use std::borrow::Borrow;

use super::entry::{Entry, OccupiedEntry, VacantEntry};
use super::hint::{Hint, Hints};
use super::iter::{Iter, IterMut, Keys, Values, ValuesMut};
use super::key::HintKey;
use super::large::Large;
use super::small::{self, SMALL_CAPACITY};

/// A large-form map that shrinks to this many entries goes back to the small form. Half
/// of the small capacity, so that a map going back and forth across 8 entries does not
/// rebuild its index at every step.
const BACK_TO_SMALL: usize = SMALL_CAPACITY / 2;

/// A map for string-like keys, built for the many tables that hold a handful of entries.
///
/// * **Small form** (up to 8 entries): the `(key, value)` pairs sit in one vector in
///   insertion order, and one [hint](crate::Hint) byte per entry (from the key's hash, see
///   [`HintKey`]) sits in a `u64` inside the map, the slots past the last entry marked
///   empty. A lookup compares its hint with all eight bytes at once and compares keys
///   only where a byte matches: a miss usually touches no entry at all.
/// * **Large form** (past 8 entries): the pairs stay in one vector in insertion order,
///   found through a hashbrown `HashTable` of their positions. It goes back to the small
///   form when it shrinks to 4 entries (or on [`SmallMap::shrink_to_fit`] at 8 or fewer).
///
/// **Order:** iteration is always in insertion order, and [`SmallMap::remove`] keeps it
/// (the others close the gap, O(n) in the large form, like `IndexMap::shift_remove`).
/// Inserting an existing key replaces the value and keeps the key and its place.
///
/// **Memory** on 64-bit targets: `size_of::<SmallMap<K, V>>()` is 32 bytes. A new or
/// cleared map allocates nothing; a small map of `n` entries allocates one vector of
/// 1, 2, 4 or 8 slots (never more than 8 × `size_of::<(K, V)>()`: 128 bytes for
/// `(Atom, u64)` pairs, since the hints live in the map itself). See
/// [`SmallMap::heap_bytes`].
///
/// With [`Atom`](crate::Atom) keys no text byte is ever read: hints come from the atom's
/// hash (a mix of its word for an atom of up to 7 bytes, else the hash cached in its
/// header) and keys compare as one word.
///
/// ```
/// use dynatom::{Atom, SmallMap};
///
/// let mut headers = SmallMap::new();
/// headers.insert(Atom::from("content-type"), "text/html");
/// headers.insert(Atom::from("content-length"), "42");
/// headers.insert(Atom::from("connection"), "close");
///
/// assert_eq!(headers.get(&Atom::from("content-length")), Some(&"42"));
/// assert_eq!(headers.get(&Atom::from("x-missing")), None);
/// let names: Vec<&str> = headers.keys().map(|k| k.as_str()).collect();
/// assert_eq!(names, ["content-type", "content-length", "connection"]); // insertion order
/// ```
#[derive(Clone)]
pub struct SmallMap<K, V> {
    repr: Repr<K, V>,
}

#[derive(Clone)]
enum Repr<K, V> {
    Small { hints: Hints, entries: Vec<(K, V)> },
    Large(Box<Large<K, V>>),
}

/// Called on the large form's side of a lookup: a call to a `#[cold]` function marks its
/// branch as the unlikely one, so the compiler lays the small form's lookup out as the
/// straight path (stable Rust's stand-in for `std::hint::cold_path`, as hashbrown does).
/// It compiles to nothing.
#[cold]
#[inline(always)]
fn large_form() {}

impl<K, V> SmallMap<K, V> {
    /// An empty map. Allocates nothing.
    ///
    /// ```
    /// let map: dynatom::SmallMap<dynatom::Atom, u64> = dynatom::SmallMap::new();
    /// assert!(map.is_empty());
    /// assert_eq!(map.heap_bytes(), 0);
    /// ```
    #[must_use]
    pub const fn new() -> SmallMap<K, V> {
        SmallMap { repr: Repr::Small { hints: Hints::EMPTY, entries: Vec::new() } }
    }

    /// The number of entries.
    ///
    /// ```
    /// let map: dynatom::SmallMap<String, u8> = [("a".to_string(), 1)].into_iter().collect();
    /// assert_eq!(map.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether the map has no entries.
    ///
    /// ```
    /// assert!(dynatom::SmallMap::<String, u8>::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the map is in its small (hint) form rather than its large (hash table) form.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, usize> = (0..8).map(|i| (i.to_string(), i)).collect();
    /// assert!(map.is_small());
    /// map.insert("8".to_string(), 8);
    /// assert!(!map.is_small());
    /// ```
    pub fn is_small(&self) -> bool {
        matches!(self.repr, Repr::Small { .. })
    }

    /// The bytes this map has allocated itself (not counting what keys and values own):
    /// `capacity × size_of::<(K, V)>()` in the small form; the boxed form, the entry
    /// vector and the hashbrown index in the large form.
    ///
    /// ```
    /// use dynatom::{Atom, SmallMap};
    ///
    /// let map: SmallMap<Atom, u64> = (0..8u64).map(|i| (Atom::from(format!("key-{i}")), i)).collect();
    /// assert_eq!(map.heap_bytes(), 8 * 16); // eight 16-byte pairs; the hints are inline
    /// assert_eq!(std::mem::size_of_val(&map), 32);
    /// ```
    pub fn heap_bytes(&self) -> usize {
        match &self.repr {
            Repr::Small { entries, .. } => entries.capacity() * std::mem::size_of::<(K, V)>(),
            Repr::Large(large) => large.heap_bytes(),
        }
    }

    /// The entries in insertion order.
    pub(crate) fn entries(&self) -> &[(K, V)] {
        match &self.repr {
            Repr::Small { entries, .. } => entries,
            Repr::Large(large) => &large.entries,
        }
    }

    /// The entries in insertion order, mutably. Callers change values only: a changed key
    /// would no longer match its hint or index.
    pub(crate) fn entries_mut(&mut self) -> &mut [(K, V)] {
        match &mut self.repr {
            Repr::Small { entries, .. } => entries,
            Repr::Large(large) => &mut large.entries,
        }
    }

    /// The entries, by value, in insertion order.
    pub(crate) fn into_entries(self) -> Vec<(K, V)> {
        match self.repr {
            Repr::Small { entries, .. } => entries,
            Repr::Large(large) => large.entries,
        }
    }

    /// The entry at position `index` in insertion order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<&str, u8> = [("first", 1), ("second", 2)].into_iter().collect();
    /// assert_eq!(map.get_index(1), Some((&"second", &2)));
    /// assert_eq!(map.get_index(2), None);
    /// ```
    pub fn get_index(&self, index: usize) -> Option<(&K, &V)> {
        self.entries().get(index).map(|(key, value)| (key, value))
    }

    /// The entries in insertion order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// assert_eq!(map.iter().collect::<Vec<_>>(), [(&"b", &2), (&"a", &1)]);
    /// ```
    pub fn iter(&self) -> Iter<'_, K, V> {
        Iter::new(self.entries())
    }

    /// The entries in insertion order, values mutable.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// map.iter_mut().for_each(|(_, v)| *v *= 10);
    /// assert_eq!(map.get("a"), Some(&10));
    /// ```
    pub fn iter_mut(&mut self) -> IterMut<'_, K, V> {
        IterMut::new(self.entries_mut())
    }

    /// The keys in insertion order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// assert_eq!(map.keys().collect::<Vec<_>>(), [&"b", &"a"]);
    /// ```
    pub fn keys(&self) -> Keys<'_, K, V> {
        Keys::new(self.entries())
    }

    /// The values in insertion order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// assert_eq!(map.values().sum::<u8>(), 3);
    /// ```
    pub fn values(&self) -> Values<'_, K, V> {
        Values::new(self.entries())
    }

    /// The values in insertion order, mutable.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// map.values_mut().for_each(|v| *v += 1);
    /// assert_eq!(map.values().copied().collect::<Vec<_>>(), [3, 2]);
    /// ```
    pub fn values_mut(&mut self) -> ValuesMut<'_, K, V> {
        ValuesMut::new(self.entries_mut())
    }

    /// Removes every entry and frees the storage: the map is back to a new one.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, usize> = (0..20).map(|i| (i.to_string(), i)).collect();
    /// map.clear();
    /// assert!(map.is_empty() && map.is_small());
    /// assert_eq!(map.heap_bytes(), 0);
    /// ```
    pub fn clear(&mut self) {
        *self = SmallMap::new();
    }
}

impl<K: HintKey, V> SmallMap<K, V> {
    /// An empty map with room for `capacity` entries (in the large form if more than 8).
    ///
    /// ```
    /// use dynatom::{Atom, SmallMap};
    ///
    /// let map: SmallMap<Atom, u64> = SmallMap::with_capacity(3);
    /// assert_eq!(map.heap_bytes(), 3 * 16);
    /// assert!(!SmallMap::<Atom, u64>::with_capacity(9).is_small());
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> SmallMap<K, V> {
        if capacity <= SMALL_CAPACITY {
            return SmallMap { repr: Repr::Small { hints: Hints::EMPTY, entries: Vec::with_capacity(capacity) } };
        }
        SmallMap { repr: Repr::Large(Box::new(Large::with_capacity(capacity))) }
    }

    /// The position of `key` (hashing to `hash`) in insertion order.
    #[inline]
    fn find<Q>(&self, hash: u64, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        match &self.repr {
            Repr::Small { hints, entries } => {
                small::find(*hints, entries, || Hint::from_hash(hash), |k: &K| k.borrow() == key, |at, _| at)
            }
            Repr::Large(large) => large.find(hash, key),
        }
    }

    /// The position of the key `is_key` accepts, whose [`HintKey::key_hash`] is `hash`:
    /// a search by something that is not a `K` nor borrowed from one (an
    /// [`AtomMap`](crate::AtomMap)'s text). `is_key` runs only on keys whose hint or tag
    /// matches the hash's.
    #[inline]
    pub(crate) fn find_by(&self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<usize> {
        match &self.repr {
            Repr::Small { entries, .. } if entries.is_empty() => small::find_nothing(),
            Repr::Small { hints, entries } => {
                small::find(*hints, entries, || Hint::from_hash(hash), is_key, |at, _| at)
            }
            Repr::Large(large) => {
                large_form();
                large.find_by(hash, is_key)
            }
        }
    }

    /// The entry a [`SmallMap::find_by`] for a key hashing to `hash` came to: occupied at
    /// `found`, or else vacant for `make_key()`, which must be the key searched for (its
    /// `key_hash` equal to `hash`).
    #[inline]
    pub(crate) fn entry_found(
        &mut self,
        hash: u64,
        found: Option<usize>,
        make_key: impl FnOnce() -> K,
    ) -> Entry<'_, K, V> {
        match found {
            Some(index) => Entry::Occupied(OccupiedEntry::new(self, index, hash)),
            None => {
                let key = make_key();
                debug_assert_eq!(key.key_hash(), hash, "a made key hashes as its search did");
                Entry::Vacant(VacantEntry::new(self, key, hash))
            }
        }
    }

    /// Removes the key `is_key` accepts, whose [`HintKey::key_hash`] is `hash`, returning
    /// the stored key and its value.
    pub(crate) fn remove_by(&mut self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<(K, V)> {
        let at = self.find_by(hash, is_key)?;
        Some(self.remove_at(hash, at))
    }

    /// What `found` makes of the position and entry of `key` (the lookup fast path). Keys
    /// that are not a word compare are hashed only if there is an entry to compare with.
    #[inline]
    fn search<'a, Q, R>(&'a self, key: &Q, found: impl Fn(usize, &'a (K, V)) -> R) -> Option<R>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        match &self.repr {
            Repr::Small { hints, entries } => {
                if !Q::WORD_EQ && entries.is_empty() {
                    return small::find_nothing();
                }
                let hint = || Hint::from_hash(key.lookup_hash());
                if Q::WORD_EQ {
                    small::find_word_key(*hints, entries, hint, key, found)
                } else {
                    small::find(*hints, entries, hint, |k: &K| k.borrow() == key, found)
                }
            }
            Repr::Large(large) => {
                large_form();
                let at = large.find(key.lookup_hash(), key)?;
                Some(found(at, large.entries.get(at)?))
            }
        }
    }

    /// The position of `key` in insertion order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into_iter().collect();
    /// assert_eq!(map.get_index_of("a"), Some(1));
    /// assert_eq!(map.get_index_of("c"), None);
    /// ```
    #[inline]
    pub fn get_index_of<Q>(&self, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        self.search(key, |at, _| at)
    }

    /// The value for `key`. Any borrowed form of the key works (`&str` for `Str` or
    /// `String` keys), since borrowed forms hash alike (see [`HintKey`]).
    ///
    /// ```
    /// use dynatom::{SmallMap, Str};
    ///
    /// let mut map = SmallMap::new();
    /// map.insert(Str::from("a key that lives on the heap"), 1);
    /// assert_eq!(map.get("a key that lives on the heap"), Some(&1));
    /// assert_eq!(map.get(&Str::from("a key that lives on the heap")), Some(&1));
    /// assert_eq!(map.get("another"), None);
    /// ```
    #[inline]
    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        self.search(key, |_, (_, value)| value)
    }

    /// The stored key and its value.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// assert_eq!(map.get_key_value("k"), Some((&"k".to_string(), &1)));
    /// ```
    pub fn get_key_value<Q>(&self, key: &Q) -> Option<(&K, &V)>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        self.search(key, |_, (key, value)| (key, value))
    }

    /// The value for `key`, mutable.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// *map.get_mut("k").unwrap() += 1;
    /// assert_eq!(map.get("k"), Some(&2));
    /// ```
    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        let at = self.get_index_of(key)?;
        Some(&mut self.entries_mut()[at].1)
    }

    /// Whether `key` is present.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// assert!(map.contains_key("k"));
    /// assert!(!map.contains_key("j"));
    /// ```
    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        self.get_index_of(key).is_some()
    }

    /// Inserts `value` under `key`, returning the value it replaces. A new key goes last
    /// in the order; an existing key keeps its place (and the stored key is kept).
    ///
    /// ```
    /// use dynatom::{Atom, SmallMap};
    ///
    /// let mut map = SmallMap::new();
    /// assert_eq!(map.insert(Atom::from("x"), 1), None);
    /// assert_eq!(map.insert(Atom::from("x"), 2), Some(1));
    /// assert_eq!(map.get(&Atom::from("x")), Some(&2));
    /// ```
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        match self.entry(key) {
            Entry::Occupied(mut occupied) => Some(occupied.insert(value)),
            Entry::Vacant(vacant) => {
                vacant.insert(value);
                None
            }
        }
    }

    /// The entry for `key`, to insert or update in place with one search.
    ///
    /// ```
    /// use dynatom::{Atom, SmallMap};
    ///
    /// let mut counts: SmallMap<Atom, u32> = SmallMap::new();
    /// for word in "the cat and the hat and the bat".split(' ') {
    ///     *counts.entry(Atom::from(word)).or_insert(0) += 1;
    /// }
    /// assert_eq!(counts.get(&Atom::from("the")), Some(&3));
    /// ```
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        let hash = key.key_hash();
        match self.find(hash, &key) {
            Some(index) => Entry::Occupied(OccupiedEntry::new(self, index, hash)),
            None => Entry::Vacant(VacantEntry::new(self, key, hash)),
        }
    }

    /// Appends an entry whose key is not present, moving to the large form when the small
    /// one is full; returns its position.
    pub(crate) fn push_new(&mut self, hash: u64, key: K, value: V) -> usize {
        match &mut self.repr {
            Repr::Small { hints, entries } if entries.len() < SMALL_CAPACITY => {
                small::push(hints, entries, Hint::from_hash(hash), (key, value))
            }
            Repr::Small { entries, .. } => {
                // The large form is in place before the push, so that a key whose hash
                // panics in it leaves the entries in the map (`from_entries` keeps room
                // for this one, so the push does not grow the index).
                let large = Large::from_entries(entries);
                self.repr = Repr::Large(Box::new(large));
                let Repr::Large(large) = &mut self.repr else { unreachable!("just made large") };
                large.push(hash, (key, value))
            }
            Repr::Large(large) => large.push(hash, (key, value)),
        }
    }

    /// Removes the entry at position `at` (its key hashes to `hash`), keeping the order;
    /// a large map left with 4 entries or fewer goes back to the small form.
    pub(crate) fn remove_at(&mut self, hash: u64, at: usize) -> (K, V) {
        match &mut self.repr {
            Repr::Small { hints, entries } => small::remove(hints, entries, at),
            Repr::Large(large) => {
                let removed = large.remove(hash, at);
                if large.entries.len() <= BACK_TO_SMALL {
                    self.make_small();
                }
                removed
            }
        }
    }

    /// Moves a large map of at most 8 entries to the small form.
    fn make_small(&mut self) {
        if let Repr::Large(large) = &mut self.repr {
            debug_assert!(large.entries.len() <= SMALL_CAPACITY);
            // Hints first: a key whose hash panics then leaves the large form whole.
            let hints = small::hints_of(&large.entries, K::key_hash);
            let mut entries = std::mem::take(&mut large.entries);
            entries.shrink_to(SMALL_CAPACITY);
            self.repr = Repr::Small { hints, entries };
        }
    }

    /// Removes `key`, returning its value; the other entries keep their order.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<&str, u8> = [("a", 1), ("b", 2), ("c", 3)].into_iter().collect();
    /// assert_eq!(map.remove("b"), Some(2));
    /// assert_eq!(map.remove("b"), None);
    /// assert_eq!(map.keys().collect::<Vec<_>>(), [&"a", &"c"]);
    /// ```
    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        self.remove_entry(key).map(|(_, value)| value)
    }

    /// Removes `key`, returning the stored key and its value.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, u8> = [("a".to_string(), 1)].into_iter().collect();
    /// assert_eq!(map.remove_entry("a"), Some(("a".to_string(), 1)));
    /// ```
    pub fn remove_entry<Q>(&mut self, key: &Q) -> Option<(K, V)>
    where
        K: Borrow<Q>,
        Q: HintKey + ?Sized,
    {
        if self.is_empty() {
            return None;
        }
        let hash = key.key_hash();
        let at = self.find(hash, key)?;
        Some(self.remove_at(hash, at))
    }

    /// Keeps only the entries for which `keep` returns `true`, in order.
    ///
    /// If `keep` panics, the map stays whole: it holds the entries kept so far and every
    /// entry `keep` had not yet decided on (the one it panicked on included), in order,
    /// and lookups, inserts and removals work on it as on any map.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, usize> = (0..12).map(|i| (i.to_string(), i)).collect();
    /// map.retain(|_, v| *v % 3 == 0);
    /// assert_eq!(map.values().copied().collect::<Vec<_>>(), [0, 3, 6, 9]);
    /// assert!(map.is_small());
    /// ```
    pub fn retain(&mut self, keep: impl FnMut(&K, &mut V) -> bool) {
        match &mut self.repr {
            Repr::Small { hints, entries } => small::retain(hints, entries, keep),
            Repr::Large(large) => {
                large.retain(keep);
                if large.entries.len() <= BACK_TO_SMALL {
                    self.make_small();
                }
            }
        }
    }

    /// Frees spare capacity; a large map of 8 entries or fewer goes back to the small form.
    ///
    /// ```
    /// use dynatom::SmallMap;
    ///
    /// let mut map: SmallMap<String, usize> = (0..9).map(|i| (i.to_string(), i)).collect();
    /// map.remove("8");
    /// assert!(!map.is_small()); // 8 entries: still large, to avoid flip-flopping
    /// map.shrink_to_fit();
    /// assert!(map.is_small());
    /// assert_eq!(map.get("7"), Some(&7));
    /// ```
    pub fn shrink_to_fit(&mut self) {
        match &mut self.repr {
            Repr::Small { entries, .. } => entries.shrink_to_fit(),
            Repr::Large(large) if large.entries.len() <= SMALL_CAPACITY => {
                self.make_small();
                self.shrink_to_fit();
            }
            Repr::Large(large) => large.shrink_to_fit(),
        }
    }
}
