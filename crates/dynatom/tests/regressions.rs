//! Bugs the fuzzers found, kept as plain tests.

use dynatom::{AtomTable, Str};

/// Found by `fuzz/fuzz_targets/str_atom.rs`: a static `Str` interned into a local table
/// filed an immortal static entry, whose hold on the table kept the entry and the whole
/// table (64 shards, 8 KiB and more) allocated after the last handle was gone.
#[test]
fn static_texts_in_a_local_table_leave_with_their_last_handle() {
    let table = AtomTable::with_seed(9);
    let from_str = Str::from_static("a static text interned locally").intern_in(&table);
    let direct = table.intern_static("another static text interned locally");
    let slice = Str::from_static("a static text interned locally, then sliced").slice(2..30).intern_in(&table);
    assert_eq!(table.len(), 3);
    assert_eq!(from_str, "a static text interned locally");
    assert_eq!(direct, table.intern("another static text interned locally"));
    assert_eq!(slice, "static text interned locally");
    drop((from_str, direct, slice));
    assert_eq!(table.len(), 0, "static texts must not outlive their atoms in a local table");
    assert!(table.lookup("a static text interned locally").is_none());
}
