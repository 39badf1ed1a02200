//! Multi-threaded behaviour of the tables: one atom per text under concurrent interning,
//! the global table's adoption racing with interning of the same text, and tables dropped
//! while other threads hold their atoms (which keep the tables' slabs).
//!
//! `DYNATOM_STRESS_OPS` scales the work (the valgrind run uses less).

use dynatom::{Atom, AtomTable, Str};

const THREADS: usize = 4;

fn ops_per_thread() -> usize {
    std::env::var("DYNATOM_STRESS_OPS").ok().and_then(|v| v.parse().ok()).unwrap_or(1_000_000)
}

#[test]
fn concurrent_interning_of_equal_text_gives_one_atom() {
    let table = AtomTable::with_seed(77);
    let texts: Vec<String> = (0..200).map(|i| format!("equal text interned by many threads {i}")).collect();
    let per_thread: Vec<Vec<Atom>> = std::thread::scope(|scope| {
        let handles: Vec<_> =
            (0..THREADS).map(|_| scope.spawn(|| texts.iter().map(|t| table.intern(t)).collect::<Vec<_>>())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for atoms in &per_thread[1..] {
        for (a, b) in atoms.iter().zip(&per_thread[0]) {
            assert_eq!(a.as_ptr(), b.as_ptr(), "pointer-identical atoms");
        }
    }
    assert_eq!(table.len(), texts.len());
}

/// Each key's atom ends unused once every thread is done: with automatic promotion off,
/// no count is left behind; with it on, an atom still in use is one the table made
/// permanent (its count no longer tells).
#[test]
fn global_adoption_races_with_interning() {
    AtomTable::global().set_permanent_on_contention(false);
    AtomTable::global().set_permanent_on_reuse(false);
    adoption_race("global adoption race key");
    for i in 0..7 {
        assert!(Atom::lookup(&format!("global adoption race key {i}")).is_none());
    }
    AtomTable::global().set_permanent_on_contention(true);
    AtomTable::global().set_permanent_on_reuse(true);
    adoption_race("global adoption race, promoting, key");
    for i in 0..7 {
        let left = Atom::lookup(&format!("global adoption race, promoting, key {i}"));
        assert!(left.is_none_or(|atom| atom.is_permanent()), "a counted atom left in use");
    }
}

fn adoption_race(prefix: &str) {
    let ops = (ops_per_thread() / 50).max(1000);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            scope.spawn(move || {
                for i in 0..ops {
                    let text = format!("{prefix} {}", i % 7);
                    if thread % 2 == 0 {
                        let s = Str::from(text.as_str());
                        let atom = s.intern();
                        assert_eq!(atom, s.as_str());
                    } else {
                        let atom = Atom::from(text.as_str());
                        assert_eq!(Atom::lookup(&text), Some(atom));
                    }
                }
            });
        }
    });
}

/// Tables made and dropped while other threads hold, clone and drop their atoms: every
/// atom a table copies in lies in one of its slabs, which outlive the table until the last
/// such atom goes (each freed by whichever thread drops it). Every atom keeps its text
/// throughout; valgrind and ASan (scripts/test) watch the slabs' memory.
#[test]
fn atoms_outlive_their_tables_across_threads() {
    const PER_ROUND: usize = 48;
    let rounds = (ops_per_thread() / 2_000).max(8);
    let (senders, receivers): (Vec<_>, Vec<_>) =
        (0..THREADS).map(|_| std::sync::mpsc::channel::<Vec<(Atom, String)>>()).unzip();
    let mut receivers = receivers.into_iter().map(Some).collect::<Vec<_>>();
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            let next = senders[(thread + 1) % THREADS].clone();
            let inbox = receivers[thread].take().expect("one inbox per thread");
            scope.spawn(move || {
                let mut kept: Vec<(Atom, String)> = Vec::new();
                for round in 0..rounds {
                    let table = if round % 2 == 0 { AtomTable::new() } else { AtomTable::with_seed(round as u64) };
                    let mut batch = Vec::with_capacity(PER_ROUND);
                    for i in 0..PER_ROUND {
                        // 8 to 300 bytes: every slab size class, and texts too long for one.
                        let text = format!("{thread}:{round}:{i}:{}", "s".repeat((i * 13 + round) % 293));
                        let atom = table.intern(&text);
                        assert_eq!(table.intern(&text), atom);
                        batch.push((atom, text));
                    }
                    // Half goes to the next thread, a quarter stays here, the rest is dropped
                    // with the table.
                    let passed: Vec<_> = batch.drain(..PER_ROUND / 2).collect();
                    kept.extend(batch.drain(..PER_ROUND / 4));
                    drop(batch);
                    if next.send(passed).is_err() {
                        break;
                    }
                    drop(table);
                    while let Ok(received) = inbox.try_recv() {
                        for (atom, text) in &received {
                            assert_eq!(atom.as_str(), text);
                        }
                        kept.extend(received.into_iter().step_by(2));
                    }
                    if kept.len() > 4 * PER_ROUND {
                        for (atom, text) in kept.drain(..2 * PER_ROUND) {
                            assert_eq!(atom.as_str(), text);
                            let clone = atom.clone();
                            drop(atom);
                            assert_eq!(clone.as_str(), text);
                        }
                    }
                }
                drop(next);
                for (atom, text) in kept {
                    assert_eq!(atom.as_str(), text);
                }
                // What the previous thread sent after this one's last look.
                for received in inbox.iter() {
                    for (atom, text) in received {
                        assert_eq!(atom.as_str(), text);
                    }
                }
            });
        }
        drop(senders);
    });
}
