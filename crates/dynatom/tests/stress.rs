//! Many threads interning, cloning, dropping and looking up a small key set, so that the
//! resurrection race (a lookup meeting an atom whose last handle is being dropped) is hit
//! often. At the end the table is empty and a counting allocator shows every byte freed.
//! This binary holds that one test alone, so no other test allocates while it counts.
//!
//! `DYNATOM_STRESS_OPS` sets the operations per thread (default 1,000,000; the valgrind
//! run uses fewer).

use dynatom::{Atom, AtomTable, Str};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Barrier;

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

fn churn(table: &AtomTable, keys: &[String], seed: u64, ops: usize) {
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
}

/// One whole run: a table, THREADS threads churning on it, the checks at the end. Every
/// allocation the table, its blocks and its shards make or free is counted: the threads
/// count from the first to the last operation, and this thread while it makes and drops
/// the table.
fn churn_round(keys: &[String], ops: usize) {
    let table = counted(|| AtomTable::with_seed(0xDEC0DE));
    let barrier = Barrier::new(THREADS);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let (table, barrier) = (&table, &barrier);
            scope.spawn(move || {
                barrier.wait();
                counted(|| churn(table, keys, 0x9E37_79B9 + thread as u64, ops));
            });
        }
    });
    assert_eq!(table.len(), 0, "every atom left the table");
    let report = table.memory_report();
    assert_eq!(report.inserts, report.removals, "{report}");
    assert!(report.hits > 0 && report.removals > 0, "{report}");
    counted(|| drop(table));
}

#[test]
fn concurrent_churn_leaves_nothing_behind() {
    let keys = keys();
    let before = LIVE_BYTES.load(Ordering::SeqCst);
    churn_round(&keys, ops_per_thread());
    assert_eq!(LIVE_BYTES.load(Ordering::SeqCst), before, "every byte freed (table, shards, blocks)");
}
