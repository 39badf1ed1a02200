//! Counted small-map lookups: the `small-map` suite's maps and key types, hits and
//! misses at 1–9 entries (and 16, 64 in the full run), with deterministic hashers
//! (fixed-seed foldhash, SipHash with zero keys) so the same binary counts the same.

use super::recorder::{Recorder, HARNESS};
use dynatom::{AtomTable, HintKey, SmallMap, Str};
use std::collections::HashMap as StdHashMap;
use std::hash::{BuildHasherDefault, DefaultHasher, Hash};
use std::hint::black_box;

pub const SUITE: &str = "small-map";
/// The maps, `SmallMap` (the reference of the ratios) first: the wall-clock suite's.
pub const MAPS: [&str; 5] = ["SmallMap", "hashbrown+foldhash", "std HashMap", "Vec linear", "indexmap+foldhash"];
pub const KEYS: [&str; 3] = ["atom", "atom<=7B", "str"];

type Fold = foldhash::fast::FixedState;
type Sip = BuildHasherDefault<DefaultHasher>;

pub fn sizes(quick: bool) -> Vec<usize> {
    if quick {
        vec![1, 2, 4, 8, 9]
    } else {
        vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 64]
    }
}

/// Lookups per counted run: every probe the same number of times.
const LOOKUPS: usize = 512;

trait Lookup<K>: Sized {
    fn build(entries: &[(K, u64)]) -> Self;
    fn find(&self, key: &K) -> Option<&u64>;
}

impl<K: HintKey + Clone> Lookup<K> for SmallMap<K, u64> {
    fn build(entries: &[(K, u64)]) -> Self {
        let mut m = SmallMap::new();
        for (k, v) in entries {
            m.insert(k.clone(), *v);
        }
        m
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

macro_rules! hashed_lookup {
    ($map:ty, $make:expr) => {
        impl<K: Hash + Eq + Clone> Lookup<K> for $map {
            fn build(entries: &[(K, u64)]) -> Self {
                let mut m = $make;
                for (k, v) in entries {
                    m.insert(k.clone(), *v);
                }
                m
            }
            #[inline]
            fn find(&self, key: &K) -> Option<&u64> {
                self.get(key)
            }
        }
    };
}

hashed_lookup!(hashbrown::HashMap<K, u64, Fold>, hashbrown::HashMap::with_hasher(Fold::with_seed(0x5EED)));
hashed_lookup!(StdHashMap<K, u64, Sip>, StdHashMap::with_hasher(Sip::default()));
hashed_lookup!(indexmap::IndexMap<K, u64, Fold>, indexmap::IndexMap::with_hasher(Fold::with_seed(0x5EED)));

impl<K: Eq + Clone> Lookup<K> for Vec<(K, u64)> {
    fn build(entries: &[(K, u64)]) -> Self {
        let mut v: Vec<(K, u64)> = Vec::new();
        for (k, val) in entries {
            match v.iter_mut().find(|(x, _)| x == k) {
                Some(slot) => slot.1 = *val,
                None => v.push((k.clone(), *val)),
            }
        }
        v
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
}

/// The harness: a "map" that answers without reading anything.
struct NoMap;

impl<K> Lookup<K> for NoMap {
    fn build(_: &[(K, u64)]) -> Self {
        NoMap
    }
    #[inline]
    fn find(&self, _: &K) -> Option<&u64> {
        None
    }
}

fn long(i: usize) -> String {
    format!("request.field_{i:06}") // 20 bytes, as the wall-clock suite
}

fn short(i: usize) -> String {
    format!("f{i:05}") // 6 bytes: an atom by value
}

/// The child: one map (or the harness) with one key type, every size, hits and misses.
pub fn child(rec: &mut Recorder, peer: &str, key: &str, quick: bool) -> Result<(), String> {
    // A private table with a fixed seed: the global table's seed is random per process,
    // and the atoms' hashes (hence hint and bucket collisions) would change the counts.
    let atoms = AtomTable::with_seed(super::interners::SEED);
    // (Atom keys hash under the process's word seed and `Str` keys under the global
    // table's: `child_main` fixed both before anything hashed.)
    match key {
        "atom" => by_map(rec, peer, key, quick, |i| atoms.intern(&long(i))),
        "atom<=7B" => by_map(rec, peer, key, quick, |i| atoms.intern(&short(i))),
        "str" => by_map(rec, peer, key, quick, |i| Str::from(long(i))),
        other => Err(format!("unknown key type {other}")),
    }
}

fn by_map<K: HintKey + Hash + Clone>(
    rec: &mut Recorder,
    peer: &str,
    key_kind: &str,
    quick: bool,
    key: impl Fn(usize) -> K,
) -> Result<(), String> {
    match peer {
        "SmallMap" => count_all::<K, SmallMap<K, u64>>(rec, peer, key_kind, quick, key),
        "hashbrown+foldhash" => count_all::<K, hashbrown::HashMap<K, u64, Fold>>(rec, peer, key_kind, quick, key),
        "std HashMap" => count_all::<K, StdHashMap<K, u64, Sip>>(rec, peer, key_kind, quick, key),
        "Vec linear" => count_all::<K, Vec<(K, u64)>>(rec, peer, key_kind, quick, key),
        "indexmap+foldhash" => count_all::<K, indexmap::IndexMap<K, u64, Fold>>(rec, peer, key_kind, quick, key),
        HARNESS => count_all::<K, NoMap>(rec, peer, key_kind, quick, key),
        other => Err(format!("unknown map {other}")),
    }
}

fn count_all<K, M: Lookup<K>>(
    rec: &mut Recorder,
    peer: &str,
    key_kind: &str,
    quick: bool,
    key: impl Fn(usize) -> K,
) -> Result<(), String> {
    let checked = peer != HARNESS;
    for n in sizes(quick) {
        let entries: Vec<(K, u64)> = (0..n).map(|i| (key(i), i as u64 + 1)).collect();
        let hits: Vec<K> = (0..n).map(&key).collect();
        let misses: Vec<K> = (1000..1000 + n.max(8)).map(&key).collect();
        let map = M::build(&entries);
        if checked && hits.iter().enumerate().any(|(i, k)| map.find(k) != Some(&(i as u64 + 1))) {
            return Err(format!("{peer} at {n} entries: a present key was not found"));
        }
        if checked && misses.iter().any(|k| map.find(k).is_some()) {
            return Err(format!("{peer} at {n} entries: an absent key was found"));
        }
        for (op, probes) in [("hit", &hits), ("miss", &misses)] {
            let rounds = (LOOKUPS / probes.len()).max(1);
            let param = format!("{key_kind} n={n}");
            rec.warm(op, &param, peer, (rounds * probes.len()) as u64, || {
                for _ in 0..rounds {
                    for probe in probes.iter() {
                        black_box(black_box(&map).find(black_box(probe)));
                    }
                }
            });
        }
    }
    Ok(())
}
