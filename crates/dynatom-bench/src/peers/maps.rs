//! Adapters for the `small-map` suite: `SmallMap` and the maps it is measured against,
//! each built by inserting one entry at a time from empty.

use dynatom::{HintKey, SmallMap};
use std::collections::HashMap as StdHashMap;
use std::hash::Hash;

/// The hasher `hashbrown::HashMap::new()` uses in hashbrown 0.15 (`DefaultHashBuilder`).
pub type FoldHashBuilder = foldhash::fast::RandomState;

/// `map` after inserting every entry in order, one at a time (no up-front reservation, so
/// each map grows as it would in use).
fn inserted_one_by_one<M, K: Clone>(mut map: M, entries: &[(K, u64)], mut insert: impl FnMut(&mut M, K, u64)) -> M {
    for (key, value) in entries {
        insert(&mut map, key.clone(), *value);
    }
    map
}

/// A map from `K` to `u64` under test.
pub trait MapPeer<K>: Sized {
    const NAME: &'static str;
    fn build(entries: &[(K, u64)]) -> Self;
    fn find(&self, key: &K) -> Option<&u64>;
}

/// Runs generic code on "the map named X" for key type `K`.
pub trait MapVisitor<K> {
    type Out;
    fn visit<M: MapPeer<K>>(self) -> Self::Out;
}

impl<K: HintKey + Clone> MapPeer<K> for SmallMap<K, u64> {
    const NAME: &'static str = "SmallMap";
    fn build(entries: &[(K, u64)]) -> Self {
        inserted_one_by_one(SmallMap::new(), entries, |map, key, value| {
            map.insert(key, value);
        })
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Hash + Eq + Clone> MapPeer<K> for hashbrown::HashMap<K, u64, FoldHashBuilder> {
    const NAME: &'static str = "hashbrown+foldhash";
    fn build(entries: &[(K, u64)]) -> Self {
        inserted_one_by_one(hashbrown::HashMap::with_hasher(FoldHashBuilder::default()), entries, |map, key, value| {
            map.insert(key, value);
        })
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Hash + Eq + Clone> MapPeer<K> for StdHashMap<K, u64> {
    const NAME: &'static str = "std HashMap";
    fn build(entries: &[(K, u64)]) -> Self {
        inserted_one_by_one(StdHashMap::new(), entries, |map, key, value| {
            map.insert(key, value);
        })
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Eq + Clone> MapPeer<K> for Vec<(K, u64)> {
    const NAME: &'static str = "Vec linear";
    fn build(entries: &[(K, u64)]) -> Self {
        // Insert as a map would: replace if present, else push.
        let mut vec: Vec<(K, u64)> = Vec::new();
        for (key, value) in entries {
            match vec.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = *value,
                None => vec.push((key.clone(), *value)),
            }
        }
        vec
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

impl<K: Hash + Eq + Clone> MapPeer<K> for indexmap::IndexMap<K, u64, FoldHashBuilder> {
    const NAME: &'static str = "indexmap+foldhash";
    fn build(entries: &[(K, u64)]) -> Self {
        inserted_one_by_one(indexmap::IndexMap::with_hasher(FoldHashBuilder::default()), entries, |map, key, value| {
            map.insert(key, value);
        })
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

/// Declares the map list and its dispatch from one list of map types written over the
/// key type `$k` (the first is the reference), so the two cannot disagree.
macro_rules! maps {
    ($k:ident => [$($t:ty),* $(,)?]) => {
        /// The maps, `SmallMap` (the reference of the ratios) first.
        pub const MAPS: &[&str] = &[$({
            // The names do not depend on the key type; any key names them.
            type $k = dynatom::Atom;
            <$t as MapPeer<$k>>::NAME
        }),*];

        /// Runs `v` on the map named `name` with keys `K`; `None` for an unknown name.
        pub fn visit_map<$k: HintKey + Hash + Clone, V: MapVisitor<$k>>(name: &str, v: V) -> Option<V::Out> {
            $(if name == <$t as MapPeer<$k>>::NAME {
                return Some(v.visit::<$t>());
            })*
            None
        }
    };
}

maps!(K => [
    SmallMap<K, u64>,
    hashbrown::HashMap<K, u64, FoldHashBuilder>,
    StdHashMap<K, u64>,
    Vec<(K, u64)>,
    indexmap::IndexMap<K, u64, FoldHashBuilder>,
]);
