//! Permanent atoms of the global table: made so on request, when two threads raise an
//! atom's count at once, or when an atom keeps coming back from unused; never swept or
//! freed, shown in the memory report, and kept to the table's budget.

mod valgrind;

use std::sync::Barrier;
use std::time::{Duration, Instant};

use dynatom::{Atom, AtomTable, ByteAtom, Str};

/// Valgrind runs one thread at a time: two threads never raise a count at the same moment
/// there, so the contention test has nothing to see.
fn under_valgrind() -> bool {
    valgrind::running()
}

#[test]
fn a_permanent_atom_outlives_its_handles_and_every_sweep() {
    let text = "a permanent atom that outlives its handles";
    let atom = Atom::from(text);
    assert!(!atom.is_permanent());
    assert!(atom.make_permanent());
    assert!(atom.is_permanent() && atom.make_permanent(), "asking again says it is");
    let address = atom.as_ptr();
    let clones: Vec<Atom> = (0..100).map(|_| atom.clone()).collect();
    let as_str = Str::from(atom.clone());
    drop((atom, clones, as_str));
    AtomTable::global().shrink();
    let found = Atom::lookup(text).expect("a permanent atom stays in use");
    assert_eq!(found.as_ptr(), address, "the same entry, never freed");
    assert_eq!(Atom::from(text).as_ptr(), address);
    assert!(found.is_permanent());
}

#[test]
fn the_memory_report_counts_permanent_atoms_apart_from_unused_ones() {
    let texts: Vec<String> = (0..10).map(|i| format!("a permanent atom for the report, number {i}")).collect();
    for text in &texts {
        assert!(Atom::from(text.as_str()).make_permanent());
    }
    AtomTable::global().shrink();
    let report = AtomTable::global().memory_report();
    assert!(report.permanent_atoms >= texts.len(), "{report:?}");
    let own_bytes: usize = texts.iter().map(|t| t.len() + dynatom::MemoryReport::HEADER_BYTES).sum();
    assert!(report.permanent_bytes >= own_bytes, "{report:?}");
    assert!(report.permanent_bytes <= report.header_bytes + report.char_bytes, "among the atoms in use");
    assert!(report.to_string().contains("permanent atoms"), "{report}");
    for text in &texts {
        assert!(Atom::lookup(text).is_some(), "in use with no handle: {text}");
    }
}

#[test]
fn values_and_static_atoms_are_permanent_and_local_tables_make_none() {
    assert!(Atom::from("short").is_permanent());
    assert!(Atom::from_static("a static atom, immortal in the binary").is_permanent());
    assert!(ByteAtom::new(b"\xfe byte atoms too").make_permanent());
    let local = AtomTable::new();
    let atom = local.intern("an atom of a table that can be dropped");
    assert!(!atom.make_permanent());
    assert!(!atom.is_permanent());
    let seeded = AtomTable::with_seed(7).intern("an atom of a seeded table");
    assert!(!seeded.make_permanent());
    drop(atom);
    local.shrink();
    assert_eq!(local.memory_report().unused_atoms, 0, "the local atom was swept as usual");
}

#[test]
fn two_threads_hitting_one_atom_make_it_permanent() {
    if under_valgrind() {
        return;
    }
    let text = "an atom two threads intern at once, over and over";
    let atom = Atom::from(text);
    let barrier = Barrier::new(2);
    // Until a deadline rather than for a number of hits: on a loaded machine the two
    // threads may run in turns for a while, and only hits at the same moment contend.
    let deadline = Instant::now() + Duration::from_secs(20);
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                barrier.wait();
                while Instant::now() < deadline {
                    for _ in 0..10_000 {
                        if Atom::from(text).is_permanent() {
                            return;
                        }
                    }
                }
            });
        }
    });
    assert!(atom.is_permanent(), "20 s of hits from two threads and no promotion");
}

/// The reuse rule, on a fresh thread (whose count of returns starts afresh): with it off,
/// an atom dropped and interned again stays counted however often it returns; with it on,
/// the thread's 4th return makes the atom it finds permanent, and no earlier one does.
#[test]
fn an_atom_that_keeps_coming_back_from_unused_is_made_permanent() {
    std::thread::spawn(|| {
        let global = AtomTable::global();
        global.set_permanent_on_reuse(false);
        let counted = "an atom dropped and interned again while the reuse rule is off";
        for _ in 0..100 {
            assert!(!Atom::from(counted).is_permanent(), "promoted with the rule off");
        }
        global.set_permanent_on_reuse(true);
        let text = "an atom dropped and interned again, until the table keeps it";
        drop(Atom::from(text));
        // Each later intern finds the atom unused (unless a sweep in another test took it
        // meanwhile: then that intern files it anew, which is no return and samples nothing).
        let first_permanent = (0..100).find(|_| Atom::from(text).is_permanent());
        let returns = first_permanent.expect("a hundred returns and no promotion") + 1;
        assert!(returns >= 4, "promoted at return {returns}, before the thread's 4th");
        let found = Atom::lookup(text).expect("a permanent atom stays in use");
        assert!(found.is_permanent());
        // A local table makes none.
        let local = AtomTable::new();
        for _ in 0..100 {
            assert!(!local.intern(text).is_permanent());
        }
    })
    .join()
    .expect("the test thread");
}
