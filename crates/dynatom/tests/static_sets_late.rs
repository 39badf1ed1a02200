//! Static sets registered at run time, whatever came before: every way of making an atom
//! of a text agrees at every moment (the global table, local tables, the set lookups,
//! byte atoms and `AtomMap` keys by text or by atom), and registering the same set again
//! costs nothing.
#![cfg(feature = "small-map")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;

use dynatom::small_map::AtomMap;
use dynatom::{Atom, AtomTable, ByteAtom, StaticText};

/// Every way to the atom of `text` gives the same atom, declared or not as `declared`.
fn all_ways_agree(set: &str, text: &'static str, declared: bool) {
    let global = Atom::from(text);
    assert_eq!(global.is_declared(), declared, "{text:?}");
    assert_eq!(Atom::from(String::from(text)), global, "an adopted string of {text:?}");
    assert_eq!(ByteAtom::new(text.as_bytes()), *global.as_byte_atom(), "bytes of {text:?}");
    assert_eq!(Atom::lookup(text), Some(global.clone()));
    let local = AtomTable::new();
    let seeded = AtomTable::with_seed(11);
    if declared {
        assert_eq!(local.intern(text), global, "a local table's atom of {text:?}");
        assert_eq!(seeded.intern(text), global, "a seeded table's atom of {text:?}");
        assert_eq!(ByteAtom::from_static_text(set, text.as_bytes()).as_ref(), Some(global.as_byte_atom()));
    } else {
        assert_eq!(ByteAtom::from_static_text(set, text.as_bytes()), None);
    }
    let mut map = AtomMap::new();
    map.insert_atom(global.clone(), 1);
    *map.entry(text).or_insert(0) += 1;
    assert_eq!(map.len(), 1, "one text, one key: {text:?}");
    assert_eq!(map.get(text), Some(&2));
    assert_eq!(map.get(&global), Some(&2));
}

#[test]
fn a_text_interned_once_and_dropped_is_evicted_by_its_set() {
    const TEXT: &str = "interned once, dropped, then declared by a late set";
    static TEXTS: [StaticText; 1] = [StaticText::new("DROPPED", TEXT.as_bytes())];
    let local = AtomTable::new();
    drop(Atom::from(TEXT));
    drop(local.intern(TEXT));
    assert_eq!(local.memory_report().unused_atoms, 1, "kept unused for reuse");
    AtomTable::register_static_set("dropped before", &TEXTS).unwrap();
    assert_eq!(local.memory_report().unused_atoms, 0, "evicted");
    all_ways_agree("dropped before", TEXT, true);
    assert_eq!(local.intern(TEXT), Atom::from(TEXT), "the local table's unused atom was evicted too");
    assert_eq!(local.len(), 0, "a declared atom is filed in no local table");
    AtomTable::global().shrink();
    all_ways_agree("dropped before", TEXT, true);
}

#[test]
fn a_text_in_use_refuses_its_set_whole() {
    const HELD: &str = "held in the global table while its set registers";
    const OTHER: &str = "another text of the refused set, never interned";
    static TEXTS: [StaticText; 2] =
        [StaticText::new("HELD", HELD.as_bytes()), StaticText::new("OTHER", OTHER.as_bytes())];
    let held = Atom::from(HELD);
    let err = AtomTable::register_static_set("held global", &TEXTS).unwrap_err();
    assert!(err.is_interned_before(), "{err}");
    assert!(err.to_string().contains(HELD) && err.to_string().contains("not registered"), "{err}");
    assert!(AtomTable::registered_static_set("held global").is_none(), "nothing registered");
    all_ways_agree("held global", HELD, false);
    all_ways_agree("held global", OTHER, false);
    assert_eq!(Atom::from(HELD), held);
    AtomTable::global().shrink();
    all_ways_agree("held global", HELD, false);
    // Once the atom goes, the same set registers.
    drop(held);
    AtomTable::register_static_set("held global", &TEXTS).unwrap();
    all_ways_agree("held global", HELD, true);
    all_ways_agree("held global", OTHER, true);
}

#[test]
fn a_text_in_use_in_a_local_table_refuses_its_set() {
    const TEXT: &str = "held only by a local table while its set registers";
    static TEXTS: [StaticText; 1] = [StaticText::new("LOCAL", TEXT.as_bytes())];
    let local = AtomTable::with_seed(5);
    let held = local.intern(TEXT);
    let err = AtomTable::register_static_set("held local", &TEXTS).unwrap_err();
    assert!(err.is_interned_before(), "{err}");
    assert_eq!(local.intern(TEXT), held);
    all_ways_agree("held local", TEXT, false);
    drop(held);
    AtomTable::register_static_set("held local", &TEXTS).unwrap();
    assert!(local.intern(TEXT).is_declared());
    all_ways_agree("held local", TEXT, true);
}

#[test]
fn the_same_set_again_costs_nothing_and_another_under_its_name_is_refused() {
    static TEXTS: [StaticText; 2] =
        [StaticText::new("ONE", b"registered many times, kept once"), StaticText::new("TWO", b"two")];
    static SAME: [StaticText; 2] =
        [StaticText::new("ONE", b"registered many times, kept once"), StaticText::new("TWO", b"two")];
    static OTHER: [StaticText; 1] = [StaticText::new("ONE", b"a different text under the taken name")];
    AtomTable::register_static_set("again", &TEXTS).unwrap();
    for _ in 0..100 {
        AtomTable::register_static_set("again", &SAME).unwrap();
    }
    let kept = AtomTable::registered_static_set("again").unwrap();
    assert!(std::ptr::eq(kept, &TEXTS[..]), "the first registration's texts stay the set's");
    let err = AtomTable::register_static_set("again", &OTHER).unwrap_err();
    assert!(err.is_name_taken(), "{err}");
    assert!(!Atom::from("a different text under the taken name").is_declared());
    assert_eq!(ByteAtom::from_static_name("again", "ONE"), Some(ByteAtom::new(b"registered many times, kept once")));
}

/// A permanent atom of a text is in use for good: its set is refused whole, the error says
/// that waiting cannot help (even when an ordinary atom of another text of the set is in
/// use too), and nothing of the set is registered.
#[test]
fn a_permanent_atom_refuses_its_set_for_good() {
    const HOT: &str = "made permanent, then declared by a late set";
    const HELD: &str = "held in a local table, then declared by the same late set";
    static TEXTS: [StaticText; 2] = [StaticText::new("HELD", HELD.as_bytes()), StaticText::new("HOT", HOT.as_bytes())];
    let local = AtomTable::new();
    let held = local.intern(HELD);
    let hot = Atom::from(HOT);
    assert!(hot.make_permanent());
    drop(hot);
    for _ in 0..3 {
        let err = AtomTable::register_static_set("permanent", &TEXTS).unwrap_err();
        assert!(err.is_interned_before() && err.is_interned_permanently(), "{err}");
        assert!(err.to_string().contains(HOT) && err.to_string().contains("permanent"), "{err}");
    }
    drop(held);
    let err = AtomTable::register_static_set("permanent", &TEXTS).unwrap_err();
    assert!(err.is_interned_permanently(), "{err}");
    assert!(AtomTable::registered_static_set("permanent").is_none());
    all_ways_agree("permanent", HOT, false);
    all_ways_agree("permanent", HELD, false);

    // An ordinary atom in use is no refusal for good.
    static ORDINARY: [StaticText; 1] = [StaticText::new("HELD", HELD.as_bytes())];
    let held = local.intern(HELD);
    let err = AtomTable::register_static_set("ordinary", &ORDINARY).unwrap_err();
    assert!(err.is_interned_before() && !err.is_interned_permanently(), "{err}");
    drop(held);
    AtomTable::register_static_set("ordinary", &ORDINARY).unwrap();
    all_ways_agree("ordinary", HELD, true);
}

/// Threads make atoms of the texts, every way, while a set of them registers: each
/// thread's atoms agree with each other at every step, and once the registration returns,
/// all are the declared ones. The threads contend on the same texts, which the global
/// table would otherwise make permanent (refusing the set for good, as the test above
/// shows), and intern them again and again, so automatic promotion (both rules) is off
/// here, as the registration's documentation asks.
#[test]
fn registration_races_interning_and_every_atom_agrees() {
    AtomTable::global().set_permanent_on_contention(false);
    AtomTable::global().set_permanent_on_reuse(false);
    const TEXTS: [&str; 4] = [
        "raced text one, interned while its set registers",
        "raced text two, interned while its set registers",
        "raced text three, interned while its set registers",
        "raced text four, interned while its set registers",
    ];
    static DECLARED: [StaticText; 4] = [
        StaticText::new("ONE", TEXTS[0].as_bytes()),
        StaticText::new("TWO", TEXTS[1].as_bytes()),
        StaticText::new("THREE", TEXTS[2].as_bytes()),
        StaticText::new("FOUR", TEXTS[3].as_bytes()),
    ];
    let stop = Arc::new(AtomicBool::new(false));
    let registered = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..2)
        .map(|t| {
            let (stop, registered) = (stop.clone(), registered.clone());
            thread::spawn(move || {
                let local = AtomTable::new();
                let mut i = 0usize;
                while !stop.load(Ordering::Acquire) {
                    let text = TEXTS[(i + t) % TEXTS.len()];
                    let after = registered.load(Ordering::Acquire);
                    let global = Atom::from(text);
                    let in_local = local.intern(text);
                    let bytes = ByteAtom::new(text.as_bytes());
                    // Made one after another, each may see the set or not, but never an
                    // ordinary atom once the set is in.
                    if global.is_declared() {
                        assert!(in_local.is_declared() && bytes.is_declared(), "{text:?}");
                    }
                    if after {
                        assert!(global.is_declared(), "{text:?} after the registration");
                    }
                    drop((global, in_local, bytes));
                    // Atoms held only now and then, as a program that registers its sets
                    // at start-up might hold them on another thread.
                    thread::sleep(std::time::Duration::from_micros(20));
                    i += 1;
                }
            })
        })
        .collect();
    thread::sleep(std::time::Duration::from_millis(20));
    // The threads drop each atom at once, so an attempt finds at most a brief holder.
    let mut refusals = 0;
    while let Err(err) = AtomTable::register_static_set("raced", &DECLARED) {
        assert!(err.is_interned_before() && !err.is_interned_permanently(), "{err}");
        refusals += 1;
        assert!(refusals < 100_000, "a set whose texts are only held for a moment never registered");
        thread::yield_now();
    }
    registered.store(true, Ordering::Release);
    thread::sleep(std::time::Duration::from_millis(20));
    stop.store(true, Ordering::Release);
    for thread in threads {
        thread.join().unwrap();
    }
    for text in TEXTS {
        all_ways_agree("raced", text, true);
    }
}
