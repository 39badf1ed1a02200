//! Two threads intern and drop the same 100 keys in a local table for a fixed time, so
//! counts reach zero (and entries leave the table) all the time while the other thread
//! is interning the same text: every atom must read back its own text, and the table
//! must end empty.
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

/// One thread's loop: returns how many interns it made.
fn churn(table: &AtomTable, keys: &[String], thread: usize, until: Instant) -> u64 {
    let mut ops = 0u64;
    let mut held: Vec<Atom> = Vec::new();
    let mut i = thread * 37;
    while Instant::now() < until {
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

#[test]
fn two_threads_intern_and_drop_the_same_keys_and_the_table_ends_empty() {
    let table = AtomTable::with_seed(2024);
    let keys: Vec<String> = (0..KEYS).map(|i| format!("churned key number {i:03} {}", "x".repeat(i % 23))).collect();
    let until = Instant::now() + duration();
    let ops: Vec<u64> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|t| {
                scope.spawn({
                    let (table, keys) = (&table, &keys);
                    move || churn(table, keys, t, until)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let report = table.memory_report();
    eprintln!(
        "churn: {} interns in {:?} (threads {:?}); {} inserts, {} removals",
        ops.iter().sum::<u64>(),
        duration(),
        ops,
        report.inserts,
        report.removals
    );
    assert_eq!(table.len(), 0, "every atom was dropped, so the table must be empty");
    assert_eq!(report.atoms, 0);
    assert_eq!(report.inserts, report.removals, "every insert was removed again");
    assert!(report.removals > KEYS as u64, "counts must have reached zero again and again");
}
