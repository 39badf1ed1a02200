//! A shard's set of entries: an open-addressing array of one-word slots that readers probe
//! without a lock, and that writers (holding the shard's lock) change and grow a few slots
//! at a time.
//!
//! # The slot word
//!
//! ```text
//!  bit 63            48 47                          3   2   1 0
//!     +----------------+-----------------------------+---+-----+
//!     | tag: hash>>48  | entry address (bits 3..47)  | 1 | own |   tagged entry
//!     +----------------+-----------------------------+---+-----+
//!     | the entry pointer, as given                      | 0 | own |   untagged entry
//!     +--------------------------------------------------+---+-----+
//!     0: empty                4 (tag 0, address 0, bit 2): tombstone
//! ```
//!
//! Entries are pointers to 8-aligned blocks; bits 0 and 1 are the caller's own (the atom
//! word's static-entry tag lives there) and are kept; bit 2 must be zero ([`Slots`] checks
//! it on insert). User-space pointers on x86-64 and aarch64 leave bits 48..63 zero, so the
//! slot keeps 16 bits of the entry's hash there and sets bit 2 to say so: a probe rejects
//! a mismatch from the slot word alone, without touching the entry. A pointer that already
//! uses the top bits (5-level paging with a high mmap hint, aarch64 top-byte tags such as
//! MTE or HWASan, or a 32-bit target) is stored as it is, untagged, and every probe that
//! meets it asks the caller's `matches`: slower, never wrong.
//!
//! # Readers
//!
//! [`Slots::find`] loads the current array and, while one is being migrated, the previous
//! one, with `Acquire`, and probes from the hash's low bits (triangular steps, see
//! [`next_slot`]) until an empty slot.
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
//! writer never rehashes everything at once. Entries are copied, never taken out of the
//! old array, so a reader looking in both finds every entry present throughout its probe.
//! New entries go only to the current array; a removal tombstones the entry in both. When
//! the last old slot is copied, `previous` is cleared and the old array is retired through
//! [`reclaim`]: freed at once when no reader is pinned, else by a write after the readers
//! move on (tried every [`COLLECT_EVERY`] writes).
//!
//! A large fresh array is not zeroed all at once either: once a current array of
//! [`PREPARE_FROM`] slots or more is half full, its successor is allocated and zeroed a few
//! slots per write ([`Prepared`]), so it is ready, untouched by readers, when the load
//! limit comes. No write then touches more than a few dozen slots of a large set
//! ([`InsertCost`] counts them); smaller arrays are zeroed when made, which costs less
//! than holding twice their memory from half load on.
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
//! miss:    let version = slots.version() before the lock-free probe; then
//!          let mut shard = slots.lock(); shard.find(..) again only if
//!          shard.version() != version; else shard.insert(hash, entry).
//! sweep:   shard.retain(|entry| keep unless its count goes 1 -> 0,
//!                       |entry| unsafe { shard_retired.retire(entry, free_block) });
//!          (collect the retired list from time to time, e.g. at each sweep and write.)
//! ```
//!
//! The probe sequence starts at the hash's low bits and the tag is its top 16 bits, so
//! a shard should be chosen by bits in between (today's tables use bits 32..).

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::reclaim::{self, Retired};
use crate::error::StrError;
use crate::sync::{
    AtomicPtr, AtomicUsize, Mutex, MutexGuard, Ordering, exclusive, exclusive_ptr, lock, raw_alloc, try_lock,
    unshared_load,
};

/// Bit 2 of a slot word: the entry carries a hash tag in the top bits.
const TAGGED: usize = 0b100;
/// A removed entry's slot.
const TOMBSTONE: usize = TAGGED;

/// The first array's capacity.
#[cfg(not(loom))]
const MIN_CAPACITY: usize = 8;
#[cfg(loom)]
const MIN_CAPACITY: usize = 4;

/// Old slots copied per write at least, while migrating.
#[cfg(not(loom))]
const MIGRATE_STEP: usize = 8;
#[cfg(loom)]
const MIGRATE_STEP: usize = 1;

/// The smallest array whose successor is zeroed a few slots per insert ahead of its
/// migration ([`Prepared`]): 8,192 slots, a shard of 3,072 to 6,144 entries, whose
/// successor is 128 KiB. Zeroing a smaller one at once costs a few microseconds, no more
/// than a page fault; preparing it would hold its memory (twice the current array's)
/// from half load on, in every table of a few hundred thousand atoms or fewer.
#[cfg(not(loom))]
const PREPARE_FROM: usize = 8192;

/// Slots of the next array zeroed per insert while it is prepared: it must be ready before
/// the current array, at least half full when preparation starts, passes its 7/8 load
/// limit, that is within `3 * capacity / 8` inserts for `2 * capacity` slots (6 per
/// insert); more than twice that leaves room for tombstones filling it faster.
#[cfg(not(loom))]
const PREPARE_STEP: usize = 16;

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

#[cfg(target_pointer_width = "64")]
mod tag {
    use std::ptr::NonNull;

    use super::TAGGED;

    const SHIFT: u32 = 48;
    const ADDRESS: usize = (1 << SHIFT) - 1;

    /// The tag bits a slot keeps for `hash`, in place.
    #[inline]
    pub(super) fn of(hash: u64) -> usize {
        ((hash >> 48) as usize) << SHIFT
    }

    /// The slot word for `entry`: tagged if its top bits are free.
    #[inline]
    pub(super) fn pack(entry: NonNull<u8>, hash: u64) -> *mut u8 {
        let ptr = entry.as_ptr();
        if ptr.addr() >> SHIFT == 0 { ptr.map_addr(|addr| addr | TAGGED | of(hash)) } else { ptr }
    }

    /// Whether `word` is tagged with `wanted` (as made by [`of`]), in one mask and compare.
    /// A tombstone (tagged, tag 0) passes when `wanted` is 0: the caller checks for it.
    #[inline]
    pub(super) fn tagged_with(word: usize, wanted: usize) -> bool {
        word & (!ADDRESS | TAGGED) == wanted | TAGGED
    }

    /// The entry of a non-empty, non-tombstone word.
    #[inline]
    pub(super) fn unpack(word: *mut u8) -> *mut u8 {
        if word.addr() & TAGGED != 0 { word.map_addr(|addr| addr & ADDRESS & !TAGGED) } else { word }
    }
}

/// Without 64-bit pointers there are no spare top bits: every entry is untagged.
#[cfg(not(target_pointer_width = "64"))]
mod tag {
    use std::ptr::NonNull;

    #[inline]
    pub(super) fn of(_hash: u64) -> usize {
        0
    }

    #[inline]
    pub(super) fn pack(entry: NonNull<u8>, _hash: u64) -> *mut u8 {
        entry.as_ptr()
    }

    #[inline]
    pub(super) fn tagged_with(_word: usize, _wanted: usize) -> bool {
        false
    }

    #[inline]
    pub(super) fn unpack(word: *mut u8) -> *mut u8 {
        word
    }
}

/// The head of a slot array; the slots follow it in the same allocation.
#[repr(C)]
struct ArrayHeader {
    /// Capacity - 1; capacities are powers of two.
    mask: usize,
}

/// Raw handle to one slot array. Copying it copies the pointer, not the array.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Array(NonNull<ArrayHeader>);

/// Where the slots start, after the header: a constant, so a probe computes no layout.
const SLOTS_OFFSET: usize = {
    let align = std::mem::align_of::<AtomicPtr<u8>>();
    std::mem::size_of::<ArrayHeader>().div_ceil(align) * align
};

impl Array {
    fn layout(capacity: usize) -> Option<(Layout, usize)> {
        let slots = Layout::array::<AtomicPtr<u8>>(capacity).ok()?;
        let (layout, offset) = Layout::new::<ArrayHeader>().extend(slots).ok()?;
        debug_assert_eq!(offset, SLOTS_OFFSET);
        Some((layout.pad_to_align(), offset))
    }

    /// A fresh array of empty slots; `capacity` is a power of two.
    fn allocate(capacity: usize) -> Result<Array, StrError> {
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
    unsafe fn capacity(self) -> usize {
        // SAFETY: the caller keeps the array allocated; the mask never changes.
        unsafe { self.0.as_ref() }.mask + 1
    }

    /// # Safety
    /// The array has not been freed, and outlives `'a`.
    #[inline]
    unsafe fn slots<'a>(self) -> &'a [AtomicPtr<u8>] {
        // SAFETY: the caller keeps the array allocated; its slots were all initialised by
        // `allocate`, right after the header at the offset its layout gives.
        unsafe {
            let capacity = self.capacity();
            std::slice::from_raw_parts(self.0.as_ptr().cast::<u8>().add(SLOTS_OFFSET).cast(), capacity)
        }
    }

    /// # Safety
    /// No reader can hold the array any more, and it is freed once.
    unsafe fn free(self) {
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
    /// As for [`Array::free`]; for [`Retired::retire`].
    unsafe fn free_erased(ptr: NonNull<()>) {
        // SAFETY: forwarded: `ptr` is an array retired once.
        unsafe { Array(ptr.cast()).free() }
    }

    /// Probes for an entry `matches` accepts. Stops at the first empty slot.
    /// `visited` counts the slots read (the probe length the memory report shows).
    ///
    /// # Safety
    /// The array stays allocated for the call.
    #[inline(always)]
    unsafe fn find(
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

/// A shard's set: readers call [`Slots::find`] with no lock; writers [`Slots::lock`] it,
/// which also guards the caller's own shard state `S`.
pub(crate) struct Slots<S> {
    /// The array inserts go into; null until the first insert.
    current: AtomicPtr<ArrayHeader>,
    /// The array being migrated from; null when no migration runs.
    previous: AtomicPtr<ArrayHeader>,
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
    /// The next array while it is zeroed ahead of its migration.
    #[cfg(not(loom))]
    prepared: Option<Prepared>,
    /// `occupied + tombstones` from which the next array is prepared (`usize::MAX`: the
    /// current array is too small for it, or there is none).
    #[cfg(not(loom))]
    prepare_at: usize,
    /// The caller's own shard state.
    state: S,
}

/// The array a growing set will migrate to, allocated when the current one is half full
/// and zeroed [`PREPARE_STEP`] slots per insert until it is used. Zeroing a large array at
/// once (hundreds of KiB at a million atoms, with the page faults of its fresh pages) was
/// the slowest insert of a fill; spread out, no single insert pays more than a few cache
/// lines of it. Nobody but the lock's holder sees it before it is complete.
#[cfg(not(loom))]
struct Prepared {
    header: NonNull<ArrayHeader>,
    capacity: usize,
    /// Slots zeroed so far, from the first.
    zeroed: usize,
}

#[cfg(not(loom))]
impl Prepared {
    /// An uninitialised array of `capacity` slots (a power of two) with its header
    /// written; `None` if memory ran out (growth then allocates as usual).
    fn start(capacity: usize) -> Option<Prepared> {
        let (layout, _) = Array::layout(capacity)?;
        // SAFETY: the layout is non-zero-sized (it has a header).
        let header = NonNull::new(unsafe { raw_alloc::alloc(layout) }.cast::<ArrayHeader>())?;
        // SAFETY: a fresh allocation of `layout`: the header fits at its start.
        unsafe { header.as_ptr().write(ArrayHeader { mask: capacity - 1 }) };
        Some(Prepared { header, capacity, zeroed: 0 })
    }

    /// Bytes of the allocation.
    fn bytes(&self) -> usize {
        Array::layout(self.capacity).map_or(0, |(layout, _)| layout.size())
    }

    /// Zeroes up to `count` more slots; returns how many.
    fn zero_some(&mut self, count: usize) -> usize {
        let count = count.min(self.capacity - self.zeroed);
        // SAFETY: slots `zeroed..zeroed + count` lie inside the allocation (its layout holds
        // `capacity` slots from `SLOTS_OFFSET`); all-zero bytes are an empty `AtomicPtr`.
        unsafe {
            let first = self.header.as_ptr().cast::<u8>().add(SLOTS_OFFSET).cast::<AtomicPtr<u8>>().add(self.zeroed);
            ptr::write_bytes(first, 0, count);
        }
        self.zeroed += count;
        count
    }

    /// The array, every slot zeroed (the rest now); and the slots zeroed by this call.
    fn finish(mut self) -> (Array, usize) {
        let rest = self.zero_some(usize::MAX);
        let array = Array(self.header);
        std::mem::forget(self);
        (array, rest)
    }
}

// SAFETY: a `Prepared` owns its allocation outright (no other pointer to it exists until
// `finish` hands it on), and the global allocator frees memory from any thread.
#[cfg(not(loom))]
unsafe impl Send for Prepared {}

#[cfg(not(loom))]
impl Drop for Prepared {
    fn drop(&mut self) {
        let (layout, _) = Array::layout(self.capacity).expect("the layout was valid at allocation");
        // SAFETY: allocated by `start` with this layout, never shared, freed once (`finish`
        // forgets the value it hands on as an `Array`). Its slots need no drop.
        unsafe { raw_alloc::dealloc(self.header.as_ptr().cast(), layout) };
    }
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
        let locked = Locked {
            len: 0,
            occupied: 0,
            tombstones: 0,
            cursor: 0,
            step: MIGRATE_STEP,
            retired: Retired::default(),
            retired_bytes: 0,
            writes_to_collect: COLLECT_EVERY,
            most_insert: InsertCost::default(),
            #[cfg(not(loom))]
            prepared: None,
            #[cfg(not(loom))]
            prepare_at: usize::MAX,
            hash_of,
            state,
        };
        Slots {
            current: AtomicPtr::new(ptr::null_mut()),
            previous: AtomicPtr::new(ptr::null_mut()),
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
        let current = NonNull::new(self.current.load(Ordering::Acquire))?;
        let previous = self.previous.load(Ordering::Acquire);
        let mut visited = 0;
        // SAFETY: the guard keeps both arrays allocated: the writer retires an array
        // through `reclaim` after unlinking it.
        if let Some(found) = unsafe { Array(current).find(hash, &mut matches, &mut visited) } {
            return Some(found);
        }
        let previous = NonNull::new(previous).filter(|previous| *previous != current)?;
        // SAFETY: as above.
        unsafe { Array(previous).find(hash, &mut matches, &mut visited) }
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
        let Some(current) = NonNull::new(self.current.load(Ordering::Acquire)) else { return (None, 0) };
        let previous = self.previous.load(Ordering::Acquire);
        let mut visited = 0;
        // SAFETY: as in `find`.
        if let Some(found) = unsafe { Array(current).find(hash, &mut matches, &mut visited) } {
            return (Some(found), visited);
        }
        let Some(previous) = NonNull::new(previous).filter(|previous| *previous != current) else {
            return (None, visited);
        };
        // SAFETY: as above.
        let found = unsafe { Array(previous).find(hash, &mut matches, &mut visited) };
        (found, visited)
    }

    /// The set's write version, to read before a lock-free probe: if
    /// [`SlotsGuard::version`] still equals it once the lock is taken, no entry was
    /// inserted or removed since, so an entry the probe did not find is not in the set.
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
        let current = NonNull::new(self.current.load(Ordering::Relaxed)).map(Array);
        let previous = NonNull::new(self.previous.load(Ordering::Relaxed)).map(Array);
        (current, previous)
    }
}

impl<S> Slots<S> {
    /// The arrays of a set owned outright, read without synchronising operations.
    fn exclusive_arrays(&mut self) -> (Option<Array>, Option<Array>) {
        let current = NonNull::new(exclusive_ptr(&mut self.current)).map(Array);
        let previous = NonNull::new(exclusive_ptr(&mut self.previous)).map(Array);
        (current, previous)
    }

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

impl<S> Drop for Slots<S> {
    fn drop(&mut self) {
        let (current, previous) = self.exclusive_arrays();
        for array in [current, previous].into_iter().flatten() {
            // SAFETY: `&mut self`: no reader can be probing; each array is freed once (a
            // retired array is in neither field, and the lock's `Retired` frees those).
            unsafe { array.free() };
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

    /// Marks an insert or removal, after its slot stores.
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
        // SAFETY: under the lock the current array is allocated.
        self.slots.arrays().0.map_or(0, |array| unsafe { array.capacity() })
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

    /// Bytes of every slot array the set holds: current, previous, the next one while it
    /// is prepared, and those retired and not yet freed.
    pub(crate) fn memory_size(&self) -> usize {
        let (current, previous) = self.slots.arrays();
        let arrays: usize = [current, previous]
            .into_iter()
            .flatten()
            // SAFETY: under the lock both arrays are allocated.
            .map(|array| Array::layout(unsafe { array.capacity() }).map_or(0, |(layout, _)| layout.size()))
            .sum();
        #[cfg(not(loom))]
        let arrays = arrays + self.locked.prepared.as_ref().map_or(0, Prepared::bytes);
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
    pub(crate) fn insert(&mut self, hash: u64, entry: NonNull<u8>) -> Result<(), StrError> {
        assert_eq!(entry.as_ptr().addr() & TAGGED, 0, "slot entries point to 8-aligned blocks");
        self.migrate_some();
        #[cfg(not(loom))]
        self.prepare_some();
        let array = self.reserve_one()?;
        let word = tag::pack(entry, hash);
        // SAFETY: under the lock the current array is allocated.
        let (was_tombstone, _) = unsafe { store_in_free_slot(array, hash, word) };
        let locked = &mut *self.locked;
        if was_tombstone {
            locked.tombstones -= 1;
        }
        locked.occupied += 1;
        locked.len += 1;
        self.raise_version();
        self.collect_now_and_then();
        Ok(())
    }

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
    fn collect_now_and_then(&mut self) {
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
    fn reserve_one(&mut self) -> Result<Array, StrError> {
        let (current, _) = self.slots.arrays();
        if let Some(array) = current {
            // SAFETY: under the lock the current array is allocated.
            let capacity = unsafe { array.capacity() };
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
    fn start_migration(&mut self, capacity: usize) -> Result<Array, StrError> {
        self.finish_migration();
        let fresh = self.fresh_array(capacity)?;
        let (current, _) = self.slots.arrays();
        let locked = &mut *self.locked;
        if let Some(old) = current {
            // SAFETY: under the lock the current array is allocated.
            let old_capacity = unsafe { old.capacity() };
            // Copy `old_capacity` slots before the new array can reach its load limit:
            // at most `room` inserts can come first.
            let room = (capacity * MAX_LOAD.0 / MAX_LOAD.1).saturating_sub(locked.len + 1).max(1);
            locked.step = old_capacity.div_ceil(room).max(MIGRATE_STEP);
            locked.cursor = 0;
            // Release (both): a reader that sees the new `current` sees its empty slots
            // and, when it loads `previous` next, the old array (or something later).
            self.slots.previous.store(old.0.as_ptr(), Ordering::Release);
        }
        self.slots.current.store(fresh.0.as_ptr(), Ordering::Release);
        locked.occupied = 0;
        locked.tombstones = 0;
        #[cfg(not(loom))]
        {
            locked.prepare_at = if capacity >= PREPARE_FROM { capacity / 2 } else { usize::MAX };
        }
        if current.is_none() {
            return Ok(fresh);
        }
        self.migrate_some();
        Ok(fresh)
    }

    /// A zeroed array of `capacity` slots: the prepared one if it has that size.
    fn fresh_array(&mut self, capacity: usize) -> Result<Array, StrError> {
        // A prepared array of another size (a same-size migration, forced by tombstones,
        // came first) is freed here.
        #[cfg(not(loom))]
        if let Some(prepared) = self.locked.prepared.take()
            && prepared.capacity == capacity
        {
            let (array, zeroed) = prepared.finish();
            self.locked.most_insert.slots = self.locked.most_insert.slots.max(zeroed);
            return Ok(array);
        }
        let array = Array::allocate(capacity)?;
        let bytes = Array::layout(capacity).map_or(0, |(layout, _)| layout.size());
        self.locked.most_insert.array_bytes = self.locked.most_insert.array_bytes.max(bytes);
        Ok(array)
    }

    /// Prepares the next array a few slots at a time once the current one is half full
    /// and no migration runs (see [`Prepared`]).
    #[cfg(not(loom))]
    #[inline]
    fn prepare_some(&mut self) {
        // One compare while nothing is due: `prepare_at` is 0 while an array is prepared.
        if self.locked.occupied + self.locked.tombstones >= self.locked.prepare_at {
            self.prepare_step();
        }
    }

    /// Starts preparing the next array, or zeroes the next slots of the one prepared.
    #[cfg(not(loom))]
    #[inline(never)]
    fn prepare_step(&mut self) {
        let locked = &mut *self.locked;
        match &mut locked.prepared {
            Some(prepared) => {
                let zeroed = prepared.zero_some(PREPARE_STEP);
                locked.most_insert.slots = locked.most_insert.slots.max(zeroed);
            }
            None => self.start_preparing(),
        }
    }

    /// Allocates the next array, unless a migration still runs (it is prepared once that
    /// ends).
    #[cfg(not(loom))]
    #[cold]
    fn start_preparing(&mut self) {
        let (Some(current), None) = self.slots.arrays() else { return };
        // SAFETY: under the lock the current array is allocated.
        let capacity = unsafe { current.capacity() };
        let locked = &mut *self.locked;
        locked.prepared = Prepared::start(capacity * 2);
        let bytes = locked.prepared.as_ref().map_or(0, Prepared::bytes);
        locked.most_insert.array_bytes = locked.most_insert.array_bytes.max(bytes);
        // Every write zeroes a few slots from now on; if memory ran out, this array's
        // growth allocates as usual and nobody asks again.
        locked.prepare_at = if locked.prepared.is_some() { 0 } else { usize::MAX };
    }

    /// Copies the next `step` old slots, if migrating.
    fn migrate_some(&mut self) {
        let step = self.locked.step;
        self.migrate(step);
    }

    fn finish_migration(&mut self) {
        self.migrate(usize::MAX);
    }

    fn migrate(&mut self, budget: usize) {
        let (Some(current), Some(old)) = self.slots.arrays() else { return };
        // SAFETY: under the lock both arrays are allocated.
        let old_slots = unsafe { old.slots() };
        let locked = &mut *self.locked;
        let end = locked.cursor.saturating_add(budget).min(old_slots.len());
        let mut touched = end.saturating_sub(locked.cursor);
        for slot in &old_slots[locked.cursor..end] {
            let word = slot.load(Ordering::Relaxed);
            let bits = word.addr();
            if bits == 0 || bits == TOMBSTONE {
                continue;
            }
            let entry = NonNull::new(tag::unpack(word)).expect("an entry is not null");
            let hash = (locked.hash_of)(entry);
            // SAFETY: under the lock the current array is allocated. The copy keeps the
            // old word (tag and all); the old slot keeps it too, for readers still there.
            // (A removal during the migration may have left a tombstone to reuse.)
            let (was_tombstone, probes) = unsafe { store_in_free_slot(current, hash, word) };
            if was_tombstone {
                locked.tombstones -= 1;
            }
            touched += probes;
            locked.occupied += 1;
        }
        locked.most_insert.slots = locked.most_insert.slots.max(touched);
        locked.cursor = end;
        if end < old_slots.len() {
            return;
        }
        // Every entry is in the new array: readers need the old one no more, except
        // those already in it, whom the retire waits for.
        self.slots.previous.store(ptr::null_mut(), Ordering::Release);
        let bytes = Array::layout(old_slots.len()).map_or(0, |(layout, _)| layout.size());
        // SAFETY: the old array is unlinked (neither field names it any more) and retired
        // once; `Array::free_erased` frees it from any thread; the `Retired` lives in the
        // lock, dropped with the set, when no reader can be probing.
        unsafe { locked.retired.retire(old.0.cast(), Array::free_erased) };
        locked.retired_bytes += bytes;
        locked.cursor = 0;
        // A shard that stops growing here would otherwise keep the old array until
        // `COLLECT_EVERY` more writes: with no reader pinned, two epoch steps free it now.
        for _ in 0..2 {
            if self.collect_arrays() == 0 {
                break;
            }
        }
    }
}

/// The slot after `index` in a probe sequence, `stride` steps in (from 1): triangular
/// probing, home + 1, + 3, + 6, ... It visits every slot of a power-of-two array once in
/// `capacity` steps, and unlike linear probing it does not merge neighbouring runs into
/// long clusters, so misses at the load limit read fewer slots; the first few steps
/// stay within a cache line or two of the home slot.
#[inline(always)]
fn next_slot(index: usize, stride: usize, mask: usize) -> usize {
    (index + stride) & mask
}

/// The smallest capacity that holds `len` entries at most half of [`MAX_LOAD`] full, so
/// that a migration to it has as much room again for inserts before it must end.
fn fitting_capacity(len: usize) -> usize {
    let mut capacity = MIN_CAPACITY;
    while capacity * MAX_LOAD.0 < len * 2 * MAX_LOAD.1 {
        capacity *= 2;
    }
    capacity
}

/// Stores `word` in the first empty or tombstone slot of `hash`'s probe sequence; returns
/// whether it was a tombstone, and the slots read.
///
/// # Safety
/// The caller holds the lock (the only writer), the array is allocated, and it has a free
/// slot.
unsafe fn store_in_free_slot(array: Array, hash: u64, word: *mut u8) -> (bool, usize) {
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

/// Replaces the slot holding exactly `entry` with a tombstone; false if there is none.
///
/// # Safety
/// As for [`store_in_free_slot`].
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

#[cfg(all(test, not(loom)))]
#[path = "slots_tests.rs"]
mod tests;

#[cfg(all(test, loom))]
#[path = "slots_loom.rs"]
mod loom_models;
