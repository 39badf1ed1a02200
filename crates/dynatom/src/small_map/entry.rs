//! The entry API: insert or update with a single search.

use std::fmt;

use super::key::HintKey;
use super::map::SmallMap;

/// A key's place in a [`SmallMap`], from [`SmallMap::entry`]: occupied or vacant.
///
/// ```
/// use dynatom::{small_map::Entry, SmallMap};
///
/// let mut map: SmallMap<String, u32> = SmallMap::new();
/// match map.entry("k".to_string()) {
///     Entry::Vacant(vacant) => *vacant.insert(1) += 1,
///     Entry::Occupied(_) => unreachable!(),
/// }
/// assert_eq!(map.get("k"), Some(&2));
/// ```
pub enum Entry<'a, K, V> {
    /// The key is present.
    Occupied(OccupiedEntry<'a, K, V>),
    /// The key is absent.
    Vacant(VacantEntry<'a, K, V>),
}

/// A present key's entry.
///
/// ```
/// use dynatom::{small_map::Entry, SmallMap};
///
/// let mut map: SmallMap<String, u32> = [("k".to_string(), 1)].into_iter().collect();
/// if let Entry::Occupied(mut occupied) = map.entry("k".to_string()) {
///     *occupied.get_mut() += 1;
/// }
/// assert_eq!(map.get("k"), Some(&2));
/// ```
pub struct OccupiedEntry<'a, K, V> {
    map: &'a mut SmallMap<K, V>,
    index: usize,
    hash: u64,
}

/// An absent key's entry, holding the key until it is inserted.
///
/// ```
/// use dynatom::{small_map::Entry, SmallMap};
///
/// let mut map: SmallMap<String, u32> = SmallMap::new();
/// if let Entry::Vacant(vacant) = map.entry("k".to_string()) {
///     assert_eq!(vacant.key(), "k");
///     vacant.insert(5);
/// }
/// assert_eq!(map.get("k"), Some(&5));
/// ```
pub struct VacantEntry<'a, K, V> {
    map: &'a mut SmallMap<K, V>,
    key: K,
    hash: u64,
}

impl<'a, K: HintKey, V> Entry<'a, K, V> {
    /// The entry's key.
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<String, u8> = dynatom::SmallMap::new();
    /// assert_eq!(map.entry("k".to_string()).key(), "k");
    /// ```
    pub fn key(&self) -> &K {
        match self {
            Entry::Occupied(occupied) => occupied.key(),
            Entry::Vacant(vacant) => vacant.key(),
        }
    }

    /// The value, inserting `default` if the key is absent.
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<String, u8> = dynatom::SmallMap::new();
    /// *map.entry("k".to_string()).or_insert(1) += 1;
    /// assert_eq!(map.get("k"), Some(&2));
    /// ```
    pub fn or_insert(self, default: V) -> &'a mut V {
        self.or_insert_with(|| default)
    }

    /// The value, inserting `make()` if the key is absent.
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<String, Vec<u8>> = dynatom::SmallMap::new();
    /// map.entry("k".to_string()).or_insert_with(Vec::new).push(1);
    /// assert_eq!(map.get("k"), Some(&vec![1]));
    /// ```
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        match self {
            Entry::Occupied(occupied) => occupied.into_mut(),
            Entry::Vacant(vacant) => vacant.insert(make()),
        }
    }

    /// The value, inserting `V::default()` if the key is absent.
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<String, u8> = dynatom::SmallMap::new();
    /// *map.entry("k".to_string()).or_default() += 3;
    /// assert_eq!(map.get("k"), Some(&3));
    /// ```
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }

    /// Applies `change` to the value if the key is present.
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// map.entry("k".to_string()).and_modify(|v| *v = 9).or_insert(0);
    /// assert_eq!(map.get("k"), Some(&9));
    /// ```
    pub fn and_modify(mut self, change: impl FnOnce(&mut V)) -> Self {
        if let Entry::Occupied(occupied) = &mut self {
            change(occupied.get_mut());
        }
        self
    }
}

impl<'a, K: HintKey, V> OccupiedEntry<'a, K, V> {
    pub(crate) fn new(map: &'a mut SmallMap<K, V>, index: usize, hash: u64) -> Self {
        OccupiedEntry { map, index, hash }
    }

    /// The stored key.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(occupied.key(), "k");
    /// ```
    pub fn key(&self) -> &K {
        &self.map.entries()[self.index].0
    }

    /// The value.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(occupied.get(), &1);
    /// ```
    pub fn get(&self) -> &V {
        &self.map.entries()[self.index].1
    }

    /// The value, mutable.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(mut occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// *occupied.get_mut() = 4;
    /// assert_eq!(map.get("k"), Some(&4));
    /// ```
    pub fn get_mut(&mut self) -> &mut V {
        &mut self.map.entries_mut()[self.index].1
    }

    /// The value, mutable for as long as the map's borrow.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// *occupied.into_mut() = 7;
    /// assert_eq!(map.get("k"), Some(&7));
    /// ```
    pub fn into_mut(self) -> &'a mut V {
        &mut self.map.entries_mut()[self.index].1
    }

    /// Replaces the value, returning the old one.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(mut occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(occupied.insert(2), 1);
    /// ```
    pub fn insert(&mut self, value: V) -> V {
        std::mem::replace(self.get_mut(), value)
    }

    /// Removes the entry (keeping the others in order), returning its value.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(occupied.remove(), 1);
    /// assert!(map.is_empty());
    /// ```
    pub fn remove(self) -> V {
        self.remove_entry().1
    }

    /// Removes the entry, returning the stored key and the value.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = [("k".to_string(), 1)].into_iter().collect();
    /// let Entry::Occupied(occupied) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(occupied.remove_entry(), ("k".to_string(), 1));
    /// ```
    pub fn remove_entry(self) -> (K, V) {
        self.map.remove_at(self.hash, self.index)
    }
}

impl<'a, K: HintKey, V> VacantEntry<'a, K, V> {
    pub(crate) fn new(map: &'a mut SmallMap<K, V>, key: K, hash: u64) -> Self {
        VacantEntry { map, key, hash }
    }

    /// The key that would be inserted.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = SmallMap::new();
    /// let Entry::Vacant(vacant) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(vacant.key(), "k");
    /// ```
    pub fn key(&self) -> &K {
        &self.key
    }

    /// Gives the key back without inserting.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = SmallMap::new();
    /// let Entry::Vacant(vacant) = map.entry("k".to_string()) else { unreachable!() };
    /// assert_eq!(vacant.into_key(), "k");
    /// assert!(map.is_empty());
    /// ```
    pub fn into_key(self) -> K {
        self.key
    }

    /// Inserts `value` (last in the order) and returns it, mutable.
    ///
    /// ```
    /// use dynatom::{small_map::Entry, SmallMap};
    ///
    /// let mut map: SmallMap<String, u8> = SmallMap::new();
    /// let Entry::Vacant(vacant) = map.entry("k".to_string()) else { unreachable!() };
    /// *vacant.insert(1) += 1;
    /// assert_eq!(map.get("k"), Some(&2));
    /// ```
    pub fn insert(self, value: V) -> &'a mut V {
        let at = self.map.push_new(self.hash, self.key, value);
        &mut self.map.entries_mut()[at].1
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for Entry<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Entry::Occupied(occupied) => f.debug_tuple("Occupied").field(occupied).finish(),
            Entry::Vacant(vacant) => f.debug_tuple("Vacant").field(vacant).finish(),
        }
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for OccupiedEntry<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (key, value) = &self.map.entries()[self.index];
        f.debug_struct("OccupiedEntry").field("key", key).field("value", value).finish()
    }
}

impl<K: fmt::Debug, V> fmt::Debug for VacantEntry<'_, K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VacantEntry").field("key", &self.key).finish()
    }
}
