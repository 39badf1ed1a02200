//! Many threads interning, cloning, dropping, looking up and sweeping a small key set, so
//! that the races between a last drop, a revival of the unused atom and a sweep taking it
//! back are hit often. At the end every atom still held is the one a fresh intern gives,
//! and after a final sweep a counting allocator shows every byte freed.
//! This binary holds that one test alone, so no other test allocates while it counts.
//!
//! `DYNATOM_STRESS_OPS` sets the operations per thread (default 1,000,000; the valgrind
//! run uses fewer).

use dynatom::{Atom, AtomTable, Str};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Barrier;
use std::sync::atomic::{AtomicIsize, Ordering};

/// Counts the bytes allocated and freed while the current thread is inside dynatom work
/// (see `counted`), so std's own per-thread bookkeeping, which it sets up and tears down
/// lazily around spawned threads, never blurs the figure.
struct CountingAllocator;

static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);

thread_local! {
    static COUNTING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn counting() -> bool {
    COUNTING.with(|c| c.get())
}

/// Runs `f` with this thread's allocations counted.
fn counted<R>(f: impl FnOnce() -> R) -> R {
    COUNTING.with(|c| c.set(true));
    let result = f();
    COUNTING.with(|c| c.set(false));
    result
}

// SAFETY: forwards to the system allocator and only adds bookkeeping.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as ours.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() && counting() {
            LIVE_BYTES.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if counting() {
            LIVE_BYTES.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as ours.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() && counting() {
            LIVE_BYTES.fetch_add(new_size as isize - layout.size() as isize, Ordering::Relaxed);
        }
        new
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

const THREADS: usize = 4;

fn ops_per_thread() -> usize {
    std::env::var("DYNATOM_STRESS_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

/// A few keys of every size class; few enough that threads keep meeting on them.
fn keys() -> Vec<String> {
    let mut keys: Vec<String> = (0..6).map(|i| format!("a shared key of some length, number {i}")).collect();
    keys.extend((0..3).map(|i| format!("mid-key-{i:06}")));
    keys.push("tiny".into());
    keys
}

/// A small xorshift generator: deterministic per thread, no allocation.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 as usize
    }
}

/// A thread's first lock-free lookup registers it with the table's reclaimer, once per
/// thread for the process's life: done before counting, so it is not taken for a leak.
fn register_reader() {
    let _ = AtomTable::global().lookup("registers this thread as a lock-free reader");
}

/// Runs `ops` random operations; returns what the thread still holds at the end.
fn churn(table: &AtomTable, keys: &[String], seed: u64, ops: usize) -> (Vec<Atom>, Vec<Str>) {
    let mut rng = Rng(seed);
    let mut held: Vec<Atom> = Vec::with_capacity(16);
    let mut strs: Vec<Str> = Vec::with_capacity(16);
    for _ in 0..ops {
        let key = &keys[rng.next() % keys.len()];
        match rng.next() % 8 {
            0 | 1 => held.push(table.intern(key)),
            2 => {
                if let Some(atom) = table.lookup(key) {
                    assert_eq!(atom.as_str(), key);
                    held.push(atom);
                }
            }
            3 => {
                if let Some(atom) = held.last() {
                    held.push(atom.clone());
                }
            }
            4 => {
                if let Some(atom) = held.last() {
                    strs.push(Str::from(atom));
                }
            }
            5 => {
                if let Some(s) = strs.pop() {
                    let atom = s.intern_in(table);
                    assert_eq!(atom, s.as_str());
                }
            }
            6 if rng.next().is_multiple_of(32) => {
                // Sweep while other threads drop and revive.
                table.shrink();
            }
            _ => {
                // Drop most of what we hold, to keep counts falling to zero.
                let keep = rng.next() % 3;
                held.truncate(keep);
                strs.truncate(keep);
            }
        }
        if held.len() > 12 {
            held.clear();
        }
        if strs.len() > 12 {
            strs.clear();
        }
    }
    (held, strs)
}

/// One whole run: a table, THREADS threads churning on it, the checks at the end. Every
/// allocation the table, its blocks and its shards make or free is counted: the threads
/// count from the first to the last operation, and this thread while it makes, sweeps and
/// drops the table.
fn churn_round(table: &AtomTable, keys: &[String], ops: usize) {
    let barrier = Barrier::new(THREADS);
    let mut kept: Vec<(Vec<Atom>, Vec<Str>)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..THREADS)
            .map(|thread| {
                let barrier = &barrier;
                scope.spawn(move || {
                    register_reader();
                    barrier.wait();
                    counted(|| churn(table, keys, 0x9E37_79B9 + thread as u64, ops))
                })
            })
            .collect();
        threads.into_iter().map(|t| t.join().unwrap()).collect()
    });
    counted(|| {
        // Every atom and string still held is the table's one entry for its text.
        for (atoms, strs) in kept.drain(..) {
            // (Texts of up to 7 bytes are atoms by value: equal, at no shared address.)
            for atom in &atoms {
                let fresh = table.intern(atom.as_str());
                assert_eq!(&fresh, atom);
                assert!(atom.len() <= 7 || fresh.as_ptr() == atom.as_ptr(), "one entry per text");
            }
            for s in &strs {
                let atom = s.intern_in(table);
                assert!(s.len() <= 7 || atom.as_ptr() == s.as_ptr(), "strings of atoms stay their atoms' buffers");
            }
        }
        table.shrink();
    });
    // The outer list was made outside the counted span, so it is freed outside it too.
    drop(kept);
    // Counted, like every other call on the table here.
    let report = counted(|| table.memory_report());
    // Permanent atoms (the global table's, when threads contended on them) stay in use
    // with no handle; every other atom was swept.
    assert_eq!(table.len(), report.permanent_atoms, "no atom is in use but the permanent ones: {report}");
    assert_eq!((report.unused_atoms, report.unused_bytes, report.atoms), (0, 0, report.permanent_atoms), "{report}");
    assert_eq!(report.inserts, report.removals + report.permanent_atoms as u64, "{report}");
    assert!(report.removals > 0, "{report}");
}

#[test]
fn concurrent_churn_leaves_nothing_behind() {
    let keys = keys();
    register_reader();
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    // A table of its own seed (copies), then one that adopts strings' buffers.
    let tables: [fn() -> AtomTable; 2] = [|| AtomTable::with_seed(0xDEC0DE), AtomTable::new];
    for make in tables {
        let table = counted(make);
        churn_round(&table, &keys, ops_per_thread());
        counted(|| drop(table));
        assert_eq!(LIVE_BYTES.load(Ordering::SeqCst), before, "every byte freed (table, shards, blocks)");
    }
    // The global table, sweeping as eagerly as it can, so that droppers sweep too. It is
    // never dropped, and a shard keeps its smallest slot array once it has one: so the
    // first round sets up the shards these keys use, and the second must end where the
    // first did.
    // Contended atoms, and atoms that keep coming back from unused, are made permanent
    // there unless told otherwise: they are never freed, so these two rounds count every
    // atom.
    let global = AtomTable::global();
    global.set_unused_limit(0);
    global.set_permanent_on_contention(false);
    global.set_permanent_on_reuse(false);
    churn_round(global, &keys, ops_per_thread());
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    churn_round(global, &keys, ops_per_thread());
    assert_eq!(LIVE_BYTES.load(Ordering::SeqCst), before, "every byte freed (blocks, retired blocks)");
    // Then as configured by default: whatever contention and reuse made permanent stays,
    // the rest is swept (checked by the round), and the permanent atoms keep to their
    // budget.
    global.set_permanent_on_contention(true);
    global.set_permanent_on_reuse(true);
    churn_round(global, &keys, ops_per_thread());
    let report = global.memory_report();
    assert!(report.permanent_bytes <= (1 << 20) + 64 * 1024, "{report}");
}
