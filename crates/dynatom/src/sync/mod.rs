//! The one door to atomics, locks, waiting ([`Backoff`]) and the allocator.
//!
//! Every shared structure in dynatom takes its atomics, `Mutex`, `Arc` and raw allocation
//! from here, so that building with `RUSTFLAGS="--cfg loom"` swaps them for loom's
//! model-checked versions (which also report leaked allocations) without touching the code
//! above.

mod backoff;
pub(crate) mod cores;
pub(crate) mod fork_gate;
pub(crate) mod pages;
pub(crate) use backoff::Backoff;

#[cfg(loom)]
pub(crate) use loom::hint::spin_loop;
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Mutex, MutexGuard};

#[cfg(not(loom))]
pub(crate) use std::hint::spin_loop;
#[cfg(all(not(loom), not(dynatom_count_stores)))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};

#[cfg(all(not(loom), dynatom_count_stores))]
pub(crate) mod store_count;
#[cfg(not(loom))]
pub(crate) use std::sync::{Mutex, MutexGuard};
#[cfg(all(not(loom), dynatom_count_stores))]
pub(crate) use store_count::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, Ordering, fence};

/// Raw allocation, routed through loom when model checking so leaks are caught.
///
/// With the `glibc-slop` feature (on glibc), dynatom's raw blocks come from
/// [`std::alloc::System`], glibc's `malloc`, whatever global allocator the program
/// installs: memory reports then ask `malloc_usable_size` only about malloc's own blocks.
pub(crate) mod raw_alloc {
    #[cfg(loom)]
    pub(crate) use loom::alloc::{alloc, dealloc};
    #[cfg(not(any(loom, all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom)))))]
    pub(crate) use std::alloc::{alloc, alloc_zeroed, dealloc, realloc};
    #[cfg(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom)))]
    pub(crate) use system::{alloc, alloc_zeroed, dealloc, realloc};

    /// `std::alloc`'s three calls, sent to `System` instead of the global allocator.
    #[cfg(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom)))]
    mod system {
        use std::alloc::{GlobalAlloc, Layout, System};

        /// # Safety
        /// As [`GlobalAlloc::alloc`].
        #[inline]
        pub(crate) unsafe fn alloc(layout: Layout) -> *mut u8 {
            // SAFETY: forwarded from the caller, who upholds `GlobalAlloc::alloc`'s contract.
            unsafe { System.alloc(layout) }
        }

        /// # Safety
        /// As [`GlobalAlloc::alloc_zeroed`].
        #[inline]
        pub(crate) unsafe fn alloc_zeroed(layout: Layout) -> *mut u8 {
            // SAFETY: forwarded from the caller, who upholds `GlobalAlloc::alloc_zeroed`'s
            // contract.
            unsafe { System.alloc_zeroed(layout) }
        }

        /// # Safety
        /// As [`GlobalAlloc::dealloc`]; `ptr` came from this module's `alloc`/`realloc`.
        #[inline]
        pub(crate) unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded from the caller; the block is System's (this module's).
            unsafe { System.dealloc(ptr, layout) }
        }

        /// # Safety
        /// As [`GlobalAlloc::realloc`]; `ptr` came from this module's `alloc`/`realloc`.
        #[inline]
        pub(crate) unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            // SAFETY: forwarded from the caller; the block is System's (this module's).
            unsafe { System.realloc(ptr, layout, new_size) }
        }
    }
}

/// The value of an atomic pointer that the caller owns outright (`&mut`), read without a
/// synchronising operation, so that under loom a destructor run during its teardown of
/// statics adds no step to the model.
#[inline]
pub(crate) fn exclusive_ptr<T>(atomic: &mut AtomicPtr<T>) -> *mut T {
    #[cfg(loom)]
    return atomic.with_mut(|ptr| *ptr);
    #[cfg(not(loom))]
    return *atomic.get_mut();
}

/// Reads an atomic pointer that no other thread can reach any more (an array its owner
/// is freeing), without a synchronising operation (see [`exclusive_ptr`]).
///
/// # Safety
/// No other thread accesses `atomic` concurrently.
#[inline]
pub(crate) unsafe fn unshared_load<T>(atomic: &AtomicPtr<T>) -> *mut T {
    #[cfg(loom)]
    // SAFETY: forwarded from the caller: the value is not shared.
    return unsafe { atomic.unsync_load() };
    #[cfg(not(loom))]
    return atomic.load(Ordering::Relaxed);
}

/// The data of a mutex the caller owns outright.
#[inline]
pub(crate) fn exclusive<T>(mutex: &mut Mutex<T>) -> &mut T {
    match mutex.get_mut() {
        Ok(data) => data,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Locks `mutex`, ignoring poisoning: every critical section in dynatom leaves its data
/// consistent before any call that could panic, so a poisoned lock holds valid data.
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// Locks `mutex` if no one holds it, ignoring poisoning as [`lock`] does; `None` if someone
/// does.
pub(crate) fn try_lock<T>(mutex: &Mutex<T>) -> Option<MutexGuard<'_, T>> {
    match mutex.try_lock() {
        Ok(guard) => Some(guard),
        Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}
