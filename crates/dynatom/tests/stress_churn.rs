//! Two threads intern and drop the same 100 keys in a local table for a fixed time, so
//! atoms turn unused all the time while the other thread is interning the same text;
//! with a third thread sweeping, counts also reach zero (and entries leave the table)
//! while they are revived. Every atom must read back its own text, and the table must end
//! empty after a final sweep. Without the sweeper, each key is filed exactly once: unused
//! atoms are revived, never filed again.
//!
//! `DYNATOM_CHURN_SECS` sets the duration (default 2 s; `scripts/test` runs 30 s in
//! release, the valgrind and AddressSanitizer runs less).

use std::time::{Duration, Instant};

use dynatom::{Atom, AtomTable, Str};

const KEYS: usize = 100;

fn duration() -> Duration {
    let secs = std::env::var("DYNATOM_CHURN_SECS").ok().and_then(|v| v.parse::<f64>().ok()).unwrap_or(2.0);
    Duration::from_secs_f64(secs)
}

/// Interns each thread makes whatever the clock says: under valgrind, which runs one thread
/// at a time, a thread may not be scheduled at all before the deadline.
const MIN_OPS_PER_THREAD: u64 = 4_000;

/// One thread's loop: returns how many interns it made.
fn churn(table: &AtomTable, keys: &[String], thread: usize, until: Instant, sweeps: bool) -> u64 {
    let mut ops = 0u64;
    let mut held: Vec<Atom> = Vec::new();
    let mut i = thread * 37;
    while ops < MIN_OPS_PER_THREAD || Instant::now() < until {
        for _ in 0..1000 {
            i = (i + 1 + thread) % KEYS;
            let text = &keys[i];
            let atom = match ops % 3 {
                0 => table.intern(text),
                1 => Str::from(text.as_str()).intern_in(table),
                _ => match table.lookup(text) {
                    Some(atom) => atom,
                    None => table.intern(text),
                },
            };
            assert_eq!(atom.as_str(), text, "an atom read back another key's text");
            ops += 1;
            // With a sweeper, the churners sweep now and then too, so that sweeps meet
            // churn even where threads do not interleave finely (valgrind runs one at a time).
            if sweeps && ops.is_multiple_of(256) {
                table.shrink();
            }
            // Mostly drop at once (the count goes back to zero); hold a few for a while.
            if ops.is_multiple_of(16) {
                held.push(atom);
                if held.len() > 8 {
                    held.clear();
                }
            }
        }
    }
    for atom in &held {
        assert_eq!(table.lookup(atom.as_str()).as_ref(), Some(atom));
    }
    ops
}

/// Two churning threads, and a third sweeping if `sweeper`; returns the table's report
/// before the final sweep.
fn run(sweeper: bool) -> dynatom::MemoryReport {
    let table = AtomTable::with_seed(2024);
    let keys: Vec<String> = (0..KEYS).map(|i| format!("churned key number {i:03} {}", "x".repeat(i % 23))).collect();
    let until = Instant::now() + duration();
    let churning = std::sync::atomic::AtomicUsize::new(2);
    let ops: Vec<u64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|t| {
                scope.spawn({
                    let (table, keys, churning) = (&table, &keys, &churning);
                    move || {
                        let ops = churn(table, keys, t, until, sweeper);
                        churning.fetch_sub(1, std::sync::atomic::Ordering::Release);
                        ops
                    }
                })
            })
            .collect();
        if sweeper {
            let (table, churning) = (&table, &churning);
            // Sweeps for as long as anyone churns, not until a deadline the churners may
            // outlive (see MIN_OPS_PER_THREAD).
            scope.spawn(move || {
                while churning.load(std::sync::atomic::Ordering::Acquire) > 0 {
                    table.shrink();
                }
            });
        }
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let report = table.memory_report();
    eprintln!(
        "churn (sweeper: {sweeper}): {} interns in {:?} (threads {:?}); {} inserts, {} removals",
        ops.iter().sum::<u64>(),
        duration(),
        ops,
        report.inserts,
        report.removals
    );
    assert_eq!(table.len(), 0, "every atom was dropped, so no atom is in use");
    assert_eq!(report.atoms, 0);
    table.shrink();
    let swept = table.memory_report();
    assert_eq!((swept.unused_atoms, swept.unused_bytes), (0, 0));
    assert_eq!(swept.inserts, swept.removals, "every insert was removed again");
    report
}

#[test]
fn two_threads_intern_and_drop_the_same_keys_and_the_table_ends_empty() {
    let report = run(true);
    assert!(report.removals > KEYS as u64, "counts must have reached zero again and again");
}

#[test]
fn unused_atoms_are_revived_not_filed_again() {
    let report = run(false);
    assert_eq!(report.inserts, KEYS as u64, "each key filed once");
    assert_eq!(report.unused_atoms, KEYS);
}
