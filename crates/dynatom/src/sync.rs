//! The one door to atomics, locks and the allocator.
//!
//! Every shared structure in dynatom takes its atomics, `Mutex`, `Arc` and raw allocation
//! from here, so that building with `RUSTFLAGS="--cfg loom"` swaps them for loom's
//! model-checked versions (which also report leaked allocations) without touching the code
//! above.

#[cfg(loom)]
pub(crate) use loom::hint::spin_loop;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{fence, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Mutex, MutexGuard};

/// Raw allocation, routed through loom when model checking so leaks are caught.
pub(crate) mod raw_alloc {
    #[cfg(loom)]
    pub(crate) use loom::alloc::{alloc, dealloc};
    #[cfg(not(loom))]
    pub(crate) use std::alloc::{alloc, dealloc};
}

/// Locks `mutex`, ignoring poisoning: every critical section in dynatom leaves its data
/// consistent before any call that could panic, so a poisoned lock holds valid data.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}
