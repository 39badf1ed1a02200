//! `serde` support: [`SmallMap`] and [`AtomMap`] travel as maps, in insertion order.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::atom_map::AtomMap;
use super::key::HintKey;
use super::map::SmallMap;
use crate::str::Str;

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<K: Serialize, V: Serialize> Serialize for SmallMap<K, V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (key, value) in self {
            map.serialize_entry(key, value)?;
        }
        map.end()
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<V: Serialize> Serialize for AtomMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.as_small_map().serialize(serializer)
    }
}

/// Reads a map's entries into a `SmallMap`, in order; a repeated key keeps its first
/// place and its last value, as with `insert`.
struct SmallMapVisitor<K, V>(PhantomData<(K, V)>);

impl<'de, K, V> Visitor<'de> for SmallMapVisitor<K, V>
where
    K: Deserialize<'de> + HintKey,
    V: Deserialize<'de>,
{
    type Value = SmallMap<K, V>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<SmallMap<K, V>, A::Error> {
        // Cap the hint: it comes from the input, which may lie.
        let mut map = SmallMap::with_capacity(access.size_hint().unwrap_or(0).min(4096));
        while let Some((key, value)) = access.next_entry()? {
            map.insert(key, value);
        }
        Ok(map)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, K, V> Deserialize<'de> for SmallMap<K, V>
where
    K: Deserialize<'de> + HintKey,
    V: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(SmallMapVisitor(PhantomData))
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de, V: Deserialize<'de>> Deserialize<'de> for AtomMap<V> {
    /// Keys are read as [`Str`]s and interned, adopting their buffers.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let entries = SmallMap::<Str, V>::deserialize(deserializer)?;
        Ok(entries.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::{Atom, AtomMap, SmallMap, Str};

    #[test]
    fn small_map_round_trips_in_order() {
        let map: SmallMap<Str, u32> = (0..12).rev().map(|i| (Str::from(format!("key number {i}")), i)).collect();
        let json = serde_json::to_string(&map).unwrap();
        assert!(json.starts_with(r#"{"key number 11":11,"key number 10":10"#));
        let back: SmallMap<Str, u32> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
        assert!(back.keys().eq(map.keys()));
    }

    #[test]
    fn atom_map_round_trips_interning_keys() {
        let map: AtomMap<u8> = [("a key read back from json", 1), ("b", 2)].into_iter().collect();
        let json = serde_json::to_string(&map).unwrap();
        assert_eq!(json, r#"{"a key read back from json":1,"b":2}"#);
        let back: AtomMap<u8> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, map);
        assert_eq!(back.get_atom(&Atom::from("a key read back from json")), Some(&1));
    }

    #[test]
    fn repeated_keys_keep_the_last_value() {
        let back: SmallMap<String, u8> = serde_json::from_str(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), [(&"a".to_string(), &3), (&"b".to_string(), &2)]);
    }
}
