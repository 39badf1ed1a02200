//! `SmallMap<Str, u32>` and `AtomMap<u32>` against an insertion-ordered `Vec` model
//! (what `HashMap` would hold, plus the order), across the 8-entry boundary between the
//! small and the large form in both directions.

#![no_main]

use arbitrary::Arbitrary;
use dynatom::{AtomMap, SmallMap, Str};
use libfuzzer_sys::fuzz_target;

/// A key: mostly one of a few dozen texts (so keys repeat and maps cross 8 entries),
/// sometimes any text.
#[derive(Arbitrary, Debug)]
enum Key {
    Pool(u8),
    Long(u8),
    Any(String),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Pool(n) => format!("k{}", n % 24),
            Key::Long(n) => format!("a key long enough for the heap, number {}", n % 24),
            Key::Any(text) => text.clone(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Insert(Key, u32),
    EntryAdd(Key, u32),
    Remove(Key),
    Get(Key),
    GetMut(Key, u32),
    GetIndex(u8),
    Retain(u32),
    Clear,
    ShrinkToFit,
}

/// The model: entries in insertion order.
#[derive(Default)]
struct Model(Vec<(String, u32)>);

impl Model {
    fn position(&self, key: &str) -> Option<usize> {
        self.0.iter().position(|(k, _)| k == key)
    }

    fn insert(&mut self, key: String, value: u32) -> Option<u32> {
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.0[i].1, value)),
            None => {
                self.0.push((key, value));
                None
            }
        }
    }

    fn remove(&mut self, key: &str) -> Option<u32> {
        self.position(key).map(|i| self.0.remove(i).1)
    }
}

fn check_small_map(map: &SmallMap<Str, u32>, model: &Model) {
    assert_eq!(map.len(), model.0.len());
    assert!(!map.is_small() || map.len() <= 8, "a small map holds at most 8 entries");
    let entries: Vec<(&str, u32)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let expected: Vec<(&str, u32)> = model.0.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(entries, expected, "entries and their order");
}

fn check_atom_map(map: &AtomMap<u32>, model: &Model) {
    assert_eq!(map.len(), model.0.len());
    let entries: Vec<(&str, u32)> = map.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    let expected: Vec<(&str, u32)> = model.0.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    assert_eq!(entries, expected, "entries and their order");
}

fuzz_target!(|ops: Vec<Op>| {
    let mut small: SmallMap<Str, u32> = SmallMap::new();
    let mut atoms: AtomMap<u32> = AtomMap::new();
    let mut model = Model::default();
    for op in ops {
        match op {
            Op::Insert(key, value) => {
                let text = key.text();
                let expected = model.insert(text.clone(), value);
                assert_eq!(small.insert(Str::from(text.as_str()), value), expected);
                assert_eq!(atoms.insert(text.as_str(), value), expected);
            }
            Op::EntryAdd(key, add) => {
                let text = key.text();
                let slot = small.entry(Str::from(text.as_str())).or_insert(0);
                *slot = slot.wrapping_add(add);
                let after = *slot;
                let slot = atoms.entry(text.as_str()).or_insert(0);
                *slot = slot.wrapping_add(add);
                assert_eq!(*slot, after);
                let before = model.position(&text).map_or(0, |i| model.0[i].1);
                model.insert(text, before.wrapping_add(add));
            }
            Op::Remove(key) => {
                let text = key.text();
                let expected = model.remove(&text);
                assert_eq!(small.remove(text.as_str()), expected);
                assert_eq!(atoms.remove(&text), expected);
            }
            Op::Get(key) => {
                let text = key.text();
                let expected = model.position(&text).map(|i| model.0[i].1);
                assert_eq!(small.get(text.as_str()).copied(), expected);
                assert_eq!(small.contains_key(text.as_str()), expected.is_some());
                assert_eq!(small.get_index_of(text.as_str()), model.position(&text));
                assert_eq!(atoms.get(&text).copied(), expected);
                assert_eq!(atoms.contains_key(&text), expected.is_some());
            }
            Op::GetMut(key, value) => {
                let text = key.text();
                let position = model.position(&text);
                if let Some(i) = position {
                    model.0[i].1 = value;
                }
                match small.get_mut(text.as_str()) {
                    Some(slot) => *slot = value,
                    None => assert!(position.is_none()),
                }
                match atoms.get_mut(&text) {
                    Some(slot) => *slot = value,
                    None => assert!(position.is_none()),
                }
            }
            Op::GetIndex(i) => {
                let i = i as usize % (model.0.len() + 1);
                let expected = model.0.get(i).map(|(k, v)| (k.as_str(), *v));
                assert_eq!(small.get_index(i).map(|(k, v)| (k.as_str(), *v)), expected);
            }
            Op::Retain(mask) => {
                let keep = |value: u32| (mask >> (value % 32)) & 1 == 1;
                model.0.retain(|(_, v)| keep(*v));
                small.retain(|_, v| keep(*v));
                atoms.retain(|_, v| keep(*v));
            }
            Op::Clear => {
                model.0.clear();
                small.clear();
                atoms.clear();
            }
            Op::ShrinkToFit => small.shrink_to_fit(),
        }
        check_small_map(&small, &model);
        check_atom_map(&atoms, &model);
    }
    // Atoms whose handles are gone stay in the global table, unused, until a sweep, held
    // only by the table's tagged slot words, which LeakSanitizer cannot follow: drop the
    // maps' handles, sweep, and check that the sweep left none behind, all before it
    // checks this input for leaks.
    drop((small, atoms));
    dynatom::AtomTable::global().shrink();
    assert_eq!(dynatom::AtomTable::global().memory_report().unused_atoms, 0);
});
