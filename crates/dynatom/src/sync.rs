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
pub(crate) use std::sync::{Mutex, MutexGuard};

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

/// Locks `mutex`, ignoring poisoning: every critical section in dynatom leaves its data
/// consistent before any call that could panic, so a poisoned lock holds valid data.
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

pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    match mutex.lock() {
        Ok(guard) => guard,
        Err(poisoned) => poisoned.into_inner(),
    }
}

/// `word` times the process's word seed ([`crate::hash`]'s `WORD_SEED`, 0 until chosen),
/// the low half of the product: the small map's hint of an atom key, on every lookup.
///
/// On x86-64 this is one `imul` with the seed as its memory operand, addressed relative to
/// the instruction. A plain relaxed load of a static from another crate's inlined code goes
/// through the GOT in a position-independent executable (a load of the address, then of
/// the value), and the counted small-map lookups showed those two loads and the separate
/// multiply; this is one instruction and one load. Elsewhere (and under Miri or loom),
/// the relaxed load and multiply that it stands for.
#[inline(always)]
pub(crate) fn times_word_seed(word: u64) -> u64 {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        let product: u64;
        // SAFETY: the instruction reads the eight aligned bytes of `WORD_SEED`, an
        // `AtomicU64` (an aligned 8-byte load on x86-64 is atomic: it is the relaxed load
        // that the fallback below makes), and writes only its output register and the
        // flags. The symbol is defined in this crate, so the linker resolves the
        // instruction-relative address within the same executable or shared object.
        unsafe {
            std::arch::asm!(
                "imul {word}, qword ptr [rip + {seed}]",
                word = inout(reg) word => product,
                seed = sym crate::hash::WORD_SEED,
                options(pure, readonly, nostack),
            );
        }
        product
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(loom))))]
    {
        word.wrapping_mul(crate::hash::WORD_SEED.load(std::sync::atomic::Ordering::Relaxed))
    }
}

/// `word` times the process's word seed as a 128-bit product, `(low, high)`: the small
/// map's large form's hash of an atom key. One `mul` with the seed as its memory operand
/// on x86-64, for the reason [`times_word_seed`] gives.
#[inline(always)]
pub(crate) fn wide_times_word_seed(word: u64) -> (u64, u64) {
    #[cfg(all(target_arch = "x86_64", not(miri), not(loom)))]
    {
        let (low, high): (u64, u64);
        // SAFETY: as in `times_word_seed`; `mul` writes only `rax`, `rdx` and the flags,
        // all declared as outputs or clobbered by default.
        unsafe {
            std::arch::asm!(
                "mul qword ptr [rip + {seed}]",
                seed = sym crate::hash::WORD_SEED,
                inout("rax") word => low,
                out("rdx") high,
                options(pure, readonly, nostack),
            );
        }
        (low, high)
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri), not(loom))))]
    {
        let product = u128::from(word) * u128::from(crate::hash::WORD_SEED.load(std::sync::atomic::Ordering::Relaxed));
        (product as u64, (product >> 64) as u64)
    }
}
