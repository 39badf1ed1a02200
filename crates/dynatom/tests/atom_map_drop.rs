//! A large `AtomMap` dropped at once: its keys are reported to the atom table together,
//! so every shard is swept once, after all of them went unused, and none is left unused;
//! keys held elsewhere, inline keys and values are dropped as a map's should be.

mod valgrind;

use std::rc::Rc;

use dynatom::{Atom, AtomMap, AtomTable};

/// Fewer keys under valgrind (~50x slower), still more than four times the unused floor
/// in each of up to 64 shards.
fn keys() -> usize {
    if valgrind::running() { 40_000 } else { 200_000 }
}

/// Only this test uses the global table in this binary, so its report is this test's.
#[test]
fn dropping_a_large_map_frees_every_key_it_left_unused() {
    let table = AtomTable::global();
    let texts: Vec<String> = (0..keys()).map(|i| format!("map drop identifier {i:07}")).collect();
    let values = Rc::new(());
    let mut map = AtomMap::new();
    for text in &texts {
        map.insert(text.as_str(), Rc::clone(&values));
    }
    for short in ["a", "bc", "seven!!"] {
        map.insert(short, Rc::clone(&values));
    }
    let held_elsewhere = Atom::from(texts[17].as_str());
    let report = table.memory_report();
    assert_eq!((report.atoms, report.unused_atoms), (texts.len(), 0), "{report}");

    drop(map);
    assert_eq!(Rc::strong_count(&values), 1, "every value was dropped");
    let report = table.memory_report();
    // Dropped one by one, each shard keeps whatever its last check left (up to half a
    // bound); told at once, each shard sweeps after its last key went unused.
    assert_eq!((report.atoms, report.unused_atoms), (1, 0), "{report}");
    assert_eq!(report.removals as usize, texts.len() - 1, "{report}");
    assert_eq!(held_elsewhere.as_str(), texts[17]);
    assert_eq!(Atom::lookup(&texts[17]).as_ref(), Some(&held_elsewhere));
    assert_eq!(Atom::lookup(&texts[18]), None);

    // The texts intern again, and a cleared map lets go of its keys the same way.
    let mut again: AtomMap<u32> = texts.iter().step_by(2).map(|text| (text.as_str(), 1)).collect();
    assert_eq!(again.get(texts[2].as_str()), Some(&1));
    again.clear();
    assert!(again.is_empty());
    let report = table.memory_report();
    assert_eq!((report.atoms, report.unused_atoms), (1, 0), "{report}");
}
