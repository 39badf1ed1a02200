//! Atoms dropped and interned from thread-local destructors, before and after the
//! thread's reclaimer record is given back (thread-locals are destroyed in the reverse
//! order of their first use: one first used before the thread's first intern is
//! destroyed after the crate's own thread-locals, one first used after it, before them).

use std::cell::RefCell;
use std::thread;

use dynatom::{Atom, AtomTable, Str};

/// Atoms held by a thread-local; its destructor drops them, interns more and drops
/// those, through the global table and a local one.
struct Holder {
    atoms: Vec<Atom>,
    local: Option<(AtomTable, Vec<Atom>)>,
}

impl Drop for Holder {
    fn drop(&mut self) {
        let texts: Vec<String> = self.atoms.iter().map(|a| a.as_str().to_owned()).collect();
        // Dropping the last handles turns the global atoms unused (the table hears of it
        // and may sweep, which pins and retires).
        self.atoms.clear();
        for (i, text) in texts.iter().enumerate() {
            let again = if i.is_multiple_of(2) { Atom::from(text.as_str()) } else { Str::from(text.as_str()).intern() };
            assert_eq!(again.as_str(), text);
            assert_eq!(Atom::lookup(text), Some(again.clone()));
            drop(Atom::from(format!("{text}, interned by a destructor")));
        }
        AtomTable::global().shrink();
        if let Some((table, atoms)) = self.local.take() {
            drop(atoms);
            let fresh = table.intern("a local atom interned by a destructor");
            assert_eq!(table.lookup("a local atom interned by a destructor"), Some(fresh));
            table.shrink();
        }
    }
}

thread_local! {
    static HOLDER: RefCell<Option<Holder>> = const { RefCell::new(None) };
}

fn fill(thread: usize) {
    let atoms = (0..64).map(|i| Atom::from(format!("held by thread {thread} in a thread-local, number {i}"))).collect();
    let table = AtomTable::new();
    let local_atoms = (0..16).map(|i| table.intern(&format!("local atom {i} of thread {thread}"))).collect();
    HOLDER.with(|h| *h.borrow_mut() = Some(Holder { atoms, local: Some((table, local_atoms)) }));
}

#[test]
fn a_thread_local_made_before_the_first_intern_drops_and_interns_in_its_destructor() {
    for round in 0..20 {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                thread::spawn(move || {
                    // First touched before anything of the crate: destroyed after the
                    // reclaimer's record has been given back.
                    HOLDER.with(|h| assert!(h.borrow().is_none()));
                    fill(round * 4 + t);
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("the thread and its destructors ran without a panic");
        }
    }
}

#[test]
fn a_thread_local_made_after_the_first_intern_drops_and_interns_in_its_destructor() {
    for round in 0..20 {
        let handles: Vec<_> = (0..4)
            .map(|t| {
                thread::spawn(move || {
                    // The crate's thread-locals first, then ours: ours is destroyed first.
                    drop(Atom::from("interned before the thread-local is made"));
                    fill(1000 + round * 4 + t);
                })
            })
            .collect();
        for handle in handles {
            handle.join().expect("the thread and its destructors ran without a panic");
        }
    }
}

/// What the destructors left behind is all there and all consistent.
#[test]
fn atoms_interned_by_destructors_are_filed_once() {
    thread::spawn(|| fill(5000)).join().unwrap();
    let text = "held by thread 5000 in a thread-local, number 3, interned by a destructor";
    // Dropped at once by the destructor: unused, or swept; never two entries.
    let a = Atom::from(text);
    let b = Atom::from(text.to_owned());
    assert_eq!(a, b);
    assert_eq!(a.as_ptr(), b.as_ptr());
}
