//! Hostile keys: an attacker who does not know a table's seed crafts keys that collide
//! under a seed of their own guess (all in one hint/tag class: the top 8 bits of the
//! hash are zero), or sends keys that share a 4 KiB prefix. The mean and max number of
//! entries compared per lookup in `AtomTable`, `Interner` and `SmallMap` must stay within
//! 2x of what same-shaped random keys get.
//!
//! `DYNATOM_FLOOD_KEYS` sets the number of random and crafted keys (default 10^6 in
//! release, 20,000 in a debug build). `DYNATOM_FLOOD_PREFIX_KEYS` sets the number of
//! keys sharing the 4 KiB prefix; by default it is 1/64 of the other sets (15,625 in
//! release), because the full 10^6 prefixed keys are 4 GiB of text that `AtomTable`
//! and `Interner` must each hold at once (every atom is its own block; the interner
//! keeps its own copy): a peak of about 4.5 GiB, too much for a casual
//! `cargo test --release`. `scripts/test` runs the full size:
//!
//! ```sh
//! DYNATOM_FLOOD_PREFIX_KEYS=1000000 cargo test -p dynatom --release --all-features \
//!     --test flood -- --nocapture
//! ```
//!
//! The prefixed keys are generated one at a time into a reused buffer, never held as a
//! list, and the tests that build a large table take turns (`BIG_TABLES`), so the peak
//! is one structure's copy of the text.

use std::fmt::Write as _;
use std::hash::Hasher;
use std::sync::Mutex;

use dynatom::interner::Interner;
use dynatom::{Atom, AtomTable, HintKey, SmallMap, SmallMapStats, Str};

/// The seed the attacker crafted the keys for (the victims use random seeds).
const ATTACKER_SEED: u64 = 0x0bad_5eed;

/// Length of the prefix that the prefixed keys share.
const PREFIX_LEN: usize = 4096;

/// Held while a test builds its tables, so that two 4 GiB tables never coexist.
static BIG_TABLES: Mutex<()> = Mutex::new(());

fn env_count(name: &str) -> Option<usize> {
    std::env::var(name).ok().map(|v| v.parse().unwrap_or_else(|_| panic!("{name}={v:?} is not a count")))
}

fn key_count() -> usize {
    let default = if cfg!(debug_assertions) { 20_000 } else { 1_000_000 };
    env_count("DYNATOM_FLOOD_KEYS").unwrap_or(default)
}

fn prefix_key_count() -> usize {
    env_count("DYNATOM_FLOOD_PREFIX_KEYS").unwrap_or(key_count() / 64)
}

fn candidate(i: u64) -> String {
    format!("user-supplied-key-{i:010}")
}

/// A set of keys, each visited as a `&str`, in the same order every time.
enum Keys {
    /// Held in a list (short keys).
    Listed(Vec<String>),
    /// `count` keys of [`PREFIX_LEN`] `p`s followed by their index in decimal, written
    /// one at a time into one buffer.
    Prefixed { count: usize },
}

impl Keys {
    fn len(&self) -> usize {
        match self {
            Keys::Listed(keys) => keys.len(),
            Keys::Prefixed { count } => *count,
        }
    }

    fn for_each(&self, mut visit: impl FnMut(&str)) {
        match self {
            Keys::Listed(keys) => keys.iter().for_each(|key| visit(key)),
            Keys::Prefixed { count } => {
                let mut key = "p".repeat(PREFIX_LEN);
                for i in 0..*count {
                    key.truncate(PREFIX_LEN);
                    write!(key, "{i}").expect("writing to a String cannot fail");
                    visit(&key);
                }
            }
        }
    }

    /// Keys in groups of 8 consecutive ones (the last group may be shorter).
    fn for_each_group_of_8(&self, mut visit: impl FnMut(&[&str])) {
        let mut group: Vec<String> = Vec::with_capacity(8);
        self.for_each(|key| {
            group.push(key.to_owned());
            if group.len() == 8 {
                visit(&group.iter().map(String::as_str).collect::<Vec<_>>());
                group.clear();
            }
        });
        if !group.is_empty() {
            visit(&group.iter().map(String::as_str).collect::<Vec<_>>());
        }
    }
}

/// The first `n` candidates.
fn random_keys(n: usize) -> Keys {
    Keys::Listed((0..n as u64).map(candidate).collect())
}

/// `n` candidates whose hash under the attacker's seed has its top 8 bits zero.
fn crafted_keys(n: usize, hash: impl Fn(&[u8]) -> u64) -> Keys {
    Keys::Listed((0..).map(candidate).filter(|key| hash(key.as_bytes()) >> 56 == 0).take(n).collect())
}

fn prefixed_keys(count: usize) -> Keys {
    Keys::Prefixed { count }
}

/// The attacker's guess of a structure's hash, under a seed of their own.
type Attacker = fn(&[u8]) -> u64;

/// The atom table's text hash as the attacker knows it from the source, under their seed:
/// folded multiplies of overlapping words for 8 to 32 bytes (one key rotated by the
/// length), then one by a constant, rapidhash otherwise.
/// `crafted_keys_collide_under_the_seed_they_were_made_for` checks it against the table.
fn table_hash_attacker(bytes: &[u8]) -> u64 {
    let fold_mul = |x: u64, y: u64| {
        let p = u128::from(x) * u128::from(y);
        (p as u64) ^ ((p >> 64) as u64)
    };
    let word_hash = |word: u64, seed: u64| {
        let mixed = u128::from(word ^ seed).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
        match (mixed as u64) ^ ((mixed >> 64) as u64) {
            0 => 1,
            hash => hash,
        }
    };
    let key = |k: u64| word_hash(ATTACKER_SEED ^ k.wrapping_mul(0x9E37_79B9_7F4A_7C15), 0x5EED_D1A7_0A70 + k);
    let word = |at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().expect("eight bytes"));
    let n = bytes.len();
    let spread = |folded: u64| fold_mul(folded, 0x9E37_79B9_7F4A_7C15);
    match n {
        8..=16 => spread(fold_mul(word(0) ^ key(1), word(n - 8) ^ key(2).rotate_right(n as u32))),
        17..=32 => spread(
            fold_mul(word(0) ^ key(1).rotate_right(n as u32), word(n - 16) ^ key(2))
                ^ fold_mul(word(8) ^ key(3), word(n - 8) ^ key(4)),
        ),
        _ => rapidhash::rapidhash_seeded(bytes, ATTACKER_SEED),
    }
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
fn atom_table_probes(keys: &Keys) -> Probes {
    let _turn = BIG_TABLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let table = AtomTable::new();
    let mut atoms = Vec::with_capacity(keys.len());
    keys.for_each(|key| atoms.push(table.intern(key)));
    keys.for_each(|key| assert!(table.lookup(key).is_some()));
    let report = table.memory_report();
    assert_eq!(report.atoms, keys.len(), "every key is a distinct atom");
    drop(atoms);
    Probes { mean: report.mean_probe, max: report.max_probe }
}

fn interner_probes(keys: &Keys) -> Probes {
    let _turn = BIG_TABLES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let mut interner = Interner::new();
    keys.for_each(|key| {
        interner.intern(key);
    });
    keys.for_each(|key| assert!(interner.get(key).is_some()));
    assert_eq!(interner.len(), keys.len(), "every key is a distinct symbol");
    let report = interner.memory_report();
    Probes { mean: report.mean_probe, max: report.max_probe }
}

/// Fills small maps of 8 consecutive keys (the keys an attacker would send to one
/// object) and counts the keys compared by each lookup.
fn small_map_probes(keys: &Keys) -> Probes {
    let (mut total, mut max, mut lookups) = (0u64, 0u64, 0u64);
    keys.for_each_group_of_8(|group| {
        let map: SmallMap<Str, usize> = group.iter().enumerate().map(|(i, k)| (Str::from(*k), i)).collect();
        assert!(map.is_small());
        for (i, key) in group.iter().enumerate() {
            let before = SmallMapStats::current_thread();
            assert_eq!(map.get(*key), Some(&i));
            let delta = SmallMapStats::current_thread().since(&before);
            let compared = delta.hint_hits + delta.false_matches;
            total += compared;
            max = max.max(compared);
            lookups += 1;
        }
    });
    Probes { mean: total as f64 / lookups as f64, max }
}

/// Runs of each key set compared, each in a fresh table (with its own random seed).
const RUNS: usize = 3;

/// The median mean and the median max probe of [`RUNS`] runs of `probes` over `keys`.
/// The same estimate on both sides of a comparison: one run's max is an extreme value,
/// and at 5,000 random keys it ranged from 37 to 76 over 80 runs of one build, so a
/// hostile set with one high run failed against a random set with one low run.
fn median_of_runs(probes: fn(&Keys) -> Probes, keys: &Keys) -> Probes {
    let runs: Vec<Probes> = (0..RUNS).map(|_| probes(keys)).collect();
    let mut means: Vec<f64> = runs.iter().map(|run| run.mean).collect();
    let mut maxes: Vec<u64> = runs.iter().map(|run| run.max).collect();
    means.sort_by(f64::total_cmp);
    maxes.sort_unstable();
    Probes { mean: means[RUNS / 2], max: maxes[RUNS / 2] }
}

fn assert_within_twice(name: &str, random: Probes, hostile: Probes) {
    assert!(hostile.mean <= 2.0 * random.mean, "{name}: mean probe {hostile:?} vs random keys' {random:?}");
    // A floor of 2: with a few thousand keys (valgrind) the random max can be 1.
    assert!(hostile.max <= 2 * random.max.max(2), "{name}: max probe {hostile:?} vs random keys' {random:?}");
}

/// Measures `probes` on random, crafted (for `attacker`'s seed) and prefixed keys, prints
/// the three figures and checks both hostile sets against the random one.
fn check_hostile_keys(structure: &str, probes: fn(&Keys) -> Probes, attacker: Attacker) {
    let (n, prefixed_n) = (key_count(), prefix_key_count());
    let random = median_of_runs(probes, &random_keys(n));
    let crafted = median_of_runs(probes, &crafted_keys(n, attacker));
    let prefixed = median_of_runs(probes, &prefixed_keys(prefixed_n));
    eprintln!(
        "{structure}: {n} random keys mean {:.3} max {}; {n} crafted for another seed mean {:.3} max {}; \
         {prefixed_n} with a 4 KiB prefix mean {:.3} max {}",
        random.mean, random.max, crafted.mean, crafted.max, prefixed.mean, prefixed.max
    );
    assert_within_twice(&format!("{structure}, crafted keys"), random, crafted);
    assert_within_twice(&format!("{structure}, 4 KiB prefix"), random, prefixed);
}

#[test]
fn atom_table_probes_stay_within_twice_random_under_hostile_keys() {
    check_hostile_keys("AtomTable", atom_table_probes, table_hash_attacker);
}

#[test]
fn interner_probes_stay_within_twice_random_under_hostile_keys() {
    check_hostile_keys("Interner", interner_probes, foldhash_attacker);
}

#[test]
fn small_map_probes_stay_within_twice_random_under_hostile_keys() {
    if !SmallMapStats::ENABLED {
        eprintln!("SmallMap: probe counters need the `stats` feature; skipped");
        return;
    }
    check_hostile_keys("SmallMap", small_map_probes, table_hash_attacker);
}

/// The prefixed keys are what they claim: distinct, each the 4 KiB prefix and its index.
#[test]
fn prefixed_keys_share_the_prefix_and_are_distinct() {
    let mut seen = std::collections::HashSet::new();
    let mut count = 0;
    prefixed_keys(1000).for_each(|key| {
        assert!(key.len() > PREFIX_LEN && key.bytes().take(PREFIX_LEN).all(|b| b == b'p'));
        assert_eq!(key[PREFIX_LEN..].parse::<usize>(), Ok(count));
        assert!(seen.insert(key.to_owned()));
        count += 1;
    });
    assert_eq!(count, 1000);
    let mut groups = Vec::new();
    prefixed_keys(20).for_each_group_of_8(|group| groups.push(group.len()));
    assert_eq!(groups, [8, 8, 4]);
}

/// The crafted keys really are hostile to a table that uses the attacker's seed: this
/// is what the tests above would see if the seed leaked (or were fixed).
#[test]
fn crafted_keys_collide_under_the_seed_they_were_made_for() {
    let Keys::Listed(keys) = crafted_keys(2000, table_hash_attacker) else { unreachable!("crafted keys are listed") };
    let table = AtomTable::with_seed(ATTACKER_SEED);
    let atoms: Vec<_> = keys.iter().map(|k| table.intern(k)).collect();
    assert!(atoms.iter().all(|a| a.hash64() >> 56 == 0), "every crafted key hashes into one tag class");
    let Keys::Listed(keys) = crafted_keys(2000, foldhash_attacker) else { unreachable!("crafted keys are listed") };
    assert!(keys.iter().all(|k| foldhash_attacker(k.as_bytes()) >> 56 == 0));
}

/// The small map's hash of an atom as it once was: a fixed multiply-and-fold of the
/// atom's word, no seed. Atoms of up to 7 bytes are values (byte 0 is `len << 1 | 1`,
/// then the bytes, little-endian), so anyone could compute their hashes offline.
fn unkeyed_word_hash(text: &[u8]) -> u64 {
    assert!(text.len() <= 7);
    let mut raw = [0u8; 8];
    raw[0] = (text.len() << 1 | 1) as u8;
    raw[1..=text.len()].copy_from_slice(text);
    let mixed = u64::from_le_bytes(raw).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    mixed ^ (mixed >> 32)
}

/// The `i`th 7-byte text: `i` in base 62, most significant digit first.
fn short_candidate(mut i: u64) -> [u8; 7] {
    const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut text = [b'0'; 7];
    for byte in text.iter_mut().rev() {
        *byte = DIGITS[(i % 62) as usize];
        i /= 62;
    }
    text
}

fn atom_of(text: [u8; 7]) -> Atom {
    Atom::from(std::str::from_utf8(&text).expect("base-62 digits are text"))
}

/// `n` distinct 7-byte atoms drawn at random (a fixed stream), not consecutive ones:
/// consecutive texts differ only in their last bytes, which the unkeyed hash spread
/// so badly that even they crowded the large form.
fn random_short_atoms(n: usize) -> Vec<Atom> {
    let mut seen = std::collections::HashSet::new();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut atoms = Vec::with_capacity(n);
    while atoms.len() < n {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        let text = short_candidate((z ^ (z >> 31)) % 62u64.pow(7));
        if seen.insert(text) {
            atoms.push(atom_of(text));
        }
    }
    atoms
}

/// `n` 7-byte atoms whose unkeyed hash has its top 8 bits zero: one hint class of the
/// small form and one tag class of the large form, under the hash as it was.
fn crafted_short_atoms(n: usize) -> Vec<Atom> {
    (0..).map(short_candidate).filter(|text| unkeyed_word_hash(text) >> 56 == 0).take(n).map(atom_of).collect()
}

/// Fills small maps of 8 consecutive atoms and counts the keys compared by each lookup.
fn small_map_atom_probes(atoms: &[Atom]) -> Probes {
    let (mut total, mut max, mut lookups) = (0u64, 0u64, 0u64);
    for group in atoms.chunks(8) {
        let map: SmallMap<Atom, usize> = group.iter().cloned().enumerate().map(|(i, k)| (k, i)).collect();
        for (i, key) in group.iter().enumerate() {
            let before = SmallMapStats::current_thread();
            assert_eq!(map.get(key), Some(&i));
            let delta = SmallMapStats::current_thread().since(&before);
            let compared = delta.hint_hits + delta.false_matches;
            total += compared;
            max = max.max(compared);
            lookups += 1;
        }
    }
    Probes { mean: total as f64 / lookups as f64, max }
}

thread_local! {
    static COMPARES: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// An atom key that counts its compares, hashed exactly as an `Atom` key is: what a
/// map's large form (a hashbrown table) compares while it looks one up.
#[derive(Clone)]
struct CountedAtom(Atom);

impl PartialEq for CountedAtom {
    fn eq(&self, other: &Self) -> bool {
        COMPARES.with(|c| c.set(c.get() + 1));
        self.0 == other.0
    }
}

impl Eq for CountedAtom {}

impl HintKey for CountedAtom {
    fn key_hash(&self) -> u64 {
        self.0.key_hash()
    }
}

/// Puts every atom in one map (its large form) and counts the keys compared by each
/// lookup.
fn large_map_atom_probes(atoms: &[Atom]) -> Probes {
    let map: SmallMap<CountedAtom, usize> =
        atoms.iter().cloned().enumerate().map(|(i, k)| (CountedAtom(k), i)).collect();
    assert_eq!(map.len(), atoms.len(), "every key is a distinct atom");
    let (mut total, mut max) = (0u64, 0u64);
    for (i, atom) in atoms.iter().enumerate() {
        let key = CountedAtom(atom.clone());
        let before = COMPARES.with(std::cell::Cell::get);
        assert_eq!(map.get(&key), Some(&i));
        let compared = COMPARES.with(std::cell::Cell::get) - before;
        total += compared;
        max = max.max(compared);
    }
    Probes { mean: total as f64 / atoms.len() as f64, max }
}

fn check_hostile_atoms(structure: &str, probes: fn(&[Atom]) -> Probes) {
    let n = key_count();
    let random = probes(&random_short_atoms(n));
    let crafted = probes(&crafted_short_atoms(n));
    eprintln!(
        "{structure}: {n} random 7-byte atoms mean {:.3} max {}; {n} crafted for the unkeyed hash mean {:.3} max {}",
        random.mean, random.max, crafted.mean, crafted.max
    );
    assert_within_twice(&format!("{structure}, crafted atoms"), random, crafted);
}

#[test]
fn small_map_atom_probes_stay_within_twice_random_under_crafted_atoms() {
    if !SmallMapStats::ENABLED {
        eprintln!("SmallMap<Atom>: probe counters need the `stats` feature; skipped");
        return;
    }
    check_hostile_atoms("SmallMap<Atom> (small form)", small_map_atom_probes);
}

#[test]
fn large_map_atom_probes_stay_within_twice_random_under_crafted_atoms() {
    check_hostile_atoms("SmallMap<Atom> (large form)", large_map_atom_probes);
}

/// The crafted atoms really are hostile to the unkeyed hash: distinct 7-byte atoms, all
/// in one hint class under it.
#[test]
fn crafted_atoms_collide_under_the_unkeyed_hash() {
    let atoms = crafted_short_atoms(500);
    let distinct: std::collections::HashSet<&str> = atoms.iter().map(|a| a.as_str()).collect();
    assert_eq!(distinct.len(), 500);
    assert!(atoms.iter().all(|a| a.len() == 7 && unkeyed_word_hash(a.as_bytes()) >> 57 == 0));
}
