//! [`Segments`]: `N` lazily allocated arrays of doubling length (`2^(FIRST_BITS + k)`
//! elements in slot `k`), each allocated at most once, never moved, and read without a
//! lock. It stands in for `[OnceLock<Box<[T]>>; N]`, built on one `AtomicPtr` per slot
//! from [`crate::sync`] so that loom can model it (loom has no `OnceLock`).
//!
//! Readers pay one `Acquire` load per access (a plain load on x86) and write nothing.
//! Racing initialisers each build a candidate array and publish it with a CAS; the
//! losers free theirs and use the winner's.

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::arena::{AllocFailed, storage_alloc};
use crate::sync::{AtomicPtr, Ordering};

pub(crate) struct Segments<T, const FIRST_BITS: u32, const N: usize> {
    /// Slot `k`: null, or an allocation of `len(k)` initialised `T`s that is freed only
    /// through `&mut self` (or on drop).
    slots: [AtomicPtr<T>; N],
}

// SAFETY: `Segments` owns its arrays like a `Box<[T]>` per slot (they are freed only
// through `&mut self`), so sending it sends the `T`s (`T: Send`). Shared access hands
// out `&[T]` to several threads, which needs `T: Sync`; initialisation through `&self`
// creates `T`s on the calling thread and shares them, and a loser drops its own
// candidates on its own thread, so `T: Send + Sync` covers every case.
unsafe impl<T: Send + Sync, const FIRST_BITS: u32, const N: usize> Send for Segments<T, FIRST_BITS, N> {}
// SAFETY: see `Send` above: `&Segments` yields only `&[T]` and builds `T`s that other
// threads then read.
unsafe impl<T: Send + Sync, const FIRST_BITS: u32, const N: usize> Sync for Segments<T, FIRST_BITS, N> {}

impl<T, const FIRST_BITS: u32, const N: usize> Segments<T, FIRST_BITS, N> {
    pub(crate) fn new() -> Self {
        const { assert!(std::mem::size_of::<T>() > 0, "Segments does not hold zero-sized types") };
        Segments { slots: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())) }
    }

    /// Number of elements in slot `k`.
    #[inline]
    pub(crate) const fn len(k: usize) -> usize {
        1usize << (FIRST_BITS as usize + k)
    }

    fn layout(k: usize) -> Layout {
        Layout::array::<T>(Self::len(k)).expect("segment size overflows the address space")
    }

    /// [`layout`](Self::layout), with a size that overflows as a failed allocation.
    fn try_layout(k: usize) -> Result<Layout, AllocFailed> {
        Layout::array::<T>(Self::len(k)).map_err(|_| AllocFailed { bytes: usize::MAX })
    }

    /// Slot `k`'s array, if allocated (`None` also for `k >= N`). Takes no lock and
    /// writes nothing.
    #[inline]
    pub(crate) fn get(&self, k: usize) -> Option<&[T]> {
        // Acquire: pairs with the Release of the CAS that published the pointer, so the
        // elements written before publication (and `fill`'s stores) are visible.
        let p = self.slots.get(k)?.load(Ordering::Acquire);
        if p.is_null() {
            None
        } else {
            // SAFETY: a non-null slot `k` points at `len(k)` initialised `T`s (the
            // invariant of `slots`), which stay allocated until `&mut self`, so for at
            // least as long as `&self`.
            Some(unsafe { std::slice::from_raw_parts(p, Self::len(k)) })
        }
    }

    /// Slot `k`'s array, allocating it if needed: every element from `elem()`, then
    /// `fill` runs on the array before any other thread can see it. If another thread
    /// publishes first, the fresh array is dropped and the winner's returned. If the
    /// allocator refuses, nothing changes.
    ///
    /// # Panics
    /// If `k >= N`.
    pub(crate) fn try_get_or_init(
        &self,
        k: usize,
        mut elem: impl FnMut() -> T,
        fill: impl FnOnce(&[T]),
    ) -> Result<&[T], AllocFailed> {
        if let Some(s) = self.get(k) {
            return Ok(s);
        }
        let layout = Self::try_layout(k)?;
        let len = Self::len(k);
        // SAFETY: `layout` has non-zero size (`T` is not zero-sized, `len >= 1`).
        let raw = unsafe { storage_alloc::alloc(layout) }.cast::<T>();
        if raw.is_null() {
            return Err(AllocFailed { bytes: layout.size() });
        }
        for i in 0..len {
            // SAFETY: `i < len`, inside the fresh allocation, which nothing else sees yet.
            unsafe { raw.add(i).write(elem()) };
        }
        // SAFETY: all `len` elements were just initialised; the array is still private.
        fill(unsafe { std::slice::from_raw_parts(raw, len) });
        // Success Release: publishes the initialised elements to readers' Acquire
        // loads. Failure Acquire: we then read the winner's elements, so we must
        // synchronise with its Release.
        match self.slots[k].compare_exchange(ptr::null_mut(), raw, Ordering::Release, Ordering::Acquire) {
            // SAFETY: `raw` now is slot `k`'s published array (`len` initialised `T`s,
            // freed only through `&mut self`).
            Ok(_) => Ok(unsafe { std::slice::from_raw_parts(raw, len) }),
            Err(winner) => {
                // SAFETY: `raw` was never published: we own it and its `len`
                // initialised elements, allocated with `layout`.
                unsafe { free(raw, len, layout) };
                // SAFETY: `winner` is non-null (the CAS only fails on a non-null slot),
                // so it is slot `k`'s published array of `len` initialised `T`s.
                Ok(unsafe { std::slice::from_raw_parts(winner, len) })
            }
        }
    }

    /// Frees slot `k`'s array, if any, leaving the slot empty. `&mut self` proves no
    /// reader holds a reference into it.
    pub(crate) fn take(&mut self, k: usize) {
        // Relaxed: `&mut self` is exclusive; whatever handed it to us already ordered
        // every earlier access before this one.
        let p = self.slots[k].swap(ptr::null_mut(), Ordering::Relaxed);
        if let Some(p) = NonNull::new(p) {
            // SAFETY: a non-null slot holds `len(k)` initialised `T`s allocated with
            // `layout(k)`; the slot is now empty and `&mut self` rules out readers, so
            // this is the only owner and it frees them once.
            unsafe { free(p.as_ptr(), Self::len(k), Self::layout(k)) };
        }
    }

    /// Total bytes of the allocated arrays.
    pub(crate) fn bytes(&self) -> usize {
        (0..N).filter(|&k| self.get(k).is_some()).map(|k| Self::len(k) * std::mem::size_of::<T>()).sum()
    }
}

impl<T, const FIRST_BITS: u32, const N: usize> Drop for Segments<T, FIRST_BITS, N> {
    fn drop(&mut self) {
        for k in 0..N {
            self.take(k);
        }
    }
}

/// Drops `len` `T`s at `p` and frees the allocation.
///
/// # Safety
/// `p` holds `len` initialised `T`s in an allocation from `storage_alloc::alloc(layout)`
/// that the caller owns and that nothing references any more.
unsafe fn free<T>(p: *mut T, len: usize, layout: Layout) {
    // SAFETY: per the contract, `p[..len]` is initialised, owned and unreferenced.
    unsafe { ptr::drop_in_place(ptr::slice_from_raw_parts_mut(p, len)) };
    // SAFETY: `p` came from `storage_alloc::alloc(layout)` and is freed only here.
    unsafe { storage_alloc::dealloc(p.cast::<u8>(), layout) };
}
