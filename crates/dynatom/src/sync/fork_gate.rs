//! The fork gate: one process-wide lock around every step that a child of `fork()` must
//! never find half done (the index of the program's static sets and the global table being
//! made, a static set being registered at run time).
//!
//! A lock, or a `OnceLock` still being initialised, that another thread holds when a
//! threaded program forks stays held for good in the child, where that thread does not
//! exist. So the forking thread takes the gate before the fork (waiting for a step under
//! way to end) and opens it again on both sides after it; the hooks a layer above installs
//! ([`set_fork_hooks`]: the global table's locks) run while it is held, so they are taken
//! in the same order everywhere: gate first.
//!
//! The handlers are registered with `pthread_atfork` before `main` on Linux (an
//! `.init_array` entry, which also runs when the library is loaded with `dlopen`), so no
//! fork can fall between a step taking the gate and the handlers being in place. Elsewhere
//! the first step registers them.
//!
//! Not reentrant: a thread that holds the gate must not ask for it again.

#[cfg(not(loom))]
pub(crate) use imp::{ForkHooks, Gate, enter, set_fork_hooks};
#[cfg(loom)]
pub(crate) use model::{ForkHooks, Gate, enter, set_fork_hooks};

#[cfg(not(loom))]
mod imp {
    use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU8, Ordering};

    use crate::sync::Backoff;

    /// What the gate's fork handlers also do, after taking it and before opening it.
    pub(crate) struct ForkHooks {
        /// Before the fork, with the gate held.
        pub(crate) prepare: fn(),
        /// In the parent after the fork, before the gate opens.
        pub(crate) in_parent: fn(),
        /// In the child after the fork, before the gate opens.
        pub(crate) in_child: fn(),
    }

    static CLOSED: AtomicBool = AtomicBool::new(false);
    static HOOKS: AtomicPtr<ForkHooks> = AtomicPtr::new(std::ptr::null_mut());

    /// The gate, held until dropped.
    #[must_use = "the gate opens again when this is dropped"]
    pub(crate) struct Gate(());

    impl Drop for Gate {
        fn drop(&mut self) {
            CLOSED.store(false, Ordering::Release);
        }
    }

    fn close() {
        let mut backoff = Backoff::new();
        while CLOSED.compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed).is_err() {
            backoff.wait();
        }
    }

    /// Takes the gate (registering the fork handlers first where that is not done yet).
    pub(crate) fn enter() -> Gate {
        register_handlers();
        close();
        Gate(())
    }

    /// Installs what the fork handlers also do (once: later calls are ignored).
    pub(crate) fn set_fork_hooks(hooks: &'static ForkHooks) {
        let _ = HOOKS.compare_exchange(
            std::ptr::null_mut(),
            std::ptr::from_ref(hooks).cast_mut(),
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }

    fn hooks() -> Option<&'static ForkHooks> {
        // SAFETY: `HOOKS` is null or a `&'static ForkHooks` stored by `set_fork_hooks`.
        unsafe { HOOKS.load(Ordering::Acquire).as_ref() }
    }

    extern "C" fn prepare() {
        close();
        if let Some(hooks) = hooks() {
            (hooks.prepare)();
        }
    }

    extern "C" fn in_parent() {
        if let Some(hooks) = hooks() {
            (hooks.in_parent)();
        }
        CLOSED.store(false, Ordering::Release);
    }

    extern "C" fn in_child() {
        if let Some(hooks) = hooks() {
            (hooks.in_child)();
        }
        CLOSED.store(false, Ordering::Release);
    }

    /// 0: not registered, 1: being registered, 2: registered.
    static REGISTERED: AtomicU8 = AtomicU8::new(0);

    fn register_handlers() {
        if REGISTERED.load(Ordering::Acquire) == 2 {
            return;
        }
        register_handlers_slow();
    }

    #[cold]
    fn register_handlers_slow() {
        if REGISTERED.compare_exchange(0, 1, Ordering::AcqRel, Ordering::Acquire).is_ok() {
            #[cfg(unix)]
            {
                type Handler = Option<extern "C" fn()>;
                unsafe extern "C" {
                    fn pthread_atfork(prepare: Handler, parent: Handler, child: Handler) -> std::ffi::c_int;
                }
                // SAFETY: `pthread_atfork` is the C library's; the handlers are plain
                // functions that neither panic nor unwind into C (they spin on an atomic
                // and call hooks that only lock and release).
                let _ = unsafe { pthread_atfork(Some(prepare), Some(in_parent), Some(in_child)) };
            }
            REGISTERED.store(2, Ordering::Release);
            return;
        }
        // Another thread registers them now (a few microseconds; on Linux this happened
        // before `main`).
        let mut backoff = Backoff::new();
        while REGISTERED.load(Ordering::Acquire) != 2 {
            backoff.wait();
        }
    }

    /// Registers the handlers before `main` (and when a shared library holding dynatom
    /// is loaded), while the process has one thread.
    #[cfg(target_os = "linux")]
    #[used]
    #[unsafe(link_section = ".init_array")]
    static REGISTER_BEFORE_MAIN: extern "C" fn() = {
        extern "C" fn register() {
            register_handlers();
        }
        register
    };

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn the_gate_excludes_and_reopens() {
            let gate = enter();
            assert!(CLOSED.load(Ordering::Relaxed));
            drop(gate);
            let again = enter();
            drop(again);
            assert_eq!(REGISTERED.load(Ordering::Relaxed), 2);
        }
    }
}

/// Under loom nothing forks: the gate is a no-op.
#[cfg(loom)]
mod model {
    pub(crate) struct ForkHooks {
        pub(crate) prepare: fn(),
        pub(crate) in_parent: fn(),
        pub(crate) in_child: fn(),
    }

    pub(crate) struct Gate(());

    pub(crate) fn enter() -> Gate {
        Gate(())
    }

    pub(crate) fn set_fork_hooks(_hooks: &'static ForkHooks) {}
}
