//! Property tests: `SmallMap` against an insertion-ordered model (a `Vec` of pairs) and
//! `std::collections::HashMap`, over random operation sequences that cross the 8-entry
//! boundary in both directions; with real string keys, integer, tuple and `Hashed` keys,
//! and test keys whose hashes (and so hints) collide on purpose.

use std::collections::HashMap;

use dynatom::{Atom, AtomMap, HintKey, SmallMap, Str};
use proptest::prelude::*;

/// Keys 0..KEYS: enough to push a map well past 8 entries and back.
const KEYS: usize = 24;

#[derive(Debug, Clone)]
enum Op {
    Insert(usize, u32),
    Remove(usize),
    Get(usize),
    EntryAdd(usize, u32),
    Retain(u32),
    ShrinkToFit,
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        // Inserts outnumber removals in one phase and the reverse in another (see
        // `ops`), so sequences climb past 8 entries and fall back below 4.
        6 => (0..KEYS, any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)),
        4 => (0..KEYS).prop_map(Op::Remove),
        4 => (0..KEYS).prop_map(Op::Get),
        2 => (0..KEYS, any::<u32>()).prop_map(|(k, v)| Op::EntryAdd(k, v)),
        1 => (2..5u32).prop_map(Op::Retain),
        1 => Just(Op::ShrinkToFit),
        1 => Just(Op::Clear),
    ]
}

/// A growing phase then a shrinking phase, repeated.
fn ops() -> impl Strategy<Value = Vec<Op>> {
    let grow = prop::collection::vec((0..KEYS, any::<u32>()).prop_map(|(k, v)| Op::Insert(k, v)), 0..20);
    let shrink = prop::collection::vec((0..KEYS).prop_map(Op::Remove), 0..30);
    let mixed = prop::collection::vec(op(), 0..60);
    prop::collection::vec((grow, mixed, shrink), 1..4)
        .prop_map(|phases| phases.into_iter().flat_map(|(g, m, s)| g.into_iter().chain(m).chain(s)).collect())
}

/// Runs `ops` on a `SmallMap<K, u32>` and on two models, checking after every step.
fn check<K: HintKey + Clone + std::fmt::Debug + std::hash::Hash>(key: impl Fn(usize) -> K, ops: &[Op]) {
    let mut map: SmallMap<K, u32> = SmallMap::new();
    let mut order: Vec<(K, u32)> = Vec::new();
    let mut hashed: HashMap<K, u32> = HashMap::new();
    for op in ops {
        match *op {
            Op::Insert(k, v) => {
                let expected = hashed.insert(key(k), v);
                match order.iter_mut().find(|(kk, _)| *kk == key(k)) {
                    Some(slot) => slot.1 = v,
                    None => order.push((key(k), v)),
                }
                assert_eq!(map.insert(key(k), v), expected);
            }
            Op::Remove(k) => {
                let expected = hashed.remove(&key(k));
                order.retain(|(kk, _)| *kk != key(k));
                assert_eq!(map.remove(&key(k)), expected);
            }
            Op::Get(k) => {
                assert_eq!(map.get(&key(k)), hashed.get(&key(k)));
                assert_eq!(map.contains_key(&key(k)), hashed.contains_key(&key(k)));
            }
            Op::EntryAdd(k, v) => {
                let model = hashed.entry(key(k)).or_insert(0);
                *model = model.wrapping_add(v);
                let model = *model;
                match order.iter_mut().find(|(kk, _)| *kk == key(k)) {
                    Some(slot) => slot.1 = model,
                    None => order.push((key(k), model)),
                }
                let value = map.entry(key(k)).or_insert(0);
                *value = value.wrapping_add(v);
            }
            Op::Retain(m) => {
                hashed.retain(|_, v| *v % m != 0);
                order.retain(|(_, v)| *v % m != 0);
                map.retain(|_, v| *v % m != 0);
            }
            Op::ShrinkToFit => map.shrink_to_fit(),
            Op::Clear => {
                hashed.clear();
                order.clear();
                map.clear();
            }
        }
        assert_eq!(map.len(), hashed.len());
        assert!(map.iter().map(|(k, v)| (k.clone(), *v)).eq(order.iter().cloned()), "order: {map:?} vs {order:?}");
        if map.len() > 8 {
            assert!(!map.is_small());
        }
        if map.len() <= 4 {
            assert!(map.is_small());
        }
    }
    for k in 0..KEYS {
        assert_eq!(map.get(&key(k)), hashed.get(&key(k)));
        assert_eq!(map.get_index_of(&key(k)), order.iter().position(|(kk, _)| *kk == key(k)));
    }
    let rebuilt: SmallMap<K, u32> = order.iter().cloned().collect();
    assert_eq!(rebuilt, map);
    assert_eq!(map.clone(), map);
}

/// A test key whose hash is chosen: `hash_of(id)`, so hints collide as the test wants.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Chosen<const MODULUS: u64>(usize);

impl<const MODULUS: u64> HintKey for Chosen<MODULUS> {
    fn key_hash(&self) -> u64 {
        // MODULUS 1: every key has hash 0 (one hint, one bucket for all).
        // MODULUS 3: three hints (top seven bits) and buckets, each shared by a third of
        // the keys.
        (self.0 as u64 % MODULUS).wrapping_mul(0x0202_0202_0202_0202)
    }
}

fn text(k: usize) -> String {
    // Short (inline) and long (heap) texts, and two that differ only in their last byte.
    match k % 3 {
        0 => format!("k{k}"),
        1 => format!("a long key that lives on the heap, number {k:03}"),
        _ => format!("medium key {k:02}"),
    }
}

proptest! {
    #[test]
    fn str_keys_match_the_models(ops in ops()) {
        check(|k| Str::from(text(k)), &ops);
    }

    #[test]
    fn string_keys_match_the_models(ops in ops()) {
        check(text, &ops);
    }

    #[test]
    fn atom_keys_match_the_models(ops in ops()) {
        check(|k| Atom::from(text(k)), &ops);
    }

    #[test]
    fn keys_with_one_shared_hash_match_the_models(ops in ops()) {
        check(Chosen::<1>, &ops);
    }

    #[test]
    fn keys_with_three_hashes_match_the_models(ops in ops()) {
        check(Chosen::<3>, &ops);
    }

    #[test]
    fn integer_keys_match_the_models(ops in ops()) {
        check(|k| k as u64 * 0x1_0000_0001, &ops);
        check(|k| k as i32 - 12, &ops);
        check(|k| (k as u128) << 100, &ops);
    }

    #[test]
    fn tuple_and_hashed_keys_match_the_models(ops in ops()) {
        check(|k| (k % 3, char::from(b'a' + k as u8)), &ops);
        check(|k| dynatom::small_map::Hashed(std::net::Ipv4Addr::from(k as u32)), &ops);
    }

    #[test]
    fn atom_map_matches_a_hashmap(ops in ops()) {
        let mut map: AtomMap<u32> = AtomMap::new();
        let mut model: HashMap<String, u32> = HashMap::new();
        for op in &ops {
            match *op {
                Op::Insert(k, v) | Op::EntryAdd(k, v) => {
                    prop_assert_eq!(map.insert(text(k), v), model.insert(text(k), v));
                }
                Op::Remove(k) => prop_assert_eq!(map.remove(&text(k)), model.remove(&text(k))),
                _ => {}
            }
            for k in 0..KEYS {
                prop_assert_eq!(map.get(&text(k)), model.get(&text(k)));
                // By atom: the atom path must agree with the text path.
                prop_assert_eq!(map.get(&Atom::from(text(k))), model.get(&text(k)));
            }
        }
    }
}

/// Operations of an `AtomMap` by text, on keys `0..KEYS` (present or not, depending on
/// the history) and on texts no one ever interns (`absent`).
#[derive(Debug, Clone)]
enum TextOp {
    /// `entry`, the key given as `&str` (0), `String` (1), `Str` (2) or `Atom` (3).
    Entry(usize, u8, u32),
    Insert(usize, u32),
    /// `remove` by `&str` (0), bytes (1) or atom (2).
    Remove(usize, u8),
    GetMut(usize, u32),
    Retain(u32),
    Clear,
}

fn text_op() -> impl Strategy<Value = TextOp> {
    prop_oneof![
        6 => (0..KEYS, 0..4u8, any::<u32>()).prop_map(|(k, how, v)| TextOp::Entry(k, how, v)),
        2 => (0..KEYS, any::<u32>()).prop_map(|(k, v)| TextOp::Insert(k, v)),
        4 => (0..KEYS, 0..3u8).prop_map(|(k, how)| TextOp::Remove(k, how)),
        2 => (0..KEYS, any::<u32>()).prop_map(|(k, v)| TextOp::GetMut(k, v)),
        1 => (2..5u32).prop_map(TextOp::Retain),
        1 => Just(TextOp::Clear),
    ]
}

/// Texts of every length class an `AtomMap` treats apart: inline (up to 7 bytes, the
/// empty one included), 8 bytes, up to 16, and longer; some differ in their last byte only.
fn key_text(k: usize) -> String {
    match k % 6 {
        0 => format!("t{k}"),
        1 => format!("a long key that lives on the heap, number {k:03}"),
        2 => format!("keyof8_{}", k % 10),
        3 => format!("sixteen-bytes-{k:02}"),
        4 if k == 4 => String::new(),
        4 => format!("7bytes{}", k % 10),
        _ => format!("fifteen bytes{k:02}"),
    }
}

/// A text of the same length class as `key_text(k)` that no one ever interns: each test
/// case's are its own (`case`), so no other case or test makes their atoms.
fn absent_text(case: u64, k: usize) -> String {
    let text = key_text(k);
    match text.len() {
        0..=7 => format!("~{}", &text[text.len().min(1)..]),
        len => {
            let tag = format!("#{case:x}");
            let keep = len.saturating_sub(tag.len()).max(1);
            format!("{}{tag}", &text[..keep])
        }
    }
}

/// Checks every key's text lookups (by `&str`, `String`, bytes, and the atom) against the
/// model, and that lookups of absent texts leave no atom behind.
fn check_text_lookups(map: &AtomMap<u32>, model: &HashMap<String, u32>, case: u64) -> Result<(), TestCaseError> {
    prop_assert_eq!(map.len(), model.len());
    for k in 0..KEYS {
        let text = key_text(k);
        let expected = model.get(&text);
        prop_assert_eq!(map.get(text.as_str()), expected, "get {:?}", text);
        prop_assert_eq!(map.get(&text), expected);
        prop_assert_eq!(map.get_bytes(text.as_bytes()), expected);
        prop_assert_eq!(map.contains_key(text.as_str()), expected.is_some());
        if let Some(atom) = Atom::lookup(&text) {
            prop_assert_eq!(map.get(&atom), expected);
            prop_assert_eq!(map.get_atom(&atom), expected);
        }
        let absent = absent_text(case, k);
        prop_assert_eq!(map.get(absent.as_str()), None);
        prop_assert_eq!(map.get_bytes(absent.as_bytes()), None);
        if absent.len() > 7 {
            prop_assert!(Atom::lookup(&absent).is_none(), "a lookup interned {:?}", absent);
        }
    }
    for (key, value) in map.iter() {
        prop_assert_eq!(model.get(key.as_str()), Some(value));
    }
    Ok(())
}

proptest! {
    #[test]
    fn atom_map_text_paths_match_a_hashmap(
        ops in prop::collection::vec(text_op(), 0..120),
        case in any::<u64>(),
    ) {
        let mut map: AtomMap<u32> = AtomMap::new();
        let mut model: HashMap<String, u32> = HashMap::new();
        for op in &ops {
            match *op {
                TextOp::Entry(k, how, v) => {
                    let text = key_text(k);
                    let entry = match how {
                        0 => map.entry(text.as_str()),
                        1 => map.entry(text.clone()),
                        2 => map.entry(Str::from(text.as_str())),
                        _ => map.entry(Atom::from(text.as_str())),
                    };
                    prop_assert_eq!(entry.key().as_str(), text.as_str());
                    let value = entry.or_insert(0);
                    *value = value.wrapping_add(v);
                    let model = model.entry(text).or_insert(0);
                    *model = model.wrapping_add(v);
                }
                TextOp::Insert(k, v) => {
                    prop_assert_eq!(map.insert(key_text(k), v), model.insert(key_text(k), v));
                }
                TextOp::Remove(k, how) => {
                    let text = key_text(k);
                    let removed = match how {
                        0 => map.remove(text.as_str()),
                        1 => map.remove_bytes(text.as_bytes()),
                        _ => map.remove_atom(&Atom::from(text.as_str())),
                    };
                    prop_assert_eq!(removed, model.remove(&text));
                    prop_assert_eq!(map.remove(absent_text(case, k).as_str()), None);
                }
                TextOp::GetMut(k, v) => {
                    let text = key_text(k);
                    match (map.get_mut(text.as_str()), model.get_mut(&text)) {
                        (Some(value), Some(expected)) => {
                            *value = v;
                            *expected = v;
                        }
                        (None, None) => {}
                        (got, expected) => prop_assert!(false, "get_mut {:?}: {:?} vs {:?}", text, got, expected),
                    }
                }
                TextOp::Retain(m) => {
                    map.retain(|_, v| *v % m != 0);
                    model.retain(|_, v| *v % m != 0);
                }
                TextOp::Clear => {
                    map.clear();
                    model.clear();
                }
            }
            check_text_lookups(&map, &model, case)?;
        }
    }
}
