//! Growth: the incremental migration to a fresh array (a few old slots copied per write),
//! and the retirement of the old arrays through the reclaimer. "Incremental growth" in the module docs of [`super`] says why
//! a writer never rehashes everything at once.

use std::ptr::{self, NonNull};

use super::array::{Array, store_in_free_slot};
use super::array_pool::{self, ArrayPool, MAX_CAPACITY};
use super::slot_word::{TOMBSTONE, tag};
use super::{COLLECT_EVERY, COPY_WHOLE_UP_TO, MAX_LOAD, MIGRATE_STEP, MIN_CAPACITY, SlotsGuard, within_max_load};
use crate::error::StrError;
use crate::sync::Ordering;

impl<S> SlotsGuard<'_, S> {
    /// Frees what readers have moved on from; returns the number of old arrays still
    /// waiting. Writes call this already; a shard that stops being written may call it.
    pub(crate) fn collect_arrays(&mut self) -> usize {
        let locked = &mut *self.locked;
        if locked.retired.len() == 0 {
            return 0;
        }
        let waiting = locked.retired.collect();
        locked.writes_to_collect = COLLECT_EVERY;
        if waiting == 0 {
            locked.retired_bytes = 0;
        }
        waiting
    }

    /// Old arrays retired and not yet freed.
    pub(crate) fn arrays_waiting(&self) -> usize {
        self.locked.retired.len()
    }

    /// Tries to free old arrays every [`COLLECT_EVERY`] writes while some wait: a try
    /// takes the reclaimer's lock and reads every thread's record.
    pub(super) fn collect_now_and_then(&mut self) {
        let locked = &mut *self.locked;
        if locked.retired.len() == 0 {
            return;
        }
        locked.writes_to_collect = locked.writes_to_collect.saturating_sub(1);
        if locked.writes_to_collect == 0 {
            self.collect_arrays();
        }
    }

    /// The current array, with room for one more entry (growing or finishing a migration
    /// if it has none).
    pub(super) fn reserve_one(&mut self) -> Result<Array, StrError> {
        let (current, _) = self.slots.arrays();
        if let Some(array) = current {
            let capacity = array.capacity();
            if within_max_load(self.locked.occupied + self.locked.tombstones + 1, capacity) {
                return Ok(array);
            }
        }
        // The step sizes keep this from happening mid-migration; if it does, finish it.
        self.finish_migration();
        let capacity = self.capacity();
        // (At the load limit, the fitting capacity is twice this one.)
        let wanted = fitting_capacity(self.locked.len).max(capacity);
        // Twice the size if entries fill it; the same size if tombstones do.
        let wanted = if (self.locked.len + 1) * 2 > capacity { wanted.max(capacity * 2) } else { wanted };
        match self.start_migration(wanted) {
            Ok(array) => Ok(array),
            Err(err) => {
                // No new array: use the old one up to one free slot.
                let current = self.slots.arrays().0.ok_or(err.clone())?;
                if self.locked.occupied + self.locked.tombstones + 2 <= capacity { Ok(current) } else { Err(err) }
            }
        }
    }

    /// Makes a fresh array of `capacity` current, the old one `previous` (to be copied a
    /// few slots per write). Returns the new array.
    pub(super) fn start_migration(&mut self, capacity: usize) -> Result<Array, StrError> {
        self.finish_migration();
        let fresh = self.fresh_array(capacity)?;
        let (current, _) = self.slots.arrays();
        let locked = &mut *self.locked;
        if let Some(old) = current {
            let old_capacity = old.capacity();
            // Copy `old_capacity` slots before the new array can reach its load limit:
            // at most `room` inserts can come first.
            let room = (capacity * MAX_LOAD.0 / MAX_LOAD.1).saturating_sub(locked.len + 1).max(1);
            locked.step = if old_capacity <= COPY_WHOLE_UP_TO {
                old_capacity
            } else {
                old_capacity.div_ceil(room).max(MIGRATE_STEP)
            };
            locked.cursor = 0;
            // Release (both): a reader that sees the new `current` sees its empty slots
            // and, when it loads `previous` next, the old array (or something later).
            self.slots.previous.store(old.as_raw(), Ordering::Release);
        }
        self.slots.current.store(fresh.as_raw(), Ordering::Release);
        locked.occupied = 0;
        locked.tombstones = 0;
        self.raise_version();
        if current.is_none() {
            return Ok(fresh);
        }
        self.migrate_some();
        Ok(fresh)
    }

    /// A zeroed array of `capacity` slots.
    fn fresh_array(&mut self, capacity: usize) -> Result<Array, StrError> {
        let size = capacity.saturating_mul(std::mem::size_of::<usize>());
        if capacity > MAX_CAPACITY {
            return Err(StrError::AllocFailed { size });
        }
        let array = ArrayPool::allocate(self.slots.pool(), capacity).ok_or(StrError::AllocFailed { size })?;
        self.locked.most_insert.array_bytes = self.locked.most_insert.array_bytes.max(array.bytes());
        Ok(array)
    }

    /// Copies the next `step` old slots, if migrating.
    #[inline]
    pub(super) fn migrate_some(&mut self) {
        // Most writes find no migration under way: they make no call.
        if self.slots.arrays().1.is_some() {
            let step = self.locked.step;
            self.migrate(step);
        }
    }

    pub(super) fn finish_migration(&mut self) {
        self.migrate(usize::MAX);
    }

    #[inline(never)]
    fn migrate(&mut self, budget: usize) {
        let (Some(current), Some(old)) = self.slots.arrays() else { return };
        // SAFETY: under the lock both arrays are allocated.
        let old_slots = unsafe { old.slots() };
        let locked = &mut *self.locked;
        let end = locked.cursor.saturating_add(budget).min(old_slots.len());
        let mut touched = end.saturating_sub(locked.cursor);
        // A batch's entries are asked for at once: reading their cached hashes then waits
        // for about one cache miss, not one per entry. The pass that asks keeps each word
        // with its entry, so that the copies read no slot twice.
        for batch in old_slots[locked.cursor..end].chunks(PREFETCH_BATCH) {
            let mut found = [(ptr::null_mut(), NonNull::dangling()); PREFETCH_BATCH];
            let mut count = 0;
            for slot in batch {
                let word = slot.load(Ordering::Relaxed);
                let bits = word.addr();
                if bits != 0 && bits != TOMBSTONE {
                    let entry = NonNull::new(tag::unpack(word)).expect("an entry is not null");
                    prefetch(entry.as_ptr());
                    found[count] = (word, entry);
                    count += 1;
                }
            }
            for &(word, entry) in &found[..count] {
                let hash = (locked.hash_of)(entry);
                // SAFETY: under the lock the current array is allocated. The copy keeps the
                // old word (tag and all); the old slot keeps it too, for readers still
                // there. (A removal during the migration may have left a tombstone to
                // reuse.)
                let (was_tombstone, probes) = unsafe { store_in_free_slot(current, hash, word) };
                if was_tombstone {
                    locked.tombstones -= 1;
                }
                touched += probes;
                locked.occupied += 1;
            }
        }
        locked.most_insert.slots = locked.most_insert.slots.max(touched);
        locked.cursor = end;
        if end < old_slots.len() {
            self.raise_version();
            return;
        }
        // Every entry is in the new array: readers need the old one no more, except
        // those already in it, whom the retire waits for.
        self.slots.previous.store(ptr::null_mut(), Ordering::Release);
        let bytes = old.bytes();
        let word = NonNull::new(old.as_raw().cast::<()>()).expect("an array's word is not null");
        // SAFETY: the old array is unlinked (neither field names it any more) and retired
        // once; `free_retired` frees it from any thread, into the pool the list names,
        // which outlives the set; the `Retired` lives in the lock, dropped with the set,
        // when no reader can be probing.
        unsafe { locked.retired.retire(word, array_pool::free_retired) };
        locked.retired_bytes += bytes;
        locked.cursor = 0;
        self.raise_version();
        // A shard that stops growing here would otherwise keep the old array until
        // `COLLECT_EVERY` more writes: with no reader pinned, two epoch steps free it now.
        for _ in 0..2 {
            if self.collect_arrays() == 0 {
                break;
            }
        }
    }
}

/// Old slots whose entries a migration asks the cache for before it reads any of them.
const PREFETCH_BATCH: usize = 16;

/// Asks the cache for the line at `ptr` without waiting for it.
#[inline]
fn prefetch(ptr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint: it never faults and reads nothing the program sees,
    // whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(ptr.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}

/// The smallest capacity that holds `len` entries at most half of [`MAX_LOAD`] full, so
/// that a migration to it has as much room again for inserts before it must end.
pub(super) fn fitting_capacity(len: usize) -> usize {
    let mut capacity = MIN_CAPACITY;
    while capacity * MAX_LOAD.0 < len * 2 * MAX_LOAD.1 {
        capacity *= 2;
    }
    capacity
}
