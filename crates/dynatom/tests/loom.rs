//! loom model of the atom table's insert / lookup / drop / sweep: the resurrection race
//! (a lookup meeting an atom whose last handle is going), and the three-way race of a last
//! drop, an intern reviving the unused atom, and a sweep taking it back. Run with `RUSTFLAGS="--cfg loom" cargo test --release --test loom`.
//!
//! Each model runs twice with the two sides swapped between the spawned thread and the
//! main thread: loom's search only remembers the last access to each atomic, so one
//! arrangement can hide interleavings the other finds.
#![cfg(loom)]

use dynatom::{Atom, AtomTable, ByteStr, Str};
use loom::thread;

const TEXT: &str = "a text long enough to be filed in the table";

/// A model explorer bounded to two preemptions per execution: the three-thread models
/// over the lock-free slots and the reclaimer are too large to search exhaustively in the
/// time `scripts/test` allows, and bugs of this kind need few preemptions to show.
fn bounded() -> loom::model::Builder {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder
}

/// Runs `left` and `right` concurrently, once with each on the spawned thread, on the
/// global table; then sweeps it, so that loom's teardown of its statics (in no fixed
/// order) finds the table empty and takes no step of the model. An atom the table made
/// permanent meanwhile (a hit that met the other thread's count change) is turned back
/// into a counted one first: no handle is left, and loom wants every allocation freed.
fn both_ways<L, R>(left: L, right: R)
where
    L: Fn() + Send + Sync + Clone + 'static,
    R: Fn() + Send + Sync + Clone + 'static,
{
    both_ways_in(loom::model::Builder::new, left, right);
}

/// [`both_ways`] with the explorer `builder` makes.
fn both_ways_in<L, R>(builder: fn() -> loom::model::Builder, left: L, right: R)
where
    L: Fn() + Send + Sync + Clone + 'static,
    R: Fn() + Send + Sync + Clone + 'static,
{
    let (l, r) = (left.clone(), right.clone());
    builder().check(move || {
        let r = r.clone();
        let spawned = thread::spawn(move || r());
        l();
        spawned.join().unwrap();
        AtomTable::global().demote_permanent_for_model();
        AtomTable::global().shrink();
    });
    builder().check(move || {
        let l = left.clone();
        let spawned = thread::spawn(move || l());
        right();
        spawned.join().unwrap();
        AtomTable::global().demote_permanent_for_model();
        AtomTable::global().shrink();
    });
}

/// Two threads intern and drop the same text while the other's handle may be dying: no
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
    loom::model(|| {
        let table = AtomTable::with_seed(1);
        let first = table.intern(TEXT);
        let other_table = table.clone();
        let dropper = thread::spawn(move || {
            drop(first);
            let again = other_table.lookup(TEXT);
            if let Some(atom) = &again {
                assert_eq!(atom.as_str(), TEXT);
            }
        });
        let atom = table.intern(TEXT);
        assert_eq!(atom.as_str(), TEXT);
        drop(atom);
        dropper.join().unwrap();
        assert_eq!(table.len(), 0);
    });
}

/// Two threads intern the same new text at once: both miss without the lock, and the one
/// that files second must see the first's atom under the lock (the shard's write version
/// lets a miss skip the locked probe only when nothing was filed in between). One atom,
/// both handles equal.
#[test]
fn first_interns_race_to_one_atom() {
    loom::model(|| {
        let table = AtomTable::new();
        let other_table = table.clone();
        let racer = thread::spawn(move || other_table.intern(TEXT));
        let mine = table.intern(TEXT);
        let theirs = racer.join().unwrap();
        assert_eq!(mine, theirs, "one atom per text");
        assert_eq!(table.len(), 1);
    });
}

/// A lookup racing with the last drop must never revive the dying atom.
#[test]
fn lookup_does_not_resurrect() {
    for reader_spawned in [true, false] {
        loom::model(move || {
            let table = AtomTable::with_seed(2);
            let atom = table.intern(TEXT);
            let other = table.clone();
            let read = move |t: &AtomTable| t.lookup(TEXT).map(Str::from);
            let found = if reader_spawned {
                let reader = thread::spawn(move || read(&other));
                drop(atom);
                reader.join().unwrap()
            } else {
                let dropper = thread::spawn(move || drop(atom));
                let found = read(&other);
                dropper.join().unwrap();
                found
            };
            if let Some(s) = &found {
                assert_eq!(s.as_str(), TEXT);
                assert_eq!(table.len(), 1);
            }
            drop(found);
            assert_eq!(table.len(), 0);
        });
    }
}

/// A look that takes no count (`contains_text`) racing with the last drop and a sweep:
/// it reads the entry under its pin only, never keeps the atom in use, and sees it in use
/// for as long as a handle is held.
#[test]
fn look_without_count_races_drop_and_sweep() {
    for looker_spawned in [true, false] {
        bounded().check(move || {
            let table = AtomTable::with_seed(5);
            let atom = table.intern(TEXT);
            let kept = atom.clone();
            let other = table.clone();
            let look = move |t: &AtomTable| {
                let seen = (t.contains_text(TEXT), t.contains(&kept));
                drop(kept);
                seen
            };
            let drop_and_sweep = move |t: AtomTable| {
                drop(atom);
                t.shrink();
            };
            let (text_seen, atom_listed) = if looker_spawned {
                let looker = thread::spawn(move || look(&other));
                drop_and_sweep(table.clone());
                looker.join().unwrap()
            } else {
                let sweeper = thread::spawn(move || drop_and_sweep(other));
                let seen = look(&table);
                sweeper.join().unwrap();
                seen
            };
            // `kept` was held throughout the look: the atom was in use, so both looks saw it.
            assert!(text_seen && atom_listed);
            assert!(!table.contains_text(TEXT));
            assert_eq!(table.len(), 0);
        });
    }
}

/// The global table adopting a `Str`'s buffer while another thread interns the text.
#[test]
fn adoption_races_with_interning() {
    both_ways(
        || {
            let s = Str::from(TEXT);
            let adopted = s.intern();
            assert_eq!(adopted.as_str(), TEXT);
        },
        || {
            let atom = Atom::from(TEXT);
            assert_eq!(atom.as_str(), TEXT);
        },
    );
}

/// A local table handle dropped while another thread still holds one of its atoms.
#[test]
fn table_outlived_by_its_atoms() {
    for holder_spawned in [true, false] {
        loom::model(move || {
            let table = AtomTable::with_seed(3);
            let atom = table.intern(TEXT);
            if holder_spawned {
                let holder = thread::spawn(move || drop(atom));
                drop(table);
                holder.join().unwrap();
            } else {
                let owner = thread::spawn(move || drop(table));
                drop(atom);
                owner.join().unwrap();
            }
        });
    }
}

/// The last handle goes while another thread interns the text again (reviving the unused
/// atom) and a third sweeps: the sweep frees the atom only if nobody revived it, the
/// reviver never gets a freed block, and one entry per text remains.
#[test]
fn last_drop_revive_and_sweep_race() {
    for table_kind in [0, 1] {
        bounded().check(move || {
            let table = if table_kind == 0 { AtomTable::with_seed(4) } else { AtomTable::new() };
            let atom = table.intern(TEXT);
            let (for_reviver, for_sweeper) = (table.clone(), table.clone());
            let reviver = thread::spawn(move || {
                let revived = for_reviver.intern(TEXT);
                assert_eq!(revived.as_str(), TEXT);
                revived
            });
            let sweeper = thread::spawn(move || {
                for_sweeper.shrink();
            });
            drop(atom);
            let revived = reviver.join().unwrap();
            sweeper.join().unwrap();
            assert_eq!(table.len(), 1);
            assert_eq!(table.intern(TEXT).as_ptr(), revived.as_ptr(), "one entry per text");
            drop(revived);
            assert_eq!(table.len(), 0);
            assert_eq!(table.shrink(), 1);
        });
    }
}

/// In the global table the dropper that makes an atom unused sweeps its shard itself (a
/// limit of 0 makes every such drop sweep), racing with an intern of the same text.
#[test]
fn dropper_sweeps_while_another_thread_revives() {
    both_ways_in(
        bounded,
        || {
            AtomTable::global().set_unused_limit(0);
            let atom = Atom::from(TEXT);
            drop(atom);
        },
        || {
            let atom = Atom::from(TEXT);
            assert_eq!(atom.as_str(), TEXT);
            assert_eq!(Atom::from(TEXT), atom);
        },
    );
}

/// An owner that counts its drops (a plain counter: the assertion's, not the model's).
struct CountedOwner(Vec<u8>, std::sync::Arc<std::sync::atomic::AtomicUsize>);

impl AsRef<[u8]> for CountedOwner {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Drop for CountedOwner {
    fn drop(&mut self) {
        self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Clones, takes a part of and drops a handle of a string over an owner's bytes.
fn share_and_drop(s: ByteStr) {
    let part = s.slice_ref(&s[2..30]);
    let again = part.clone();
    drop(s);
    assert_eq!(again, TEXT.as_bytes()[2..30]);
    drop(part);
    drop(again);
}

/// A string over an owner's bytes: two threads clone, slice and drop their handles, so
/// either may release the last one while the other clones. The owner is dropped exactly
/// once, after both are done with it, and the control block is freed (loom checks its
/// allocations).
#[test]
fn owner_last_release_races_clone() {
    loom::model(|| {
        let drops = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let s = ByteStr::from_owner(CountedOwner(TEXT.as_bytes().to_vec(), drops.clone()));
        let theirs = s.clone();
        let spawned = thread::spawn(move || share_and_drop(theirs));
        share_and_drop(s);
        spawned.join().unwrap();
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 1);
    });
}
