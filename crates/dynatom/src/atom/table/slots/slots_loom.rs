//! loom models of [`Slots`] and [`reclaim`]: a lock-free reader against a writer that
//! removes and frees (through the reclaimer, also when another writer moves the epoch),
//! grows, or sweeps an unused entry while its last other handle is dropped.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p dynatom --release --lib loom_`.
//! An entry's payload is a loom `UnsafeCell` that its free overwrites: a reader that reads
//! it without a happens-before edge to the free is reported by loom as a race, which is
//! how a use-after-free would show.

use std::ptr::NonNull;

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::AtomicU32;
use loom::thread;

use super::*;

struct Entry {
    key: u64,
    hash: u64,
    /// Counted handles, the set's own included (as the table's entries will be).
    count: AtomicU32,
    payload: UnsafeCell<u64>,
}

const PAYLOAD: u64 = 0xA70B;

fn hash(key: u64) -> u64 {
    // Keys share a tag (0) and collide on purpose: probes walk past each other.
    key % 2
}

fn new_entry(key: u64, count: u32) -> NonNull<u8> {
    let entry = Entry { key, hash: hash(key), count: AtomicU32::new(count), payload: UnsafeCell::new(PAYLOAD) };
    NonNull::from(Box::leak(Box::new(entry))).cast()
}

/// # Safety
/// `entry` is allocated for the borrow.
unsafe fn entry<'a>(ptr: NonNull<u8>) -> &'a Entry {
    // SAFETY: forwarded from the caller.
    unsafe { ptr.cast::<Entry>().as_ref() }
}

fn hash_of(ptr: NonNull<u8>) -> u64 {
    // SAFETY: the set calls this only on entries it holds, which are allocated.
    unsafe { entry(ptr) }.hash
}

unsafe fn free_entry(ptr: NonNull<()>, _: *const ()) {
    // SAFETY: made by `new_entry`, freed once; the write is what loom checks against
    // every reader's read.
    let entry = unsafe { Box::from_raw(ptr.cast::<Entry>().as_ptr()) };
    entry.payload.with_mut(|payload| {
        // SAFETY: loom checks that no read races with this write.
        unsafe { *payload = 0 }
    });
    drop(entry);
}

/// Finds `key` lock-free and reads its payload, as a hit reads the atom's bytes.
fn read(slots: &Slots<Retired>, key: u64) -> bool {
    let guard = reclaim::pin();
    let found = slots.find(&guard, hash(key), |ptr| {
        // SAFETY: the guard keeps every entry the set held allocated.
        unsafe { entry(ptr) }.key == key
    });
    let Some(ptr) = found else { return false };
    // SAFETY: as above.
    let payload = unsafe { entry(ptr) }.payload.with(|payload| {
        // SAFETY: loom checks this read against the free's write.
        unsafe { *payload }
    });
    assert_eq!(payload, PAYLOAD, "read a freed entry");
    true
}

fn free_all(slots: Slots<Retired>) {
    let mut guard = slots.lock();
    guard.retain(
        |_| false,
        |ptr| {
            // SAFETY: unlinked; no reader is left.
            unsafe { free_entry(ptr.cast(), std::ptr::null()) }
        },
    );
    drop(guard);
    // The retired list frees what it still holds.
    drop(slots);
}

fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut builder = loom::model::Builder::new();
    if builder.preemption_bound.is_none() {
        builder.preemption_bound = Some(3);
    }
    builder.check(f);
}

/// A set holding one entry (key 7), and a thread that looks it up once.
fn entry_7_and_its_reader() -> (Arc<Slots<Retired>>, NonNull<u8>, thread::JoinHandle<()>) {
    let slots = Arc::new(Slots::new(Retired::default(), hash_of));
    let target = new_entry(7, 1);
    slots.lock().insert(hash(7), target, Reach::Unpinned).unwrap();
    let reader = thread::spawn({
        let slots = slots.clone();
        move || {
            read(&slots, 7);
        }
    });
    (slots, target, reader)
}

/// A reader finds an entry while the writer removes it and tries to free it: the entry is
/// freed only after the reader is done with it.
#[test]
fn loom_reader_vs_remove_and_reclaim() {
    model(|| {
        let (slots, target, reader) = entry_7_and_its_reader();
        {
            let mut guard = slots.lock();
            assert!(guard.remove(hash(7), target));
            // SAFETY: unlinked just now, retired once; the list is dropped with the set.
            unsafe { guard.retire(target.cast(), free_entry) };
            for _ in 0..3 {
                guard.collect();
            }
        }
        reader.join().unwrap();
        assert!(!read(&slots, 7), "removed");
        free_all(Arc::try_unwrap(slots).ok().expect("the reader is gone"));
    });
}

unsafe fn free_dummy(ptr: NonNull<()>, _: *const ()) {
    // SAFETY: made by `Box::leak` in the model below, freed once.
    drop(unsafe { Box::from_raw(ptr.cast::<u64>().as_ptr()) });
}

/// As [`loom_reader_vs_remove_and_reclaim`], but the epoch is moved by a third thread
/// (another shard's writer collecting its own list), so the free relies on that thread's
/// advance seeing the reader's announcement: its own barrier, not the stamping writer's.
#[test]
fn loom_reader_vs_reclaim_advanced_by_another_writer() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let (slots, target, reader) = entry_7_and_its_reader();
        let mut guard = slots.lock();
        assert!(guard.remove(hash(7), target));
        // SAFETY: unlinked just now, retired once; the list is dropped with the set.
        unsafe { guard.retire(target.cast(), free_entry) };
        drop(guard);
        let advancer = thread::spawn(|| {
            let mut other = Retired::default();
            // SAFETY: a fresh box nobody else reaches; `free_dummy` frees it.
            unsafe { other.retire(NonNull::from(Box::leak(Box::new(0u64))).cast(), free_dummy) };
            other.collect();
            other.collect();
        });
        advancer.join().unwrap();
        // Frees the target if the epoch has moved two steps since its stamp.
        slots.lock().collect_without_advancing();
        reader.join().unwrap();
        free_all(Arc::try_unwrap(slots).ok().expect("the reader is gone"));
    });
}

/// A reader looks for an entry present throughout while the writer grows the set (the
/// migration spans several writes) and frees the old array: always found, never read
/// after a free (loom checks its allocations for leaks too).
#[test]
fn loom_reader_vs_growth() {
    model(|| {
        let slots = Arc::new(Slots::new(Retired::default(), hash_of));
        for key in 0..3 {
            slots.lock().insert(hash(key), new_entry(key, 1), Reach::Unpinned).unwrap();
        }
        assert_eq!(slots.lock().capacity(), MIN_CAPACITY);
        let reader = thread::spawn({
            let slots = slots.clone();
            move || {
                assert!(read(&slots, 0), "an entry present throughout is found");
                assert!(read(&slots, 2), "an entry present throughout is found");
            }
        });
        {
            for key in 3..6 {
                let mut guard = slots.lock();
                guard.insert(hash(key), new_entry(key, 1), Reach::Unpinned).unwrap();
                guard.collect_arrays();
            }
            let guard = slots.lock();
            assert!(guard.capacity() > MIN_CAPACITY, "grew");
            assert!(!guard.is_migrating(), "the migration ended within the writes");
        }
        reader.join().unwrap();
        free_all(Arc::try_unwrap(slots).ok().expect("the reader is gone"));
    });
}

/// The table's coming protocol in miniature: the set holds one count of each entry; a
/// hit takes a count lock-free unless it is 0 (never revived); the last other handle is
/// dropped concurrently, leaving the entry unused (count 1); a sweep under the lock takes
/// an unused entry's count 1 -> 0, unlinks it and frees it through the reclaimer.
#[test]
fn loom_hit_vs_last_drop_vs_sweep() {
    model(|| {
        let slots = Arc::new(Slots::new(Retired::default(), hash_of));
        // The set's count and one handle's.
        let target = new_entry(7, 2);
        slots.lock().insert(hash(7), target, Reach::Unpinned).unwrap();
        let hit = thread::spawn({
            let slots = slots.clone();
            move || {
                let guard = reclaim::pin();
                // Compares the bytes, as a hit does, before it takes a count.
                let found = slots.find(&guard, hash(7), |ptr| {
                    // SAFETY: the guard keeps every entry the set held allocated.
                    let candidate = unsafe { entry(ptr) };
                    let payload = candidate.payload.with(|payload| {
                        // SAFETY: loom checks this read against the free's write.
                        unsafe { *payload }
                    });
                    candidate.key == 7 && payload == PAYLOAD
                });
                let Some(ptr) = found else { return };
                // SAFETY: as above.
                let found = unsafe { entry(ptr) };
                let mut count = found.count.load(Ordering::Relaxed);
                let acquired = loop {
                    if count == 0 {
                        break false;
                    }
                    match found.count.compare_exchange(count, count + 1, Ordering::Acquire, Ordering::Relaxed) {
                        Ok(_) => break true,
                        Err(now) => count = now,
                    }
                };
                drop(guard);
                if acquired {
                    // Our own handle keeps it alive without the guard.
                    let payload = found.payload.with(|payload| {
                        // SAFETY: loom checks this read against the free's write.
                        unsafe { *payload }
                    });
                    assert_eq!(payload, PAYLOAD);
                    found.count.fetch_sub(1, Ordering::Release);
                }
            }
        });
        let last_drop = thread::spawn(move || {
            // SAFETY: this thread's handle keeps the entry allocated until this decrement.
            unsafe { entry(target) }.count.fetch_sub(1, Ordering::Release);
        });
        let swept = {
            let mut guard = slots.lock();
            // SAFETY: under the lock every entry in the set is allocated.
            let unused = unsafe { entry(target) }.count.compare_exchange(1, 0, Ordering::Acquire, Ordering::Relaxed);
            if unused.is_ok() {
                assert!(guard.remove(hash(7), target));
                // SAFETY: unlinked just now, retired once.
                unsafe { guard.retire(target.cast(), free_entry) };
                for _ in 0..3 {
                    guard.collect();
                }
            }
            unused.is_ok()
        };
        hit.join().unwrap();
        last_drop.join().unwrap();
        let slots = Arc::try_unwrap(slots).ok().expect("the threads are gone");
        if !swept {
            // SAFETY: still filed, so allocated.
            let count = unsafe { entry(target) }.count.load(Ordering::Relaxed);
            assert_eq!(count, 1, "every handle but the set's is gone");
        }
        free_all(slots);
    });
}

/// A removal in the middle of a migration tombstones the entry in both arrays and frees
/// it through the reclaimer, while a reader probes both arrays: an entry present
/// throughout is found, the removed one is read only while still allocated.
#[test]
fn loom_reader_vs_removal_mid_migration() {
    model(|| {
        let slots = Arc::new(Slots::new(Retired::default(), hash_of));
        let mut filed = Vec::new();
        for key in 0..3 {
            let entry = new_entry(key, 1);
            slots.lock().insert(hash(key), entry, Reach::Unpinned).unwrap();
            filed.push(entry);
        }
        let reader = thread::spawn({
            let slots = slots.clone();
            move || {
                read(&slots, 1);
                assert!(read(&slots, 2), "an entry present throughout is found");
            }
        });
        {
            let mut guard = slots.lock();
            guard.insert(hash(3), new_entry(3, 1), Reach::Unpinned).unwrap();
            assert!(guard.is_migrating(), "the growth copies over several writes");
            assert!(guard.remove(hash(1), filed[1]));
            let is_removed = |ptr: NonNull<u8>| std::ptr::eq(ptr.as_ptr(), filed[1].as_ptr());
            assert_eq!(guard.find(hash(1), is_removed), None, "gone from both arrays");
            // SAFETY: unlinked from both arrays just now, retired once.
            unsafe { guard.retire(filed[1].cast(), free_entry) };
            guard.insert(hash(4), new_entry(4, 1), Reach::Unpinned).unwrap();
            assert!(!guard.is_migrating());
            assert_eq!(guard.find(hash(1), is_removed), None);
            guard.collect();
            guard.collect_arrays();
        }
        reader.join().unwrap();
        free_all(Arc::try_unwrap(slots).ok().expect("the reader is gone"));
    });
}
