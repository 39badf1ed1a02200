//! `SmallMap` and `AtomMap`: memory figures, order, forced hint collisions, counters.

use std::mem::size_of;

use dynatom::{Atom, AtomMap, Hint, HintKey, SmallMap, SmallMapStats, Str};

fn atoms(n: usize) -> Vec<Atom> {
    (0..n).map(|i| Atom::from(format!("memory test key number {i}"))).collect()
}

#[test]
fn memory_of_atom_u64_maps() {
    // The map itself: the hints word plus a vector, with the large form behind a box
    // in the vector's niche.
    assert_eq!(size_of::<SmallMap<Atom, u64>>(), 32);
    assert_eq!(size_of::<AtomMap<u64>>(), 32);
    assert_eq!(size_of::<(Atom, u64)>(), 16);

    let empty: SmallMap<Atom, u64> = SmallMap::new();
    assert_eq!(empty.heap_bytes(), 0, "an empty map allocates nothing");

    // Growth 1, 2, 4, 8 slots: 16, 32, 64, 64, 128, 128, 128, 128 bytes.
    let expected = [16, 32, 64, 64, 128, 128, 128, 128];
    let mut map = SmallMap::new();
    for (n, atom) in atoms(8).into_iter().enumerate() {
        map.insert(atom, n as u64);
        assert!(map.is_small());
        assert_eq!(map.heap_bytes(), expected[n], "{} entries", n + 1);
        assert!(map.heap_bytes() <= 8 * 16 + 8);
    }

    // The ninth entry moves to the large form: box + entries + hashbrown index.
    map.insert(Atom::from("the ninth key, past the small form"), 8);
    assert!(!map.is_small());
    assert!(map.heap_bytes() > 8 * 16);
}

#[test]
fn an_empty_map_never_allocates_even_after_clear() {
    let mut map: SmallMap<Str, u64> = (0..20).map(|i| (Str::from(format!("{i}")), i)).collect();
    map.clear();
    assert_eq!(map.heap_bytes(), 0);
    assert_eq!(SmallMap::<Atom, u64>::default().heap_bytes(), 0);
    assert_eq!(AtomMap::<u64>::new().as_small_map().heap_bytes(), 0);
}

#[test]
fn order_is_insertion_order_through_both_forms() {
    let keys: Vec<String> = (0..20).map(|i| format!("key {i}")).collect();
    let mut map: SmallMap<String, usize> = SmallMap::new();
    for (i, key) in keys.iter().enumerate().rev() {
        map.insert(key.clone(), i);
    }
    map.insert(keys[5].clone(), 500); // replaces in place
    map.remove("key 10");
    map.remove("key 19"); // the first inserted
    let got: Vec<&str> = map.keys().map(String::as_str).collect();
    let want: Vec<String> = (0..19).rev().filter(|&i| i != 10).map(|i| format!("key {i}")).collect();
    assert_eq!(got, want);
    assert_eq!(map["key 5"], 500);

    // Down to the small form: the order survives the move.
    map.retain(|key, _| key.ends_with('1') || key.ends_with('2'));
    assert!(map.is_small());
    assert_eq!(map.keys().map(String::as_str).collect::<Vec<_>>(), ["key 12", "key 11", "key 2", "key 1"]);
    map.insert("key 99".into(), 99);
    assert_eq!(map.get_index(4), Some((&"key 99".to_string(), &99)));
}

/// A key whose hash (and so hint) is whatever the test says.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Forced {
    id: u32,
    hash: u64,
}

impl HintKey for Forced {
    fn key_hash(&self) -> u64 {
        self.hash
    }
}

#[test]
fn colliding_hints_still_find_the_right_key() {
    // Eight keys with one hint: every lookup compares keys until it finds its own.
    let same: Vec<Forced> = (0..8).map(|id| Forced { id, hash: 0xAB << 56 | u64::from(id) }).collect();
    let map: SmallMap<Forced, u32> = same.iter().map(|k| (k.clone(), k.id * 10)).collect();
    assert!(map.is_small());
    for key in &same {
        assert_eq!(map.get(key), Some(&(key.id * 10)));
    }
    assert_eq!(map.get(&Forced { id: 99, hash: 0xAB << 56 }), None);
    assert_eq!(map.get(&Forced { id: 99, hash: 0xAC << 56 }), None);

    // Different hashes, same hint (the top seven bits).
    assert_eq!(Hint::from_hash(0x0100), Hint::from_hash(0x0001));
    let mut map = SmallMap::new();
    map.insert(Forced { id: 1, hash: 0x0100 }, "a");
    map.insert(Forced { id: 2, hash: 0x0001 }, "b");
    assert_eq!(map.get(&Forced { id: 2, hash: 0x0001 }), Some(&"b"));
    assert_eq!(map.remove(&Forced { id: 1, hash: 0x0100 }), Some("a"));
    assert_eq!(map.get(&Forced { id: 2, hash: 0x0001 }), Some(&"b"));
}

#[test]
fn every_hint_value_works_in_every_slot() {
    // Keys whose hashes' top bytes are 0..=255: every hint 0..=0x7f, each shared by two
    // keys, so slot contents include 0x00 and 0x7f next to empty slots (0x80).
    let keys: Vec<Forced> = (0..256).map(|h| Forced { id: h as u32, hash: h << 56 | h }).collect();
    for window in keys.chunks(8) {
        let map: SmallMap<Forced, u32> = window.iter().map(|k| (k.clone(), k.id)).collect();
        for key in &keys {
            let expected = window.contains(key).then_some(&key.id);
            assert_eq!(map.get(key), expected);
        }
    }
}

#[test]
fn counters_count_hits_false_matches_and_misses() {
    let before = SmallMapStats::current_thread();
    let map: SmallMap<Forced, u32> = (0..4).map(|id| (Forced { id, hash: 7 << 56 }, id)).collect();
    let after_build = SmallMapStats::current_thread();
    assert_eq!(map.get(&Forced { id: 3, hash: 7 << 56 }), Some(&3)); // 3 false matches, 1 hit
    assert_eq!(map.get(&Forced { id: 9, hash: 7 << 56 }), None); // 4 false matches, not found
    assert_eq!(map.get(&Forced { id: 9, hash: 8 << 56 }), None); // no hint matches: not found
    let lookups = SmallMapStats::current_thread().since(&after_build);
    let build = after_build.since(&before);
    if SmallMapStats::ENABLED {
        // Building: 4 searches, with 0 + 1 + 2 + 3 false matches, none found.
        assert_eq!((build.lookups, build.false_matches, build.not_found), (4, 6, 4));
        assert_eq!(lookups.lookups, 3);
        assert_eq!(lookups.hint_hits, 1);
        assert_eq!(lookups.false_matches, 7);
        assert_eq!(lookups.not_found, 2);
    } else {
        assert_eq!(lookups, SmallMapStats::default());
    }
}

#[test]
fn atom_map_lookups_by_text_leave_the_table_alone() {
    let mut map = AtomMap::new();
    map.insert(Str::from(format!("a key interned by insert {}", 1)), 1);
    let before = SmallMapStats::current_thread();
    assert_eq!(map.get("a key interned by insert 1"), Some(&1));
    assert_eq!(map.get("a key nobody has ever interned, anywhere"), None);
    let delta = SmallMapStats::current_thread().since(&before);
    if SmallMapStats::ENABLED {
        assert_eq!(delta.unknown_texts, 1);
        assert_eq!(delta.lookups, 2, "both texts were searched for in the map");
    }
    // Neither the miss nor an entry that finds its key made an atom.
    assert!(Atom::lookup("a key nobody has ever interned, anywhere").is_none());
    *map.entry("a key interned by insert 1").or_insert(0) += 1;
    assert_eq!(map.get("a key interned by insert 1"), Some(&2));
    // Interned elsewhere, absent here: missing in the map.
    let _elsewhere = Atom::from("a key interned by someone else");
    assert_eq!(map.get("a key interned by someone else"), None);
    // A new key is interned by `entry`, once.
    *map.entry("a key interned by entry").or_insert(0) += 1;
    assert!(Atom::lookup("a key interned by entry").is_some());
}

#[test]
fn atom_map_adopts_key_buffers() {
    let key = Str::from(format!("{}-{}", "an adopted key buffer", 42));
    let mut map = AtomMap::new();
    map.insert(key.clone(), ());
    let stored = map.keys().next().unwrap();
    assert_eq!(stored.as_ptr(), key.as_ptr());
    assert!(key.is_interned());
}

#[test]
fn borrowed_lookups_on_str_and_string_keys() {
    let long = "a heap string key, longer than fifteen bytes";
    let mut by_str: SmallMap<Str, u8> = SmallMap::new();
    by_str.insert(Str::from(long), 1);
    by_str.insert(Str::from("short"), 2);
    assert_eq!(by_str.get(long), Some(&1));
    assert_eq!(by_str.get("short"), Some(&2));
    let mut by_string: SmallMap<String, u8> = SmallMap::new();
    by_string.insert(long.to_string(), 1);
    assert_eq!(by_string.get(long), Some(&1));
    assert_eq!(by_string.remove(long), Some(1));
}

#[test]
fn debug_prints_a_map_in_order() {
    let map: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into();
    assert_eq!(format!("{map:?}"), r#"{"b": 2, "a": 1}"#);
    let atoms: AtomMap<u8> = [("x", 1)].into_iter().collect();
    assert_eq!(format!("{atoms:?}"), r#"{"x": 1}"#);
}

#[test]
fn equality_ignores_order() {
    let a: SmallMap<&str, u8> = [("a", 1), ("b", 2)].into();
    let b: SmallMap<&str, u8> = [("b", 2), ("a", 1)].into();
    let c: SmallMap<&str, u8> = [("b", 2), ("a", 3)].into();
    assert_eq!(a, b);
    assert_ne!(a, c);
}
