//! Hostile keys: an attacker who does not know a table's seed crafts keys that collide
//! under a seed of their own guess (all in one hint/tag class: the top 8 bits of the
//! hash are zero), or sends keys that share a 4 KiB prefix. The mean and max number of
//! entries compared per lookup in `AtomTable`, `Interner` and `SmallMap` must stay within
//! 2x of what same-shaped random keys get.
//!
//! `DYNATOM_FLOOD_KEYS` sets the number of keys (default 10^6 in release, 20,000 in a
//! debug build); the prefix set is 1/64 of it (10^6 keys of 4 KiB would be 4 GiB). Run
//! with `--nocapture` to see the figures.

use std::hash::Hasher;

use dynatom::interner::Interner;
use dynatom::{AtomTable, SmallMap, SmallMapStats, Str};

/// The seed the attacker crafted the keys for (the victims use random seeds).
const ATTACKER_SEED: u64 = 0x0bad_5eed;

fn key_count() -> usize {
    let default = if cfg!(debug_assertions) { 20_000 } else { 1_000_000 };
    std::env::var("DYNATOM_FLOOD_KEYS").ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

fn candidate(i: u64) -> String {
    format!("user-supplied-key-{i:010}")
}

/// The first `n` candidates.
fn random_keys(n: usize) -> Vec<String> {
    (0..n as u64).map(candidate).collect()
}

/// `n` candidates whose hash under the attacker's seed has its top 8 bits zero.
fn crafted_keys(n: usize, hash: impl Fn(&[u8]) -> u64) -> Vec<String> {
    (0..).map(candidate).filter(|key| hash(key.as_bytes()) >> 56 == 0).take(n).collect()
}

fn prefixed_keys(n: usize) -> Vec<String> {
    let prefix = "p".repeat(4096);
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

fn rapidhash_attacker(bytes: &[u8]) -> u64 {
    rapidhash::rapidhash_seeded(bytes, ATTACKER_SEED)
}

fn foldhash_attacker(bytes: &[u8]) -> u64 {
    let shared = foldhash::SharedSeed::from_u64(ATTACKER_SEED);
    let mut hasher = foldhash::fast::FoldHasher::with_seed(ATTACKER_SEED, &shared);
    hasher.write(bytes);
    hasher.finish()
}

#[derive(Debug, Clone, Copy)]
struct Probes {
    mean: f64,
    max: u64,
}

/// Interns every key in a fresh table (random seed), then looks each up again.
fn atom_table_probes(keys: &[String]) -> Probes {
    let table = AtomTable::new();
    let atoms: Vec<_> = keys.iter().map(|k| table.intern(k)).collect();
    for key in keys {
        assert!(table.lookup(key).is_some());
    }
    let report = table.memory_report();
    drop(atoms);
    Probes { mean: report.mean_probe, max: report.max_probe }
}

fn interner_probes(keys: &[String]) -> Probes {
    let mut interner = Interner::new();
    for key in keys {
        interner.intern(key);
    }
    for key in keys {
        assert!(interner.get(key).is_some());
    }
    let report = interner.memory_report();
    Probes { mean: report.mean_probe, max: report.max_probe }
}

/// Fills small maps of 8 consecutive keys (the keys an attacker would send to one
/// object) and counts the keys compared by each lookup.
fn small_map_probes(keys: &[String]) -> Probes {
    let (mut total, mut max, mut lookups) = (0u64, 0u64, 0u64);
    for chunk in keys.chunks(8) {
        let map: SmallMap<Str, usize> = chunk.iter().enumerate().map(|(i, k)| (Str::from(k.as_str()), i)).collect();
        assert!(map.is_small());
        for (i, key) in chunk.iter().enumerate() {
            let before = SmallMapStats::current_thread();
            assert_eq!(map.get(key.as_str()), Some(&i));
            let delta = SmallMapStats::current_thread().since(&before);
            let compared = delta.hint_hits + delta.false_matches;
            total += compared;
            max = max.max(compared);
            lookups += 1;
        }
    }
    Probes { mean: total as f64 / lookups as f64, max }
}

fn assert_within_twice(name: &str, random: Probes, hostile: Probes) {
    assert!(hostile.mean <= 2.0 * random.mean, "{name}: mean probe {hostile:?} vs random keys' {random:?}");
    // A floor of 2: with a few thousand keys (valgrind) the random max can be 1.
    assert!(hostile.max <= 2 * random.max.max(2), "{name}: max probe {hostile:?} vs random keys' {random:?}");
}

fn report(structure: &str, random: Probes, crafted: Probes, prefixed: Probes, n: usize) {
    eprintln!(
        "{structure}: {n} random keys mean {:.3} max {}; {n} crafted for another seed mean {:.3} max {}; \
         {} with a 4 KiB prefix mean {:.3} max {}",
        random.mean,
        random.max,
        crafted.mean,
        crafted.max,
        n / 64,
        prefixed.mean,
        prefixed.max
    );
}

#[test]
fn atom_table_probes_stay_within_twice_random_under_hostile_keys() {
    let n = key_count();
    let random = atom_table_probes(&random_keys(n));
    let crafted = atom_table_probes(&crafted_keys(n, rapidhash_attacker));
    let prefixed = atom_table_probes(&prefixed_keys(n / 64));
    report("AtomTable", random, crafted, prefixed, n);
    assert_within_twice("AtomTable, crafted keys", random, crafted);
    assert_within_twice("AtomTable, 4 KiB prefix", random, prefixed);
}

#[test]
fn interner_probes_stay_within_twice_random_under_hostile_keys() {
    let n = key_count();
    let random = interner_probes(&random_keys(n));
    let crafted = interner_probes(&crafted_keys(n, foldhash_attacker));
    let prefixed = interner_probes(&prefixed_keys(n / 64));
    report("Interner", random, crafted, prefixed, n);
    assert_within_twice("Interner, crafted keys", random, crafted);
    assert_within_twice("Interner, 4 KiB prefix", random, prefixed);
}

#[test]
fn small_map_probes_stay_within_twice_random_under_hostile_keys() {
    if !SmallMapStats::ENABLED {
        eprintln!("SmallMap: probe counters need the `stats` feature; skipped");
        return;
    }
    let n = key_count();
    let random = small_map_probes(&random_keys(n));
    let crafted = small_map_probes(&crafted_keys(n, rapidhash_attacker));
    let prefixed = small_map_probes(&prefixed_keys(n / 64));
    report("SmallMap", random, crafted, prefixed, n);
    assert_within_twice("SmallMap, crafted keys", random, crafted);
    assert_within_twice("SmallMap, 4 KiB prefix", random, prefixed);
}

/// The crafted keys really are hostile to a table that uses the attacker's seed: this
/// is what the tests above would see if the seed leaked (or were fixed).
#[test]
fn crafted_keys_collide_under_the_seed_they_were_made_for() {
    let keys = crafted_keys(2000, rapidhash_attacker);
    let table = AtomTable::with_seed(ATTACKER_SEED);
    let atoms: Vec<_> = keys.iter().map(|k| table.intern(k)).collect();
    assert!(atoms.iter().all(|a| a.hash64() >> 56 == 0), "every crafted key hashes into one tag class");
    let keys = crafted_keys(2000, foldhash_attacker);
    assert!(keys.iter().all(|k| foldhash_attacker(k.as_bytes()) >> 56 == 0));
}
