//! The heap block: one allocation holding a header followed by the string's bytes.
//!
//! # Memory layout
//!
//! ```text
//!  offset 0         4         8                              16
//!         +---------+---------+-------------------------------+---------- - -
//!         |  count  |   len   | state: hash bits 5.. | flags  | bytes ...
//!         |  u32    |   u32   | u64                           | len bytes
//!         +---------+---------+-------------------------------+---------- - -
//!         ^                                                   ^
//!         Block.ptr (align 8)                                 Block::bytes()
//! ```
//!
//! * `count` is the number of handles of the block: `Str`s, `Atom`s, and one for the
//!   table entry of an interned block. A block whose count reaches zero is freed by the
//!   thread that dropped the last count; nothing else is told. An interned block whose
//!   count is 1 is held by its table alone: it is *unused*, and the table decides when to
//!   take it back (see `table::shared`).
//! * `state` packs the cached hash (its bits 5..64; zero = none cached) with five flags:
//!   [`INTERNED`] (a table holds a count on this block as its entry), [`LOCAL`] (that
//!   table is not the global one), [`OWN_SEED`] (the cached hash is that table's own seed's,
//!   not the process seed's), [`UTF8_VALID`] (the bytes were checked and are UTF-8) and
//!   [`SLAB`] (the block lies in a table's slab, see [`slab`]; set at birth).
//!   The hash is a pure function of the bytes and the seed, so any value a reader sees is
//!   right; flags are only ever set, except when a local table lets go of its entries.
//!
//! The header is 16 bytes; its alignment (8) leaves the three low bits of every block
//! pointer zero, which the tagged handles above rely on. This module knows nothing of
//! tables: the one thing a drop may have to tell one, that a global atom became unused,
//! goes through a hook the table installs ([`set_unused_hook`]).
//!
//! The bytes take exactly `len` bytes of room below 32 KiB; longer texts get the room of
//! their size class ([`capacity_class`]), which is what the block is freed with. A block
//! that a table copies in lies in one of the table's slabs instead when it fits one
//! (header and text up to [`slab::MAX_BLOCK`]): it is rounded to 8 bytes and freed back
//! to its slab, which reuses it only for a block of the same table and size and leaves its
//! count word alone: whoever reads the count of a freed slab block reads 0 (or, once the
//! block is reused, the count of the atom that lies there now).

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::block_cache;
use super::slab::{self, Slabs};
use crate::error::StrError;
use crate::sync::{AtomicU32, AtomicU64, Ordering, fence};

pub(crate) use crate::error::{Fallibility, MAX_LEN};

/// Beyond this many handles a clone aborts the process, as `Arc` does: the count
/// cannot wrap to zero and free a block that is still in use. (Chosen over saturating
/// into an immortal block: 2^30 live handles, 8 GiB of `Atom`s, only come from
/// `mem::forget` in a loop, a bug worth stopping at rather than a leak to hide.)
/// The gap up to [`PERMANENT_FROM`] absorbs clones racing past the check on other threads.
pub(super) const MAX_COUNT: u32 = (1 << 30) - 1;

/// A count at or above this is *permanent*: the table made the atom immortal
/// ([`Block::make_permanent`]), and its handles stop counting. Clones, drops and table
/// hits read the count, see the top bit and write nothing, so a hot atom's cache line
/// stays shared among the cores that use it.
///
/// The count of handles at the moment of promotion is forgotten: nothing frees the block
/// any more. What still writes is a clone or drop that read the count just before the
/// promotion and adds or subtracts just after it; such stray steps are at most one per
/// thread racing the promotion, so they stay far inside the zone of 2^31 values around
/// [`PERMANENT`] and the top bit never clears.
pub(crate) const PERMANENT_FROM: u32 = 1 << 31;
/// The count a promotion stores: the middle of the permanent zone.
const PERMANENT: u32 = PERMANENT_FROM | (1 << 30);

/// What a table hit saw of its entry's count while it raised it: the signs a table reads
/// to make an atom permanent ([`Block::acquire_entry_noting`]). One byte of flags, so
/// that a hit that saw neither tests it once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct HitSigns(u8);

impl HitSigns {
    const CONTENDED: u8 = 1;
    const REVIVED: u8 = 2;

    /// Notes that the hit brought an unused atom back into use: the sign of one that a
    /// program drops and interns again and again.
    #[inline]
    pub(crate) fn note_revived(&mut self) {
        self.0 |= Self::REVIVED;
    }

    /// [`HitSigns::note_revived`] on a path a hit seldom takes: a branch, not a
    /// conditional move, so that a hit of an atom in use (the usual one) spends no
    /// instructions on the sign.
    #[cold]
    #[inline]
    pub(crate) fn note_revived_unlikely(&mut self) {
        self.note_revived();
    }

    /// Whether the hit saw either sign.
    #[inline]
    pub(crate) fn any(self) -> bool {
        self.0 != 0
    }

    /// Another thread moved the count at the same moment.
    #[inline]
    pub(crate) fn contended(self) -> bool {
        self.0 & Self::CONTENDED != 0
    }

    /// The count was the table's alone: an unused atom came back into use.
    #[inline]
    pub(crate) fn revived(self) -> bool {
        self.0 & Self::REVIVED != 0
    }
}

#[repr(C)]
pub(crate) struct Header {
    count: AtomicU32,
    len: u32,
    state: AtomicU64,
}

/// `state` flag: a table holds one count of this block as its entry.
pub(crate) const INTERNED: u64 = 0b0001;
/// `state` flag: that table is a local one (its droppers tell nobody about unused atoms).
pub(crate) const LOCAL: u64 = 0b0010;
/// `state` flag: the cached hash is the owning table's own seed's, not the process seed's.
pub(crate) const OWN_SEED: u64 = 0b0100;
/// `state` flag: the bytes are known to be UTF-8.
pub(crate) const UTF8_VALID: u64 = 0b1000;
/// `state` flag: the block lies in a table's slab ([`slab`]), not in its own allocation.
/// Set when the block is made, never changed.
pub(crate) const SLAB: u64 = 0b1_0000;
const FLAGS: u64 = 0b1_1111;

/// The form of a hash the header can cache: its five low bits (where the flags live)
/// cleared, and never zero (zero means "none cached").
#[inline]
pub(crate) const fn cacheable_hash(hash: u64) -> u64 {
    match hash & !FLAGS {
        0 => FLAGS + 1,
        hash => hash,
    }
}

/// What a drop calls when a block interned in the global table falls to the table's
/// count alone, with the block's cached hash and its bytes (header and text): set once,
/// by the global table.
static UNUSED_HOOK: std::sync::OnceLock<fn(u64, usize)> = std::sync::OnceLock::new();

/// Installs the hook a drop calls with a global atom's hash and bytes when the atom
/// becomes unused (its count falls to the table's one). Later calls keep the first hook.
pub(crate) fn set_unused_hook(hook: fn(u64, usize)) {
    let _ = UNUSED_HOOK.set(hook);
}

/// Bytes in front of the string's characters in every heap block.
pub(crate) const HEADER_SIZE: usize = std::mem::size_of::<Header>();

#[cfg(not(loom))]
const _: () = {
    assert!(HEADER_SIZE == 16, "the documented header size");
    assert!(std::mem::align_of::<Header>() >= 8, "handles use three low pointer bits as tags");
};

/// Texts of at least this many bytes get a size class rather than their exact length, so
/// that freed blocks from here on can be kept for the next text of their class (the block
/// cache starts at the same size). A quarter of glibc's initial mmap threshold: such a
/// text already costs microseconds to copy and its pages to fault in, which reuse saves,
/// for at most 1/8 more room per string.
pub(super) const SIZE_CLASSES_FROM: usize = block_cache::CACHED_FROM;

/// Size classes per doubling, as a power of two: 8 classes between 2^k and 2^(k+1), so
/// a class is at most 1/8 larger than the text it holds.
const CLASS_STEPS_LOG2: u32 = 3;

/// The room a block keeps for a text of `len` bytes: exactly `len` below
/// [`SIZE_CLASSES_FROM`], else `len` rounded up to the next of 8 classes per doubling
/// (powers of two among them).
///
/// Why classes: a block must be freed with the size it was allocated with, and the header
/// has no room for a capacity, so the size has to follow from the length alone. Rounding
/// large texts to classes lets a `StrBuilder` that grew by doubling keep its buffer at
/// `finish` whenever the text fills the top class of it (no shrinking `realloc`), and the
/// block then goes back to malloc at the size the next builder will ask for, which keeps
/// glibc's dynamic mmap threshold from sending every new builder to fresh pages. Rounding
/// is idempotent (a class is its own class), which the builder relies on.
pub(super) const fn capacity_class(len: usize) -> usize {
    if len < SIZE_CLASSES_FROM {
        return len;
    }
    let step = 1usize << (usize::BITS - 1 - len.leading_zeros() - CLASS_STEPS_LOG2);
    len.div_ceil(step) * step
}

/// The layout of a block holding `len` bytes: the header, then the room
/// [`capacity_class`] keeps for them. The growable builder buffer allocates with it too,
/// so `DeadBlock` frees every block with the layout it came from.
pub(super) fn block_layout(len: usize) -> Result<Layout, StrError> {
    if len > MAX_LEN {
        return Err(StrError::TooLong { len });
    }
    let size = HEADER_SIZE + capacity_class(len);
    Layout::from_size_align(size, std::mem::align_of::<Header>()).map_err(|_| StrError::TooLong { len })
}

/// One counted reference to a live heap block.
#[repr(transparent)]
pub(crate) struct Block {
    ptr: NonNull<Header>,
}

// SAFETY: the header is only touched through atomics (`len` never changes after
// allocation) and the bytes are immutable once the block is published, so a block may be
// shared and dropped from any thread.
unsafe impl Send for Block {}
// SAFETY: as for `Send`: no interior mutability besides atomics.
unsafe impl Sync for Block {}

impl Block {
    /// Allocates a block holding a copy of `bytes`, with a count of one and no owner.
    #[inline]
    pub(crate) fn copy_from(bytes: &[u8], fallibility: Fallibility) -> Result<Block, StrError> {
        let mut uninit = UninitBlock::allocate(bytes.len(), fallibility)?;
        uninit.push_bytes(bytes);
        Ok(uninit.finish())
    }

    /// Allocates a copy of `bytes` already filed in a table: state `hash | INTERNED |
    /// flags`, and a count of two, one for the caller's handle and one for the table's
    /// entry (taken back with [`Block::into_raw`] or the entry functions below). Written
    /// before the block is shared, so no atomic read-modify-write is needed.
    /// [`Block::publish_entry`] does nothing for such a block.
    #[inline]
    pub(crate) fn copy_filed(
        bytes: &[u8],
        hash: u64,
        flags: u64,
        fallibility: Fallibility,
    ) -> Result<(Block, NonNull<Header>), StrError> {
        debug_assert_eq!(hash, cacheable_hash(hash));
        debug_assert_eq!(flags & !(LOCAL | OWN_SEED), 0);
        let mut uninit = UninitBlock::allocate(bytes.len(), fallibility)?;
        uninit.push_bytes(bytes);
        // SAFETY: the block is still the caller's alone (unpublished).
        let header = unsafe { uninit.ptr.as_ref() };
        // Relaxed: nothing else can see the block before it is published (by the table's
        // Release store of its slot, or the lock).
        header.state.store(hash | INTERNED | flags, Ordering::Relaxed);
        header.count.store(2, Ordering::Relaxed);
        let block = uninit.finish();
        let entry = block.ptr;
        Ok((block, entry))
    }

    /// As [`Block::copy_filed`], into a block of `slabs` when one holds it (texts of up to
    /// [`slab::MAX_BLOCK`] bytes with the header): the table's own memory, freed back to it.
    ///
    /// A slab block is *unpublished* until its table calls [`Block::publish_entry`], as
    /// it lists it: its count reads 0 until then, so a reader that reaches it with no pin
    /// cannot take it (see [`Block::raise_unpinned`]). A table that fails to list it gives
    /// it up with [`Block::discard_unpublished`], never through the two handles' drops.
    ///
    /// `stripe_key` picks the slabs' stripe (see [`Slabs::allocate`]).
    ///
    /// # Safety
    /// The table that owns `slabs` files the block (it keeps the entry's count) and
    /// disowns them before it gives up its entries (see [`slab`]'s docs).
    #[inline]
    pub(crate) unsafe fn copy_filed_in(
        slabs: &Slabs,
        stripe_key: usize,
        bytes: &[u8],
        hash: u64,
        flags: u64,
        fallibility: Fallibility,
    ) -> Result<(Block, NonNull<Header>), StrError> {
        let Some(size) = slab::block_size(HEADER_SIZE + bytes.len()) else {
            return Block::copy_filed(bytes, hash, flags, fallibility);
        };
        debug_assert_eq!(hash, cacheable_hash(hash));
        debug_assert_eq!(flags & !(LOCAL | OWN_SEED), 0);
        let Some(raw) = slabs.allocate(size, stripe_key) else {
            return match fallibility {
                Fallibility::Fallible => Err(StrError::AllocFailed { size: slab::SLAB_BYTES }),
                Fallibility::Infallible => std::alloc::handle_alloc_error(
                    Layout::from_size_align(slab::SLAB_BYTES, slab::SLAB_BYTES).expect("a valid slab layout"),
                ),
            };
        };
        let ptr = raw.cast::<Header>();
        let len = u32::try_from(bytes.len()).expect("a slab block is small");
        // SAFETY: a slab block of `size` bytes, 8-aligned, ours alone: the header, then the
        // bytes, fit (`size` was computed from both). Its count is left as it is, zero (a
        // free slab block keeps a count of 0; fresh slab memory is zeros): a reader with no
        // pin that still holds the address of the block's last atom may load the count at
        // any time, so it is written once, atomically, by `publish_entry`, after the other
        // fields, which no such reader reads before it has raised the count.
        unsafe {
            let header = ptr.as_ptr();
            // loom's atomics are objects made by `new` (a freed block's was dropped), and
            // under loom no reader goes without a pin.
            #[cfg(loom)]
            ptr::addr_of_mut!((*header).count).write(AtomicU32::new(0));
            debug_assert_eq!((*ptr::addr_of!((*header).count)).load(Ordering::Relaxed), 0, "a free slab block");
            ptr::addr_of_mut!((*header).len).write(len);
            ptr::addr_of_mut!((*header).state).write(AtomicU64::new(hash | INTERNED | SLAB | flags));
            ptr::copy_nonoverlapping(bytes.as_ptr(), raw.as_ptr().add(HEADER_SIZE), bytes.len());
        }
        Ok((Block { ptr }, ptr))
    }

    /// Publishes an allocation that was filled outside [`UninitBlock`] (the growable
    /// builder buffer), writing its header: one handle, no hash, no flags.
    ///
    /// # Safety
    /// - `raw` was allocated through `raw_alloc` with exactly `block_layout(len)` (that
    ///   is what `DeadBlock` frees it with), and ownership of it passes to the block;
    /// - the `len` bytes after the header are initialised.
    pub(super) unsafe fn from_filled_allocation(raw: NonNull<u8>, len: usize) -> Block {
        let header = Header {
            count: AtomicU32::new(1),
            len: u32::try_from(len).expect("block_layout checked len against MAX_LEN"),
            state: AtomicU64::new(0),
        };
        let ptr = raw.cast::<Header>();
        // SAFETY: the caller guarantees `raw` is a live block allocation, sized and aligned
        // for a header followed by `len` bytes, and that nothing else refers to it.
        unsafe { ptr.as_ptr().write(header) };
        Block { ptr }
    }

    #[inline]
    fn header(&self) -> &Header {
        // SAFETY: `self` holds a count, so the block is allocated and its header initialised.
        unsafe { self.ptr.as_ref() }
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.header().len as usize
    }

    #[inline]
    pub(crate) fn bytes_ptr(&self) -> *const u8 {
        // SAFETY: the bytes start HEADER_SIZE bytes into the same allocation.
        unsafe { self.ptr.as_ptr().cast::<u8>().add(HEADER_SIZE) }
    }

    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: `len` bytes were initialised before the block was published and never
        // change; the borrow of `self` keeps a count, so the block outlives the slice.
        unsafe { std::slice::from_raw_parts(self.bytes_ptr(), self.len()) }
    }

    #[inline]
    fn state(&self) -> u64 {
        // Relaxed: the hash is a pure function of immutable bytes and flags publish no
        // other memory; a stale value is only ever a missed shortcut.
        self.header().state.load(Ordering::Relaxed)
    }

    /// The cached hash (a table's own seed's if [`OWN_SEED`] is set), or `None`.
    #[inline]
    pub(crate) fn cached_hash(&self) -> Option<u64> {
        match self.state() & !FLAGS {
            0 => None,
            hash => Some(hash),
        }
    }

    /// The cached hash if it is the process seed's (the one `Str::hash64` reports).
    #[inline]
    pub(crate) fn cached_process_hash(&self) -> Option<u64> {
        let state = self.state();
        match state & !FLAGS {
            0 => None,
            _ if state & OWN_SEED != 0 => None,
            hash => Some(hash),
        }
    }

    /// Stores `hash` (a [`cacheable_hash`]) if nothing is cached yet.
    #[inline]
    pub(crate) fn cache_hash(&self, hash: u64) {
        debug_assert_eq!(hash, cacheable_hash(hash));
        let mut state = self.state();
        // Relaxed: see `state`. A lost race stores the same value anyway.
        while state & !FLAGS == 0 {
            match self.header().state.compare_exchange_weak(state, state | hash, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return,
                Err(actual) => state = actual,
            }
        }
    }

    /// The block's flags ([`INTERNED`], [`LOCAL`], [`OWN_SEED`], [`UTF8_VALID`]).
    #[inline]
    pub(crate) fn flags(&self) -> u64 {
        self.state() & FLAGS
    }

    /// Whether the global table holds this block as its entry.
    #[inline]
    pub(crate) fn is_global_entry(&self) -> bool {
        self.flags() & (INTERNED | LOCAL) == INTERNED
    }

    /// Records that the bytes are UTF-8 (the caller checked them).
    #[inline]
    pub(crate) fn mark_utf8(&self) {
        // Relaxed: see `state`.
        self.header().state.fetch_or(UTF8_VALID, Ordering::Relaxed);
    }

    /// Marks the block as a table's entry (with `flags` besides [`INTERNED`]) unless a
    /// table took it first, or a table of its own seed once did: false then. The hash the table files it under must be cached.
    #[inline]
    pub(crate) fn try_claim(&self, flags: u64) -> bool {
        debug_assert!(self.cached_hash().is_some(), "claimed before its hash was cached");
        debug_assert_eq!(flags & !(LOCAL | OWN_SEED), 0);
        let mut state = self.state();
        loop {
            // A block with its own-seed hash cached cannot be filed under another hash.
            if state & (INTERNED | OWN_SEED) != 0 {
                return false;
            }
            // Relaxed: the claim publishes no memory; the table's lock (or its slot's
            // Release store) publishes the entry.
            match self.header().state.compare_exchange_weak(
                state,
                state | INTERNED | flags,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(actual) => state = actual,
            }
        }
    }

    /// Gives up this handle's count to a raw pointer, to be taken back by `from_raw`.
    #[inline]
    pub(crate) fn into_raw(self) -> NonNull<Header> {
        let ptr = self.ptr;
        std::mem::forget(self);
        ptr
    }

    /// # Safety
    /// - `ptr` came from [`Block::into_raw`] (or is a table entry for which
    ///   [`Block::acquire_entry_noting`] succeeded), and
    /// - the count it stood for is handed to the returned `Block` exactly once.
    #[inline]
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> Block {
        Block { ptr }
    }

    /// [`Block::acquire_entry_noting`] for the tests, which need no note of contention.
    ///
    /// # Safety
    /// As for [`Block::acquire_entry_noting`].
    #[cfg(test)]
    pub(crate) unsafe fn acquire_entry(ptr: NonNull<Header>, min: u32) -> Option<Block> {
        let mut signs = HitSigns::default();
        // SAFETY: forwarded from this function's contract.
        unsafe { Block::acquire_entry_noting(ptr, min, &mut signs) }
    }

    /// Takes a new count on a table entry known only by its raw pointer if its count is
    /// at least `min` (1 revives an unused atom, 2 finds only atoms in use). A count of zero
    /// is never raised: a block being freed is never revived (as `Weak::upgrade`). A
    /// permanent block is handed out without a write. Also notes in `signs` (set, never
    /// cleared) whether another thread moved the count while this one raised it: the sign
    /// of an atom hot on several cores.
    ///
    /// # Safety
    /// - `ptr` points to an allocated block header: the caller reached it through a table
    ///   that holds a count of it, and the block cannot be freed while the caller looks.
    #[inline]
    pub(crate) unsafe fn acquire_entry_noting(ptr: NonNull<Header>, min: u32, signs: &mut HitSigns) -> Option<Block> {
        debug_assert!(min >= 1);
        // SAFETY: the caller guarantees the header is allocated.
        let header = unsafe { ptr.as_ref() };
        let mut count = header.count.load(Ordering::Relaxed);
        loop {
            if count < min {
                return None;
            }
            if count > MAX_COUNT {
                if count >= PERMANENT_FROM {
                    // Nothing to count: the block is never freed.
                    return Some(Block { ptr });
                }
                std::process::abort();
            }
            // Acquire on success pairs with a sweeper's failed 1 -> 0 attempt ordering
            // nothing, and with the Release of the last drop ordering nothing either (count
            // is at least 1 here): the bytes were published with the entry. Relaxed would
            // do; Acquire keeps the reasoning local.
            match header.count.compare_exchange_weak(count, count + 1, Ordering::Acquire, Ordering::Relaxed) {
                Ok(_) => return Some(Block { ptr }),
                Err(actual) => {
                    // Another thread moved the count between our load and our exchange:
                    // the atom's line is bouncing between cores.
                    if actual != count {
                        signs.0 |= HitSigns::CONTENDED;
                    }
                    count = actual;
                }
            }
        }
    }

    /// Makes an interned block permanent: its count stops moving (see [`PERMANENT_FROM`])
    /// and the block is never freed. True if this call made it so; false if it already
    /// was, or if no handle besides the table holds it (an unused atom is left for its
    /// table to sweep).
    ///
    /// # Safety
    /// `ptr` is an entry of the caller's table, alive while the caller looks, and that
    /// table is never dropped (the global one): a permanent block outlives every table
    /// that could give up its count.
    pub(super) unsafe fn make_permanent(ptr: NonNull<Header>) -> bool {
        // SAFETY: the caller guarantees the header is allocated.
        let header = unsafe { ptr.as_ref() };
        let mut count = header.count.load(Ordering::Relaxed);
        loop {
            // At 1 a sweep may be taking the block back (1 -> 0); at 0 it has.
            if !(2..PERMANENT_FROM).contains(&count) {
                return false;
            }
            // Relaxed: the count publishes nothing; the block's bytes were published with
            // its entry and never change.
            match header.count.compare_exchange_weak(count, PERMANENT, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return true,
                Err(actual) => count = actual,
            }
        }
    }

    /// Gives a permanent block back a plain count of 1 (its table's), so that a sweep can
    /// free it: for loom's models, which must end with every allocation freed.
    ///
    /// # Safety
    /// `ptr` is a permanent entry of the caller's table, and no handle of it is left.
    #[cfg(loom)]
    pub(crate) unsafe fn demote_for_model(ptr: NonNull<Header>) {
        // SAFETY: the caller guarantees the block is allocated (its table holds it).
        unsafe { ptr.as_ref() }.count.store(1, Ordering::Relaxed);
    }

    /// Whether a table entry's count is permanent ([`Block::make_permanent`]).
    ///
    /// # Safety
    /// As for [`Block::reclaim_unused`] (the count is only read).
    #[inline]
    pub(crate) unsafe fn entry_is_permanent(ptr: NonNull<Header>) -> bool {
        // SAFETY: the caller guarantees the block is allocated.
        unsafe { ptr.as_ref() }.count.load(Ordering::Relaxed) >= PERMANENT_FROM
    }

    /// Makes this block permanent if it is the global table's entry ([`INTERNED`] and not
    /// [`LOCAL`]): true if this call did (see [`Block::make_permanent`]).
    pub(crate) fn make_permanent_if_global(&self) -> bool {
        if !self.is_global_entry() {
            return false;
        }
        // SAFETY: `self` holds a count, so the block is alive while we look; it is the
        // global table's entry, and that table is never dropped (its flags never change
        // back, and no other table files a block that one holds).
        unsafe { Block::make_permanent(self.ptr) }
    }

    /// Whether this block's count is permanent.
    #[inline]
    pub(crate) fn is_permanent(&self) -> bool {
        self.header().count.load(Ordering::Relaxed) >= PERMANENT_FROM
    }

    /// Takes back a table entry whose only count is the table's, for freeing: moves the
    /// count from 1 to 0 in one step, so a handle raised at the same moment wins and the
    /// block stays. `None` when the block is in use.
    ///
    /// # Safety
    /// `ptr` is an entry of the caller's table, whose count the table holds and gives up
    /// here on success.
    #[inline]
    pub(crate) unsafe fn reclaim_unused(ptr: NonNull<Header>) -> Option<DeadBlock> {
        // SAFETY: the table's count keeps the block allocated.
        let header = unsafe { ptr.as_ref() };
        // A sweep meets mostly atoms in use: a plain load turns them away without the
        // locked instruction that a failed compare-and-swap still costs.
        if header.count.load(Ordering::Relaxed) != 1 {
            return None;
        }
        // Acquire: every former handle's uses (their Release decrements) happen before the
        // free.
        header.count.compare_exchange(1, 0, Ordering::Acquire, Ordering::Relaxed).ok().map(|_| DeadBlock { ptr })
    }

    /// The count of a table entry (for reports: 1 means unused).
    ///
    /// # Safety
    /// As for [`Block::reclaim_unused`] (the count is only read).
    #[inline]
    pub(crate) unsafe fn entry_count(ptr: NonNull<Header>) -> u32 {
        // SAFETY: the table's count keeps the block allocated.
        unsafe { ptr.as_ref() }.count.load(Ordering::Relaxed)
    }

    /// Whether the block lies in a table's slab, whose memory stays a block header of its
    /// size (or zeros) while the table lives: what lets a reader with no pin reach it.
    ///
    /// # Safety
    /// As for [`Block::entry_count`].
    #[inline]
    pub(crate) unsafe fn entry_is_in_slab(ptr: NonNull<Header>) -> bool {
        // SAFETY: the table's count keeps the block allocated.
        unsafe { ptr.as_ref() }.state.load(Ordering::Relaxed) & SLAB != 0
    }

    /// Whether an entry just made by [`Block::copy_filed_in`] is still unpublished.
    ///
    /// # Safety
    /// The caller made the entry and holds its table's lock.
    #[inline]
    pub(crate) unsafe fn entry_is_unpublished(ptr: NonNull<Header>) -> bool {
        // SAFETY: the caller's block, allocated.
        unsafe { ptr.as_ref() }.count.load(Ordering::Relaxed) == 0
    }

    /// Makes a block made by [`Block::copy_filed_in`] takeable: stores its count of two
    /// (the caller's handle and the table's entry) with Release, after every other field
    /// was written, so that a reader whose raise reads this count sees them. Does nothing
    /// for a block already published.
    ///
    /// # Safety
    /// The caller made the entry, holds its table's lock, and lists the entry next with
    /// nothing left that can fail.
    #[inline]
    pub(crate) unsafe fn publish_entry(ptr: NonNull<Header>) {
        // SAFETY: the caller's block, allocated.
        let count = unsafe { &(*ptr.as_ptr()).count };
        if count.load(Ordering::Relaxed) == 0 {
            count.store(2, Ordering::Release);
        }
    }

    /// Frees an unpublished block that its table could not list. Its two handles (the
    /// caller's and the entry) are given up with it: the caller forgets its handle.
    ///
    /// # Safety
    /// [`Block::entry_is_unpublished`] holds for `ptr`, and neither handle is used again.
    pub(crate) unsafe fn discard_unpublished(ptr: NonNull<Header>) {
        // Nothing raised the count (a raise needs a non-zero one): the block is ours.
        drop(DeadBlock { ptr });
    }

    /// Takes a count of the block at `ptr` for a reader with no pin, if the block holds an
    /// atom: its count is raised only from a live value (at least 1), never from 0 (a free
    /// block, a block being freed or reused, an unpublished one, or a page handed back); a
    /// permanent block is handed out without a write. The block may hold another atom than
    /// the one the caller looked for (the address was reused): the caller checks its hash
    /// and bytes after this returns, and drops the handle if they differ, which never frees
    /// the block (its table still holds the count it held when this raise read it).
    /// Notes in `signs` as [`Block::acquire_entry_noting`] does.
    ///
    /// # Safety
    /// `ptr` is the address of a block the caller's table listed at some time, in one of
    /// its slabs (filed [`entry_is_in_slab`](Block::entry_is_in_slab)), and the table is
    /// alive: its slab memory then holds a block header of that size at `ptr`, or zeros.
    #[inline]
    pub(crate) unsafe fn raise_unpinned(ptr: NonNull<Header>, signs: &mut HitSigns) -> Option<Block> {
        // SAFETY: the caller's contract: the count word at `ptr` is mapped and only ever
        // accessed atomically. No reference to the header's other fields is made: they
        // may be being written for another atom until the raise succeeds.
        let count = unsafe { &*ptr::addr_of!((*ptr.as_ptr()).count) };
        // Acquire, here and in the exchange: pairs with `publish_entry`'s Release (or a
        // later step of the count, which continues its release sequence), so that the
        // fields the caller reads next are the atom's whose count this reads.
        let mut now = count.load(Ordering::Acquire);
        loop {
            if now == 0 {
                return None;
            }
            if now > MAX_COUNT {
                if now >= PERMANENT_FROM {
                    return Some(Block { ptr });
                }
                std::process::abort();
            }
            match count.compare_exchange_weak(now, now + 1, Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => {
                    if now == 1 {
                        signs.note_revived_unlikely();
                    }
                    return Some(Block { ptr });
                }
                Err(actual) => {
                    if actual != now {
                        signs.0 |= HitSigns::CONTENDED;
                    }
                    now = actual;
                }
            }
        }
    }

    /// A table lets go of its entry for good (the table is being dropped): clears
    /// [`INTERNED`] and [`LOCAL`], then gives up the table's count, freeing the block if no
    /// handle is left.
    ///
    /// # Safety
    /// `ptr` is an entry of the caller's table, whose count is given up here exactly once.
    #[inline]
    pub(crate) unsafe fn release_entry(ptr: NonNull<Header>) {
        // SAFETY: the table's count keeps the block allocated until the drop below.
        let header = unsafe { ptr.as_ref() };
        // An own-seed hash stays (with its flag): the table's atoms that outlive it keep
        // their `hash64`, and the flag keeps any other table from adopting the block.
        // Relaxed: see `state`.
        header.state.fetch_and(!(INTERNED | LOCAL), Ordering::Relaxed);
        // SAFETY: the table's count, handed over once.
        drop(Block { ptr });
    }
}

impl Clone for Block {
    #[inline]
    fn clone(&self) -> Block {
        // Relaxed: a new reference can only be made from an existing one, which already
        // keeps the block alive (the argument std's `Arc::clone` makes).
        let count = &self.header().count;
        // A permanent block is not counted: reading the count, unlike adding to it, leaves
        // the cache line shared among the cores that hold it.
        if count.load(Ordering::Relaxed) >= PERMANENT_FROM {
            return Block { ptr: self.ptr };
        }
        let old = count.fetch_add(1, Ordering::Relaxed);
        // Past the limit; a stray add to a block made permanent since the load above lands
        // in the permanent zone and is harmless.
        if old > MAX_COUNT && old < PERMANENT_FROM {
            std::process::abort();
        }
        Block { ptr: self.ptr }
    }
}

impl Block {
    /// Gives up this handle's count, freeing the block if it was the last; returns the
    /// state and length of a global atom that only its table holds now (it just became
    /// unused), for the caller to tell the table.
    #[inline(always)]
    fn give_up_count(&self) -> Option<(u64, u32)> {
        if self.is_permanent() {
            return None;
        }
        // Read before the decrement: once the count is down to the table's one, a sweep may
        // take the block back and free it at once (this thread is not a pinned reader).
        let state = self.state();
        let len = self.header().len;
        // Release: our uses of the block happen before whoever frees it.
        let old = self.header().count.fetch_sub(1, Ordering::Release);
        if old == 1 {
            free_last(self.ptr);
        } else if old == 2 && state & (INTERNED | LOCAL) == INTERNED {
            return Some((state, len));
        }
        None
    }

    /// Drops this handle as `drop` does, except that a global atom left unused is not
    /// reported through the hook but returned, as its cached hash and its bytes (header and
    /// text): a caller that drops many atoms reports them to the table together.
    #[cfg(feature = "small-map")]
    #[inline]
    pub(crate) fn release_noting_unused(self) -> Option<(u64, usize)> {
        let this = std::mem::ManuallyDrop::new(self);
        this.give_up_count().map(|(state, len)| (state & !FLAGS, HEADER_SIZE + len as usize))
    }
}

impl Drop for Block {
    #[inline]
    fn drop(&mut self) {
        if let Some((state, len)) = self.give_up_count() {
            became_unused(state, len);
        }
    }
}

/// Frees a block whose last count was just given up. Out of line, like
/// [`became_unused`], so that the common drop (a count above 1 left, or a non-heap string)
/// is a few instructions with no stack frame, like `Arc`'s: inlined, the freeing code would
/// make every drop save and restore registers.
#[inline(never)]
fn free_last(ptr: NonNull<Header>) {
    // Acquire: every other handle's uses happened before we free it.
    fence(Ordering::Acquire);
    drop(DeadBlock { ptr });
}

/// One count is left of a global atom (its `state`, read just before the last decrement,
/// says interned and not local): if the count left is the table's, the atom just became
/// unused, and the hook tells the table (which sweeps in batches). The block itself is not
/// touched any more: a sweep may already have freed it. (A flag set between the read and
/// the decrement is missed: the hook is a hint to sweep sooner, never needed for safety.)
#[inline(never)]
fn became_unused(state: u64, len: u32) {
    if let Some(hook) = UNUSED_HOOK.get() {
        hook(state & !FLAGS, HEADER_SIZE + len as usize);
    }
}

/// A block whose count has reached zero: nothing can reach it but its table's entry, and
/// dropping this frees it.
pub(crate) struct DeadBlock {
    ptr: NonNull<Header>,
}

impl DeadBlock {
    /// The block as a pointer and the function that frees it, for a reclaimer that frees
    /// it later (once no lock-free reader can still be looking at it).
    #[inline]
    pub(crate) fn into_retirable(self) -> (NonNull<()>, FreeRetired) {
        let ptr = self.ptr.cast();
        std::mem::forget(self);
        (ptr, free_retired)
    }
}

/// How a reclaimer frees a block given up by [`DeadBlock::into_retirable`] (its second
/// argument, the reclaimer's context, is unused).
pub(crate) type FreeRetired = unsafe fn(NonNull<()>, *const ());

/// Frees a block given up by [`DeadBlock::into_retirable`].
///
/// # Safety
/// `ptr` came from `into_retirable` and is freed once.
unsafe fn free_retired(ptr: NonNull<()>, _: *const ()) {
    drop(DeadBlock { ptr: ptr.cast() });
}

impl Drop for DeadBlock {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the count reached zero, so this is the only access to the block.
        let header = unsafe { self.ptr.as_ref() };
        if header.state.load(Ordering::Relaxed) & SLAB != 0 {
            // SAFETY: as below for the header; the block came from its table's slabs,
            // whose table is alive or has disowned them (it frees through its sweeps, and
            // gives up its entries only after disowning).
            unsafe {
                ptr::drop_in_place(self.ptr.as_ptr());
                slab::free(self.ptr.cast());
            }
            return;
        }
        let len = header.len as usize;
        let layout = block_layout(len).expect("layout was valid at allocation");
        // SAFETY: the header was initialised at allocation and is dropped exactly once
        // here (loom's atomics need their destructor to run).
        unsafe { ptr::drop_in_place(self.ptr.as_ptr()) };
        // SAFETY: allocated by `UninitBlock::allocate` with this very layout.
        unsafe { block_cache::dealloc(self.ptr.as_ptr().cast(), layout) };
    }
}

/// Reads the bytes of a block listed in a table, without a count of its own.
///
/// # Safety
/// - The block is allocated for `'a`: the caller's table holds a count of it and does not
///   give it up (nor free it through its reclaimer) while the slice is used.
#[inline]
pub(crate) unsafe fn entry_bytes<'a>(ptr: NonNull<Header>) -> &'a [u8] {
    // SAFETY: the caller guarantees the block is allocated; bytes follow the header.
    let len = unsafe { ptr.as_ref() }.len as usize;
    // SAFETY: as above; the bytes are initialised and immutable.
    unsafe { std::slice::from_raw_parts(ptr.as_ptr().cast::<u8>().add(HEADER_SIZE), len) }
}

/// Where the bytes of a block start (for checks; reads nothing).
#[inline]
pub(crate) fn entry_bytes_ptr(ptr: NonNull<Header>) -> *const u8 {
    ptr.as_ptr().cast::<u8>().wrapping_add(HEADER_SIZE)
}

/// Reads the cached hash of a block listed in a table (same contract as [`entry_bytes`]).
///
/// # Safety
/// As for [`entry_bytes`].
#[inline]
pub(crate) unsafe fn entry_hash(ptr: NonNull<Header>) -> u64 {
    // SAFETY: the caller guarantees the block is allocated.
    unsafe { ptr.as_ref() }.state.load(Ordering::Relaxed) & !FLAGS
}

/// The size of a listed block's slab block, if it lies in a slab (same contract as
/// [`entry_bytes`]).
///
/// # Safety
/// As for [`entry_bytes`].
#[inline]
pub(crate) unsafe fn entry_slab_block(ptr: NonNull<Header>) -> Option<usize> {
    // SAFETY: the caller guarantees the block is allocated.
    let header = unsafe { ptr.as_ref() };
    if header.state.load(Ordering::Relaxed) & SLAB == 0 {
        return None;
    }
    slab::block_size(HEADER_SIZE + header.len as usize)
}

/// A freshly allocated block whose bytes are still being written.
pub(crate) struct UninitBlock {
    ptr: NonNull<Header>,
    len: usize,
    filled: usize,
}

impl UninitBlock {
    /// Allocates room for `len` bytes after a header.
    #[inline]
    pub(crate) fn allocate(len: usize, fallibility: Fallibility) -> Result<UninitBlock, StrError> {
        let layout = block_layout(len)?;
        // SAFETY: the layout has a non-zero size (the header).
        let raw = unsafe { block_cache::alloc(layout) };
        let Some(raw) = NonNull::new(raw.cast::<Header>()) else {
            return match fallibility {
                Fallibility::Fallible => Err(StrError::AllocFailed { size: layout.size() }),
                Fallibility::Infallible => std::alloc::handle_alloc_error(layout),
            };
        };
        let header = Header {
            count: AtomicU32::new(1),
            len: u32::try_from(len).expect("checked against MAX_LEN"),
            state: AtomicU64::new(0),
        };
        // SAFETY: `raw` is a fresh allocation sized and aligned for a header.
        unsafe { raw.as_ptr().write(header) };
        Ok(UninitBlock { ptr: raw, len, filled: 0 })
    }

    /// Appends `bytes` after the bytes written so far.
    ///
    /// # Panics
    /// If it would run past the area.
    #[inline]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        let end = self.filled.checked_add(bytes.len()).expect("length overflow");
        assert!(end <= self.len, "write past the end of the block");
        // SAFETY: `filled..end` lies within this block's byte area (checked above), which
        // is exclusively ours until `finish`, and cannot overlap `bytes` (a borrow of
        // other memory).
        unsafe {
            let dst = self.ptr.as_ptr().cast::<u8>().add(HEADER_SIZE + self.filled);
            ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        }
        self.filled = end;
    }

    /// The bytes written so far.
    #[inline]
    pub(crate) fn filled(&self) -> &[u8] {
        // SAFETY: the first `filled` bytes of the area were initialised by `push_bytes`,
        // and the borrow of `self` keeps the allocation alive and unwritten.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr().cast::<u8>().add(HEADER_SIZE), self.filled) }
    }

    /// Publishes the block.
    ///
    /// # Panics
    /// If the area has not been filled exactly (the bytes of a block are always
    /// initialised).
    #[inline]
    pub(crate) fn finish(self) -> Block {
        assert_eq!(self.filled, self.len, "heap block finished before it was filled");
        let block = Block { ptr: self.ptr };
        std::mem::forget(self);
        block
    }
}

impl Drop for UninitBlock {
    #[inline]
    fn drop(&mut self) {
        drop(DeadBlock { ptr: self.ptr });
    }
}

/// An immortal table entry whose characters stay in the binary: a header followed by a
/// pointer to the `'static` text instead of the text itself.
#[repr(C)]
pub(crate) struct StaticEntry {
    header: Header,
    text: &'static [u8],
    /// The declared word a hit hands out, or 0 for an entry of `from_static` (whose atoms
    /// are the entry's address).
    declared: usize,
}

// A static entry begins with its header, as a block does: an entry word's cached hash is
// read at the same place whichever kind of entry it points at (`AtomWord::table_hash`).
#[cfg(not(loom))]
const _: () = assert!(std::mem::offset_of!(StaticEntry, header) == 0);

impl StaticEntry {
    /// Leaks a new static entry filed under `hash` (a [`cacheable_hash`]) in the global
    /// table, the only one that files static entries.
    pub(crate) fn leak(text: &'static [u8], hash: u64, declared: usize) -> NonNull<StaticEntry> {
        NonNull::from(&StaticEntry::leak_all(std::iter::once((text, hash, declared)))[0])
    }

    /// Leaks static entries for `(text, hash, declared word)`s in one allocation (a set's,
    /// filed in the global table when it is made).
    pub(crate) fn leak_all(entries: impl Iterator<Item = (&'static [u8], u64, usize)>) -> &'static [StaticEntry] {
        let entries: Vec<StaticEntry> = entries
            .map(|(text, hash, declared)| {
                debug_assert_eq!(hash, cacheable_hash(hash));
                StaticEntry {
                    header: Header {
                        count: AtomicU32::new(1),
                        len: u32::try_from(text.len()).expect("static text longer than MAX_LEN"),
                        state: AtomicU64::new(hash | INTERNED),
                    },
                    text,
                    declared,
                }
            })
            .collect();
        Box::leak(entries.into_boxed_slice())
    }

    /// # Safety
    /// `ptr` came from [`StaticEntry::leak`] or [`StaticEntry::leak_all`] (static entries
    /// are never freed).
    #[inline]
    pub(crate) unsafe fn text(ptr: NonNull<StaticEntry>) -> &'static [u8] {
        // SAFETY: leaked entries live forever and `text` never changes.
        unsafe { ptr.as_ref() }.text
    }

    /// The declared word this entry stands for, or 0.
    ///
    /// # Safety
    /// As for [`StaticEntry::text`].
    #[inline]
    pub(crate) unsafe fn declared_bits(ptr: NonNull<StaticEntry>) -> usize {
        // SAFETY: leaked entries live forever and `declared` never changes.
        unsafe { ptr.as_ref() }.declared
    }

    /// # Safety
    /// As for [`StaticEntry::text`].
    #[inline]
    pub(crate) unsafe fn hash(ptr: NonNull<StaticEntry>) -> u64 {
        // SAFETY: leaked entries live forever.
        unsafe { ptr.as_ref() }.header.state.load(Ordering::Relaxed) & !FLAGS
    }
}

/// Test-only access to the count, to reach the limit without 2^31 clones.
#[cfg(all(test, not(loom)))]
impl Block {
    pub(super) fn count_for_test(&self) -> u32 {
        self.header().count.load(Ordering::Relaxed)
    }

    pub(super) fn set_count_for_test(&self, count: u32) {
        self.header().count.store(count, Ordering::Relaxed);
    }
}

#[cfg(all(test, not(loom)))]
#[path = "heap_count_limit_tests.rs"]
mod count_limit_tests;

#[cfg(all(test, not(loom)))]
#[path = "heap_permanent_tests.rs"]
mod permanent_tests;

#[cfg(all(test, loom))]
#[path = "heap_permanent_loom.rs"]
mod permanent_loom_models;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn header_layout_is_as_documented() {
        assert_eq!(HEADER_SIZE, 16);
        assert_eq!(std::mem::offset_of!(Header, count), 0);
        assert_eq!(std::mem::offset_of!(Header, len), 4);
        assert_eq!(std::mem::offset_of!(Header, state), 8);
        assert!(std::mem::align_of::<Header>() >= 8);
    }

    #[test]
    fn bytes_follow_the_header_in_one_allocation() {
        let block = Block::copy_from(b"bytes right after the header", Fallibility::Infallible).unwrap();
        assert_eq!(block.bytes_ptr() as usize - block.ptr.as_ptr() as usize, HEADER_SIZE);
        assert_eq!(block.bytes(), b"bytes right after the header");
    }

    #[test]
    fn the_first_cached_hash_sticks_beside_the_flags() {
        let block = Block::copy_from(b"hash me", Fallibility::Infallible).unwrap();
        assert_eq!(block.cached_hash(), None);
        block.mark_utf8();
        block.cache_hash(cacheable_hash(7 << 5));
        block.cache_hash(cacheable_hash(8 << 5));
        assert_eq!(block.cached_hash(), Some(7 << 5));
        assert_eq!(block.flags(), UTF8_VALID);
        assert_eq!(cacheable_hash(0x1F), 0x20, "a cacheable hash is never zero");
    }

    #[test]
    fn a_block_is_claimed_once() {
        let block = Block::copy_from(b"claimed", Fallibility::Infallible).unwrap();
        block.cache_hash(cacheable_hash(99 << 5));
        assert!(!block.is_global_entry());
        assert!(block.try_claim(0));
        assert!(!block.try_claim(LOCAL));
        assert!(block.is_global_entry());
        assert_eq!(block.cached_process_hash(), Some(99 << 5));
    }

    #[test]
    fn an_entry_is_reclaimed_only_when_the_table_alone_holds_it() {
        let block = Block::copy_from(b"held by a table", Fallibility::Infallible).unwrap();
        block.cache_hash(cacheable_hash(5 << 5));
        assert!(block.try_claim(LOCAL | OWN_SEED));
        let entry = block.clone().into_raw();
        // SAFETY: `entry` holds the table's count of a live block.
        unsafe {
            assert!(Block::reclaim_unused(entry).is_none(), "a handle is still alive");
            assert!(Block::acquire_entry(entry, 3).is_none());
            let revived = Block::acquire_entry(entry, 2).expect("in use");
            assert_eq!(Block::entry_count(entry), 3);
            drop((revived, block));
            assert_eq!(Block::entry_count(entry), 1);
            assert!(Block::acquire_entry(entry, 2).is_none(), "unused atoms are not found by lookups");
            let handle = Block::acquire_entry(entry, 1).expect("unused atoms are revived by interning");
            assert_eq!(handle.flags(), INTERNED | LOCAL | OWN_SEED);
            // The table lets go; its own-seed hash stays, and keeps other tables off.
            Block::release_entry(entry);
            assert_eq!(handle.flags(), OWN_SEED);
            assert_eq!(handle.cached_hash(), Some(5 << 5));
            assert_eq!(handle.cached_process_hash(), None);
            assert!(!handle.try_claim(0));
            assert_eq!(handle.count_for_test(), 1);
        }
    }

    #[test]
    fn a_filed_copy_starts_with_the_tables_count_and_flags() {
        let hash = cacheable_hash(77 << 5);
        let (block, entry) = Block::copy_filed(b"filed at birth", hash, LOCAL, Fallibility::Infallible).unwrap();
        assert_eq!(block.bytes(), b"filed at birth");
        assert_eq!((block.count_for_test(), block.flags(), block.cached_hash()), (2, INTERNED | LOCAL, Some(hash)));
        drop(block);
        // SAFETY: `entry` holds the table's count, the only one left.
        assert!(unsafe { Block::reclaim_unused(entry) }.is_some());
    }

    #[test]
    fn an_unused_entry_is_freed_by_its_reclaimer() {
        let block = Block::copy_from(b"swept away", Fallibility::Infallible).unwrap();
        let entry = block.into_raw();
        // SAFETY: `entry` holds the only count.
        let dead = unsafe { Block::reclaim_unused(entry) };
        assert!(dead.is_some(), "count 1: the caller frees it");
    }

    #[test]
    fn short_texts_are_exact_and_long_ones_round_to_an_eighth() {
        assert_eq!(capacity_class(1), 1);
        assert_eq!(capacity_class(SIZE_CLASSES_FROM - 1), SIZE_CLASSES_FROM - 1);
        assert_eq!(capacity_class(SIZE_CLASSES_FROM), SIZE_CLASSES_FROM);
        assert_eq!(capacity_class(SIZE_CLASSES_FROM + 1), SIZE_CLASSES_FROM + SIZE_CLASSES_FROM / 8);
        assert_eq!(capacity_class(1_000_000), 1 << 20);
        assert_eq!(capacity_class(1 << 20), 1 << 20, "a power of two is a class");
        assert_eq!(capacity_class((1 << 20) + 1), (1 << 20) + (1 << 17));
        for len in (SIZE_CLASSES_FROM..1 << 24).step_by(4093).chain([MAX_LEN]) {
            let class = capacity_class(len);
            assert!(class >= len && class - len <= len / 8, "{len} -> {class}");
            assert_eq!(capacity_class(class), class, "a class is its own class");
        }
        assert_eq!(block_layout(1 << 20).unwrap().size(), HEADER_SIZE + (1 << 20));
    }

    #[test]
    fn too_long_is_an_error_not_an_allocation() {
        assert_eq!(block_layout(MAX_LEN + 1).unwrap_err(), StrError::TooLong { len: MAX_LEN + 1 });
        assert!(matches!(UninitBlock::allocate(usize::MAX, Fallibility::Fallible), Err(StrError::TooLong { .. })));
    }

    #[test]
    fn allocation_failure_is_reported() {
        // Within MAX_LEN but far beyond this machine's memory (4 GiB is not, so ask for the
        // maximum and accept either outcome: an error, or success which we release).
        match UninitBlock::allocate(MAX_LEN, Fallibility::Fallible) {
            Err(err) => assert!(matches!(err, StrError::AllocFailed { .. })),
            Ok(block) => drop(block),
        }
    }
}
