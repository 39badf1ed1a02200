//! Permanent atoms: the global table's atoms whose handles stop counting.
//!
//! An atom's count lives in its header, so every clone, drop and table hit of a hot atom
//! writes one cache line that all the cores using it then fight over. A *permanent* atom
//! has a count in the top half of its range ([`crate::repr::heap::PERMANENT_FROM`]): its
//! handles see it and write nothing, and the atom is never freed. Static atoms are
//! permanent from birth (they have no count); the global table makes a dynamic atom
//! permanent
//!
//! * when a lock-free hit finds another thread moving its count at the same moment (the
//!   hit's compare-and-swap fails on a changed count): the atom is in use on two cores at
//!   once, the case counting hurts most; or
//! * when asked to ([`Atom::make_permanent`](crate::Atom::make_permanent)).
//!
//! Only the global table does, since it lives as long as the process: a table that can be
//! dropped would have to give back counts nobody kept. And only while the permanent atoms'
//! bytes (headers and characters) are under `max(1 MiB, in-use bytes / 8)`, the in-use
//! bytes being those the table counted at its last check of each shard: permanent memory
//! can never be swept, so it is kept to a fraction of what the program uses. Two threads
//! promoting at once may both pass the check: the budget is overshot by at most one atom
//! per racing thread.

use crate::repr::atom_word::{AtomWord, RawAtom};
#[cfg(all(unix, not(loom)))]
use crate::sync::MutexGuard;
use crate::sync::{AtomicBool, AtomicUsize, Mutex, Ordering, lock};

/// Permanent atoms' bytes below which promotion is always allowed.
const BUDGET_FLOOR: usize = 1 << 20;

/// What the global table has made permanent, and the room left for more.
pub(super) struct Permanent {
    /// Headers and characters of the atoms made permanent (the memory report counts the
    /// atoms themselves, from the entries).
    bytes: AtomicUsize,
    /// Their entries. The table's slots hold entries tagged with hash bits, which leak
    /// checkers cannot follow, and no handle may be left: this list keeps the atoms that
    /// are never freed visibly reachable (valgrind would call them lost).
    entries: Mutex<Vec<RawAtom>>,
    /// Whether contended hits promote (explicit requests always may).
    on_contention: AtomicBool,
}

impl Permanent {
    pub(super) fn new() -> Permanent {
        Permanent { bytes: AtomicUsize::new(0), entries: Mutex::new(Vec::new()), on_contention: AtomicBool::new(true) }
    }

    /// Takes the list of permanent entries (emptying it), for a loom model's teardown.
    #[cfg(loom)]
    pub(super) fn take_for_model(&self) -> Vec<RawAtom> {
        self.bytes.store(0, Ordering::Relaxed);
        std::mem::take(&mut *lock(&self.entries))
    }

    /// Whether a contended hit makes its atom permanent.
    pub(super) fn on_contention(&self) -> bool {
        self.on_contention.load(Ordering::Relaxed)
    }

    pub(super) fn set_on_contention(&self, on: bool) {
        self.on_contention.store(on, Ordering::Relaxed);
    }

    /// The lock a promotion takes, for the fork handlers: held across `fork`, so that
    /// the child never finds it taken by a thread that does not exist there.
    #[cfg(all(unix, not(loom)))]
    pub(super) fn hold_for_fork(&self) -> MutexGuard<'_, Vec<RawAtom>> {
        lock(&self.entries)
    }

    /// Makes `atom` permanent if the budget allows (`live_bytes` being the table's bytes
    /// in use) and says whether the atom is permanent now: true for atoms that already
    /// were (inline, declared, static, or promoted before).
    ///
    /// The caller is the global table and `atom` one of its atoms or a value.
    pub(super) fn promote(&self, atom: &AtomWord, live_bytes: usize) -> bool {
        if atom.is_permanent() {
            return true;
        }
        if !atom.is_global_entry() || self.bytes.load(Ordering::Relaxed) >= BUDGET_FLOOR.max(live_bytes / 8) {
            return false;
        }
        let mut entries = lock(&self.entries);
        // Room first: out of memory, the atom simply stays counted.
        if entries.try_reserve(1).is_err() {
            return false;
        }
        if let Some(bytes) = atom.make_permanent_if_global() {
            entries.push(atom.raw());
            self.bytes.fetch_add(bytes, Ordering::Relaxed);
        }
        atom.is_permanent()
    }
}
