//! Tests of [`Slots`]: unit tests, a property test against a `HashSet` model, and a
//! multi-thread stress test of lock-free finds against a writer that inserts, removes,
//! grows and retires.
//!
//! Most tests file fake entries: the set never dereferences an entry itself (only the
//! caller's `hash_of` and `matches` do), so an entry can be an address that encodes its
//! key. The stress test files real boxes and retires them, so that a reader that touched a
//! freed one shows under valgrind and AddressSanitizer.

use std::collections::HashSet;
use std::ptr::NonNull;
use std::sync::Arc as StdArc;
use std::sync::atomic::{AtomicBool, Ordering as StdOrdering};

use proptest::prelude::*;

use super::*;

/// Bit 50 set in a fake entry's address: a pointer whose top bits are taken, which the
/// set must store untagged.
const HIGH: usize = 1 << 50;

/// A fake entry for `key`: 8-aligned, never null; `high` sets a top bit.
fn fake(key: u64, high: bool) -> NonNull<u8> {
    let addr = ((key as usize) + 1) << 3 | if high { HIGH } else { 0 };
    NonNull::new(ptr::without_provenance_mut(addr)).expect("not null")
}

fn key_of(entry: NonNull<u8>) -> u64 {
    ((entry.as_ptr().addr() & !HIGH) >> 3) as u64 - 1
}

/// A hash that makes keys collide on purpose: three tags and thirteen home slots.
fn colliding_hash(key: u64) -> u64 {
    ((key % 3) << 48) | (key % 13)
}

fn colliding_hash_of(entry: NonNull<u8>) -> u64 {
    colliding_hash(key_of(entry))
}

/// A well-mixed hash.
fn mixed_hash(key: u64) -> u64 {
    rapidhash::rapidhash_seeded(&key.to_le_bytes(), 7)
}

fn mixed_hash_of(entry: NonNull<u8>) -> u64 {
    mixed_hash(key_of(entry))
}

fn find_key(slots: &Slots<()>, key: u64, hash: fn(u64) -> u64) -> Option<u64> {
    let guard = reclaim::pin();
    slots.find(&guard, hash(key), |entry| key_of(entry) == key).map(key_of)
}

#[test]
fn an_empty_set_finds_nothing_and_holds_no_array() {
    let slots = Slots::new((), mixed_hash_of);
    assert_eq!(find_key(&slots, 1, mixed_hash), None);
    let guard = slots.lock();
    assert_eq!((guard.len(), guard.capacity(), guard.memory_size()), (0, 0, 0));
}

#[test]
fn insert_find_remove() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    guard.insert(mixed_hash(5), fake(5, false), Reach::Unpinned).unwrap();
    assert_eq!(guard.find(mixed_hash(5), |e| key_of(e) == 5), Some(fake(5, false)));
    assert_eq!(guard.find(mixed_hash(6), |e| key_of(e) == 6), None);
    drop(guard);
    assert_eq!(find_key(&slots, 5, mixed_hash), Some(5));
    let mut guard = slots.lock();
    assert!(guard.remove(mixed_hash(5), fake(5, false)));
    assert!(!guard.remove(mixed_hash(5), fake(5, false)), "removed once");
    assert_eq!(guard.len(), 0);
    drop(guard);
    assert_eq!(find_key(&slots, 5, mixed_hash), None);
}

#[test]
fn a_tag_mismatch_never_reaches_matches() {
    let slots = Slots::new((), colliding_hash_of);
    let mut guard = slots.lock();
    // Keys 0, 1, 2 share a home slot pattern but have three different tags.
    for key in [0, 1, 2, 3] {
        guard.insert(colliding_hash(key), fake(key, false), Reach::Unpinned).unwrap();
    }
    drop(guard);
    let mut asked = Vec::new();
    let guard = reclaim::pin();
    let found = slots.find(&guard, colliding_hash(1), |entry| {
        asked.push(key_of(entry));
        key_of(entry) == 1
    });
    assert_eq!(found.map(key_of), Some(1));
    assert!(asked.iter().all(|key| key % 3 == 1), "asked only about entries with key 1's tag: {asked:?}");
}

#[test]
fn untagged_entries_are_found_and_keep_their_bits() {
    let slots = Slots::new((), colliding_hash_of);
    let mut guard = slots.lock();
    for key in 0..40 {
        let entry = fake(key, key % 2 == 0);
        guard.insert(colliding_hash(key), entry, Reach::Unpinned).unwrap();
    }
    for key in 0..40 {
        let entry = fake(key, key % 2 == 0);
        assert_eq!(guard.find(colliding_hash(key), |e| e == entry), Some(entry), "key {key}");
    }
    assert!(guard.remove(colliding_hash(4), fake(4, true)));
    assert_eq!(guard.find(colliding_hash(4), |e| key_of(e) == 4), None);
}

#[test]
fn the_callers_low_bits_survive() {
    let slots = Slots::new((), mixed_hash_of);
    let entry = NonNull::new(fake(9, false).as_ptr().map_addr(|a| a | 0b010)).unwrap();
    let mut guard = slots.lock();
    guard.insert(mixed_hash(9), entry, Reach::Unpinned).unwrap();
    assert_eq!(guard.find(mixed_hash(9), |e| e == entry), Some(entry));
}

#[test]
#[should_panic(expected = "8-aligned")]
fn an_entry_using_bit_two_is_refused() {
    let slots = Slots::new((), mixed_hash_of);
    let entry = NonNull::new(fake(9, false).as_ptr().map_addr(|a| a | 0b100)).unwrap();
    let _ = slots.lock().insert(mixed_hash(9), entry, Reach::Unpinned);
}

#[test]
fn growth_is_spread_over_later_writes() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    let mut grew_at = None;
    let mut migrating_writes = 0;
    for key in 0..10_000u64 {
        let before = guard.capacity();
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        if guard.is_migrating() {
            migrating_writes += 1;
        }
        if guard.capacity() > before && before >= 1024 && grew_at.is_none() {
            grew_at = Some((key, before));
            assert!(guard.is_migrating(), "a large array is not copied in one write");
        }
    }
    let (_, before) = grew_at.expect("10,000 entries outgrow 1,024 slots");
    assert!(migrating_writes > before / (2 * MIGRATE_STEP), "copied over many writes: {migrating_writes}");
    for key in 0..10_000u64 {
        assert_eq!(guard.find(mixed_hash(key), |e| key_of(e) == key), Some(fake(key, false)));
    }
    assert_eq!(guard.len(), 10_000);
    assert!(within_max_load(10_000, guard.capacity()), "load at most 7/8");
}

#[test]
fn no_insert_copies_a_large_array_at_once_and_no_array_is_held_ahead_of_need() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    let mut most_slots = 0;
    let mut most_slots_while_small = 0;
    let mut extra_bytes_between_migrations = 0;
    for key in 0..100_000u64 {
        let small = guard.capacity() <= COPY_WHOLE_UP_TO;
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        if small {
            assert!(!guard.is_migrating(), "growing past {} slots copies the old array at once", guard.capacity() / 2);
            most_slots_while_small = guard.most_insert().slots;
            if guard.capacity() > COPY_WHOLE_UP_TO {
                // The last whole copy: `most_insert` counts the large arrays' steps from here.
                guard.locked.most_insert.slots = 0;
            }
        } else {
            most_slots = most_slots.max(guard.most_insert().slots);
        }
        if !guard.is_migrating() {
            let current = guard.capacity() * std::mem::size_of::<usize>();
            let held = guard.memory_size() - guard.locked.retired_bytes;
            extra_bytes_between_migrations = extra_bytes_between_migrations.max(held - current);
        }
    }
    // Past the small arrays, a migration step (32 old slots or more), each copy with its
    // probe in the new array: a few dozen slots, against the 131,072 of the last array.
    assert!(most_slots <= 8 * MIGRATE_STEP, "most slots one insert touched: {most_slots}");
    // A small array's whole copy: its slots, and a probe for each of its entries.
    assert!(
        (COPY_WHOLE_UP_TO..=4 * COPY_WHOLE_UP_TO).contains(&most_slots_while_small),
        "most slots one insert touched while the arrays were small: {most_slots_while_small}"
    );
    assert!(guard.capacity() >= 131_072);
    assert_eq!(extra_bytes_between_migrations, 0, "only the current array, outside a migration");
    for key in (0..100_000u64).step_by(97) {
        assert_eq!(guard.find(mixed_hash(key), |e| key_of(e) == key), Some(fake(key, false)));
    }
}

#[test]
fn tombstones_force_a_rebuild_not_endless_growth() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    for round in 0..10_000u64 {
        guard.insert(mixed_hash(round), fake(round, false), Reach::Unpinned).unwrap();
        if round >= 10 {
            assert!(guard.remove(mixed_hash(round - 10), fake(round - 10, false)));
        }
    }
    assert_eq!(guard.len(), 10);
    assert!(guard.capacity() <= 64, "ten live entries; capacity {}", guard.capacity());
}

#[test]
fn retain_visits_each_entry_once_and_shrinks() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    for key in 0..5_000u64 {
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
    }
    assert!(guard.is_migrating() || guard.len() == 5_000);
    let mut visited = HashSet::new();
    let mut removed = Vec::new();
    guard.retain(
        |entry| {
            assert!(visited.insert(key_of(entry)), "visited twice");
            key_of(entry).is_multiple_of(100)
        },
        |entry| removed.push(key_of(entry)),
    );
    assert_eq!(visited.len(), 5_000);
    assert_eq!(removed.len(), 4_950);
    assert_eq!(guard.len(), 50);
    for key in 0..5_000u64 {
        let found = guard.find(mixed_hash(key), |e| key_of(e) == key).is_some();
        assert_eq!(found, key % 100 == 0, "key {key}");
    }
    for key in 0..200u64 {
        guard.insert(mixed_hash(key + 10_000), fake(key + 10_000, false), Reach::Unpinned).unwrap();
    }
    assert!(guard.capacity() < 4096, "shrank after the sweep: {}", guard.capacity());
}

#[test]
fn for_each_sees_each_entry_once_even_mid_migration() {
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    let mut checked_mid_migration = false;
    for key in 0..3_000u64 {
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        if key % 7 == 0 {
            assert!(guard.remove(mixed_hash(key), fake(key, false)));
        }
        if guard.is_migrating() || key % 500 == 0 {
            checked_mid_migration |= guard.is_migrating();
            let mut seen = Vec::new();
            guard.for_each(|entry| seen.push(key_of(entry)));
            let expected: Vec<u64> = (0..=key).filter(|k| k % 7 != 0).collect();
            seen.sort_unstable();
            assert_eq!(seen, expected, "after inserting {key}");
        }
    }
    assert!(checked_mid_migration);
}

#[test]
fn old_arrays_are_freed_once_readers_move_on() {
    let _serial = reclaim::long_pins_serial();
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    for key in 0..1_000u64 {
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
    }
    guard.retain(|_| true, |_| unreachable!());
    // Other tests' pins are short, but on a loaded machine their threads may sleep while
    // pinned: give them seconds, not a count of yields.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while guard.collect_arrays() > 0 {
        assert!(std::time::Instant::now() < deadline, "other tests' pins are short: the arrays must go");
        std::thread::yield_now();
    }
    let capacity = guard.capacity();
    assert_eq!(guard.memory_size(), capacity * std::mem::size_of::<usize>(), "only the current array is left");
}

#[test]
fn the_write_that_ends_a_migration_frees_the_old_array() {
    let _serial = reclaim::long_pins_serial();
    let slots = Slots::new((), mixed_hash_of);
    let mut guard = slots.lock();
    let (mut ended, mut freed_at_once) = (0, 0);
    for key in 0..20_000u64 {
        let was_migrating = guard.is_migrating();
        guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        if was_migrating && !guard.is_migrating() {
            ended += 1;
            // Another test's reader pinned at this moment keeps the array a little longer.
            freed_at_once += usize::from(guard.memory_size() == guard.capacity() * std::mem::size_of::<usize>());
        }
    }
    assert!(ended >= 5, "{ended} migrations ended");
    assert!(freed_at_once > 0, "none of {ended} ended migrations freed the old array at once");
}

#[test]
fn an_insert_after_a_miss_goes_where_the_probe_stopped() {
    let slots = Slots::new((), colliding_hash_of);
    let mut guard = slots.lock();
    // Keys 0, 39 and 78 share a tag and a home slot (colliding_hash: key % 3, key % 13).
    for key in [0, 39] {
        guard.insert(colliding_hash(key), fake(key, false), Reach::Unpinned).unwrap();
    }
    assert!(guard.remove(colliding_hash(0), fake(0, false)), "a tombstone at the home slot");
    let (found, probes) = guard.find_counting(colliding_hash(78), |e| key_of(e) == 78);
    assert_eq!((found, probes), (None, 3), "past the tombstone and key 39, to an empty slot");
    guard.insert_after_miss(colliding_hash(78), probes, fake(78, false), Reach::Unpinned, || {}).unwrap();
    // An ordinary insert would have taken the tombstone (found after one slot).
    assert_eq!(guard.find_counting(colliding_hash(78), |e| key_of(e) == 78), (Some(fake(78, false)), 3));
    // A count that does not end at an empty slot (or is out of range) takes the ordinary
    // path: key 117 goes into the tombstone.
    guard.insert_after_miss(colliding_hash(117), 2, fake(117, false), Reach::Unpinned, || {}).unwrap();
    assert_eq!(guard.find_counting(colliding_hash(117), |e| key_of(e) == 117), (Some(fake(117, false)), 1));
    guard.insert_after_miss(colliding_hash(156), 0, fake(156, false), Reach::Unpinned, || {}).unwrap();
    for key in [39, 78, 117, 156] {
        assert_eq!(guard.find(colliding_hash(key), |e| key_of(e) == key), Some(fake(key, false)));
    }
    assert_eq!(guard.len(), 4);
}

#[derive(Debug, Clone)]
enum Op {
    Insert(u64, bool),
    /// A locked probe that misses, then the insert that goes where it stopped.
    InsertAfterMiss(u64, bool),
    Remove(u64),
    Find(u64),
    RetainMultiplesOf(u64),
}

fn op() -> impl Strategy<Value = Op> {
    let key = 0..200u64;
    prop_oneof![
        2 => (key.clone(), any::<bool>()).prop_map(|(k, high)| Op::Insert(k, high)),
        2 => (key.clone(), any::<bool>()).prop_map(|(k, high)| Op::InsertAfterMiss(k, high)),
        2 => key.clone().prop_map(Op::Remove),
        2 => key.prop_map(Op::Find),
        1 => (2..6u64).prop_map(Op::RetainMultiplesOf),
    ]
}

/// A key's hash, and the same read back from its entry.
type Hashes = (fn(u64) -> u64, fn(NonNull<u8>) -> u64);

proptest! {
    #[test]
    fn behaves_like_a_hash_set(
        ops in proptest::collection::vec(op(), 1..400),
        colliding in any::<bool>(),
        pooled in any::<bool>(),
    ) {
        let hashes: Hashes = if colliding { (colliding_hash, colliding_hash_of) } else { (mixed_hash, mixed_hash_of) };
        let (hash, hash_of) = hashes;
        let pool = ArrayPool::default();
        // SAFETY: the pool is declared first, so dropped after the set.
        let slots = if pooled { unsafe { Slots::with_pool((), hash_of, &pool) } } else { Slots::new((), hash_of) };
        // Key -> whether its entry was filed with a top bit set (untagged).
        let mut model = std::collections::HashMap::new();
        for op in ops {
            let mut guard = slots.lock();
            match op {
                Op::Insert(key, high) => {
                    if let std::collections::hash_map::Entry::Vacant(vacant) = model.entry(key) {
                        guard.insert(hash(key), fake(key, high), Reach::Unpinned).unwrap();
                        vacant.insert(high);
                    }
                }
                Op::InsertAfterMiss(key, high) => {
                    let (found, probes) = guard.find_counting(hash(key), |e| key_of(e) == key);
                    prop_assert_eq!(found.is_some(), model.contains_key(&key));
                    if found.is_none() {
                        guard.insert_after_miss(hash(key), probes, fake(key, high), Reach::Unpinned, || {}).unwrap();
                        model.insert(key, high);
                    }
                }
                Op::Remove(key) => {
                    let filed = model.remove(&key);
                    let entry = fake(key, filed.unwrap_or(false));
                    prop_assert_eq!(guard.remove(hash(key), entry), filed.is_some());
                }
                Op::Find(key) => {
                    let expected = model.get(&key).map(|high| fake(key, *high));
                    prop_assert_eq!(guard.find(hash(key), |e| key_of(e) == key), expected);
                    drop(guard);
                    let pin = reclaim::pin();
                    prop_assert_eq!(slots.find(&pin, hash(key), |e| key_of(e) == key), expected);
                    continue;
                }
                Op::RetainMultiplesOf(divisor) => {
                    let mut removed = Vec::new();
                    guard.retain(|e| key_of(e).is_multiple_of(divisor), |e| removed.push(key_of(e)));
                    let mut expected: Vec<u64> = model.keys().copied().filter(|k| k % divisor != 0).collect();
                    model.retain(|k, _| k % divisor == 0);
                    removed.sort_unstable();
                    expected.sort_unstable();
                    prop_assert_eq!(removed, expected);
                }
            }
            prop_assert_eq!(guard.len(), model.len());
            prop_assert!(guard.capacity() == 0 || within_max_load(guard.len(), guard.capacity()));
        }
        let guard = slots.lock();
        for (key, high) in &model {
            prop_assert_eq!(guard.find(hash(*key), |e| key_of(e) == *key), Some(fake(*key, *high)));
        }
    }
}

/// A real entry: readers read it, the writer frees it through `reclaim`.
#[repr(align(8))]
struct Boxed {
    key: u64,
    hash: u64,
}

fn boxed_hash_of(entry: NonNull<u8>) -> u64 {
    // SAFETY: the stress test's set only holds live boxes (they are retired after removal).
    unsafe { entry.cast::<Boxed>().as_ref() }.hash
}

unsafe fn free_boxed(ptr: NonNull<()>, _: *const ()) {
    // SAFETY: made by `Box::into_raw` in `file`, retired once.
    drop(unsafe { Box::from_raw(ptr.cast::<Boxed>().as_ptr()) });
}

fn file(guard: &mut SlotsGuard<'_, Retired>, key: u64) -> NonNull<u8> {
    let hash = mixed_hash(key);
    let entry = NonNull::from(Box::leak(Box::new(Boxed { key, hash }))).cast::<u8>();
    guard.insert(hash, entry, Reach::Unpinned).unwrap();
    entry
}

fn stress_ops() -> usize {
    std::env::var("DYNATOM_STRESS_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(200_000)
}

/// Readers find the stable keys on every try, while one writer churns other keys,
/// grows the set repeatedly, sweeps, and frees removed entries through `reclaim`; a
/// churned key is found only as itself.
#[test]
fn lock_free_finds_survive_churn_growth_and_reclamation() {
    let _serial = reclaim::long_pins_serial();
    const STABLE: u64 = 64;
    // More churned keys than ever live at once, so the live ones are distinct.
    const CHURN: u64 = 1024;
    // The arrays come from a pool, as a table's do: freed ones are zeroed and handed out
    // again (small), or handed back and reused (large), while readers probe.
    let pool = ArrayPool::default();
    // SAFETY: the pool is declared first, so dropped after the set; the readers are
    // joined, and the set dropped, before this function returns.
    let slots = StdArc::new(unsafe { Slots::with_pool(Retired::default(), boxed_hash_of, &pool) });
    {
        let mut guard = slots.lock();
        for key in 0..STABLE {
            file(&mut guard, key);
        }
    }
    let stop = StdArc::new(AtomicBool::new(false));
    let readers: Vec<_> = (0..2)
        .map(|seed: u64| {
            let (slots, stop) = (slots.clone(), stop.clone());
            std::thread::spawn(move || {
                let mut key = seed;
                let mut rounds = 0u64;
                while !stop.load(StdOrdering::Relaxed) || rounds < 1000 {
                    rounds += 1;
                    key = key.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    let wanted = key % (STABLE + CHURN);
                    let guard = reclaim::pin();
                    let found = slots.find(&guard, mixed_hash(wanted), |entry| {
                        // SAFETY: the guard keeps retired boxes allocated.
                        unsafe { entry.cast::<Boxed>().as_ref() }.key == wanted
                    });
                    if wanted < STABLE {
                        assert!(found.is_some(), "stable key {wanted} missed");
                    }
                    if let Some(entry) = found {
                        // SAFETY: as above.
                        let boxed = unsafe { entry.cast::<Boxed>().as_ref() };
                        assert_eq!((boxed.key, boxed.hash), (wanted, mixed_hash(wanted)));
                    }
                }
            })
        })
        .collect();
    let mut live = std::collections::VecDeque::new();
    let mut next = STABLE;
    for op in 0..stress_ops() {
        let mut guard = slots.lock();
        // A window of churned keys: a few hundred live, so the set grows, sweeps and
        // rebuilds many times over.
        let window = if (op / 5_000) % 2 == 0 { 600 } else { 20 };
        if live.len() < window {
            live.push_back(file(&mut guard, STABLE + next % CHURN));
            next += 1;
        } else if op % 1_000 == 0 {
            guard.retain(
                // SAFETY: every entry in the set is a live box.
                |entry| unsafe { entry.cast::<Boxed>().as_ref() }.key < STABLE,
                |_| {},
            );
            let retired: &mut Retired = &mut guard;
            for entry in live.drain(..) {
                // SAFETY: unlinked by `retain` just now, retired once.
                unsafe { retired.retire(entry.cast(), free_boxed) };
            }
        } else {
            let entry = live.pop_front().expect("not empty");
            // SAFETY: a live box of the set.
            let hash = unsafe { entry.cast::<Boxed>().as_ref() }.hash;
            assert!(guard.remove(hash, entry));
            let retired: &mut Retired = &mut guard;
            // SAFETY: unlinked just now, retired once.
            unsafe { retired.retire(entry.cast(), free_boxed) };
        }
        let retired: &mut Retired = &mut guard;
        if retired.len() > 256 {
            retired.collect();
        }
    }
    stop.store(true, StdOrdering::Relaxed);
    for reader in readers {
        reader.join().unwrap();
    }
    let slots = StdArc::into_inner(slots).expect("the readers are gone");
    let mut guard = slots.lock();
    // No reader is left: what is still filed can be freed at once.
    guard.retain(
        |_| false,
        |entry| {
            // SAFETY: unlinked, a live box, and no reader exists any more.
            unsafe { free_boxed(entry.cast(), std::ptr::null()) }
        },
    );
    drop(guard);
    // Frees the retired boxes and old arrays still waiting.
    drop(slots);
    assert_eq!(pool.pages_in_use(), 0, "every small array's page went back");
    assert!(pool.usage().idle_bytes > 0, "the set grew past the small arrays, and its large ones wait, idle");
}

#[test]
fn a_pooled_set_hands_every_array_back_to_its_pool() {
    let _serial = reclaim::long_pins_serial();
    let pool = ArrayPool::default();
    {
        // SAFETY: the pool outlives the set, dropped in this block.
        let slots = unsafe { Slots::with_pool((), mixed_hash_of, &pool) };
        let mut guard = slots.lock();
        for key in 0..20_000u64 {
            guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        }
        guard.retain(|entry| key_of(entry) < 100, |_| {});
        guard.start_migration(growth::fitting_capacity(100)).unwrap();
        guard.finish_migration();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while guard.collect_arrays() > 0 {
            assert!(std::time::Instant::now() < deadline, "other tests' pins are short: the arrays must go");
            std::thread::yield_now();
        }
        for key in 0..100u64 {
            assert_eq!(guard.find(mixed_hash(key), |entry| key_of(entry) == key), Some(fake(key, false)));
        }
        let usage = pool.usage();
        assert!(usage.idle_bytes >= 32768 * 8, "the large arrays wait, idle, the largest among them: {usage:?}");
    }
    assert_eq!(pool.pages_in_use(), 0, "every small array's page went back");
}

/// Iterations of the measurements below (`DYNATOM_MEASURE_OPS`, default 10⁷).
fn measure_ops() -> u64 {
    std::env::var("DYNATOM_MEASURE_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000)
}

/// The reader's cost: a pin, a lock-free find that hits, the unpin. Run by hand (one
/// thread, so it measures the instructions and fences, not contention):
/// `cargo test -p dynatom --release --lib measure_hit -- --ignored --nocapture`; under
/// callgrind, two runs with different `DYNATOM_MEASURE_OPS` give instructions per hit.
#[test]
#[ignore = "a measurement, run by hand"]
fn measure_hit_cost() {
    const KEYS: u64 = 1_000;
    let slots = Slots::new((), mixed_hash_of);
    {
        let mut guard = slots.lock();
        for key in 0..KEYS {
            guard.insert(mixed_hash(key), fake(key, false), Reach::Unpinned).unwrap();
        }
    }
    let hashes: Vec<u64> = (0..KEYS).map(mixed_hash).collect();
    let ops = measure_ops();
    // `DYNATOM_MEASURE_ONLY` = `hit`, `pin` or `find` runs one loop (for callgrind).
    let only = std::env::var("DYNATOM_MEASURE_ONLY").ok();
    let runs = |name: &str| only.as_deref().is_none_or(|only| only == name);
    let per = |d: std::time::Duration| d.as_secs_f64() * 1e9 / ops as f64;
    if runs("hit") {
        let started = std::time::Instant::now();
        let mut found = 0u64;
        for op in 0..ops {
            let key = op % KEYS;
            let guard = reclaim::pin();
            found += u64::from(slots.find(&guard, hashes[key as usize], |e| key_of(e) == key).is_some());
        }
        let elapsed = started.elapsed();
        assert_eq!(found, ops);
        println!("pin + find (hit) + unpin: {:.2} ns per op over {ops}", per(elapsed));
    }
    if runs("pin") {
        let started = std::time::Instant::now();
        for _ in 0..ops {
            std::hint::black_box(reclaim::pin());
        }
        println!("pin + unpin: {:.2} ns per op over {ops}", per(started.elapsed()));
    }
    if runs("find") {
        let outer = reclaim::pin();
        let started = std::time::Instant::now();
        let mut found = 0u64;
        for op in 0..ops {
            let key = op % KEYS;
            found += u64::from(slots.find(&outer, hashes[key as usize], |e| key_of(e) == key).is_some());
        }
        let elapsed = started.elapsed();
        assert_eq!(found, ops);
        println!("find (hit, already pinned): {:.2} ns per op over {ops}", per(elapsed));
    }
}

/// Latency of each insert while one set fills with `DYNATOM_MEASURE_OPS` distinct entries
/// (default 10⁶ here), lock included: median, p99, p99.9 and max, in ns. Run by hand:
/// `DYNATOM_MEASURE_OPS=1000000 cargo test -p dynatom --release --lib measure_fill -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, run by hand"]
fn measure_fill_latency() {
    let entries = measure_ops().min(10_000_000);
    let slots = Slots::new((), mixed_hash_of);
    let hashes: Vec<u64> = (0..entries).map(mixed_hash).collect();
    let mut latencies = Vec::with_capacity(entries as usize);
    // Slow inserts (over 1 µs) made while a migration ran, and in all.
    let (mut slow_migrating, mut slow) = (0, 0);
    for key in 0..entries {
        let started = std::time::Instant::now();
        let mut guard = slots.lock();
        guard.insert(hashes[key as usize], fake(key, false), Reach::Unpinned).unwrap();
        let migrating = guard.is_migrating();
        drop(guard);
        let elapsed = started.elapsed().as_nanos() as u64;
        latencies.push(elapsed);
        if elapsed > 1_000 {
            slow += 1;
            slow_migrating += usize::from(migrating);
        }
    }
    assert_eq!(slots.lock().len(), entries as usize);
    println!("inserts over 1 µs: {slow}, of which {slow_migrating} during a migration");
    print_latencies("slots, incremental growth", &mut latencies);
    // The same fill into hashbrown's table (what the shards use today), which rehashes
    // everything in the insert that grows it.
    let table = std::sync::Mutex::new(hashbrown::HashTable::<u64>::new());
    latencies.clear();
    for key in 0..entries {
        let started = std::time::Instant::now();
        table.lock().unwrap().insert_unique(hashes[key as usize], key, |key| hashes[*key as usize]);
        latencies.push(started.elapsed().as_nanos() as u64);
    }
    print_latencies("hashbrown, whole rehash", &mut latencies);
}

fn print_latencies(what: &str, latencies: &mut [u64]) {
    latencies.sort_unstable();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize];
    println!(
        "{what}: insert latency over a {}-entry fill, ns: median {}, p99 {}, p99.9 {}, max {}",
        latencies.len(),
        at(0.5),
        at(0.99),
        at(0.999),
        latencies[latencies.len() - 1]
    );
}

/// As [`measure_fill_latency`], but spread over 64 sets chosen by hash bits 32.., as the
/// table's shards are: each array is 1/64 of the size.
#[test]
#[ignore = "a measurement, run by hand"]
fn measure_sharded_fill_latency() {
    const SHARDS: usize = 64;
    let entries = measure_ops().min(10_000_000);
    let shards: Vec<Slots<()>> = (0..SHARDS).map(|_| Slots::new((), mixed_hash_of)).collect();
    let hashes: Vec<u64> = (0..entries).map(mixed_hash).collect();
    let mut latencies = Vec::with_capacity(entries as usize);
    for key in 0..entries {
        let hash = hashes[key as usize];
        let started = std::time::Instant::now();
        shards[(hash >> 32) as usize % SHARDS].lock().insert(hash, fake(key, false), Reach::Unpinned).unwrap();
        latencies.push(started.elapsed().as_nanos() as u64);
    }
    let filed: usize = shards.iter().map(|shard| shard.lock().len()).sum();
    assert_eq!(filed, entries as usize);
    print_latencies("slots, 64 shards", &mut latencies);
    let tables: Vec<std::sync::Mutex<hashbrown::HashTable<u64>>> = (0..SHARDS).map(|_| Default::default()).collect();
    latencies.clear();
    for key in 0..entries {
        let hash = hashes[key as usize];
        let started = std::time::Instant::now();
        tables[(hash >> 32) as usize % SHARDS].lock().unwrap().insert_unique(hash, key, |key| hashes[*key as usize]);
        latencies.push(started.elapsed().as_nanos() as u64);
    }
    print_latencies("hashbrown, 64 shards", &mut latencies);
}

/// The allocator's share of a fill's tail: one 40-byte allocation per insert (an atom's
/// block), nothing else, as [`measure_fill_latency`] times it.
#[test]
#[ignore = "a measurement, run by hand"]
fn measure_fill_allocations_alone() {
    let entries = measure_ops().min(10_000_000);
    let mut blocks = Vec::with_capacity(entries as usize);
    let mut latencies = Vec::with_capacity(entries as usize);
    for key in 0..entries {
        let started = std::time::Instant::now();
        blocks.push(Box::new([key; 5]));
        latencies.push(started.elapsed().as_nanos() as u64);
    }
    assert_eq!(blocks.len(), entries as usize);
    print_latencies("a 40-byte Box per insert", &mut latencies);
}
