//! One slot array: its slots, the lock-free probe over them, and the store of a word into
//! its first free slot. Where its memory comes from and goes is [`super::array_pool`]'s;
//! the set in [`super`] holds one or two arrays and decides when each is made, copied and
//! retired.

use std::ptr::NonNull;

use super::slot_word::{TAGGED, TOMBSTONE, tag};
use crate::sync::{AtomicPtr, Ordering};

/// One slot array, named by its word (its first slot, its capacity, its source: see
/// [`super::array_pool`]). Copying it copies the name, not the array.
pub(super) use super::array_pool::ArrayWord as Array;

impl Array {
    /// # Safety
    /// The array has not been freed, and outlives `'a`.
    #[inline]
    pub(super) unsafe fn slots<'a>(self) -> &'a [AtomicPtr<u8>] {
        // SAFETY: the caller keeps the array allocated; its `capacity` slots, all
        // initialised when it was made, start at its base.
        unsafe { std::slice::from_raw_parts(self.base(), self.capacity()) }
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
        // SAFETY: forwarded from the caller.
        unsafe {
            self.probe(hash, visited, |word| {
                let entry = NonNull::new(tag::unpack(word)).expect("an entry is not null");
                matches(entry).then_some(entry)
            })
        }
    }

    /// Probes `hash`'s sequence, handing `visit` the word of each slot that may hold its
    /// entry (tagged with its tag, or untagged; never empty or a tombstone) until `visit`
    /// returns something or an empty slot ends the sequence.
    ///
    /// # Safety
    /// The array's memory holds slots for the call: it is allocated, or (for a reader
    /// with no pin) it is in a table's [`ArrayPool`](super::array_pool), which keeps it so.
    #[inline(always)]
    pub(super) unsafe fn probe<R>(
        self,
        hash: u64,
        visited: &mut u64,
        mut visit: impl FnMut(*mut u8) -> Option<R>,
    ) -> Option<R> {
        // SAFETY: forwarded from the caller.
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
            // wrote into the entry before inserting it is visible to `visit`.
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
            if candidate && let Some(found) = visit(word) {
                return Some(found);
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

/// The slot a probe for `hash` that read `probes` slots of `array` read last, if it is
/// empty: where that probe, finding nothing, stopped.
///
/// # Safety
/// As for [`store_in_free_slot`].
pub(super) unsafe fn empty_slot_where_probe_ended(array: Array, hash: u64, probes: u64) -> Option<usize> {
    // SAFETY: forwarded from the caller.
    let slots = unsafe { array.slots() };
    let read = usize::try_from(probes).ok().filter(|read| (1..=slots.len()).contains(read))?;
    // The `read`-th slot of the sequence: home + 1 + 2 + ... + (read - 1) (`next_slot`).
    let index = (hash as usize).wrapping_add(read * (read - 1) / 2) & (slots.len() - 1);
    (slots[index].load(Ordering::Relaxed).addr() == 0).then_some(index)
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
