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
//!   once, the case counting hurts most;
//! * when a thread's hits bring atoms back from unused, on one in
//!   [`REUSES_PER_PROMOTION`] of them: a program that drops an atom and interns the same
//!   text again (a parser's header names, a request's keys) pays each time for the drop
//!   that tells the table the atom went unused and for the raise that brings it back, and
//!   an atom that does so often is soon the one sampled; or
//! * when asked to ([`Atom::make_permanent`](crate::Atom::make_permanent)).
//!
//! The two automatic rules can be turned off one by one
//! ([`AtomTable::set_permanent_on_contention`](crate::AtomTable::set_permanent_on_contention),
//! [`AtomTable::set_permanent_on_reuse`](crate::AtomTable::set_permanent_on_reuse)).
//!
//! Only the global table does, since it lives as long as the process: a table that can be
//! dropped would have to give back counts nobody kept. And only while the permanent atoms'
//! bytes (headers and characters) are under `max(1 MiB, in-use bytes / 8)`, the in-use
//! bytes being those the table counted at its last check of each shard: permanent memory
//! can never be swept, so it is kept to a fraction of what the program uses. Two threads
//! promoting at once may both pass the check: the budget is overshot by at most one atom
//! per racing thread.

use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::heap::HitSigns;
#[cfg(all(unix, not(loom)))]
use crate::sync::MutexGuard;
use crate::sync::{AtomicBool, AtomicUsize, Mutex, Ordering, lock};

/// Permanent atoms' bytes below which promotion is always allowed.
const BUDGET_FLOOR: usize = 1 << 20;

/// One in this many of a thread's hits that bring an atom back from unused makes that
/// atom permanent. Sampling, rather than promoting on the first return, keeps an atom a
/// program interns again only now and then counted (and sweepable); one that returns on
/// every request is sampled within a few requests.
pub(crate) const REUSES_PER_PROMOTION: u32 = 4;

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
    /// Whether sampled returns from unused promote.
    on_reuse: AtomicBool,
}

impl Permanent {
    pub(super) fn new() -> Permanent {
        Permanent {
            bytes: AtomicUsize::new(0),
            entries: Mutex::new(Vec::new()),
            on_contention: AtomicBool::new(true),
            on_reuse: AtomicBool::new(true),
        }
    }

    /// Takes the list of permanent entries (emptying it), for a loom model's teardown.
    #[cfg(loom)]
    pub(super) fn take_for_model(&self) -> Vec<RawAtom> {
        self.bytes.store(0, Ordering::Relaxed);
        std::mem::take(&mut *lock(&self.entries))
    }

    /// Whether a hit that saw `signs` makes its atom permanent: contended with that rule
    /// on, or a sampled return from unused with that one on.
    pub(super) fn promotes_on(&self, signs: HitSigns) -> bool {
        (signs.contended() && self.on_contention.load(Ordering::Relaxed))
            || (signs.revived() && self.on_reuse.load(Ordering::Relaxed) && reuse_sampled())
    }

    pub(super) fn set_on_contention(&self, on: bool) {
        self.on_contention.store(on, Ordering::Relaxed);
    }

    pub(super) fn set_on_reuse(&self, on: bool) {
        self.on_reuse.store(on, Ordering::Relaxed);
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

/// Whether this return from unused is the thread's sampled one (one in
/// [`REUSES_PER_PROMOTION`]). Loom's threads share the process's thread-locals, and its
/// models must not depend on how many returns earlier models made: there, none is.
#[cfg(not(loom))]
fn reuse_sampled() -> bool {
    std::thread_local! {
        static REUSES_LEFT: std::cell::Cell<u32> = const { std::cell::Cell::new(REUSES_PER_PROMOTION - 1) };
    }
    REUSES_LEFT
        .try_with(|left| {
            let now = left.get();
            left.set(if now == 0 { REUSES_PER_PROMOTION - 1 } else { now - 1 });
            now == 0
        })
        .unwrap_or(false)
}

#[cfg(loom)]
fn reuse_sampled() -> bool {
    false
}
