//! The growable block behind `StrBuilder` and `ByteStrBuilder`: a heap block under
//! construction.
//!
//! # Memory layout
//!
//! ```text
//!  base                      bytes
//!  +-------------------------+----------------------------+-------------------+
//!  | header room (16 bytes,  | filled: initialised bytes  | spare: capacity - |
//!  | uninitialised)          |                            | filled, uninit    |
//!  +-------------------------+----------------------------+-------------------+
//!  <------------------------- block_layout(capacity) ------------------------->
//! ```
//!
//! The allocation is already laid out as a [`Block`]: growing reallocates the whole thing
//! (header room included), and finishing shrinks it to `block_layout(filled)` (unless it
//! already has that size: texts of 32 KiB and more get size classes, see
//! `capacity_class`) and writes the header in front, so the bytes are never copied into
//! a second buffer. Only the filled part is ever exposed. Whether it is UTF-8 is the
//! business of `StrBuilder`, which wraps this buffer in [`crate::utf8::Utf8`].

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use super::block_cache;
use super::heap::{Block, Fallibility, HEADER_SIZE, MAX_LEN, block_layout, capacity_class};
use super::str_word::StrWord;
use crate::error::StrError;
use crate::sync::raw_alloc;

/// The first allocation holds this many bytes, so short builders do not reallocate for
/// every few bytes. A power of two, so that doubling lands on powers of two, which are
/// size classes (see `capacity_class`): a builder that ends in the top eighth of its
/// buffer finishes without resizing it.
const MIN_CAPACITY: usize = 64;

/// A block whose bytes are still being appended.
pub(crate) struct GrowableBlock {
    /// Start of the byte area, `HEADER_SIZE` bytes into the allocation; dangling (and
    /// never offset) while `capacity` is zero, which means nothing is allocated.
    bytes: NonNull<u8>,
    capacity: usize,
    filled: usize,
}

// SAFETY: the block is owned exclusively (no shared pointers exist until `into_block`),
// like a `Vec<u8>`.
unsafe impl Send for GrowableBlock {}
// SAFETY: `&GrowableBlock` only gives read access to initialised bytes.
unsafe impl Sync for GrowableBlock {}

impl GrowableBlock {
    /// An empty buffer; allocates nothing.
    pub(crate) const fn new() -> GrowableBlock {
        GrowableBlock { bytes: NonNull::dangling(), capacity: 0, filled: 0 }
    }

    /// An empty buffer with room for exactly `capacity` bytes (or its size class), so
    /// that a text of that length finishes without resizing.
    pub(crate) fn with_capacity(capacity: usize, fallibility: Fallibility) -> Result<GrowableBlock, StrError> {
        let mut buf = GrowableBlock::new();
        if capacity > 0 {
            buf.resize(capacity, fallibility)?;
        }
        Ok(buf)
    }

    pub(crate) fn len(&self) -> usize {
        self.filled
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// The bytes appended so far.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        // SAFETY: the first `filled` bytes were written by `push_bytes`/`push_byte` (or
        // `filled` is zero and `bytes` is a dangling, aligned pointer, which is valid for
        // an empty slice).
        unsafe { std::slice::from_raw_parts(self.bytes.as_ptr(), self.filled) }
    }

    /// Appends `bytes`, growing (amortised doubling) when they do not fit. On error
    /// nothing is appended.
    #[inline]
    pub(crate) fn push_bytes(&mut self, bytes: &[u8], fallibility: Fallibility) -> Result<(), StrError> {
        if self.capacity - self.filled < bytes.len() {
            self.grow_for(bytes.len(), fallibility)?;
        }
        // SAFETY: `filled + bytes.len() <= capacity` (checked or just grown), so the
        // destination lies inside our allocation's byte area (or both are empty and the
        // dangling pointer is fine for a zero-length copy); `bytes` is a borrow of other
        // memory, so the two cannot overlap.
        unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), self.bytes.as_ptr().add(self.filled), bytes.len()) };
        self.filled += bytes.len();
        Ok(())
    }

    /// Appends one byte without the generic copy (formatting pads with single chars).
    #[inline]
    pub(crate) fn push_byte(&mut self, byte: u8, fallibility: Fallibility) -> Result<(), StrError> {
        if self.capacity == self.filled {
            self.grow_for(1, fallibility)?;
        }
        // SAFETY: `filled < capacity` (checked or just grown), so the byte lies inside our
        // allocation's byte area.
        unsafe { self.bytes.as_ptr().add(self.filled).write(byte) };
        self.filled += 1;
        Ok(())
    }

    /// Makes room for at least `additional` more bytes.
    pub(crate) fn reserve(&mut self, additional: usize, fallibility: Fallibility) -> Result<(), StrError> {
        if self.capacity - self.filled < additional {
            self.grow_for(additional, fallibility)?;
        }
        Ok(())
    }

    /// Forgets the bytes from `len` on (nothing if `len` is past the end).
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.filled {
            self.filled = len;
        }
    }

    #[cold]
    fn grow_for(&mut self, additional: usize, fallibility: Fallibility) -> Result<(), StrError> {
        let needed = self.filled.checked_add(additional).ok_or(StrError::TooLong { len: usize::MAX })?;
        if needed > MAX_LEN {
            return Err(StrError::TooLong { len: needed });
        }
        // Doubling keeps appends amortised O(1), and doubling to a power of two keeps the
        // capacity a size class the text can fill (see MIN_CAPACITY); the clamp keeps the
        // length in a u32.
        let doubled = self.capacity.saturating_mul(2).checked_next_power_of_two().unwrap_or(usize::MAX);
        let capacity = needed.max(doubled).clamp(MIN_CAPACITY, MAX_LEN);
        self.resize(capacity, fallibility)
    }

    /// Reallocates the whole block (header room included) to hold at least `capacity`
    /// bytes: all of the size class `block_layout` rounds it to.
    fn resize(&mut self, capacity: usize, fallibility: Fallibility) -> Result<(), StrError> {
        debug_assert!(capacity >= self.filled && capacity > 0);
        let new_layout = block_layout(capacity)?;
        // Whatever the class adds is ours to fill; a capacity past MAX_LEN could not be
        // used, and `block_layout(MAX_LEN)` is the same class anyway.
        let capacity = (new_layout.size() - HEADER_SIZE).min(MAX_LEN);
        let raw = if self.capacity == 0 {
            // SAFETY: a block layout is never zero-sized (it includes the header).
            unsafe { block_cache::alloc(new_layout) }
        } else {
            let old_layout = block_layout(self.capacity).expect("the current capacity was valid");
            if new_layout.size() > old_layout.size()
                && let Some(cached) = block_cache::take_cached(new_layout)
            {
                self.move_into(cached, old_layout);
                self.capacity = capacity;
                return Ok(());
            }
            // SAFETY: `base()` was allocated with `old_layout` (every allocation and
            // resize records its capacity), the new size is non-zero and was checked by
            // `block_layout` not to overflow `isize` once aligned.
            unsafe { realloc(self.base(), old_layout, new_layout.size()) }
        };
        let Some(raw) = NonNull::new(raw) else {
            // A failed realloc leaves the old block untouched and still ours.
            return match fallibility {
                Fallibility::Fallible => Err(StrError::AllocFailed { size: new_layout.size() }),
                Fallibility::Infallible => std::alloc::handle_alloc_error(new_layout),
            };
        };
        // SAFETY: the allocation is at least HEADER_SIZE bytes long.
        self.bytes = unsafe { raw.add(HEADER_SIZE) };
        self.capacity = capacity;
        Ok(())
    }

    /// Grows into `cached`, a freed block of the larger class the cache handed out: copies
    /// the filled bytes over and frees the old allocation (to the cache, when its class is
    /// cached). Why not `realloc`: growing in place would leave the cached block idle while
    /// malloc finds fresh pages for the new size (glibc's mmap threshold stays low while the
    /// cache keeps large blocks from it), so every builder would fault its pages in anew;
    /// the cached block's pages are already there, and the copy is at most what doubling
    /// copies anyway.
    fn move_into(&mut self, cached: NonNull<u8>, old_layout: Layout) {
        let old_base = self.base();
        // SAFETY: `cached` is a live allocation of a larger layout than ours (the cache
        // gives it up to us), so it has room for the header and our `filled` bytes; it is
        // distinct from our own allocation, so the ranges cannot overlap.
        unsafe { ptr::copy_nonoverlapping(self.bytes.as_ptr(), cached.as_ptr().add(HEADER_SIZE), self.filled) };
        // SAFETY: `cached` is at least HEADER_SIZE bytes long.
        self.bytes = unsafe { cached.add(HEADER_SIZE) };
        // SAFETY: the old allocation was made with `old_layout` and nothing refers to it
        // any more: the bytes now live in `cached`.
        unsafe { block_cache::dealloc(old_base, old_layout) };
    }

    /// Start of the allocation. Only meaningful while `capacity > 0`.
    fn base(&self) -> *mut u8 {
        debug_assert!(self.capacity > 0);
        // SAFETY: while allocated, `bytes` is HEADER_SIZE bytes into the allocation.
        unsafe { self.bytes.as_ptr().sub(HEADER_SIZE) }
    }

    /// Turns the buffer into a published block of exactly the filled length, in place:
    /// the allocation shrinks to `block_layout(len)` (which `DeadBlock` frees it with)
    /// and gets its header. Returns `None` when nothing was appended.
    pub(crate) fn into_block(mut self, fallibility: Fallibility) -> Result<Option<Block>, StrError> {
        if self.filled == 0 {
            return Ok(None);
        }
        // A builder that filled the top of its size class keeps its allocation as it is.
        if capacity_class(self.capacity) != capacity_class(self.filled) {
            self.resize(self.filled, fallibility)?;
        }
        let len = self.filled;
        let base = self.base();
        // Ownership of the allocation moves to the block.
        self.capacity = 0;
        self.filled = 0;
        self.bytes = NonNull::dangling();
        let base = NonNull::new(base).expect("an allocation is never null");
        // SAFETY: `base` was allocated through `raw_alloc` and now has exactly
        // `block_layout(len)` (the same size class as its capacity, or resized above); its
        // `len` bytes after the header room were written by `push_bytes`; we gave up
        // ownership just above.
        Ok(Some(unsafe { Block::from_filled_allocation(base, len) }))
    }

    /// The string of the filled bytes, without copying them: a heap result is the buffer
    /// itself (see [`GrowableBlock::into_block`]); at most
    /// [`INLINE_CAPACITY`](super::str_word::INLINE_CAPACITY) bytes are stored inline and
    /// the buffer is freed.
    #[inline]
    pub(crate) fn into_str_word(self, fallibility: Fallibility) -> Result<StrWord, StrError> {
        if let Some(word) = StrWord::inline(self.as_bytes()) {
            return Ok(word);
        }
        let block = self.into_block(fallibility)?.expect("a heap-sized result is not empty");
        Ok(StrWord::heap_whole(block))
    }
}

impl Drop for GrowableBlock {
    fn drop(&mut self) {
        if self.capacity > 0 {
            let layout = block_layout(self.capacity).expect("the current capacity was valid");
            // SAFETY: allocated by `resize` with this layout; the header room was never
            // initialised, so there is nothing to drop in place before freeing.
            unsafe { block_cache::dealloc(self.base(), layout) };
        }
    }
}

/// `realloc` of the raw allocator, which glibc can do in place (a shrink always is).
#[cfg(not(loom))]
unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    // SAFETY: forwarded from the caller, who upholds `GlobalAlloc::realloc`'s contract.
    unsafe { raw_alloc::realloc(ptr, layout, new_size) }
}

/// loom tracks allocations but has no `realloc`: move by hand so its leak check still
/// sees every block.
#[cfg(loom)]
unsafe fn realloc(ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
    let new_layout = Layout::from_size_align(new_size, layout.align()).expect("checked by the caller");
    // SAFETY: non-zero size (the caller's contract).
    let new = unsafe { raw_alloc::alloc(new_layout) };
    if !new.is_null() {
        // SAFETY: both allocations are live, distinct, and at least this long.
        unsafe { ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size)) };
        // SAFETY: `ptr` was allocated with `layout` (the caller's contract).
        unsafe { raw_alloc::dealloc(ptr, layout) };
    }
    new
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn filled_to(len: usize) -> GrowableBlock {
        let mut buf = GrowableBlock::new();
        let piece = "0123456789";
        while buf.len() + piece.len() <= len {
            buf.push_bytes(piece.as_bytes(), Fallibility::Infallible).unwrap();
        }
        buf.push_bytes(&piece.as_bytes()[..len - buf.len()], Fallibility::Infallible).unwrap();
        buf
    }

    #[test]
    fn doubling_keeps_the_capacity_a_power_of_two() {
        let buf = filled_to(1_000_000);
        assert_eq!(buf.capacity(), 1 << 20);
        // The text fills the top eighth of its block, so finishing keeps the block's size
        // (and `DeadBlock` frees it with the size it has).
        assert_eq!(block_layout(buf.len()).unwrap().size(), HEADER_SIZE + (1 << 20));
        let block = buf.into_block(Fallibility::Infallible).unwrap().unwrap();
        assert_eq!(block.len(), 1_000_000);
    }

    #[test]
    fn a_large_reservation_gets_its_whole_size_class() {
        let mut buf = GrowableBlock::new();
        buf.reserve(300_000, Fallibility::Infallible).unwrap();
        assert_eq!(buf.capacity(), capacity_class(300_000));
        assert!(buf.capacity() >= 300_000);
    }

    #[test]
    fn finishing_short_of_the_class_shrinks_to_the_texts_class() {
        let buf = filled_to(600_000);
        assert_eq!(buf.capacity(), 1 << 20);
        let block = buf.into_block(Fallibility::Infallible).unwrap().unwrap();
        assert_eq!(block.bytes().len(), 600_000);
        assert!(block.bytes().iter().all(|b| b.is_ascii_digit()));
    }
}
