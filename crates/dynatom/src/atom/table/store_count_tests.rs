//! Where a hit writes, in the store-counting build (`scripts/store-count-tests`; see
//! [`crate::sync::store_count`]): every address a thread's atomics wrote while it interned
//! a text that already had an atom. A hit takes no pin, so it writes nothing but the
//! atom's count, and not even that for a permanent atom.

use std::ops::Range;

use crate::sync::store_count::record;
use crate::{Atom, AtomTable};

const HITS: usize = 1000;

/// The bytes of `atom`'s block: its header (the count first) and its text.
fn block_span(atom: &Atom) -> Range<usize> {
    let text = atom.as_str();
    let header = text.as_ptr().addr() - crate::MemoryReport::HEADER_BYTES;
    header..text.as_ptr().addr() + text.len()
}

/// `HITS` interns of `text` in `table`, each dropped at once, after a first one (which may
/// register the thread with the reclaimer); the addresses they wrote.
fn hits(table: &AtomTable, text: &str) -> Vec<usize> {
    drop(table.intern(text));
    let ((), written) = record(|| {
        for _ in 0..HITS {
            drop(table.intern(text));
        }
    });
    written
}

#[test]
fn a_permanent_atoms_hits_clones_and_drops_write_nothing_to_the_atom_or_the_table() {
    let text = "a global atom made permanent before the store count";
    let atom = Atom::from(text);
    assert!(atom.make_permanent());
    let written = hits(AtomTable::global(), text);
    assert!(written.is_empty(), "hits of a permanent atom wrote: {written:x?}");
    eprintln!("a permanent atom's hit: {} writes", written.len() as f64 / HITS as f64);

    let ((), written) = record(|| {
        for _ in 0..HITS {
            drop(atom.clone());
        }
    });
    assert!(written.is_empty(), "clones and drops of a permanent atom wrote: {written:x?}");
}

#[test]
fn a_counted_atoms_hit_writes_its_count_twice_and_nothing_else_of_the_table() {
    // A table other than the global one makes no atom permanent.
    let table = AtomTable::new();
    let text = "an atom of a local table, held while it is hit";
    let held = table.intern(text);
    let written = hits(&table, text);
    let count = block_span(&held).start;
    let to_count = written.iter().filter(|&&address| address == count).count();
    assert_eq!(to_count, 2 * HITS, "one raise and one drop per hit");
    let elsewhere: Vec<usize> = written.iter().copied().filter(|&address| address != count).collect();
    assert!(elsewhere.is_empty(), "hits wrote elsewhere than the atom's count: {elsewhere:x?}");
    eprintln!("a counted atom's hit and drop: {} writes, all to its count", written.len() as f64 / HITS as f64);
}
