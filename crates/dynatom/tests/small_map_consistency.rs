//! A map stays whole whatever its caller's code does: `retain` whose closure panics at
//! any position, keys whose hash panics while the map changes form, and an `AtomMap`
//! given atoms of another table. Each map is checked against a model (a `HashMap` and
//! the insertion order) and then used further.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use dynatom::{Atom, AtomMap, AtomTable, HintKey, SmallMap};

/// A map and its model: the same entries, in the same order.
struct Checked {
    map: SmallMap<String, u32>,
    order: Vec<String>,
    values: HashMap<String, u32>,
}

impl Checked {
    fn new(n: u32) -> Checked {
        let mut checked = Checked { map: SmallMap::new(), order: Vec::new(), values: HashMap::new() };
        for i in 0..n {
            checked.insert(format!("key-{i}"), i);
        }
        checked
    }

    fn insert(&mut self, key: String, value: u32) {
        let before = self.values.insert(key.clone(), value);
        if before.is_none() {
            self.order.push(key.clone());
        }
        assert_eq!(self.map.insert(key, value), before);
    }

    fn remove(&mut self, key: &str) {
        let before = self.values.remove(key);
        self.order.retain(|k| k != key);
        assert_eq!(self.map.remove(key), before);
    }

    /// Order, values, index positions, and misses all agree with the model.
    fn check(&self) {
        let keys: Vec<&String> = self.map.keys().collect();
        assert_eq!(keys, self.order.iter().collect::<Vec<_>>(), "order");
        assert_eq!(self.map.len(), self.values.len());
        for (at, key) in self.order.iter().enumerate() {
            assert_eq!(self.map.get(key.as_str()), self.values.get(key), "{key}");
            assert_eq!(self.map.get_index_of(key.as_str()), Some(at), "{key}");
        }
        for absent in ["absent", "key-999", "key-"] {
            assert_eq!(self.map.get(absent), None);
        }
    }
}

/// `retain` that panics on the entry at `panic_at` after keeping the even values before.
fn retain_panicking(checked: &mut Checked, panic_at: usize) {
    let mut visited = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        checked.map.retain(|_, value| {
            if visited == panic_at {
                panic!("keep panics at {panic_at}");
            }
            visited += 1;
            *value % 2 == 0
        });
    }));
    assert!(result.is_err(), "the closure panicked");
    // The model: the entries before the panic with an odd value go, the rest stay.
    let gone: Vec<String> = checked.order[..panic_at].iter().filter(|k| checked.values[*k] % 2 == 1).cloned().collect();
    for key in gone {
        checked.values.remove(&key);
        checked.order.retain(|k| *k != key);
    }
}

#[test]
fn retain_that_panics_at_every_position_leaves_a_whole_map() {
    for n in [1u32, 2, 4, 5, 8, 9, 12, 16, 40] {
        for panic_at in 0..n as usize {
            let mut checked = Checked::new(n);
            let was_small = checked.map.is_small();
            retain_panicking(&mut checked, panic_at);
            checked.check();
            assert_eq!(checked.map.is_small(), was_small, "n {n}, panic at {panic_at}");
            // And it goes on working: a present key replaced, absent ones added, one removed.
            checked.insert("key-0".into(), 100);
            for i in 0..10 {
                checked.insert(format!("new-{i}"), 200 + i);
            }
            if let Some(key) = checked.order.get(1).cloned() {
                checked.remove(&key);
            }
            checked.check();
            checked.map.retain(|_, v| *v % 3 != 0);
            checked.values.retain(|_, v| *v % 3 != 0);
            let values = &checked.values;
            checked.order.retain(|k| values.contains_key(k));
            checked.check();
        }
    }
}

/// A key whose hash panics when told to: the hash a map's own code calls while it
/// changes form (small to large, large to small, index growth).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Touchy(u32);

thread_local! {
    static HASHES_LEFT: std::cell::Cell<u64> = const { std::cell::Cell::new(u64::MAX) };
}

impl HintKey for Touchy {
    fn key_hash(&self) -> u64 {
        HASHES_LEFT.with(|left| {
            if left.get() == 0 {
                panic!("key_hash panics");
            }
            left.set(left.get() - 1);
        });
        u64::from(self.0).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

#[test]
fn keys_whose_hash_panics_leave_a_whole_map() {
    // Every hash of a growing then shrinking map, in turn, is made to panic.
    for panic_after in 0..200u64 {
        let mut map: SmallMap<Touchy, u32> = SmallMap::new();
        let mut model: Vec<u32> = Vec::new();
        HASHES_LEFT.with(|left| left.set(panic_after));
        let _ = catch_unwind(AssertUnwindSafe(|| {
            for i in 0..40 {
                map.insert(Touchy(i), i);
                model.push(i);
            }
            for i in 0..38 {
                map.remove(&Touchy(i));
                model.retain(|&k| k != i);
            }
        }));
        HASHES_LEFT.with(|left| left.set(u64::MAX));
        // The operation that panicked may or may not have happened: the map must match
        // one of the two models, and be whole.
        let keys: Vec<u32> = map.keys().map(|k| k.0).collect();
        for &k in &keys {
            assert_eq!(map.get(&Touchy(k)), Some(&k), "after {panic_after} hashes");
        }
        let differ = keys.len().abs_diff(model.len());
        assert!(differ <= 1, "after {panic_after} hashes: {keys:?} vs {model:?}");
        map.insert(Touchy(1000), 1000);
        assert_eq!(map.get(&Touchy(1000)), Some(&1000));
        assert_eq!(map.len(), keys.len() + 1);
    }
}

#[test]
fn atom_map_keys_one_text_once_whatever_table_its_atom_came_from() {
    let local = AtomTable::new();
    let mut map: AtomMap<u32> = AtomMap::new();
    let mut model: HashMap<String, u32> = HashMap::new();
    let mut order: Vec<String> = Vec::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for step in 0..4000u32 {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let text = if state.is_multiple_of(3) {
            format!("k{}", state % 7) // short: atoms by value
        } else {
            format!("a key long enough for a table {}", state % 23)
        };
        let how = (state >> 8) % 6;
        match how {
            0 => {
                let before = map.insert(text.as_str(), step);
                assert_eq!(before, model.insert(text.clone(), step), "insert {text}");
            }
            1 => {
                let before = map.insert_atom(local.intern(&text), step);
                assert_eq!(before, model.insert(text.clone(), step), "insert_atom local {text}");
            }
            2 => {
                let before = map.insert_atom(Atom::from(text.as_str()), step);
                assert_eq!(before, model.insert(text.clone(), step), "insert_atom global {text}");
            }
            3 => {
                let removed = map.remove_atom(&local.intern(&text));
                assert_eq!(removed, model.remove(&text), "remove_atom local {text}");
            }
            4 => {
                let removed = map.remove(text.as_str());
                assert_eq!(removed, model.remove(&text), "remove {text}");
            }
            _ => {
                if let Some(value) = map.get_mut(&local.intern(&text)) {
                    *value += 1;
                }
                if let Some(value) = model.get_mut(&text) {
                    *value += 1;
                }
            }
        }
        if !order.contains(&text) && model.contains_key(&text) {
            order.push(text.clone());
        }
        order.retain(|k| model.contains_key(k));
        assert_eq!(map.len(), model.len(), "step {step}");
        for (key, value) in &model {
            assert_eq!(map.get(key.as_str()), Some(value), "{key}");
            assert_eq!(map.get_atom(&local.intern(key)), Some(value), "{key} by a local atom");
            assert_eq!(map.get_byte_atom(local.intern(key).as_byte_atom()), Some(value), "{key} by bytes");
        }
        let keys: Vec<&str> = map.keys().map(|k| k.as_str()).collect();
        assert_eq!(keys, order.iter().map(String::as_str).collect::<Vec<_>>());
    }
    // A `SmallMap` that holds one text under two tables' atoms becomes one entry.
    let text = "one text, two tables' atoms";
    let two: SmallMap<Atom, u32> = [(Atom::from(text), 1), (local.intern(text), 2)].into_iter().collect();
    assert_eq!(two.len(), 2);
    let one = AtomMap::from(two);
    assert_eq!(one.len(), 1);
    assert_eq!(one.get(text), Some(&2));
}
