//! Suite `small-map`: `SmallMap` (one-byte hints, issue 5, article 003) against
//! `hashbrown::HashMap` (foldhash), `std::HashMap` (SipHash), linear search in a
//! `Vec<(K, V)>` and `IndexMap` (foldhash).
//!
//! * For 1, 2, 4, 8, 9, 16 and 64 entries, with `Atom` keys (20-byte texts: filed,
//!   cached hash), `Atom` keys of up to 7 bytes (atoms by value) and `Str` keys
//!   (20-byte heap strings; probes are separate handles of equal text, so equality reads
//!   bytes and the probe's hash is cached in its header after first use): hit lookups,
//!   miss lookups, and inserts (building a map from empty and dropping it, per entry).
//! * Bytes per map (`size_of` plus its own heap, counted by the allocator) for `(K, u64)`.
//! * Ruby's `ar_table` counters for a mixed workload (hint hits, false matches,
//!   not-found), counted by a key wrapper whose `==` counts calls, so they need no
//!   `stats` feature.
//!
//! Rows: `[ns]` nanoseconds per operation (best of N runs), `[B]` bytes per map, `[x]`
//! ratios from the same run, `[n]` counts. Targets (`Atom` keys, ≤ 8 entries): lookups
//! ≥ 1.5× faster than hashbrown (ratio ≤ 0.67) and no slower than linear search (≤ 1.0);
//! misses at 8 entries ≥ 2× faster than linear search (≤ 0.5); memory at 8 entries
//! below hashbrown's.

use std::cell::Cell;
use std::collections::HashMap as StdHashMap;
use std::hash::{Hash, Hasher};
use std::hint::black_box;
use std::time::{Duration, Instant};

use dynatom::{Atom, HintKey, SmallMap, SmallMapStats, Str};

use crate::alloc_count;

type FoldHashBuilder = foldhash::fast::RandomState;

/// Map sizes the issue asks for.
const SIZES: [usize; 7] = [1, 2, 4, 8, 9, 16, 64];

/// Runs the suite; `quick` shrinks counts and repetitions for smoke runs.
pub fn run(quick: bool) -> Vec<(String, f64)> {
    let scale = if quick {
        Scale { lookups: 40_000, builds: 2_000, reps: 2 }
    } else {
        Scale { lookups: 1_000_000, builds: 40_000, reps: 7 }
    };
    let mut rows = Vec::new();
    let long = |i: usize| format!("request.field_{i:06}"); // 20 bytes
    let short = |i: usize| format!("f{i:05}"); // 6 bytes: an atom by value
    key_rows(&mut rows, "atom", &scale, |i| Atom::from(long(i)), |i| Atom::from(long(i)));
    key_rows(&mut rows, "atom<=7B", &scale, |i| Atom::from(short(i)), |i| Atom::from(short(i)));
    key_rows(&mut rows, "str", &scale, |i| Str::from(long(i)), |i| Str::from(long(i)));
    counter_rows(&mut rows, quick);
    rows
}

struct Scale {
    /// Lookups per timed run.
    lookups: usize,
    /// Map entries inserted per timed run.
    builds: usize,
    reps: usize,
}

/// A map under test, built by inserting one entry at a time from empty.
trait Table<K>: Sized {
    const NAME: &'static str;
    fn build(entries: &[(K, u64)]) -> Self;
    fn find(&self, key: &K) -> Option<&u64>;
}

impl<K: HintKey + Clone> Table<K> for SmallMap<K, u64> {
    const NAME: &'static str = "SmallMap";
    fn build(entries: &[(K, u64)]) -> Self {
        let mut map = SmallMap::new();
        for (key, value) in entries {
            map.insert(key.clone(), *value);
        }
        map
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Hash + Eq + Clone> Table<K> for hashbrown::HashMap<K, u64, FoldHashBuilder> {
    const NAME: &'static str = "hashbrown+foldhash";
    fn build(entries: &[(K, u64)]) -> Self {
        let mut map = hashbrown::HashMap::with_hasher(FoldHashBuilder::default());
        for (key, value) in entries {
            map.insert(key.clone(), *value);
        }
        map
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Hash + Eq + Clone> Table<K> for StdHashMap<K, u64> {
    const NAME: &'static str = "std HashMap";
    fn build(entries: &[(K, u64)]) -> Self {
        let mut map = StdHashMap::new();
        for (key, value) in entries {
            map.insert(key.clone(), *value);
        }
        map
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

impl<K: Eq + Clone> Table<K> for Vec<(K, u64)> {
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

impl<K: Hash + Eq + Clone> Table<K> for indexmap::IndexMap<K, u64, FoldHashBuilder> {
    const NAME: &'static str = "indexmap+foldhash";
    fn build(entries: &[(K, u64)]) -> Self {
        let mut map = indexmap::IndexMap::with_hasher(FoldHashBuilder::default());
        for (key, value) in entries {
            map.insert(key.clone(), *value);
        }
        map
    }
    #[inline]
    fn find(&self, key: &K) -> Option<&u64> {
        self.get(key)
    }
}

/// Best wall time of `reps` runs of `f`, in seconds.
fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

/// Nanoseconds per lookup of `probes` (cycled) in `map`.
fn lookup_ns<K, T: Table<K>>(map: &T, probes: &[K], scale: &Scale) -> f64 {
    let rounds = (scale.lookups / probes.len()).max(1);
    let secs = best_of(scale.reps, || {
        let mut sum = 0u64;
        for _ in 0..rounds {
            for probe in probes {
                if let Some(value) = black_box(map).find(black_box(probe)) {
                    sum = sum.wrapping_add(*value);
                }
            }
        }
        sum
    });
    secs * 1e9 / (rounds * probes.len()) as f64
}

/// Nanoseconds per inserted entry when building (and dropping) maps of `entries`.
fn insert_ns<K, T: Table<K>>(entries: &[(K, u64)], scale: &Scale) -> f64 {
    let maps = (scale.builds / entries.len()).max(1);
    let secs = best_of(scale.reps, || {
        for _ in 0..maps {
            black_box(T::build(black_box(entries)));
        }
    });
    secs * 1e9 / (maps * entries.len()) as f64
}

/// Bytes per map: its inline size plus everything it allocated, over 256 live copies.
fn bytes_per_map<K, T: Table<K>>(entries: &[(K, u64)]) -> f64 {
    const COPIES: usize = 256;
    let (maps, used) = alloc_count::counting(|| {
        let mut maps: Vec<T> = Vec::with_capacity(COPIES);
        maps.extend((0..COPIES).map(|_| T::build(entries)));
        maps
    });
    drop(maps);
    used.live_bytes as f64 / COPIES as f64
}

/// The four numbers of one implementation at one size.
struct Measured {
    hit: f64,
    miss: f64,
    insert: f64,
    bytes: f64,
}

fn measure<K, T: Table<K>>(entries: &[(K, u64)], hits: &[K], misses: &[K], scale: &Scale) -> Measured {
    let map = T::build(entries);
    Measured {
        hit: lookup_ns(&map, hits, scale),
        miss: lookup_ns(&map, misses, scale),
        insert: insert_ns::<K, T>(entries, scale),
        bytes: bytes_per_map::<K, T>(entries),
    }
}

fn key_rows<K: HintKey + Hash + Clone>(
    rows: &mut Vec<(String, f64)>,
    kind: &str,
    scale: &Scale,
    key: impl Fn(usize) -> K,
    probe: impl Fn(usize) -> K,
) {
    for n in SIZES {
        let entries: Vec<(K, u64)> = (0..n).map(|i| (key(i), i as u64)).collect();
        // Probes: fresh handles of the present texts, and as many absent texts.
        let hits: Vec<K> = (0..n).map(&probe).collect();
        let misses: Vec<K> = (1000..1000 + n.max(8)).map(&probe).collect();
        let results = [
            (<SmallMap<K, u64> as Table<K>>::NAME, measure::<K, SmallMap<K, u64>>(&entries, &hits, &misses, scale)),
            (
                <hashbrown::HashMap<K, u64, FoldHashBuilder> as Table<K>>::NAME,
                measure::<K, hashbrown::HashMap<K, u64, FoldHashBuilder>>(&entries, &hits, &misses, scale),
            ),
            (<StdHashMap<K, u64> as Table<K>>::NAME, measure::<K, StdHashMap<K, u64>>(&entries, &hits, &misses, scale)),
            (<Vec<(K, u64)> as Table<K>>::NAME, measure::<K, Vec<(K, u64)>>(&entries, &hits, &misses, scale)),
            (
                <indexmap::IndexMap<K, u64, FoldHashBuilder> as Table<K>>::NAME,
                measure::<K, indexmap::IndexMap<K, u64, FoldHashBuilder>>(&entries, &hits, &misses, scale),
            ),
        ];
        let prefix = format!("small-map/{kind} n={n}");
        for (name, m) in &results {
            rows.push((format!("{prefix}: {name} hit [ns]"), m.hit));
            rows.push((format!("{prefix}: {name} miss [ns]"), m.miss));
            rows.push((format!("{prefix}: {name} insert [ns]"), m.insert));
            rows.push((format!("{prefix}: {name} bytes per map [B]"), m.bytes));
        }
        let (small, brown, linear) = (&results[0].1, &results[1].1, &results[3].1);
        let target = if kind.starts_with("atom") && n <= 8 { " (target <= 0.67)" } else { "" };
        rows.push((format!("{prefix}: hit SmallMap ÷ hashbrown{target} [x]"), small.hit / brown.hit));
        rows.push((format!("{prefix}: miss SmallMap ÷ hashbrown{target} [x]"), small.miss / brown.miss));
        let target = if kind.starts_with("atom") && n <= 8 { " (target <= 1.0)" } else { "" };
        rows.push((format!("{prefix}: hit SmallMap ÷ linear{target} [x]"), small.hit / linear.hit));
        let target = match n {
            8 if kind.starts_with("atom") => " (target <= 0.5)",
            _ if kind.starts_with("atom") && n < 8 => " (target <= 1.0)",
            _ => "",
        };
        rows.push((format!("{prefix}: miss SmallMap ÷ linear{target} [x]"), small.miss / linear.miss));
        let target = if n == 8 { " (target < 1.0)" } else { "" };
        rows.push((format!("{prefix}: bytes SmallMap ÷ hashbrown{target} [x]"), small.bytes / brown.bytes));
    }
}

thread_local! {
    /// Key comparisons that said "equal" / "different", for [`Counted`].
    static EQ_TRUE: Cell<u64> = const { Cell::new(0) };
    static EQ_FALSE: Cell<u64> = const { Cell::new(0) };
}

/// An `Atom` whose `==` counts its calls: in a `SmallMap`'s small form keys are compared
/// only after a hint matches, so equal calls are hint hits and unequal ones false matches.
#[derive(Clone, Debug)]
struct Counted(Atom);

impl PartialEq for Counted {
    fn eq(&self, other: &Counted) -> bool {
        let equal = self.0 == other.0;
        let counter = if equal { &EQ_TRUE } else { &EQ_FALSE };
        counter.with(|c| c.set(c.get() + 1));
        equal
    }
}

impl Eq for Counted {}

impl HintKey for Counted {
    fn key_hash(&self) -> u64 {
        self.0.hash64()
    }
}

impl Hash for Counted {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Ruby-style counters for a mixed workload: 10,000 maps of 0 to 8 entries drawn from a
/// 64-key vocabulary (like object fields / keyword arguments), then lookups of random
/// vocabulary keys in random maps.
fn counter_rows(rows: &mut Vec<(String, f64)>, quick: bool) {
    let lookups = if quick { 100_000 } else { 2_000_000 };
    let vocabulary: Vec<Counted> = (0..64).map(|i| Counted(Atom::from(format!("vocabulary_word_{i:02}")))).collect();
    // A fixed xorshift stream: the same workload on every run.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let maps: Vec<SmallMap<Counted, u64>> = (0..10_000)
        .map(|_| {
            let len = (next() % 9) as usize;
            (0..len).map(|_| (vocabulary[(next() % 64) as usize].clone(), next())).collect()
        })
        .collect();
    let (true_before, false_before) = (EQ_TRUE.with(Cell::get), EQ_FALSE.with(Cell::get));
    let stats_before = SmallMapStats::current_thread();
    let mut not_found = 0u64;
    for _ in 0..lookups {
        let map = &maps[(next() % maps.len() as u64) as usize];
        if map.get(&vocabulary[(next() % 64) as usize]).is_none() {
            not_found += 1;
        }
    }
    let hint_hits = EQ_TRUE.with(Cell::get) - true_before;
    let false_matches = EQ_FALSE.with(Cell::get) - false_before;
    let prefix = format!("small-map/mixed ({lookups} lookups in 10000 maps of 0..8 entries)");
    rows.push((format!("{prefix}: hint hits [n]"), hint_hits as f64));
    rows.push((format!("{prefix}: hint false matches [n]"), false_matches as f64));
    rows.push((format!("{prefix}: not found [n]"), not_found as f64));
    rows.push((format!("{prefix}: false matches per lookup [x]"), false_matches as f64 / lookups as f64));
    if SmallMapStats::ENABLED {
        // With dynatom's `stats` feature, its own counters must agree.
        let stats = SmallMapStats::current_thread().since(&stats_before);
        rows.push((format!("{prefix}: SmallMapStats hint_hits [n]"), stats.hint_hits as f64));
        rows.push((format!("{prefix}: SmallMapStats false_matches [n]"), stats.false_matches as f64));
        rows.push((format!("{prefix}: SmallMapStats not_found [n]"), stats.not_found as f64));
    }
}
