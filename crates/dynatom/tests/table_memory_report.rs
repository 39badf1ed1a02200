//! The atom table's memory report counts what its fields say.

use dynatom::{Atom, AtomTable, MemoryReport, Str, str_format};

/// A literal-only `str_format!` is a static string: its atom's characters stay in the
/// binary and are reported as such, beside the entry that files them.
#[test]
fn an_atom_of_static_text_reports_its_characters() {
    let table = AtomTable::global();
    let text = "a literal text formatted without arguments, seventy-one characters long";
    let formatted = str_format!("a literal text formatted without arguments, seventy-one characters long");
    let before = table.memory_report();
    let atom = formatted.intern();
    let after = table.memory_report();
    assert_eq!(atom, text);
    assert_eq!(after.static_char_bytes - before.static_char_bytes, text.len(), "{after}");
    assert_eq!(after.char_bytes, before.char_bytes, "static characters are not heap characters");
    assert!(after.to_string().contains(&format!("{} B more characters in the binary", after.static_char_bytes)));
    // The same text formatted with an argument is a heap string: its atom adopts the
    // buffer, header and characters on the heap.
    let local = AtomTable::new();
    let count = std::hint::black_box(71);
    let heap = str_format!("a text formatted with an argument, {count} characters long, give or take");
    let adopted = heap.intern_in(&local);
    assert_eq!(adopted.as_ptr(), heap.as_ptr());
    let report = local.memory_report();
    assert_eq!((report.header_bytes, report.char_bytes), (MemoryReport::HEADER_BYTES, heap.len()), "{report}");
    let copied = AtomTable::new();
    let _atom = copied.intern(heap.as_str());
    let copied = copied.memory_report();
    assert_eq!((copied.header_bytes, copied.char_bytes), (report.header_bytes, report.char_bytes));
    drop(Str::from(""));
}

/// Lock-free hits write nothing but the atom's count, so the report counts only the
/// lookups made under a shard's lock, and says so.
#[test]
fn the_report_counts_locked_lookups_and_names_them_so() {
    let table = AtomTable::new();
    let atom = table.intern("counted once, under the lock");
    for _ in 0..100 {
        assert_eq!(table.intern("counted once, under the lock"), atom);
    }
    let report = table.memory_report();
    assert_eq!((report.locked_lookups, report.locked_hits, report.locked_misses), (1, 0, 1));
    assert!(report.to_string().contains("locked lookups 1 (found 0, filed 1)"), "{report}");
    drop(Atom::from("unused"));
}
