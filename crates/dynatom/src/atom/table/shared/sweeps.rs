//! When a shard is checked and swept: the pressure words through which the global table's
//! drops bring a check (a count of drops and their bytes in one word, against a mark), the
//! bounds a check holds a shard to, the check and sweep of a shard under its lock, and the
//! sweep of every shard. "When a shard sweeps" in the module docs of [`super`] gives the
//! rule; "A sweep" there, what a sweep does to an atom.

use std::ptr::NonNull;

use super::{PaddedShard, ShardGuard, TableShared, for_each_entry};
use crate::repr::atom_word::RawAtom;
use crate::repr::heap::{DeadBlock, HEADER_SIZE};
use crate::sync::Ordering;

/// A shard's pressure, and the mark past which a dropper checks the shard, each hold two
/// counts in one word: drops that turned atoms unused in the bits from this one up, their
/// bytes below. One atomic add records a drop, and each count meets its own room: with a
/// single weighted sum, rooms in bytes made a shard of small atoms check (walking all its
/// entries) some twenty times more often than either bound needed.
pub(super) const DROPS_SHIFT: u32 = 44;
/// The top bit of each field: always clear in a pressure (each count stays below it),
/// always set in a mark, so that one subtraction compares both fields at once (a field
/// whose pressure passed its mark borrows its guard bit, and never the next field's).
const GUARDS: u64 = (1 << 63) | (1 << (DROPS_SHIFT - 1));
/// The most drops and bytes a check leaves as room: a dropper checks once either count
/// passes its room, and each field holds more than four times that below its guard bit
/// (65,536 drops; 1 TiB).
pub(super) const MAX_DROPS_ROOM: usize = 1 << (60 - DROPS_SHIFT);
pub(super) const MAX_BYTES_ROOM: usize = 1 << (DROPS_SHIFT - 4);

/// What one drop of an atom of `bytes` (header and text, at most 4 GiB and a header) adds
/// to its shard's pressure.
#[inline]
pub(super) fn one_drop(bytes: usize) -> u64 {
    (1 << DROPS_SHIFT) | bytes as u64
}

/// The drops a pressure (or a sum of [`one_drop`]s) counts.
pub(super) fn pressure_drops(pressure: u64) -> usize {
    (pressure >> DROPS_SHIFT) as usize
}

/// The bytes a pressure (or a sum of [`one_drop`]s) counts.
#[cfg(feature = "small-map")]
pub(super) fn pressure_bytes(pressure: u64) -> usize {
    (pressure & ((1 << DROPS_SHIFT) - 1)) as usize
}

/// The mark for a room of `drops` and `bytes`, guard bits set.
pub(super) fn mark_word(drops: usize, bytes: usize) -> u64 {
    ((drops.min(MAX_DROPS_ROOM) as u64) << DROPS_SHIFT) | bytes.min(MAX_BYTES_ROOM) as u64 | GUARDS
}

/// Whether `pressure` passed `mark` in either count.
#[inline]
fn passes(pressure: u64, mark: u64) -> bool {
    mark.wrapping_sub(pressure) & GUARDS != GUARDS
}

/// `retain`'s test for a sweep: an unused entry's count is taken back and its block goes
/// to `dead`, its bytes (header and text) to `dead_bytes` (`retain` unlinks it at once);
/// every entry kept goes to `kept`.
pub(super) fn sweep_into<'a>(
    dead: &'a mut Vec<DeadBlock>,
    dead_bytes: &'a mut usize,
    mut kept: impl FnMut(RawAtom) + 'a,
) -> impl FnMut(NonNull<u8>) -> bool + 'a {
    move |entry| {
        let raw = RawAtom::from_slot(entry);
        // SAFETY: `retain` passes entries of the slots, whose counts the table holds, under
        // the shard's lock; a reclaimed entry is unlinked before the lock goes.
        match unsafe { raw.reclaim_unused() } {
            Some(block) => {
                // SAFETY: reclaimed, so the block is this sweep's alone, and allocated until
                // the retired list frees it.
                *dead_bytes += HEADER_SIZE + unsafe { raw.bytes() }.len();
                dead.push(block);
                false
            }
            None => {
                kept(raw);
                true
            }
        }
    }
}

/// Why a shard is checked (see [`TableShared::check_shard`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Check {
    /// Count the unused atoms; sweep if they pass half a bound.
    Count,
    /// The shard's pressure passed its mark (global table): as `Count`, except that a
    /// shard of [`SWEEP_WHILE_COUNTING_FLOORS`] floors or more sweeps as it counts.
    AfterDrops,
    /// Sweep every unused atom.
    Sweep,
}

/// Shards this many times their floor or larger sweep in the pass that counts when their
/// drops pass the mark.
const SWEEP_WHILE_COUNTING_FLOORS: usize = 4;

impl TableShared {
    /// Sets how many unused atoms the table keeps beyond half of those in use, and
    /// checks every shard against it.
    pub(crate) fn set_unused_limit(&self, atoms: usize) {
        self.unused_floor.store(atoms.div_ceil(self.shards.len()), Ordering::Relaxed);
        self.check_every_shard();
    }

    /// Sets how many bytes of unused atoms the table keeps beyond half the bytes of those
    /// in use, and checks every shard against it.
    pub(crate) fn set_unused_bytes_limit(&self, bytes: usize) {
        self.unused_bytes_floor.store(bytes, Ordering::Relaxed);
        self.check_every_shard();
    }

    /// The bytes of unused atoms the table keeps beyond half the bytes of those in use.
    pub(crate) fn unused_bytes_floor(&self) -> usize {
        self.unused_bytes_floor.load(Ordering::Relaxed)
    }

    /// Checks every shard (see [`check_shard`](Self::check_shard)), then sets how many
    /// bytes may be filed before the next such check: the room left under the table's
    /// byte bound.
    pub(super) fn check_every_shard(&self) {
        let filed_seen = self.filed_bytes.load(Ordering::Relaxed);
        let mut unused_bytes = 0;
        for padded in self.shards.iter() {
            let mut shard = padded.slots.lock();
            self.check_shard(padded, &mut shard, Check::Count);
            unused_bytes += shard.unused_bytes + shard.retired.bytes();
        }
        self.filed_bytes.fetch_sub(filed_seen, Ordering::Relaxed);
        self.filed_bytes_room.store(self.byte_bound().saturating_sub(unused_bytes), Ordering::Relaxed);
    }

    /// The table's byte bound, `max(floor, live / 2)`.
    fn byte_bound(&self) -> usize {
        let live = self.live_bytes.load(Ordering::Relaxed);
        self.unused_bytes_floor.load(Ordering::Relaxed).max(live / 2)
    }

    /// A shard's share of the byte bound.
    fn shard_byte_bound(&self) -> usize {
        self.byte_bound() / self.shards.len()
    }

    /// The index of one of this table's shards.
    fn index_of(&self, padded: &PaddedShard) -> usize {
        (std::ptr::from_ref(padded).addr() - self.shards.as_ptr().addr()) / std::mem::size_of::<PaddedShard>()
    }

    /// Counts a shard's unused atoms and their bytes, and frees them all if they pass
    /// half of either bound, `max(floor, live / 2)` atoms or the shard's share of the byte
    /// bound (or always, with [`Check::Sweep`]); then sets when the next check comes.
    /// Returns the atoms freed.
    ///
    /// Sweeping from half a bound, not the whole, leaves every check at least half a
    /// bound of room before the next: however drops and revivals interleave, a shard is
    /// checked once per half a bound's worth of drops at most.
    pub(super) fn check_shard(&self, padded: &PaddedShard, shard: &mut ShardGuard<'_>, check: Check) -> usize {
        let pressure_seen = padded.pressure.load(Ordering::Relaxed);
        let floor = self.unused_floor.load(Ordering::Relaxed);
        // A large shard whose drops passed its mark sweeps in the pass that counts: the
        // drops say that about half a bound of its atoms went unused, and a second pass
        // over a large shard is what made a mass drop (a big map of atoms going at once)
        // cost hundreds of instructions per atom. A small shard counts first, so that a
        // few atoms interned and dropped in turn are not swept and refiled over and over.
        let sweep_while_counting =
            check == Check::AfterDrops && shard.len() >= SWEEP_WHILE_COUNTING_FLOORS * floor.max(1);
        let (mut unused, mut unused_bytes, mut live_bytes, mut dead_bytes) = (0, 0, 0, 0);
        let mut dead = Vec::new();
        if sweep_while_counting {
            // Room for the atoms the drops turned unused, so that the pass does not grow
            // the list one reallocation at a time (a tenth of a mass drop's instructions).
            let drops = pressure_drops(pressure_seen);
            let _ = dead.try_reserve_exact(drops.min(shard.len()));
            shard.retain(
                sweep_into(&mut dead, &mut dead_bytes, |raw| {
                    // SAFETY: kept, so the table still holds its count.
                    let footprint = unsafe { raw.footprint() };
                    live_bytes += footprint.header + footprint.chars;
                }),
                |_| {},
            );
        } else {
            for_each_entry(shard, |raw| {
                // SAFETY: the table holds every entry's count; only this lock's holder sweeps.
                let (footprint, is_unused) = unsafe { (raw.footprint(), raw.is_unused()) };
                let bytes = footprint.header + footprint.chars;
                if is_unused {
                    unused += 1;
                    unused_bytes += bytes;
                } else {
                    live_bytes += bytes;
                }
            });
        }
        let live = shard.len() - unused;
        // The table's live bytes as this shard now counts them: the byte bound follows.
        if live_bytes >= shard.live_bytes {
            self.live_bytes.fetch_add(live_bytes - shard.live_bytes, Ordering::Relaxed);
        } else {
            self.live_bytes.fetch_sub(shard.live_bytes - live_bytes, Ordering::Relaxed);
        }
        shard.live_bytes = live_bytes;
        let count_bound = floor.max(live / 2);
        // The shard's share of the table's byte bound, but no more than its own half: the
        // table's live bytes are as each shard last counted them, so a share computed while
        // every shard was full stays large while the other shards drop their atoms too
        // (with 8 shards, a mass drop of 1 MiB atoms left 4 MiB and more unused where the
        // bound, every atom dropped, is the floor).
        let byte_floor = self.unused_bytes_floor() / self.shards.len();
        let byte_bound = self.shard_byte_bound().min(byte_floor.max(live_bytes / 2));
        // Swept blocks that readers still hold count as unused bytes: retirements that
        // readers keep from being freed bring the next check, and its collection, sooner.
        let retired_bytes = shard.retired.bytes();
        if !sweep_while_counting
            && (check == Check::Sweep || unused > count_bound / 2 || unused_bytes + retired_bytes > byte_bound / 2)
        {
            let _ = dead.try_reserve_exact(unused);
            shard.retain(sweep_into(&mut dead, &mut dead_bytes, |_| {}), |_| {});
            // Whatever was unused is gone, or was revived meanwhile; a drop since is in the
            // pressure beyond what this check saw.
            (unused, unused_bytes) = (0, 0);
        }
        let freed = dead.len();
        // Most checks free nothing: an empty list's iterator is not worth building (counted:
        // a tenth of the check on a shard of a few dozen atoms).
        if freed > 0 {
            // SAFETY: unlinked from the slots above (no reader pinning from now on can find
            // them), retired once, and each `free` frees a dead block from any thread. The
            // list is dropped with the table, when no reader is left.
            unsafe { shard.retired.retire_all(dead.into_iter().map(DeadBlock::into_retirable), dead_bytes) };
        }
        shard.counters.removals += freed as u64;
        // Swept blocks are freed as soon as no reader holds them: with none pinned, the
        // two epoch steps take a few collections, and a large atom's memory goes now.
        for _ in 0..if freed > 0 { 3 } else { 1 } {
            if shard.retired.collect() == 0 {
                break;
            }
        }
        // What a reader still holds waits for a later collection, by any write to any shard
        // or by reads (see `waiting_shards`); meanwhile its bytes take room under the bound.
        let index = self.index_of(padded);
        self.collect_after_write(index, shard);
        padded.pressure.fetch_sub(pressure_seen, Ordering::Relaxed);
        let count_room = count_bound.saturating_sub(unused);
        // Every byte dropped leaves the shard's live bytes, and so its own half, smaller:
        // past the floor the room is two thirds of what is left under that half, so that
        // the bound still holds when the drops that fill the room are done.
        let held = unused_bytes + shard.retired.bytes();
        let own_room = byte_floor.saturating_sub(held).max((live_bytes / 2).saturating_sub(held) * 2 / 3);
        let byte_room = byte_bound.saturating_sub(held).min(own_room);
        padded.check_after.store(mark_word(count_room, byte_room), Ordering::Relaxed);
        shard.check_at_len = floor.max(shard.len() * 2);
        shard.unused_bytes = unused_bytes;
        freed
    }

    /// A global atom of `bytes` (header and text) in `hash`'s shard became unused.
    ///
    /// Every drop that leaves an atom unused runs this: the common case (no check due)
    /// is an add and a compare, with the locking check out of line so that this path
    /// saves no registers and sets up no stack frame.
    #[inline]
    pub(super) fn note_unused(&self, hash: u64, bytes: usize) {
        self.note_unused_in(self.shard_index(hash), one_drop(bytes));
    }

    /// Drops that left atoms of shard `index` unused, summed (see
    /// [`unused_batch`](super::unused_batch)): one add, and the check if it is due.
    #[inline]
    pub(super) fn note_unused_in(&self, index: usize, drops: u64) {
        let padded = &self.shards[index];
        let pressure = padded.pressure.fetch_add(drops, Ordering::Relaxed).wrapping_add(drops);
        if passes(pressure, padded.check_after.load(Ordering::Relaxed)) {
            self.check_shard_after_drop(padded);
        }
    }

    /// [`TableShared::note_unused`]'s check, once the shard's pressure passed its mark.
    #[cold]
    #[inline(never)]
    fn check_shard_after_drop(&self, padded: &PaddedShard) {
        let mut shard = padded.slots.lock();
        // Another dropper may have checked while we waited for the lock.
        if passes(padded.pressure.load(Ordering::Relaxed), padded.check_after.load(Ordering::Relaxed)) {
            self.check_shard(padded, &mut shard, Check::AfterDrops);
        }
    }

    /// Frees every unused atom now, and whatever lock-free readers have moved on from.
    /// Returns the atoms swept.
    pub(crate) fn sweep(&self) -> usize {
        let mut freed = 0;
        for padded in self.shards.iter() {
            let mut shard = padded.slots.lock();
            freed += self.check_shard(padded, &mut shard, Check::Sweep);
            // The sweep may have started moving the entries to a smaller array: a pass that
            // keeps everything finishes that, and retires the old array.
            shard.retain(|_| true, |_| {});
            // An item is freed two epoch steps after it was retired: with no reader pinned,
            // a few collections free them all.
            for _ in 0..3 {
                shard.retired.collect();
                shard.collect_arrays();
            }
            self.note_waiting(self.index_of(padded), &shard);
        }
        freed
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::error::MAX_LEN;

    #[test]
    fn pressure_meets_each_room_on_its_own() {
        // Room for 700 drops and 60 KiB: 1,000 drops of 40-byte atoms pass the drop room
        // alone, 61 drops of 1 KiB atoms the byte room alone, 600 small drops neither.
        let mark = mark_word(700, 60 << 10);
        let after =
            |drops: usize, bytes_each: usize| (0..drops).fold(0u64, |pressure, _| pressure + one_drop(bytes_each));
        assert!(!passes(after(600, 40), mark), "600 small drops are within both rooms");
        assert!(!passes(after(700, 40), mark), "the room itself is within it");
        assert!(passes(after(701, 40), mark));
        assert!(passes(after(61, 1024), mark));
        assert!(!passes(after(60, 1024), mark));
        assert!(!passes(0, mark_word(0, 0)));
        assert!(passes(one_drop(0), mark_word(0, 0)));
        // Subtracting what a check saw leaves what came after it, in both counts.
        let seen = after(500, 40);
        assert_eq!(after(520, 40) - seen, after(20, 40));
    }

    #[test]
    fn rooms_stay_clear_of_the_guard_bits() {
        let huge = mark_word(usize::MAX, usize::MAX) & !GUARDS;
        assert_eq!(huge >> DROPS_SHIFT, MAX_DROPS_ROOM as u64);
        assert_eq!(huge & ((1 << DROPS_SHIFT) - 1), MAX_BYTES_ROOM as u64);
        // A pressure may pass its room by what other droppers add before the check runs:
        // up to three rooms more, and the largest atom's bytes, stay below the guards.
        assert!(4 * (MAX_DROPS_ROOM as u64) < 1 << (63 - DROPS_SHIFT));
        assert!(4 * (MAX_BYTES_ROOM as u64) + one_drop(MAX_LEN + 64) - (1 << DROPS_SHIFT) < 1 << (DROPS_SHIFT - 1));
        // Both fields far past their rooms: still seen as passing, not wrapped around.
        let full = after_many(3 * MAX_DROPS_ROOM, 0);
        assert!(passes(full, mark_word(MAX_DROPS_ROOM, MAX_BYTES_ROOM)));
        assert!(passes(one_drop(MAX_LEN) * 2, mark_word(MAX_DROPS_ROOM, 1 << 20)));
    }

    fn after_many(drops: usize, bytes_each: usize) -> u64 {
        (drops as u64) * one_drop(bytes_each)
    }
}
