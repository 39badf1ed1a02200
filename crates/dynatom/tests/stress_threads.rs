//! Multi-threaded behaviour of the tables: one atom per text under concurrent interning,
//! and the global table's adoption racing with interning of the same text.
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

#[test]
fn global_adoption_races_with_interning() {
    let ops = (ops_per_thread() / 50).max(1000);
    std::thread::scope(|scope| {
        for thread in 0..THREADS {
            scope.spawn(move || {
                for i in 0..ops {
                    let text = format!("global adoption race key {}", i % 7);
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
    for i in 0..7 {
        assert!(Atom::lookup(&format!("global adoption race key {i}")).is_none());
    }
}
