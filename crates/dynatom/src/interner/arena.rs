//! [`Arena`]: bump allocation in chunks that are allocated once and never move or
//! grow, the character store of both interners.
//!
//! Chunk sizes double from [`ChunkSizes::first`] up to [`ChunkSizes::max`]; a request
//! over a quarter of the largest chunk gets a block of its own and leaves the open chunk
//! alone, so one long string never wastes the rest of a chunk. Every pointer the arena
//! hands out stays valid and its bytes unchanged until the arena is dropped (or, for the
//! open chunk's tail, until [`Arena::shrink_open`] says where it went).
//!
//! The arena holds its chunks as raw pointers, never as `&mut [u8]`, so appending bytes
//! asserts no unique access over bytes that other threads may be reading: the
//! `SyncInterner` appends under a shard lock while readers resolve earlier strings.
//!
//! Every allocating method has a fallible form that returns [`AllocFailed`] and leaves
//! the arena as it was.

use std::alloc::Layout;
use std::ptr::NonNull;

use storage_alloc::{alloc, dealloc};

/// The allocator of the interners' storage: these chunks, the `SyncInterner`'s column
/// segments and shard table generations.
///
/// Under loom, loom's allocator, so that models report leaks. Otherwise the global
/// allocator: a program's own allocator, and the one the tests' failing allocator
/// replaces (unlike the strings' blocks, none of this is ever shown to
/// `malloc_usable_size`, so `glibc-slop` leaves it alone). `realloc` only shrinks the
/// open chunk, which loom's allocator cannot do: under loom the chunk is kept whole.
pub(crate) mod storage_alloc {
    #[cfg(loom)]
    pub(crate) use loom::alloc::{alloc, dealloc};
    #[cfg(not(loom))]
    pub(crate) use std::alloc::{alloc, dealloc, realloc};
}

/// The allocator refused a request of `bytes` bytes (or the size overflowed a `Layout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct AllocFailed {
    pub(crate) bytes: usize,
}

/// How an arena sizes its chunks.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChunkSizes {
    /// The first chunk's size.
    pub(crate) first: usize,
    /// The largest chunk (sizes double up to it).
    pub(crate) max: usize,
}

/// One allocated block and its size.
#[derive(Clone, Copy)]
struct Block {
    ptr: NonNull<u8>,
    cap: usize,
}

/// `old..old + len` moved to `new` (see [`Arena::shrink_open`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Moved {
    old: *const u8,
    new: *const u8,
    len: usize,
}

impl Moved {
    /// Where `p` points now: moved along if it pointed into the old range.
    pub(crate) fn follow(&self, p: *const u8) -> *const u8 {
        let off = (p as usize).wrapping_sub(self.old as usize);
        if off < self.len { self.new.wrapping_add(off) } else { p }
    }

    /// As [`follow`](Self::follow), but also moves a pointer to the old range's end: the
    /// start of an empty run that was opened at the chunk's tip. That address is still
    /// inside the old chunk (a chunk moves only when `len` is below its capacity), so no
    /// other chunk's pointer can equal it.
    pub(crate) fn follow_run_start(&self, p: *const u8) -> *const u8 {
        if p == self.old.wrapping_add(self.len) { self.new.wrapping_add(self.len) } else { self.follow(p) }
    }
}

pub(crate) struct Arena {
    /// Every block, for freeing.
    blocks: Vec<Block>,
    /// Start of the open chunk (dangling when there is none).
    cur: NonNull<u8>,
    /// Bytes used and size of the open chunk.
    len: usize,
    cap: usize,
    /// Size of the next chunk.
    next: usize,
    sizes: ChunkSizes,
    /// Bytes allocated in blocks.
    bytes: usize,
}

// SAFETY: an arena owns its blocks like a `Vec<Box<[u8]>>` (freed only in `Drop`) and
// writes them only through `&mut self`, so it may move to another thread.
unsafe impl Send for Arena {}
// SAFETY: `&Arena` reads only the arena's own fields, never the blocks' bytes.
unsafe impl Sync for Arena {}

fn layout(cap: usize) -> Result<Layout, AllocFailed> {
    Layout::from_size_align(cap, 1).map_err(|_| AllocFailed { bytes: cap })
}

impl Arena {
    pub(crate) fn new(sizes: ChunkSizes) -> Arena {
        debug_assert!(sizes.first > 0 && sizes.first <= sizes.max);
        Arena { blocks: Vec::new(), cur: NonNull::dangling(), len: 0, cap: 0, next: sizes.first, sizes, bytes: 0 }
    }

    /// Requests longer than this get a block of their own.
    #[inline]
    pub(crate) fn huge(&self) -> usize {
        self.sizes.max / 4
    }

    /// Free bytes at the end of the open chunk.
    #[inline(always)]
    pub(crate) fn room(&self) -> usize {
        self.cap - self.len
    }

    /// Where the next byte of the open chunk goes.
    #[inline(always)]
    pub(crate) fn tip(&self) -> *const u8 {
        // SAFETY: `len <= cap`: inside (or one past the end of) the open chunk, or the
        // dangling pointer plus 0.
        unsafe { self.cur.as_ptr().add(self.len) }
    }

    /// Size of the block that a request for `need` bytes, not fitting, would allocate.
    fn next_size(&self, need: usize) -> usize {
        if need > self.huge() { need } else { self.next.max(need) }
    }

    /// Bytes that [`try_copy`](Arena::try_copy) of `len` bytes would newly allocate,
    /// the block directory's growth included.
    pub(crate) fn cost(&self, len: usize) -> usize {
        if len == 0 || (len <= self.huge() && self.room() >= len) { 0 } else { self.open_cost(len) }
    }

    /// Bytes that opening a block for `need` bytes would allocate, with a bound on the
    /// directory's growth.
    pub(crate) fn open_cost(&self, need: usize) -> usize {
        let directory = if self.blocks.len() == self.blocks.capacity() {
            std::mem::size_of::<Block>() * (self.blocks.capacity() + 4)
        } else {
            0
        };
        self.next_size(need) + directory
    }

    /// Allocates a block for `need` bytes: a new open chunk, or (over [`huge`](Arena::huge))
    /// a block of its own that leaves the open chunk alone. Returns the block's start.
    /// On failure nothing changes.
    pub(crate) fn try_open(&mut self, need: usize) -> Result<NonNull<u8>, AllocFailed> {
        let cap = self.next_size(need).max(1);
        let layout = layout(cap)?;
        self.blocks.try_reserve(1).map_err(|_| AllocFailed { bytes: std::mem::size_of::<Block>() })?;
        // SAFETY: `cap > 0`.
        let block = NonNull::new(unsafe { alloc(layout) }).ok_or(AllocFailed { bytes: cap })?;
        self.blocks.push(Block { ptr: block, cap });
        self.bytes += cap;
        if need <= self.huge() {
            self.next = (self.next * 2).min(self.sizes.max);
            self.cur = block;
            self.len = 0;
            self.cap = cap;
        }
        Ok(block)
    }

    /// Makes sure the open chunk has room for `need` (at most [`huge`](Arena::huge))
    /// more bytes, opening a new chunk if not.
    #[inline]
    pub(crate) fn try_make_room(&mut self, need: usize) -> Result<(), AllocFailed> {
        debug_assert!(need <= self.huge());
        if self.room() < need {
            self.try_open(need)?;
        }
        Ok(())
    }

    /// Appends `bytes` to the open chunk, which must have room (see
    /// [`try_make_room`](Arena::try_make_room)); returns where they lie.
    ///
    /// # Panics
    /// If the open chunk has less room than `bytes.len()`.
    #[inline(always)]
    pub(crate) fn push_within(&mut self, bytes: &[u8]) -> *const u8 {
        assert!(bytes.len() <= self.room(), "arena chunk overrun");
        let dst = self.tip().cast_mut();
        // SAFETY: `dst..dst + bytes.len()` lies in the open chunk's unused tail (checked
        // above), which no pointer handed out so far covers and `bytes` (borrowed from
        // elsewhere) cannot overlap; writers are serialised by `&mut self`.
        unsafe { copy_short(bytes.as_ptr(), dst, bytes.len()) };
        self.len += bytes.len();
        dst
    }

    /// [`push_within`](Arena::push_within) of at most 32 bytes, without a call.
    ///
    /// # Panics
    /// If `bytes` is longer than 32 bytes or the open chunk has less room.
    #[inline(always)]
    pub(crate) fn push_short_within(&mut self, bytes: &[u8]) {
        let n = bytes.len();
        assert!(n <= 32 && n <= self.room(), "arena chunk overrun");
        let (src, dst) = (bytes.as_ptr(), self.tip().cast_mut());
        // SAFETY: `dst..dst + n` lies in the open chunk's unused tail (checked above),
        // which no pointer handed out so far covers and `bytes` cannot overlap; every
        // access below lies in `[0, n)` of its side.
        unsafe {
            if n >= 16 {
                let (a, b) = (src.cast::<u128>().read_unaligned(), src.add(n - 16).cast::<u128>().read_unaligned());
                dst.cast::<u128>().write_unaligned(a);
                dst.add(n - 16).cast::<u128>().write_unaligned(b);
            } else if n >= 8 {
                let (a, b) = (src.cast::<u64>().read_unaligned(), src.add(n - 8).cast::<u64>().read_unaligned());
                dst.cast::<u64>().write_unaligned(a);
                dst.add(n - 8).cast::<u64>().write_unaligned(b);
            } else if n >= 4 {
                let (a, b) = (src.cast::<u32>().read_unaligned(), src.add(n - 4).cast::<u32>().read_unaligned());
                dst.cast::<u32>().write_unaligned(a);
                dst.add(n - 4).cast::<u32>().write_unaligned(b);
            } else if n > 0 {
                *dst = *src;
                *dst.add(n / 2) = *src.add(n / 2);
                *dst.add(n - 1) = *src.add(n - 1);
            }
        }
        self.len += n;
    }

    /// Copies `bytes` into a chunk (or, when long, a block of its own) and returns where
    /// they now lie. An empty slice takes no space (the pointer is dangling). On failure
    /// nothing changes.
    pub(crate) fn try_copy(&mut self, bytes: &[u8]) -> Result<*const u8, AllocFailed> {
        if bytes.is_empty() {
            return Ok(NonNull::dangling().as_ptr());
        }
        if bytes.len() > self.huge() {
            let dst = self.try_open(bytes.len())?.as_ptr();
            // SAFETY: `dst` is a fresh block of `bytes.len()` bytes, which `bytes`
            // cannot overlap.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len()) };
            return Ok(dst);
        }
        self.try_make_room(bytes.len())?;
        Ok(self.push_within(bytes))
    }

    /// Gives back the open chunk's unused tail. The chunk may move: then says where.
    /// (Under loom the chunk is kept as it is.)
    pub(crate) fn shrink_open(&mut self) -> Option<Moved> {
        if self.cap == self.len || self.len == 0 || cfg!(loom) {
            return None;
        }
        self.shrink_open_now()
    }

    #[cfg(not(loom))]
    fn shrink_open_now(&mut self) -> Option<Moved> {
        let k = self.blocks.iter().rposition(|b| b.ptr == self.cur).expect("the open chunk is a block");
        let old = self.cur;
        let old_layout = layout(self.cap).ok()?;
        // SAFETY: `old` was allocated with `old_layout` (by `try_open`, or resized here
        // before with the layout recorded in its block); `len > 0`.
        let new = NonNull::new(unsafe { storage_alloc::realloc(old.as_ptr(), old_layout, self.len) })?;
        self.bytes -= self.cap - self.len;
        self.blocks[k] = Block { ptr: new, cap: self.len };
        self.cur = new;
        self.cap = self.len;
        (new != old).then_some(Moved { old: old.as_ptr(), new: new.as_ptr(), len: self.len })
    }

    #[cfg(loom)]
    fn shrink_open_now(&mut self) -> Option<Moved> {
        None
    }

    /// Releases the block directory's spare capacity.
    pub(crate) fn shrink_directory(&mut self) {
        self.blocks.shrink_to_fit();
    }

    /// Bytes allocated in blocks.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Bytes of the block directory.
    pub(crate) fn directory_bytes(&self) -> usize {
        self.blocks.capacity() * std::mem::size_of::<Block>()
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for b in &self.blocks {
            // SAFETY: allocated by `try_open` (or resized by `shrink_open`) with this
            // size and alignment 1, a layout that was valid then (checked by `layout`,
            // or no larger than such a one), and freed only here, once.
            unsafe { dealloc(b.ptr.as_ptr(), Layout::from_size_align_unchecked(b.cap, 1)) };
        }
    }
}

/// Copies `n` bytes from `src` to `dst` with word-sized overlapping moves when short.
///
/// # Safety
/// `src` valid for reading and `dst` for writing `n` bytes; no overlap.
#[inline(always)]
unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: every access lies in `[0, n)` of its side (the caller's promise).
    unsafe {
        let r64 = |at: usize| src.add(at).cast::<u64>().read_unaligned();
        let w64 = |at: usize, v: u64| dst.add(at).cast::<u64>().write_unaligned(v);
        if (8..=16).contains(&n) {
            let (a, b) = (r64(0), r64(n - 8));
            w64(0, a);
            w64(n - 8, b);
        } else if (4..8).contains(&n) {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else if (17..=32).contains(&n) {
            let (a, b, c, d) = (r64(0), r64(8), r64(n - 16), r64(n - 8));
            w64(0, a);
            w64(8, b);
            w64(n - 16, c);
            w64(n - 8, d);
        } else if (1..4).contains(&n) {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        } else {
            std::ptr::copy_nonoverlapping(src, dst, n);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const SIZES: ChunkSizes = ChunkSizes { first: 64, max: 256 };

    /// The bytes at `p`, `len` long, as the arena keeps them.
    fn read(p: *const u8, len: usize) -> Vec<u8> {
        // SAFETY: the tests only read back what the arena wrote, while it lives.
        unsafe { std::slice::from_raw_parts(p, len) }.to_vec()
    }

    #[test]
    fn copies_stay_put_across_chunks_and_huge_blocks() {
        let mut arena = Arena::new(SIZES);
        let texts: Vec<Vec<u8>> = (0..500).map(|i| vec![(i % 251) as u8; (i * 7) % 300]).collect();
        let at: Vec<*const u8> = texts.iter().map(|t| arena.try_copy(t).unwrap()).collect();
        for (t, &p) in texts.iter().zip(&at) {
            assert_eq!(read(p, t.len()), *t);
        }
        let copied: usize = texts.iter().map(Vec::len).sum();
        assert!(arena.bytes() >= copied);
        // Chunks never exceed the maximum unless a request was huge.
        assert!(arena.blocks.iter().all(|b| b.cap <= SIZES.max || b.cap > arena.huge()));
    }

    #[test]
    fn huge_requests_leave_the_open_chunk_alone() {
        let mut arena = Arena::new(SIZES);
        arena.try_copy(b"small").unwrap();
        let (tip, room) = (arena.tip(), arena.room());
        let big = vec![7u8; arena.huge() + 1];
        assert_eq!(arena.cost(big.len()), big.len() + arena.open_cost(0) - arena.next_size(0));
        let p = arena.try_copy(&big).unwrap();
        assert_eq!((arena.tip(), arena.room()), (tip, room));
        assert_eq!(read(p, big.len()), big);
    }

    #[test]
    fn cost_is_zero_exactly_when_the_copy_allocates_nothing() {
        let mut arena = Arena::new(SIZES);
        for len in [0, 1, 10, 40, 63, 64, 65, 100, 200, 300] {
            let (cost, before) = (arena.cost(len), arena.bytes());
            arena.try_copy(&vec![1; len]).unwrap();
            assert_eq!(cost == 0, arena.bytes() == before, "len {len}");
            assert!(arena.bytes() - before <= cost, "len {len}");
        }
    }

    #[test]
    fn shrinking_the_open_chunk_reports_where_it_went() {
        let mut arena = Arena::new(SIZES);
        let p = arena.try_copy(b"abc").unwrap();
        let moved = arena.shrink_open();
        let p = moved.map_or(p, |m| m.follow(p));
        assert_eq!(read(p, 3), b"abc");
        assert_eq!(arena.room(), 0);
        assert_eq!(arena.bytes(), 3);
        // The next copy opens a new chunk.
        let q = arena.try_copy(b"de").unwrap();
        assert_eq!((read(p, 3), read(q, 2)), (b"abc".to_vec(), b"de".to_vec()));
    }

    #[test]
    fn short_copies_write_exactly_their_bytes() {
        for n in 0..40usize {
            let src: Vec<u8> = (1..=n as u8).collect();
            let mut dst = vec![0u8; n + 2];
            // SAFETY: `src` has `n` bytes, `dst` `n + 2`; distinct vectors.
            unsafe { copy_short(src.as_ptr(), dst.as_mut_ptr().add(1), n) };
            assert_eq!(dst[0], 0);
            assert_eq!(&dst[1..=n], &src[..]);
            assert_eq!(dst[n + 1], 0);
        }
    }
}
