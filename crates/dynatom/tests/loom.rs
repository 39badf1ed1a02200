//! loom model of the atom table's insert / lookup / drop, including the resurrection
//! race. Run with `RUSTFLAGS="--cfg loom" cargo test --release --test loom`.
#![cfg(loom)]

use dynatom::{Atom, AtomTable, Str};
use loom::thread;

const TEXT: &str = "a text long enough to be filed in the table";

/// Two threads intern and drop the same text while a third handle may be dying: no
/// double free, no leak (loom checks its allocations), one atom per text.
#[test]
fn intern_and_drop_race() {
    loom::model(|| {
        let table = AtomTable::with_seed(1);
        let first = table.intern(TEXT);
        let other_table = table.clone();
        let racer = thread::spawn(move || {
            let atom = other_table.intern(TEXT);
            assert_eq!(atom.as_str(), TEXT);
            drop(atom);
        });
        drop(first);
        let again = table.lookup(TEXT);
        if let Some(atom) = &again {
            assert_eq!(atom.as_str(), TEXT);
        }
        racer.join().unwrap();
        drop(again);
        assert_eq!(table.len(), 0);
    });
}

/// A lookup racing with the last drop must never revive the dying atom.
#[test]
fn lookup_does_not_resurrect() {
    loom::model(|| {
        let table = AtomTable::with_seed(2);
        let atom = table.intern(TEXT);
        let reader_table = table.clone();
        let reader = thread::spawn(move || reader_table.lookup(TEXT).map(|a| a.to_str()));
        drop(atom);
        let found = reader.join().unwrap();
        if let Some(s) = &found {
            assert_eq!(s.as_str(), TEXT);
            assert_eq!(table.len(), 1);
        }
        drop(found);
        assert_eq!(table.len(), 0);
    });
}

/// The global table adopting a `Str`'s buffer while another thread interns the text.
#[test]
fn adoption_races_with_interning() {
    loom::model(|| {
        let s = Str::from(TEXT);
        let interner = thread::spawn(|| {
            let atom = Atom::from(TEXT);
            assert_eq!(atom.as_str(), TEXT);
        });
        let adopted = s.intern();
        assert_eq!(adopted.as_str(), TEXT);
        interner.join().unwrap();
        drop(adopted);
        drop(s);
        assert!(Atom::lookup(TEXT).is_none());
    });
}

/// A local table handle dropped while another thread still holds one of its atoms.
#[test]
fn table_outlived_by_its_atoms() {
    loom::model(|| {
        let table = AtomTable::with_seed(3);
        let atom = table.intern(TEXT);
        let holder = thread::spawn(move || drop(atom));
        drop(table);
        holder.join().unwrap();
    });
}
