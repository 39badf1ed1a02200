//! One slot array: its layout (a header, then the slots, in one allocation), its
//! allocation and freeing, the lock-free probe over it, and the store of a word into its
//! first free slot. The set in [`super`] holds one or two of these and decides when each
//! is made, copied and retired.

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::slot_word::{TAGGED, TOMBSTONE, tag};
use crate::error::StrError;
use crate::sync::{AtomicPtr, Ordering, raw_alloc};

/// The head of a slot array; the slots follow it in the same allocation.
#[repr(C)]
pub(super) struct ArrayHeader {
    /// Capacity - 1; capacities are powers of two.
    pub(super) mask: usize,
}

/// Raw handle to one slot array. Copying it copies the pointer, not the array.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) struct Array(pub(super) NonNull<ArrayHeader>);

/// Where the slots start, after the header: a constant, so a probe computes no layout.
pub(super) const SLOTS_OFFSET: usize = {
    let align = std::mem::align_of::<AtomicPtr<u8>>();
    std::mem::size_of::<ArrayHeader>().div_ceil(align) * align
};

/// Arrays of this many bytes and more are faulted in when they are made, in one call
/// (see [`raw_alloc::populate`]), rather than page by page as the migration's copies reach
/// them: one pause per growth instead of a page fault in each of many inserts.
const POPULATE_FROM: usize = 64 * 1024;

impl Array {
    pub(super) fn layout(capacity: usize) -> Option<(Layout, usize)> {
        let slots = Layout::array::<AtomicPtr<u8>>(capacity).ok()?;
        let (layout, offset) = Layout::new::<ArrayHeader>().extend(slots).ok()?;
        debug_assert_eq!(offset, SLOTS_OFFSET);
        Some((layout.pad_to_align(), offset))
    }

    /// A fresh array of empty slots; `capacity` is a power of two.
    pub(super) fn allocate(capacity: usize) -> Result<Array, StrError> {
        debug_assert!(capacity.is_power_of_two());
        let Some((layout, offset)) = Array::layout(capacity) else {
            return Err(StrError::AllocFailed { size: usize::MAX });
        };
        // Zeroed memory is an array of empty slots: a large array then costs the insert
        // that makes it no pass over its pages (the allocator hands out fresh zero pages,
        // faulted in as the migration and later inserts reach them). loom's atomics are
        // objects of their own, so under loom each slot is written.
        // SAFETY: the layout is non-zero-sized (it has a header).
        #[cfg(not(loom))]
        let raw = unsafe { raw_alloc::alloc_zeroed(layout) };
        // SAFETY: as above.
        #[cfg(loom)]
        let raw = unsafe { raw_alloc::alloc(layout) };
        let Some(header) = NonNull::new(raw.cast::<ArrayHeader>()) else {
            return Err(StrError::AllocFailed { size: layout.size() });
        };
        if layout.size() >= POPULATE_FROM {
            raw_alloc::populate(raw, layout.size());
        }
        // SAFETY: `raw` is a fresh allocation of `layout`: the header fits at its start.
        unsafe { header.as_ptr().write(ArrayHeader { mask: capacity - 1 }) };
        #[cfg(not(loom))]
        const _: () = assert!(std::mem::size_of::<AtomicPtr<u8>>() == std::mem::size_of::<usize>());
        #[cfg(loom)]
        // SAFETY: `capacity` slots fit at `offset`; each is written once before the array
        // is shared.
        unsafe {
            let slots = raw.add(offset).cast::<AtomicPtr<u8>>();
            for index in 0..capacity {
                slots.add(index).write(AtomicPtr::new(ptr::null_mut()));
            }
        }
        #[cfg(not(loom))]
        let _ = offset;
        Ok(Array(header))
    }

    /// # Safety
    /// The array has not been freed.
    #[inline]
    pub(super) unsafe fn capacity(self) -> usize {
        // SAFETY: the caller keeps the array allocated; the mask never changes.
        unsafe { self.0.as_ref() }.mask + 1
    }

    /// # Safety
    /// The array has not been freed, and outlives `'a`.
    #[inline]
    pub(super) unsafe fn slots<'a>(self) -> &'a [AtomicPtr<u8>] {
        // SAFETY: the caller keeps the array allocated; its slots were all initialised by
        // `allocate`, right after the header at the offset its layout gives.
        unsafe {
            let capacity = self.capacity();
            std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>().add(SLOTS_OFFSET).cast(), capacity)
        }
    }

    /// # Safety
    /// No reader can hold the array any more, and it is freed once.
    pub(super) unsafe fn free(self) {
        // SAFETY: the caller guarantees exclusive access to an allocated array.
        unsafe {
            let capacity = self.capacity();
            let (layout, _) = Array::layout(capacity).expect("the layout was valid at allocation");
            // loom's atomics must be dropped; std's need not, but dropping is free.
            for slot in self.slots() {
                ptr::drop_in_place(ptr::from_ref(slot).cast_mut());
            }
            raw_alloc::dealloc(self.0.as_ptr().cast(), layout);
        }
    }

    /// # Safety
    /// As for [`Array::free`]; for [`Retired::retire`](super::super::reclaim::Retired::retire).
    pub(super) unsafe fn free_erased(ptr: NonNull<()>) {
        // SAFETY: forwarded: `ptr` is an array retired once.
        unsafe { Array(ptr.cast()).free() }
    }

    /// Probes for an entry `matches` accepts. Stops at the first empty slot.
    /// `visited` counts the slots read (the probe length the memory report shows).
    ///
    /// # Safety
    /// The array stays allocated for the call.
    #[inline(always)]
    pub(super) unsafe fn find(
        self,
        hash: u64,
        matches: &mut impl FnMut(NonNull<u8>) -> bool,
        visited: &mut u64,
    ) -> Option<NonNull<u8>> {
        // SAFETY: the caller keeps the array allocated.
        let slots = unsafe { self.slots() };
        let mask = slots.len() - 1;
        let wanted = tag::of(hash);
        let mut index = hash as usize & mask;
        // Bounded for robustness (an array always keeps an empty slot): at most one visit
        // per slot. A plain counter and an unchecked index: `1..=len` and the slice's
        // bounds check cost five instructions a visit, and a hit visits two on average.
        let mut stride = 1;
        loop {
            debug_assert!(index <= mask);
            // SAFETY: `index` is masked by `mask`, the capacity (a power of two, at
            // least 1) less one, so it is in bounds.
            let slot = unsafe { slots.get_unchecked(index) };
            // Acquire: pairs with the Release that stored the entry, so what the writer
            // wrote into the entry before inserting it is visible to `matches`.
            let word = slot.load(Ordering::Acquire);
            *visited += 1;
            let bits = word.addr();
            // The common cases first, one compare each: this entry's tag, another tag,
            // empty. (Tombstones are tagged with tag 0; untagged entries are rare.)
            let candidate = if tag::tagged_with(bits, wanted) {
                bits != TOMBSTONE
            } else if bits & TAGGED != 0 {
                false
            } else if bits == 0 {
                return None;
            } else {
                true
            };
            if candidate {
                let entry = NonNull::new(tag::unpack(word)).expect("an entry is not null");
                if matches(entry) {
                    return Some(entry);
                }
            }
            if stride == slots.len() {
                return None;
            }
            index = next_slot(index, stride, mask);
            stride += 1;
        }
    }
}

/// The slot after `index` in a probe sequence, `stride` steps in (from 1): triangular
/// probing, home + 1, + 3, + 6, ... It visits every slot of a power-of-two array once in
/// `capacity` steps, and unlike linear probing it does not merge neighbouring runs into
/// long clusters, so misses at the load limit read fewer slots; the first few steps
/// stay within a cache line or two of the home slot.
#[inline(always)]
pub(super) fn next_slot(index: usize, stride: usize, mask: usize) -> usize {
    (index + stride) & mask
}

/// Stores `word` in the first empty or tombstone slot of `hash`'s probe sequence; returns
/// whether it was a tombstone, and the slots read.
///
/// # Safety
/// The caller holds the lock (the only writer), the array is allocated, and it has a free
/// slot.
pub(super) unsafe fn store_in_free_slot(array: Array, hash: u64, word: *mut u8) -> (bool, usize) {
    // SAFETY: forwarded from the caller.
    let slots = unsafe { array.slots() };
    let mask = slots.len() - 1;
    let mut index = hash as usize & mask;
    let mut stride = 1;
    loop {
        let bits = slots[index].load(Ordering::Relaxed).addr();
        if bits == 0 || bits == TOMBSTONE {
            // Release: the entry's contents, written before, are visible to a reader
            // that loads this word with Acquire.
            slots[index].store(word, Ordering::Release);
            return (bits == TOMBSTONE, stride);
        }
        index = next_slot(index, stride, mask);
        stride += 1;
    }
}
