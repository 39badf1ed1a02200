//! The standard traits of [`SmallMap`].

use std::borrow::Borrow;
use std::fmt;
use std::ops::Index;

use super::key::HintKey;
use super::map::SmallMap;

impl<K, V> Default for SmallMap<K, V> {
    /// An empty map; allocates nothing.
    fn default() -> Self {
        SmallMap::new()
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for SmallMap<K, V> {
    /// As a map, in insertion order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: HintKey, V: PartialEq> PartialEq for SmallMap<K, V> {
    /// Equal when both hold the same keys with equal values, in any order (as for
    /// `HashMap` and `IndexMap`).
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().all(|(key, value)| other.get(key) == Some(value))
    }
}

impl<K: HintKey, V: Eq> Eq for SmallMap<K, V> {}

impl<K: HintKey, V> FromIterator<(K, V)> for SmallMap<K, V> {
    /// Inserts in order; a repeated key keeps its first place and its last value.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut map = SmallMap::new();
        map.extend(entries);
        map
    }
}

impl<K: HintKey, V> Extend<(K, V)> for SmallMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, entries: I) {
        for (key, value) in entries {
            self.insert(key, value);
        }
    }
}

impl<'a, K: HintKey + Clone, V: Clone> Extend<(&'a K, &'a V)> for SmallMap<K, V> {
    fn extend<I: IntoIterator<Item = (&'a K, &'a V)>>(&mut self, entries: I) {
        self.extend(entries.into_iter().map(|(key, value)| (key.clone(), value.clone())));
    }
}

impl<K: HintKey, V, const N: usize> From<[(K, V); N]> for SmallMap<K, V> {
    fn from(entries: [(K, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<K, V, Q> Index<&Q> for SmallMap<K, V>
where
    K: HintKey + Borrow<Q>,
    Q: HintKey + ?Sized,
{
    type Output = V;

    /// # Panics
    /// If the key is absent.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("key not in SmallMap")
    }
}
