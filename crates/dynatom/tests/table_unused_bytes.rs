//! Unused atoms are bounded in bytes as well as in number: large texts interned and
//! dropped at once leave at most `max(byte floor, in-use bytes / 2)` bytes of unused
//! atoms, as the memory report counts them, in the global table and in local ones.

mod valgrind;

use dynatom::{Atom, AtomTable, MemoryReport, Str};

/// A distinct text of `len` bytes.
fn large_text(tag: &str, i: usize, len: usize) -> String {
    let mut text = format!("{tag} number {i} ");
    let fill = len - text.len();
    text.extend(std::iter::repeat_n('x', fill));
    text
}

/// How many large texts each test interns: fewer under valgrind (~50x slower), still
/// many times the byte floor.
fn texts(n: usize) -> usize {
    if valgrind::running() { n / 6 } else { n }
}

fn assert_within_bound(report: &MemoryReport, step: usize) {
    assert!(
        report.unused_bytes <= report.unused_bytes_limit,
        "after {step} texts: {} unused bytes over the bound {}\n{report}",
        report.unused_bytes,
        report.unused_bytes_limit
    );
}

/// Only this test uses the global table in this binary, so its report is this test's.
#[test]
fn the_global_table_keeps_unused_bytes_within_the_bound() {
    let table = AtomTable::global();
    assert_eq!(table.memory_report().unused_bytes_limit, 4 << 20, "the default floor");
    // 256 KiB texts, each dropped at once, through both ways of interning.
    for i in 0..texts(600) {
        let text = large_text("global, dropped at once", i, 256 << 10);
        if i.is_multiple_of(2) {
            drop(Atom::from(text.as_str()));
        } else {
            drop(Str::from(text).intern());
        }
        assert_within_bound(&table.memory_report(), i);
    }
    // 1 MiB texts, one in three held: the bound follows the bytes in use.
    let mut held = Vec::new();
    for i in 0..texts(300) {
        let atom = Atom::from(large_text("global, one in three held", i, 1 << 20));
        if i.is_multiple_of(3) {
            held.push(atom);
        }
        let report = table.memory_report();
        assert_within_bound(&report, i);
    }
    let report = table.memory_report();
    assert!(report.unused_bytes_limit >= (texts(300) / 3) << 19, "half the bytes in use\n{report}");
    drop(held);
    // The held atoms turned unused all at once: the drops themselves checked the shards.
    let report = table.memory_report();
    assert!(report.unused_bytes <= 4 << 20, "{report}");
}

#[test]
fn a_local_table_keeps_unused_bytes_within_the_bound() {
    for table in [AtomTable::new(), AtomTable::with_seed(5)] {
        for i in 0..texts(600) {
            drop(table.intern(&large_text("local, dropped at once", i, 256 << 10)));
            assert_within_bound(&table.memory_report(), i);
        }
    }
}

#[test]
fn the_byte_floor_can_be_set() {
    let table = AtomTable::new();
    for i in 0..40 {
        drop(table.intern(&large_text("kept under a large floor", i, 64 << 10)));
    }
    let before = table.memory_report();
    table.set_unused_bytes_limit(0);
    let after = table.memory_report();
    assert_eq!(after.unused_bytes_limit, 0);
    assert_eq!((after.unused_atoms, after.unused_bytes), (0, 0), "before: {before}\nafter: {after}");
    table.set_unused_bytes_limit(64 << 20);
    for i in 0..40 {
        drop(table.intern(&large_text("kept under a large floor", i, 64 << 10)));
    }
    assert!(table.memory_report().unused_atoms >= 30, "a 64 MiB floor keeps most of 2.5 MiB");
}

/// Small atoms still stay unused for a later intern: the byte bound takes only what a
/// byte floor of small atoms would exceed.
#[test]
fn small_unused_atoms_are_still_kept_for_reuse() {
    let table = AtomTable::new();
    for i in 0..1000 {
        drop(table.intern(&format!("a small passing text, number {i}")));
    }
    let report = table.memory_report();
    assert!(report.unused_atoms >= 500, "{report}");
}
