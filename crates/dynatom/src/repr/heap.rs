//! The heap block: one allocation holding a header followed by the string's bytes.
//!
//! # Memory layout
//!
//! ```text
//!  offset 0         4         8                   16                  24
//!         +---------+---------+-------------------+-------------------+---------- - -
//!         |  count  |   len   |   hash (cached)   |   owner (table)   | bytes ...
//!         |  u32    |   u32   |   u64, 0 = none   |   *const Table    | len bytes
//!         +---------+---------+-------------------+-------------------+---------- - -
//!         ^                                                           ^
//!         Block.ptr (align 8)                                         Block::bytes()
//! ```
//!
//! * `count` is the number of live handles (`Str`s and `Atom`s) of the block. An atom
//!   table never holds a count: an interned block whose count reaches zero is removed
//!   from its table by the thread that dropped the last handle.
//! * `hash` caches the seeded hash of the whole buffer. While `owner` is null or the
//!   global table it is the global table's hash; a block owned by a local table holds
//!   that table's hash (local tables never adopt a block they did not create, so this
//!   never changes under a reader).
//! * `owner` is null until the block is interned; then it names the table whose entry
//!   it is, and never changes again.
//!
//! The header is 24 bytes; its alignment (8) leaves the three low bits of every block
//! pointer zero, which the tagged handles above rely on.
//!
//! The bytes take exactly `len` bytes of room below 32 KiB; longer texts get the room of
//! their size class ([`capacity_class`]), which is what the block is freed with.

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::block_cache;
use crate::error::StrError;
use crate::sync::{fence, AtomicPtr, AtomicU32, AtomicU64, Ordering};
use crate::table::TableShared;

/// The longest string a heap block (and so a [`Str`](crate::Str)) can hold.
pub(crate) const MAX_LEN: usize = u32::MAX as usize;

/// Beyond this many handles a clone aborts the process, as `Arc` does: the count
/// cannot wrap to zero and free a block that is still in use. (Chosen over saturating
/// into an immortal block: 2^31 live handles, 32 GiB of `Atom`s, only come from
/// `mem::forget` in a loop, a bug worth stopping at rather than a leak to hide.)
/// The gap up to `u32::MAX` absorbs clones racing past the check on other threads.
pub(super) const MAX_COUNT: u32 = i32::MAX as u32;

#[repr(C)]
pub(crate) struct Header {
    count: AtomicU32,
    len: u32,
    hash: AtomicU64,
    owner: AtomicPtr<TableShared>,
}

/// Bytes in front of the string's characters in every heap block.
pub(crate) const HEADER_SIZE: usize = std::mem::size_of::<Header>();

#[cfg(not(loom))]
const _: () = {
    assert!(HEADER_SIZE == 24, "the documented header size");
    assert!(std::mem::align_of::<Header>() >= 8, "handles use three low pointer bits as tags");
};

/// Whether running out of memory is reported to the caller or aborts.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fallibility {
    Infallible,
    Fallible,
}

/// Texts of at least this many bytes get a size class rather than their exact length, so
/// that freed blocks from here on can be kept for the next text of their class (the block
/// cache starts at the same size). A quarter of glibc's initial mmap threshold: such a
/// text already costs microseconds to copy and its pages to fault in, which reuse saves,
/// for at most 1/8 more room per string.
pub(super) const SIZE_CLASSES_FROM: usize = 32 * 1024;

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

    /// Publishes an allocation that was filled outside [`UninitBlock`] (the growable
    /// builder buffer), writing its header: one handle, no hash, no owner.
    ///
    /// # Safety
    /// - `raw` was allocated through `raw_alloc` with exactly `block_layout(len)` (that
    ///   is what `DeadBlock` frees it with), and ownership of it passes to the block;
    /// - the `len` bytes after the header are initialised.
    pub(super) unsafe fn from_filled_allocation(raw: NonNull<u8>, len: usize) -> Block {
        let header = Header {
            count: AtomicU32::new(1),
            len: u32::try_from(len).expect("block_layout checked len against MAX_LEN"),
            hash: AtomicU64::new(0),
            owner: AtomicPtr::new(ptr::null_mut()),
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

    /// The cached hash, or `None` if none has been stored.
    #[inline]
    pub(crate) fn cached_hash(&self) -> Option<u64> {
        // Relaxed: the hash is a pure function of immutable bytes, so any value a reader
        // sees is the right one; no other memory is published through it.
        match self.header().hash.load(Ordering::Relaxed) {
            0 => None,
            hash => Some(hash),
        }
    }

    /// Stores `hash` (already forced non-zero) if nothing is cached yet.
    #[inline]
    pub(crate) fn cache_hash(&self, hash: u64) {
        debug_assert_ne!(hash, 0);
        // Relaxed: see `cached_hash`. A lost race stores the same value anyway.
        let _ = self.header().hash.compare_exchange(0, hash, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The table this block is interned in, or null.
    #[inline]
    pub(crate) fn owner(&self) -> *const TableShared {
        // Acquire pairs with the Release in `try_claim`: whoever sees the owner also sees
        // the hash that was cached before the claim.
        self.header().owner.load(Ordering::Acquire)
    }

    /// Makes `owner` the block's table if it has none yet. Returns false if another table
    /// claimed it first.
    #[inline]
    pub(crate) fn try_claim(&self, owner: *const TableShared) -> bool {
        // Release publishes the cached hash to readers of `owner`; Acquire on failure lets
        // the loser read the winner's hash.
        self.header()
            .owner
            .compare_exchange(ptr::null_mut(), owner.cast_mut(), Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
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
    ///   [`Block::acquire_if_live`] succeeded), and
    /// - the count it stood for is handed to the returned `Block` exactly once.
    #[inline]
    pub(crate) unsafe fn from_raw(ptr: NonNull<Header>) -> Block {
        Block { ptr }
    }

    /// Takes a new count on a block known only by its raw pointer, unless its count has
    /// already reached zero: a dying block is never revived (as `Weak::upgrade`).
    ///
    /// # Safety
    /// - `ptr` points to an allocated block header: for a table entry, the caller holds
    ///   the lock of the shard that lists it (a dying block is freed only after its dropper
    ///   has removed it under that lock).
    #[inline]
    pub(crate) unsafe fn acquire_if_live(ptr: NonNull<Header>) -> Option<Block> {
        // SAFETY: the caller guarantees the header is allocated.
        let header = unsafe { ptr.as_ref() };
        let mut count = header.count.load(Ordering::Relaxed);
        loop {
            if count == 0 {
                return None;
            }
            if count > MAX_COUNT {
                std::process::abort();
            }
            // Relaxed, as in `Clone`: the new handle was derived from the table's knowledge
            // of the block, which the shard lock already synchronised.
            match header.count.compare_exchange_weak(count, count + 1, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(Block { ptr }),
                Err(actual) => count = actual,
            }
        }
    }
}

impl Clone for Block {
    #[inline]
    fn clone(&self) -> Block {
        // Relaxed: a new reference can only be made from an existing one, which already
        // keeps the block alive (the argument std's `Arc::clone` makes).
        let old = self.header().count.fetch_add(1, Ordering::Relaxed);
        if old > MAX_COUNT {
            std::process::abort();
        }
        Block { ptr: self.ptr }
    }
}

impl Drop for Block {
    #[inline]
    fn drop(&mut self) {
        // Release: our uses of the block happen before whoever frees it.
        if self.header().count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // Acquire: every other handle's uses happened before we free it.
        fence(Ordering::Acquire);
        let owner = self.owner();
        let dead = DeadBlock { ptr: self.ptr };
        if owner.is_null() {
            drop(dead);
        } else {
            // SAFETY: an owner, once set, is a table that stays allocated while any of its
            // entries exists, and this block is still one of its entries.
            unsafe { TableShared::release_dead(owner, dead) };
        }
    }
}

/// A block whose count has reached zero: nothing can reach it but its table's entry, and
/// dropping this frees it.
pub(crate) struct DeadBlock {
    ptr: NonNull<Header>,
}

impl DeadBlock {
    #[inline]
    pub(crate) fn as_raw(&self) -> NonNull<Header> {
        self.ptr
    }

    /// The hash its table filed it under.
    #[inline]
    pub(crate) fn cached_hash(&self) -> u64 {
        // SAFETY: a dead block stays allocated until this value is dropped.
        unsafe { self.ptr.as_ref() }.hash.load(Ordering::Relaxed)
    }
}

impl Drop for DeadBlock {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the count reached zero, so this is the only access to the block.
        let len = unsafe { self.ptr.as_ref() }.len as usize;
        let layout = block_layout(len).expect("layout was valid at allocation");
        // SAFETY: the header was initialised at allocation and is dropped exactly once
        // here (loom's atomics need their destructor to run).
        unsafe { ptr::drop_in_place(self.ptr.as_ptr()) };
        // SAFETY: allocated by `UninitBlock::allocate` with this very layout.
        unsafe { block_cache::dealloc(self.ptr.as_ptr().cast(), layout) };
    }
}

/// Reads the bytes of a block listed in a table, without holding a count.
///
/// # Safety
/// - The caller holds the lock of the shard that lists `ptr`, so the block is allocated
///   (dropping the last handle removes the entry under that lock before freeing), and
/// - the returned slice is not used after that lock is released.
#[inline]
pub(crate) unsafe fn entry_bytes<'a>(ptr: NonNull<Header>) -> &'a [u8] {
    // SAFETY: the caller guarantees the block is allocated; bytes follow the header.
    let len = unsafe { ptr.as_ref() }.len as usize;
    // SAFETY: as above; the bytes are initialised and immutable.
    unsafe { std::slice::from_raw_parts(ptr.as_ptr().cast::<u8>().add(HEADER_SIZE), len) }
}

/// Reads the cached hash of a block listed in a table (same contract as [`entry_bytes`]).
///
/// # Safety
/// As for [`entry_bytes`].
#[inline]
pub(crate) unsafe fn entry_hash(ptr: NonNull<Header>) -> u64 {
    // SAFETY: the caller guarantees the block is allocated.
    unsafe { ptr.as_ref() }.hash.load(Ordering::Relaxed)
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
            hash: AtomicU64::new(0),
            owner: AtomicPtr::new(ptr::null_mut()),
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
}

impl StaticEntry {
    /// Leaks a new static entry filed under `hash` in `owner`.
    pub(crate) fn leak(text: &'static [u8], hash: u64, owner: *const TableShared) -> NonNull<StaticEntry> {
        let entry = Box::new(StaticEntry {
            header: Header {
                count: AtomicU32::new(1),
                len: u32::try_from(text.len()).expect("static text longer than MAX_LEN"),
                hash: AtomicU64::new(hash),
                owner: AtomicPtr::new(owner.cast_mut()),
            },
            text,
        });
        NonNull::from(Box::leak(entry))
    }

    /// # Safety
    /// `ptr` came from [`StaticEntry::leak`] (static entries are never freed).
    #[inline]
    pub(crate) unsafe fn text(ptr: NonNull<StaticEntry>) -> &'static [u8] {
        // SAFETY: leaked entries live forever and `text` never changes.
        unsafe { ptr.as_ref() }.text
    }

    /// # Safety
    /// As for [`StaticEntry::text`].
    #[inline]
    pub(crate) unsafe fn hash(ptr: NonNull<StaticEntry>) -> u64 {
        // SAFETY: leaked entries live forever.
        unsafe { ptr.as_ref() }.header.hash.load(Ordering::Relaxed)
    }

    /// # Safety
    /// As for [`StaticEntry::text`].
    #[inline]
    pub(crate) unsafe fn owner(ptr: NonNull<StaticEntry>) -> *const TableShared {
        // SAFETY: leaked entries live forever.
        unsafe { ptr.as_ref() }.header.owner.load(Ordering::Relaxed)
    }
}

/// Reads the owner of a block listed in a table (same contract as [`entry_bytes`]).
///
/// # Safety
/// As for [`entry_bytes`].
#[inline]
pub(crate) unsafe fn entry_owner(ptr: NonNull<Header>) -> *const TableShared {
    // SAFETY: the caller guarantees the block is allocated.
    unsafe { ptr.as_ref() }.owner.load(Ordering::Acquire)
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
mod tests {
    use super::*;

    #[test]
    fn header_layout_is_as_documented() {
        assert_eq!(HEADER_SIZE, 24);
        assert_eq!(std::mem::offset_of!(Header, count), 0);
        assert_eq!(std::mem::offset_of!(Header, len), 4);
        assert_eq!(std::mem::offset_of!(Header, hash), 8);
        assert_eq!(std::mem::offset_of!(Header, owner), 16);
        assert!(std::mem::align_of::<Header>() >= 8);
    }

    #[test]
    fn bytes_follow_the_header_in_one_allocation() {
        let block = Block::copy_from(b"bytes right after the header", Fallibility::Infallible).unwrap();
        assert_eq!(block.bytes_ptr() as usize - block.ptr.as_ptr() as usize, HEADER_SIZE);
        assert_eq!(block.bytes(), b"bytes right after the header");
    }

    #[test]
    fn the_first_cached_hash_sticks() {
        let block = Block::copy_from(b"hash me", Fallibility::Infallible).unwrap();
        assert_eq!(block.cached_hash(), None);
        block.cache_hash(7);
        block.cache_hash(8);
        assert_eq!(block.cached_hash(), Some(7));
    }

    #[test]
    fn a_block_is_claimed_once() {
        let block = Block::copy_from(b"claimed", Fallibility::Infallible).unwrap();
        let first = std::ptr::dangling::<TableShared>();
        assert!(block.owner().is_null());
        assert!(block.try_claim(first));
        assert!(!block.try_claim(first));
        // Unclaim by hand so dropping does not look for a table at the dangling address.
        block.header().owner.store(ptr::null_mut(), Ordering::Relaxed);
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
