//! A large map of global atoms dropped at once (the end of a compiler pass, a cache
//! cleared): the drops themselves sweep the shards as they pass their bounds, so what is
//! left unused afterwards is within the table's floor, and every text interns again.

mod valgrind;

use dynatom::{Atom, AtomTable};

/// The default unused-atom floor of the whole table (4,096 atoms).
const FLOOR: usize = 4096;

/// Fewer atoms under valgrind (~50x slower), still large shards (the floor is 64 atoms a
/// shard; this is well past four floors a shard).
fn atoms() -> usize {
    if valgrind::running() { 40_000 } else { 200_000 }
}

/// Only this test uses the global table in this binary, so its report is this test's.
#[test]
fn a_mass_drop_leaves_no_more_unused_atoms_than_the_floor() {
    let table = AtomTable::global();
    let texts: Vec<String> = (0..atoms()).map(|i| format!("mass drop identifier {i:07}")).collect();
    let held: Vec<Atom> = texts.iter().map(|text| Atom::from(text.as_str())).collect();
    let report = table.memory_report();
    assert_eq!((report.atoms, report.unused_atoms), (texts.len(), 0), "{report}");

    drop(held);
    let report = table.memory_report();
    assert!(report.unused_atoms <= FLOOR, "{} unused atoms after the drop\n{report}", report.unused_atoms);
    assert!(report.removals as usize >= texts.len() - FLOOR, "{report}");

    // Half of them again: swept atoms are filed anew, unused ones revived.
    let again: Vec<Atom> = texts.iter().step_by(2).map(|text| Atom::from(text.as_str())).collect();
    for (atom, text) in again.iter().zip(texts.iter().step_by(2)) {
        assert_eq!(atom.as_str(), text);
        assert_eq!(Atom::lookup(text).as_ref(), Some(atom));
    }
    let report = table.memory_report();
    assert_eq!(report.atoms, again.len(), "{report}");
    assert!(report.unused_atoms <= FLOOR, "{report}");
}
