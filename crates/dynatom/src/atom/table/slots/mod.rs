//! A shard's set of entries: an open-addressing array of one-word slots that readers probe
//! without a lock, and that writers (holding the shard's lock) change and grow a few slots
//! at a time.
//!
//! # The slot word
//!
//! ```text
//!  bit 63           49  48  47                          3   2   1 0
//!     +---------------+---+-----------------------------+---+-----+
//!     | tag: hash>>49 | P | entry address (bits 3..47)  | 1 | own |   tagged entry
//!     +---------------+---+-----------------------------+---+-----+
//!     | the entry pointer, as given                         | 0 | own |   untagged entry
//!     +-----------------------------------------------------+---+-----+
//!     0: empty                4 (tag 0, address 0, bit 2): tombstone
//! ```
//!
//! Entries are pointers to 8-aligned blocks; bits 0 and 1 are the caller's own (the atom
//! word's static-entry tag lives there) and are kept; bit 2 must be zero ([`Slots`] checks
//! it on insert). User-space pointers on x86-64 and aarch64 leave bits 48..63 zero, so the
//! slot keeps 15 bits of the entry's hash there and sets bit 2 to say so: a probe rejects
//! a mismatch from the slot word alone, without touching the entry. Bit 48 (`P`) says
//! that only a pinned reader may follow the entry ([`Reach::Pinned`]: its memory may be
//! anything once freed; see [`Slots::find_unpinned`]). A pointer that already uses the
//! top bits (5-level paging with a high mmap hint, aarch64 top-byte tags such as MTE or
//! HWASan, or a 32-bit target) is stored as it is, untagged, and every probe that meets
//! it asks the caller's `matches` (and a probe with no pin starts again pinned): slower,
//! never wrong.
//!
//! # Readers
//!
//! [`Slots::find`] loads the current array and, while one is being migrated, the previous
//! one, with `Acquire`, and probes from the hash's low bits (triangular steps, see
//! [`next_slot`](array::next_slot)) until an empty slot.
//! It writes nothing; the [`reclaim::Guard`] it is given keeps every array it loads (and,
//! if the caller retires its entries through [`reclaim`], every entry) allocated.
//!
//! # Removal: tombstones
//!
//! A removed entry's slot becomes a tombstone, which probes step over. Backward-shift
//! deletion would keep no tombstones, but it moves live entries towards their home slot,
//! and a reader probing concurrently can miss an entry that is moved from a slot it has
//! not reached yet to one it has passed. Tombstones never move anything, so a reader can
//! only miss an entry inserted or removed during its probe. They are cleared when the
//! array is migrated to a fresh one, which the load limit forces (it counts them).
//!
//! # Incremental growth
//!
//! When entries plus tombstones would pass 7/8 of the array ([`MAX_LOAD`]), a fresh array
//! (twice as large, or the same size if tombstones are the reason) becomes current and the
//! old one stays as `previous`. Every later write copies a bounded number of the old
//! array's slots (a few, scaled so the copy always ends before the new array fills); a
//! writer never rehashes a large array at once. (An old array of up to
//! [`COPY_WHOLE_UP_TO`] slots is copied whole by the write that grows it: otherwise a set
//! that stops taking writes mid-copy would keep both arrays for good.) Entries are copied, never taken out of the
//! old array, so a reader looking in both finds every entry present throughout its probe.
//! New entries go only to the current array; a removal tombstones the entry in both. When
//! the last old slot is copied, `previous` is cleared and the old array is retired through
//! [`reclaim`]: freed at once when no reader is pinned, else by a write after the readers
//! move on (tried every [`COLLECT_EVERY`] writes).
//!
//! A fresh array is zeroed memory from the table's [`ArrayPool`] (see [`array_pool`]):
//! pages never touched or handed back, or a freed small array zeroed when it was freed.
//! No insert writes a whole array, and one of 64 KiB or more is faulted in by a single
//! call when it is made rather than page by page in the inserts that follow. The pool
//! keeps a freed array's memory slot-shaped while the table lives, so a reader that still
//! probes an array after it was freed reads zeros or its own table's slot words. Growth allocates the next array
//! only when the current one reaches its load limit, so a set holds no second array ahead
//! of need. No write touches more than a few dozen slots of a large set ([`InsertCost`]
//! counts them).
//!
//! # How a shard uses it
//!
//! ```text
//! shard:   Slots<ShardState>, ShardState holding the shard's own counters and a
//!          reclaim::Retired for the blocks it sweeps;
//!          hash_of = |entry| the block header's cached hash (read under the lock).
//! hit:     let guard = reclaim::pin();
//!          slots.find(&guard, hash, |entry| bytes of entry == text)
//!          then take a count unless it is 0 (never revive); drop the guard.
//! miss:    let version = slots.version() before the lock-free probe (which read
//!          `probes` slots); then let mut shard = slots.lock(); shard.find_counting(..)
//!          again only if shard.version() != version; then
//!          shard.insert_after_miss(hash, probes, entry, ..): no slot was written since
//!          the probe that missed, so the entry goes where it stopped.
//! sweep:   shard.retain(|entry| keep unless its count goes 1 -> 0,
//!                       |entry| unsafe { shard_retired.retire(entry, free_block) });
//!          (collect the retired list from time to time, e.g. at each sweep and write.)
//! ```
//!
//! The probe sequence starts at the hash's low bits and the tag is its top 15 bits, so
//! a shard should be chosen by bits in between (the tables use bits 40..45).

use std::ptr::{self, NonNull};

use super::reclaim::{self, Retired};
use crate::error::StrError;
use crate::sync::{AtomicPtr, AtomicUsize, Mutex, MutexGuard, Ordering, exclusive_ptr, lock, try_lock};

mod array;
mod array_pool;
mod growth;
mod removal;
mod slot_word;

use array::{Array, empty_slot_where_probe_ended, store_in_free_slot};
use array_pool::PoolRef;
pub(crate) use array_pool::{ArrayPool, PoolUsage};
pub(crate) use slot_word::Reach;
use slot_word::{TAGGED, TOMBSTONE, tag};

/// The first array's capacity.
#[cfg(not(loom))]
const MIN_CAPACITY: usize = 8;
#[cfg(loom)]
const MIN_CAPACITY: usize = 4;

/// Old slots copied per write at least, while migrating.
///
/// The old array stays allocated until its last slot is copied, so a migration holds
/// half as many slots again as the new array while it runs: at 8 slots a write it ran
/// from 7/8 of the old capacity to all of it, and a table-size sweep that stopped there
/// read 48.3 resident bytes per atom at 30,000 keys and 46.2 at 1,000,000 against 41.6 and
/// 37.8 at 32 (which ends at 29/32). The price is more old slots, and their entries'
/// cached hashes, read by one insert ([`InsertCost`]).
#[cfg(not(loom))]
const MIGRATE_STEP: usize = 32;
#[cfg(loom)]
const MIGRATE_STEP: usize = 1;

/// Old arrays of up to this many slots (2 KiB) are copied whole by the write that grows
/// them: a few hundred slot copies, which cost that write well under a microsecond, where
/// copying them a step a write leaves the old array allocated until enough writes come,
/// which a table that stops filing (a fill followed only by hits) never sends.
#[cfg(not(loom))]
const COPY_WHOLE_UP_TO: usize = 256;
/// None in the models, which explore the migration a slot at a time.
#[cfg(loom)]
const COPY_WHOLE_UP_TO: usize = 0;

/// The most an array is filled, entries and tombstones together, as a fraction
/// `MAX_LOAD.0 / MAX_LOAD.1`: 7/8.
///
/// Not 3/4: at the keys corpus's 100,000 atoms (just past 3/4 of a shard's 2,048 slots)
/// that left 25.8 B of slots per atom, more than the atom's own header, where 7/8 leaves
/// 10.7 B. The price is longer probes near the limit, which the tags in the slots keep
/// cheap (a mismatch is rejected from the slot word). docs/design-history.md has the
/// instruction counts.
const MAX_LOAD: (usize, usize) = (7, 8);

/// Whether `filled` slots of `capacity` are within [`MAX_LOAD`].
#[inline]
fn within_max_load(filled: usize, capacity: usize) -> bool {
    filled * MAX_LOAD.1 <= capacity * MAX_LOAD.0
}

/// Writes between tries to free old arrays while some wait.
#[cfg(not(loom))]
const COLLECT_EVERY: usize = 16;
#[cfg(loom)]
const COLLECT_EVERY: usize = 1;

/// A shard's set: readers call [`Slots::find`] with no lock; writers [`Slots::lock`] it,
/// which also guards the caller's own shard state `S`.
pub(crate) struct Slots<S> {
    /// The array inserts go into (its word: see [`array_pool`]); null until the first
    /// insert.
    current: AtomicPtr<u8>,
    /// The array being migrated from; null when no migration runs.
    previous: AtomicPtr<u8>,
    /// Where the set's arrays come from and go back to; `None`: the global allocator.
    pool: Option<PoolRef>,
    /// Raised (with Release) after every insert and removal: a writer that read it before
    /// a lock-free probe and finds it unchanged under the lock knows the probe's answer
    /// still holds (see [`Slots::version`]).
    version: AtomicUsize,
    locked: Mutex<Locked<S>>,
}

/// What only the lock holder touches.
struct Locked<S> {
    /// Entries in the set (counting an entry copied to the new array once).
    len: usize,
    /// Entries stored in the current array (copies included).
    occupied: usize,
    /// Tombstones in the current array.
    tombstones: usize,
    /// Next slot of `previous` to copy.
    cursor: usize,
    /// Old slots to copy per write in this migration.
    step: usize,
    /// Arrays left behind by growth, waiting for readers.
    retired: Retired,
    /// Bytes of the arrays in `retired` (until all of them are freed).
    retired_bytes: usize,
    /// Writes left before the next try to free old arrays.
    writes_to_collect: usize,
    /// The most one step of growth work touched, and the largest array one allocated.
    most_insert: InsertCost,
    /// The hash of an entry in the set, for copying it to a new array.
    hash_of: fn(NonNull<u8>) -> u64,
    /// The caller's own shard state.
    state: S,
}

/// [`Slots::find_unpinned`] in one array.
#[inline(always)]
fn probe_unpinned(array: Array, hash: u64, visited: &mut u64) -> Unpinned {
    if !array.is_pooled() {
        return Unpinned::NeedsPin;
    }
    // SAFETY: a pooled array's memory holds its table's slots (or zeros) while the pool
    // lives, and the pool outlives the set.
    match unsafe { array.probe(hash, visited, Some) } {
        None => Unpinned::Missed,
        Some(word) if tag::needs_pin(word.addr()) => Unpinned::NeedsPin,
        Some(word) => Unpinned::Candidate(NonNull::new(tag::unpack(word)).expect("an entry is not null")),
    }
}

/// What [`Slots::find_unpinned`] found.
pub(crate) enum Unpinned {
    /// The first entry under the hash's tag, to be checked.
    Candidate(NonNull<u8>),
    /// No entry under the hash's tag, and every array could be read with no pin.
    Missed,
    /// The first candidate (or an array) only a pinned reader may follow: ask again,
    /// pinned.
    NeedsPin,
}

/// The work of the inserts that grew a set: figures that a machine's load cannot move,
/// for the worst case of a fill (the time of one such insert is mostly the page faults
/// and cache misses these slots and bytes cost).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct InsertCost {
    /// Slot words one step of growth read or wrote: the old slots a write copied with
    /// their probes in the new array, or the slots of the next array it zeroed.
    pub(crate) slots: usize,
    /// Bytes of a slot array one insert allocated.
    pub(crate) array_bytes: usize,
}

/// A writer's hold on a [`Slots`]: the lock, the caller's state through `Deref`.
pub(crate) struct SlotsGuard<'a, S> {
    slots: &'a Slots<S>,
    locked: MutexGuard<'a, Locked<S>>,
}

impl<S> Slots<S> {
    /// An empty set (no array yet). `hash_of` gives the hash an entry was inserted with;
    /// the set calls it only on entries it holds, under its lock, when growing.
    pub(crate) fn new(state: S, hash_of: fn(NonNull<u8>) -> u64) -> Slots<S> {
        Slots::with_pool_ref(state, hash_of, None)
    }

    /// As [`Slots::new`], with arrays from `pool`, which keeps them slot-shaped once freed
    /// (see [`array_pool`]).
    ///
    /// # Safety
    /// `pool` outlives the set (a table drops its shards before its pool).
    pub(crate) unsafe fn with_pool(state: S, hash_of: fn(NonNull<u8>) -> u64, pool: &ArrayPool) -> Slots<S> {
        // SAFETY: forwarded from the caller.
        Slots::with_pool_ref(state, hash_of, Some(unsafe { PoolRef::new(pool) }))
    }

    fn with_pool_ref(state: S, hash_of: fn(NonNull<u8>) -> u64, pool: Option<PoolRef>) -> Slots<S> {
        let locked = Locked {
            len: 0,
            occupied: 0,
            tombstones: 0,
            cursor: 0,
            step: MIGRATE_STEP,
            retired: Retired::with_context(PoolRef::as_context(pool)),
            retired_bytes: 0,
            writes_to_collect: COLLECT_EVERY,
            most_insert: InsertCost::default(),
            hash_of,
            state,
        };
        Slots {
            current: AtomicPtr::new(ptr::null_mut()),
            previous: AtomicPtr::new(ptr::null_mut()),
            pool,
            version: AtomicUsize::new(0),
            locked: Mutex::new(locked),
        }
    }

    /// The entry `matches` accepts among those filed under `hash`, without a lock and
    /// without writing anything.
    ///
    /// `matches` only sees entries whose tag equals `hash`'s (and untagged ones). An entry
    /// inserted or removed while this runs may or may not be seen, so a found entry may
    /// have been removed already: the caller validates it (for an atom: a count that is
    /// not zero). The entry, like the arrays, stays allocated while `_guard` lives if its
    /// writer retires it through [`reclaim`].
    #[inline]
    pub(crate) fn find(
        &self,
        _guard: &reclaim::Guard,
        hash: u64,
        mut matches: impl FnMut(NonNull<u8>) -> bool,
    ) -> Option<NonNull<u8>> {
        // Acquire: pairs with the Release that published the array (its empty slots were
        // written before). `current` first: a `previous` loaded after it is its
        // predecessor, or null once every entry has been copied into it.
        let current = Array::from_raw(self.current.load(Ordering::Acquire))?;
        let previous = self.previous.load(Ordering::Acquire);
        let mut visited = 0;
        // SAFETY: the guard keeps both arrays allocated: the writer retires an array
        // through `reclaim` after unlinking it.
        if let Some(found) = unsafe { current.find(hash, &mut matches, &mut visited) } {
            return Some(found);
        }
        let previous = Array::from_raw(previous).filter(|previous| *previous != current)?;
        // SAFETY: as above.
        unsafe { previous.find(hash, &mut matches, &mut visited) }
    }

    /// As [`find`](Self::find), also saying how many slots it read.
    #[inline]
    pub(crate) fn find_counting(
        &self,
        _guard: &reclaim::Guard,
        hash: u64,
        mut matches: impl FnMut(NonNull<u8>) -> bool,
    ) -> (Option<NonNull<u8>>, u64) {
        // Acquire: as in `find`.
        let Some(current) = Array::from_raw(self.current.load(Ordering::Acquire)) else { return (None, 0) };
        let previous = self.previous.load(Ordering::Acquire);
        let mut visited = 0;
        // SAFETY: as in `find`.
        if let Some(found) = unsafe { current.find(hash, &mut matches, &mut visited) } {
            return (Some(found), visited);
        }
        let Some(previous) = Array::from_raw(previous).filter(|previous| *previous != current) else {
            return (None, visited);
        };
        // SAFETY: as above.
        let found = unsafe { previous.find(hash, &mut matches, &mut visited) };
        (found, visited)
    }

    /// A probe with no pin: the first entry filed under `hash`'s tag (a candidate: the
    /// caller checks it), or `Missed` if there is none, or `NeedsPin` if the first one
    /// was filed [`Reach::Pinned`] (or is untagged), or an array came from the global
    /// allocator. Also says how many slots it read.
    ///
    /// With no pin, an array may be freed while it is probed: its pool keeps the memory
    /// slots of this set's table (or zeros), so the probe reads only slot words, some of
    /// them stale. So the candidate may have been removed, freed, even reused for another
    /// entry of the same table since: the caller treats the entry's memory as the table's
    /// type-stable memory and checks what it finds (for an atom: raise the count only from
    /// a live value, then compare the text). A candidate that fails the check says nothing
    /// of the slots after it: the caller asks again pinned.
    #[inline(always)]
    pub(crate) fn find_unpinned(&self, hash: u64) -> (Unpinned, u64) {
        // Acquire: as in `find`.
        let Some(current) = Array::from_raw(self.current.load(Ordering::Acquire)) else { return (Unpinned::Missed, 0) };
        let previous = self.previous.load(Ordering::Acquire);
        let mut visited = 0;
        let found = match probe_unpinned(current, hash, &mut visited) {
            Unpinned::Missed => match Array::from_raw(previous).filter(|previous| *previous != current) {
                Some(previous) => probe_unpinned(previous, hash, &mut visited),
                None => Unpinned::Missed,
            },
            found => found,
        };
        (found, visited)
    }

    /// The set's write version, to read before a lock-free probe: if
    /// [`SlotsGuard::version`] still equals it once the lock is taken, no slot was written
    /// since (no entry inserted, removed or copied, no array made current or dropped), so
    /// an entry the probe did not find is not in the set, and the probe's last slot is
    /// still where it stopped.
    #[inline]
    pub(crate) fn version(&self) -> usize {
        // Acquire: pairs with the Release that raised it after a write, so the probe that
        // follows sees every entry written before the version it read.
        self.version.load(Ordering::Acquire)
    }

    /// Locks the set for writing (and the caller's state with it).
    pub(crate) fn lock(&self) -> SlotsGuard<'_, S> {
        SlotsGuard { slots: self, locked: lock(&self.locked) }
    }

    /// Locks the set for writing if no one holds it: for a caller that may hold another
    /// set's lock, or must not wait.
    pub(crate) fn try_lock(&self) -> Option<SlotsGuard<'_, S>> {
        try_lock(&self.locked).map(|locked| SlotsGuard { slots: self, locked })
    }

    fn arrays(&self) -> (Option<Array>, Option<Array>) {
        // Relaxed: called under the lock, which orders every store to these fields.
        let current = Array::from_raw(self.current.load(Ordering::Relaxed));
        let previous = Array::from_raw(self.previous.load(Ordering::Relaxed));
        (current, previous)
    }

    /// The pool the set's arrays come from, if any.
    fn pool(&self) -> Option<&ArrayPool> {
        self.pool.map(PoolRef::get)
    }
}

impl<S> Slots<S> {
    /// The arrays of a set owned outright, read without synchronising operations.
    fn exclusive_arrays(&mut self) -> (Option<Array>, Option<Array>) {
        let current = Array::from_raw(exclusive_ptr(&mut self.current));
        let previous = Array::from_raw(exclusive_ptr(&mut self.previous));
        (current, previous)
    }
}

impl<S> Drop for Slots<S> {
    fn drop(&mut self) {
        let (current, previous) = self.exclusive_arrays();
        for array in [current, previous].into_iter().flatten() {
            // SAFETY: `&mut self`: no reader can be probing; each array is freed once (a
            // retired array is in neither field, and the lock's `Retired` frees those),
            // into the pool it came from, which outlives the set.
            unsafe { ArrayPool::free(self.pool(), array) };
        }
    }
}

impl<S> std::ops::Deref for SlotsGuard<'_, S> {
    type Target = S;
    fn deref(&self) -> &S {
        &self.locked.state
    }
}

impl<S> std::ops::DerefMut for SlotsGuard<'_, S> {
    fn deref_mut(&mut self) -> &mut S {
        &mut self.locked.state
    }
}

impl<S> SlotsGuard<'_, S> {
    /// The write version now (see [`Slots::version`]).
    pub(crate) fn version(&self) -> usize {
        // Relaxed: only the lock's holder writes it.
        self.slots.version.load(Ordering::Relaxed)
    }

    /// Marks a write to the slots (see [`Slots::version`]), after its stores.
    fn raise_version(&self) {
        let next = self.version().wrapping_add(1);
        // Release: a reader that reads this version sees the slot stores before it.
        self.slots.version.store(next, Ordering::Release);
    }

    /// Entries in the set.
    pub(crate) fn len(&self) -> usize {
        self.locked.len
    }

    /// Slots in the current array (0 before the first insert).
    pub(crate) fn capacity(&self) -> usize {
        self.slots.arrays().0.map_or(0, Array::capacity)
    }

    /// The most slots one step of growth work touched, and the largest slot array one
    /// insert allocated.
    pub(crate) fn most_insert(&self) -> InsertCost {
        self.locked.most_insert
    }

    /// Whether a migration to a new array is under way.
    pub(crate) fn is_migrating(&self) -> bool {
        self.slots.arrays().1.is_some()
    }

    /// Bytes of every slot array the set holds: current, previous, and those retired and
    /// not yet freed.
    pub(crate) fn memory_size(&self) -> usize {
        let (current, previous) = self.slots.arrays();
        let arrays: usize = [current, previous].into_iter().flatten().map(Array::bytes).sum();
        arrays + self.locked.retired_bytes
    }

    /// The entry `matches` accepts among those filed under `hash` (as [`Slots::find`], but
    /// exact: nothing changes while the lock is held).
    pub(crate) fn find(&self, hash: u64, matches: impl FnMut(NonNull<u8>) -> bool) -> Option<NonNull<u8>> {
        self.find_counting(hash, matches).0
    }

    /// As [`find`](Self::find), also saying how many slots it read.
    pub(crate) fn find_counting(
        &self,
        hash: u64,
        mut matches: impl FnMut(NonNull<u8>) -> bool,
    ) -> (Option<NonNull<u8>>, u64) {
        let (current, previous) = self.slots.arrays();
        let mut visited = 0;
        // SAFETY: under the lock no array is freed.
        if let Some(found) = current.and_then(|array| unsafe { array.find(hash, &mut matches, &mut visited) }) {
            return (Some(found), visited);
        }
        // SAFETY: as above.
        let found = previous.and_then(|array| unsafe { array.find(hash, &mut matches, &mut visited) });
        (found, visited)
    }

    /// Adds `entry` under `hash`. The caller has checked that no equal entry is present
    /// (with [`SlotsGuard::find`]). Fails only if a needed larger array cannot be
    /// allocated and the current one has no room left.
    ///
    /// # Panics
    /// If bit 2 of `entry` is set (entries point to 8-aligned blocks; the slot word uses
    /// that bit).
    pub(crate) fn insert(&mut self, hash: u64, entry: NonNull<u8>, reach: Reach) -> Result<(), StrError> {
        self.insert_publishing(hash, entry, reach, || {})
    }

    /// As [`SlotsGuard::insert`], calling `publish` once the insert can no longer fail,
    /// before the entry becomes visible to readers: what the entry must hold by the time
    /// a reader finds it (an atom's count) is written there, and a failed insert leaves
    /// it unwritten.
    pub(crate) fn insert_publishing(
        &mut self,
        hash: u64,
        entry: NonNull<u8>,
        reach: Reach,
        publish: impl FnOnce(),
    ) -> Result<(), StrError> {
        assert_eq!(entry.as_ptr().addr() & TAGGED, 0, "slot entries point to 8-aligned blocks");
        self.migrate_some();
        let array = self.reserve_one()?;
        publish();
        let word = tag::pack(entry, hash, reach);
        // SAFETY: under the lock the current array is allocated.
        let (was_tombstone, _) = unsafe { store_in_free_slot(array, hash, word) };
        self.note_listed(was_tombstone);
        Ok(())
    }

    /// The bookkeeping of an entry just stored in the current array (in a tombstone's
    /// slot, or an empty one): the counts, the version, and now and then a collection.
    fn note_listed(&mut self, was_tombstone: bool) {
        let locked = &mut *self.locked;
        if was_tombstone {
            locked.tombstones -= 1;
        }
        locked.occupied += 1;
        locked.len += 1;
        self.raise_version();
        self.collect_now_and_then();
    }

    /// As [`SlotsGuard::insert_publishing`], for an entry that a probe of this set for
    /// `hash` missed after reading `probes` slots, with the write version unchanged since
    /// before that probe ([`Slots::version`]): no slot was written since, so the empty
    /// slot where the probe stopped is the first one of the sequence, and the entry goes
    /// there with no second probe (one mispredicted loop exit less per new atom). When
    /// there is a migration to step or a growth due, it takes the ordinary path.
    pub(crate) fn insert_after_miss(
        &mut self,
        hash: u64,
        probes: u64,
        entry: NonNull<u8>,
        reach: Reach,
        publish: impl FnOnce(),
    ) -> Result<(), StrError> {
        if let (Some(current), None) = self.slots.arrays()
            && within_max_load(self.locked.occupied + self.locked.tombstones + 1, current.capacity())
            // SAFETY: under the lock the current array is allocated.
            && let Some(index) = unsafe { empty_slot_where_probe_ended(current, hash, probes) }
        {
            assert_eq!(entry.as_ptr().addr() & TAGGED, 0, "slot entries point to 8-aligned blocks");
            publish();
            // SAFETY: as above; `index` is in bounds.
            let slot = unsafe { &current.slots()[index] };
            // Release: as in `store_in_free_slot`.
            slot.store(tag::pack(entry, hash, reach), Ordering::Release);
            self.note_listed(false);
            return Ok(());
        }
        self.insert_publishing(hash, entry, reach, publish)
    }

    /// Visits every entry once, changing nothing (a memory report, say). Unlike
    /// [`SlotsGuard::retain`] it does not finish a migration: it reads the entries the
    /// old array still holds uncopied there.
    pub(crate) fn for_each(&self, mut visit: impl FnMut(NonNull<u8>)) {
        let (current, previous) = self.slots.arrays();
        let mut visit_slots = |slots: &[AtomicPtr<u8>]| {
            for slot in slots {
                let word = slot.load(Ordering::Relaxed);
                let bits = word.addr();
                if bits != 0 && bits != TOMBSTONE {
                    visit(NonNull::new(tag::unpack(word)).expect("an entry is not null"));
                }
            }
        };
        if let Some(array) = current {
            // SAFETY: under the lock the arrays are allocated.
            visit_slots(unsafe { array.slots() });
        }
        if let Some(array) = previous {
            // SAFETY: as above. Slots below the cursor were copied into `current`.
            visit_slots(&unsafe { array.slots() }[self.locked.cursor..]);
        }
    }
}

#[cfg(all(test, not(loom)))]
#[path = "slots_tests.rs"]
mod tests;

#[cfg(all(test, loom))]
#[path = "slots_loom.rs"]
mod loom_models;
