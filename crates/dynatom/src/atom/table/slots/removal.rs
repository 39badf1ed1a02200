//! Removal: a removed entry's slot becomes a tombstone (see "Removal: tombstones" in the
//! module docs of [`super`] for why entries are never moved), one at a time or by a
//! pass that keeps what its test accepts; and the emptying of a set owned outright.

use std::ptr::{self, NonNull};

use super::array::{Array, next_slot};
use super::growth::fitting_capacity;
use super::slot_word::{TOMBSTONE, tag};
use super::{Slots, SlotsGuard};
use crate::sync::{AtomicPtr, Ordering, exclusive, unshared_load};

impl<S> Slots<S> {
    /// Empties a set owned outright (its owner is being dropped), passing every entry to
    /// `removed` once, with no lock and no synchronising operation: no reader is left.
    pub(crate) fn drain_exclusive(&mut self, mut removed: impl FnMut(&mut S, NonNull<u8>)) {
        let (current, previous) = self.exclusive_arrays();
        let locked = exclusive(&mut self.locked);
        // Old slots before the cursor were copied to the current array already.
        let from_previous = previous.map(|array| (array, locked.cursor));
        for (array, start) in current.map(|array| (array, 0)).into_iter().chain(from_previous) {
            // SAFETY: `&mut self`: the arrays are allocated and no other thread reads them.
            for slot in &unsafe { array.slots() }[start..] {
                // SAFETY: as above.
                let word = unsafe { unshared_load(slot) };
                let bits = word.addr();
                if bits == 0 || bits == TOMBSTONE {
                    continue;
                }
                // SAFETY: as above; the slot is emptied so the entry is passed on once.
                unsafe { slot_clear_unshared(slot) };
                removed(&mut locked.state, NonNull::new(tag::unpack(word)).expect("an entry is not null"));
            }
        }
        locked.len = 0;
    }
}

/// Empties a slot nobody else can reach.
///
/// # Safety
/// No other thread accesses `slot`.
unsafe fn slot_clear_unshared(slot: &AtomicPtr<u8>) {
    // Relaxed: unshared (and under loom this store is a step of the model only if the set
    // is dropped inside one, where steps are deterministic).
    slot.store(ptr::null_mut(), Ordering::Relaxed);
}

impl<S> SlotsGuard<'_, S> {
    /// Removes `entry` (filed under `hash`); false if it is not in the set. The caller may
    /// retire the entry once this returns.
    pub(crate) fn remove(&mut self, hash: u64, entry: NonNull<u8>) -> bool {
        let (current, previous) = self.slots.arrays();
        let mut found = false;
        if let Some(array) = current {
            // SAFETY: under the lock the arrays are allocated.
            if unsafe { tombstone(array, hash, entry) } {
                self.locked.occupied -= 1;
                self.locked.tombstones += 1;
                found = true;
            }
        }
        if let Some(array) = previous {
            // SAFETY: as above. (A copied entry is in both arrays: tombstone both.)
            found |= unsafe { tombstone(array, hash, entry) };
        }
        if found {
            self.locked.len -= 1;
            self.raise_version();
        }
        self.migrate_some();
        self.collect_now_and_then();
        found
    }

    /// Visits every entry once; removes those `keep` refuses, passing each to `removed`
    /// after it is unlinked (the moment from which it may be retired). Finishes any
    /// migration first, so this takes time in the size of the set; then, if removals left
    /// the array mostly tombstones or much too large, starts migrating to a fitting one.
    pub(crate) fn retain(&mut self, mut keep: impl FnMut(NonNull<u8>) -> bool, mut removed: impl FnMut(NonNull<u8>)) {
        self.finish_migration();
        let Some(array) = self.slots.arrays().0 else { return };
        let len_before = self.locked.len;
        // SAFETY: under the lock the current array is allocated.
        for slot in unsafe { array.slots() } {
            let word = slot.load(Ordering::Relaxed);
            let bits = word.addr();
            if bits == 0 || bits == TOMBSTONE {
                continue;
            }
            let entry = NonNull::new(tag::unpack(word)).expect("an entry is not null");
            if keep(entry) {
                continue;
            }
            // Relaxed: a reader that still sees the entry is covered by the retire's
            // fence (it is pinned, so the entry waits for it).
            slot.store(ptr::without_provenance_mut(TOMBSTONE), Ordering::Relaxed);
            let locked = &mut *self.locked;
            locked.occupied -= 1;
            locked.tombstones += 1;
            locked.len -= 1;
            removed(entry);
        }
        if self.locked.len != len_before {
            self.raise_version();
        }
        let capacity = self.capacity();
        // At most a quarter of the size at once: the copy of the old slots then takes
        // about a dozen per write, however much was swept (later sweeps shrink further).
        let fitting = fitting_capacity(self.locked.len).max(capacity / 4);
        if self.locked.tombstones > capacity / 4 || fitting < capacity / 2 {
            // Best effort: without memory for a new array the old one keeps working.
            let _ = self.start_migration(fitting);
        }
        self.collect_arrays();
    }
}

/// Replaces the slot holding exactly `entry` with a tombstone; false if there is none.
///
/// # Safety
/// As for [`store_in_free_slot`](super::array::store_in_free_slot).
unsafe fn tombstone(array: Array, hash: u64, entry: NonNull<u8>) -> bool {
    // SAFETY: forwarded from the caller.
    let slots = unsafe { array.slots() };
    let mask = slots.len() - 1;
    let mut index = hash as usize & mask;
    for stride in 1..=slots.len() {
        let word = slots[index].load(Ordering::Relaxed);
        let bits = word.addr();
        if bits == 0 {
            return false;
        }
        if bits != TOMBSTONE && tag::unpack(word) == entry.as_ptr() {
            // Relaxed: see `retain`.
            slots[index].store(ptr::without_provenance_mut(TOMBSTONE), Ordering::Relaxed);
            return true;
        }
        index = next_slot(index, stride, mask);
    }
    false
}
