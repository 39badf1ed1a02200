//! What the global table asks of the process: a sweep at exit (for leak checkers), its
//! locks held across `fork`, and the hook through which a drop reports an unused atom.

/// Has the process sweep the global table when it exits (from `atexit`, so before a leak
/// checker's own exit handler, registered earlier, looks): the unused atoms it frees would
/// otherwise be reachable only through tagged slot words, which LeakSanitizer and
/// valgrind do not recognise as pointers. Atoms still in use are reachable through their
/// handles. Sweeping is safe while other threads still run.
#[cfg(not(loom))]
pub(super) fn sweep_global_table_at_exit() {
    extern "C" fn sweep() {
        crate::atom::table::AtomTable::global().shrink();
    }
    unsafe extern "C" {
        fn atexit(callback: extern "C" fn()) -> std::ffi::c_int;
    }
    // SAFETY: `atexit` is the C library's; `sweep` is a plain function that unwinds into
    // no C frame (shrink does not panic: it only locks, compares and frees).
    let _ = unsafe { atexit(sweep) };
}

#[cfg(loom)]
pub(super) fn sweep_global_table_at_exit() {}

/// Keeps the global table usable in a child of `fork()`.
///
/// A lock held by another thread when a threaded program forks stays locked for good in
/// the child, where that thread does not exist: the exit-time sweep (and any intern) would
/// wait on it forever. So the forking thread takes the fork gate (`sync::fork_gate`: no
/// start-up step or static-set registration is then under way), then every lock the global
/// table uses (the list of live tables, its shards' in order, the static entries', the
/// block cache's, then the reclaimer's: the order the crate's own paths nest them in) and
/// releases them on both sides after it. In the child the reclaimer also forgets the records of the threads that
/// did not survive the fork. A child may then use the global table as the parent did.
/// Tables made with `AtomTable::new()` or `with_seed` are not covered: like any structure
/// behind a lock, one that another thread was writing when the process forked must not
/// be used in the child.
#[cfg(all(unix, not(loom)))]
mod fork {
    use std::cell::RefCell;

    use super::super::ShardGuard;
    use crate::atom::table::reclaim;
    use crate::repr::block_cache::cache;
    use crate::sync::fork_gate;
    use crate::sync::{MutexGuard, lock};

    struct Held {
        // Dropped in declaration order: the reverse of the order they were taken in.
        reclaimer: Option<reclaim::ForkHold>,
        _cache: cache::ForkHold,
        _statics: MutexGuard<'static, Vec<usize>>,
        _permanent: MutexGuard<'static, Vec<crate::repr::atom_word::RawAtom>>,
        _shards: Vec<ShardGuard<'static>>,
        _live_tables: MutexGuard<'static, Vec<usize>>,
    }

    std::thread_local! {
        static HELD: RefCell<Option<Held>> = const { RefCell::new(None) };
    }

    fn prepare() {
        // The fork gate is held: the global table is either made or not begun.
        let Some(table) = crate::atom::table::global_table_if_made() else { return };
        let table = table.shared();
        let held = Held {
            _live_tables: lock(&super::super::shared_ref::LIVE_TABLES),
            _shards: table.shards.iter().map(|padded| padded.slots.lock()).collect(),
            _statics: lock(&table.static_entries),
            _permanent: table.permanent.hold_for_fork(),
            _cache: cache::hold_for_fork(),
            reclaimer: Some(reclaim::hold_for_fork()),
        };
        // A fork from a thread whose locals are being destroyed goes unprotected: the
        // locks are released at once.
        let _ = HELD.try_with(|slot| *slot.borrow_mut() = Some(held));
    }

    fn in_parent() {
        let _ = HELD.try_with(|slot| drop(slot.borrow_mut().take()));
    }

    fn in_child() {
        let _ = HELD.try_with(|slot| {
            if let Some(mut held) = slot.borrow_mut().take()
                && let Some(reclaimer) = held.reclaimer.take()
            {
                reclaimer.release_in_child();
            }
        });
    }

    static HOOKS: fork_gate::ForkHooks = fork_gate::ForkHooks { prepare, in_parent, in_child };

    /// Has the fork gate's handlers (registered with `pthread_atfork`, and taking the
    /// gate first) take the global table's locks too.
    pub(crate) fn keep_locks_across_fork() {
        fork_gate::set_fork_hooks(&HOOKS);
    }
}

#[cfg(not(all(unix, not(loom))))]
mod fork {
    pub(crate) fn keep_locks_across_fork() {}
}

/// The hook `repr::heap` calls when a global atom becomes unused.
#[cfg(not(loom))]
pub(crate) fn note_global_unused(hash: u64, bytes: usize) {
    // SAFETY: `AtomTable::global` installs this hook only once the table is in place, and
    // whoever calls it read the hook from its `OnceLock` after that. Asked with a check,
    // the table cost every intern-then-drop of an unused atom three instructions more.
    let table = unsafe { crate::atom::table::global_table_if_made().unwrap_unchecked() };
    table.shared().note_unused(hash, bytes);
}

/// Under loom: the hook, which finds the global table of the model that runs.
#[cfg(loom)]
pub(crate) fn note_global_unused(hash: u64, bytes: usize) {
    if let Some(table) = crate::atom::table::global_table_if_made() {
        table.shared().note_unused(hash, bytes);
    }
}

pub(super) use fork::keep_locks_across_fork;
