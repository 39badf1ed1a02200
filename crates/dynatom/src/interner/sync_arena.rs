//! Per-shard character arena for the `SyncInterner`: chunks allocated once and
//! never moved or grown, written only under the shard's lock, read through raw
//! pointers by any thread once published.

use std::alloc::Layout;
use std::ptr::NonNull;

use crate::sync::raw_alloc;

#[cfg(not(loom))]
const FIRST_CHUNK: usize = 4096;
#[cfg(not(loom))]
const MAX_CHUNK: usize = 64 * 1024;
/// Tiny chunks under loom, so models open new chunks and huge blocks with short
/// strings.
#[cfg(loom)]
const FIRST_CHUNK: usize = 8;
#[cfg(loom)]
const MAX_CHUNK: usize = 32;
/// Strings longer than this get a block of their own.
const HUGE: usize = MAX_CHUNK / 4;

/// An owned byte allocation of `cap > 0` bytes (from [`raw_alloc`], so loom tracks
/// it), held as a raw pointer so that writing new bytes never asserts unique access
/// over bytes other threads are reading.
struct RawChunk {
    ptr: NonNull<u8>,
    cap: usize,
}

// SAFETY: a RawChunk owns its allocation like a `Box<[u8]>` (freed only in Drop);
// bytes are written only through `&mut Arena` (under the shard lock), so moving the
// owner to another thread is sound.
unsafe impl Send for RawChunk {}

impl RawChunk {
    fn layout(cap: usize) -> Layout {
        Layout::array::<u8>(cap).expect("chunk size overflows the address space")
    }

    fn new(cap: usize) -> RawChunk {
        assert!(cap > 0, "empty arena chunk");
        let layout = RawChunk::layout(cap);
        // SAFETY: `layout` has non-zero size (`cap > 0`).
        let raw = unsafe { raw_alloc::alloc(layout) };
        match NonNull::new(raw) {
            Some(ptr) => RawChunk { ptr, cap },
            None => std::alloc::handle_alloc_error(layout),
        }
    }
}

/// Copies `s` to `chunk[at..at + s.len()]`, which must be unused and in bounds.
fn write(chunk: &RawChunk, at: usize, s: &str) -> *const u8 {
    assert!(at + s.len() <= chunk.cap, "arena write out of bounds");
    // SAFETY: the range is inside the allocation (asserted above). Bytes past a
    // chunk's used length were never handed out, so no reader references them, and
    // writers are serialised by `&mut Arena` (the shard lock). The source is a
    // `&str`, which cannot overlap bytes that were never handed out.
    unsafe {
        let dst = chunk.ptr.as_ptr().add(at);
        std::ptr::copy_nonoverlapping(s.as_ptr(), dst, s.len());
        dst.cast_const()
    }
}

impl Drop for RawChunk {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `raw_alloc::alloc` with exactly this layout in
        // `new`, and it is freed only here, once.
        unsafe { raw_alloc::dealloc(self.ptr.as_ptr(), RawChunk::layout(self.cap)) };
    }
}

pub(crate) struct Arena {
    chunks: Vec<RawChunk>,
    /// Index of the chunk taking small strings, and its used length.
    cur: Option<(usize, usize)>,
    next_chunk: usize,
    chars: usize,
    capacity: usize,
}

impl Arena {
    pub(crate) fn new() -> Arena {
        Arena { chunks: Vec::new(), cur: None, next_chunk: FIRST_CHUNK, chars: 0, capacity: 0 }
    }

    /// Bytes `copy(s)` with `s.len() == len` would newly allocate.
    pub(crate) fn cost(&self, len: usize) -> usize {
        if len == 0 || self.fits(len) {
            0
        } else if len > HUGE {
            len
        } else {
            self.next_chunk.max(len)
        }
    }

    fn fits(&self, len: usize) -> bool {
        self.cur.is_some_and(|(c, used)| self.chunks[c].cap - used >= len)
    }

    /// Copies `s` into the arena and returns where it now lives. The bytes stay
    /// valid and unchanged until the arena is dropped.
    pub(crate) fn copy(&mut self, s: &str) -> *const u8 {
        let len = s.len();
        if len == 0 {
            return NonNull::<u8>::dangling().as_ptr();
        }
        self.chars += len;
        if len > HUGE {
            // A block of its own; the open chunk keeps taking small strings.
            let chunk = RawChunk::new(len);
            self.capacity += len;
            let dst = write(&chunk, 0, s);
            self.chunks.push(chunk);
            return dst;
        }
        if !self.fits(len) {
            let cap = self.next_chunk.max(len);
            self.chunks.push(RawChunk::new(cap));
            self.capacity += cap;
            self.next_chunk = (self.next_chunk * 2).min(MAX_CHUNK);
            self.cur = Some((self.chunks.len() - 1, 0));
        }
        let (c, used) = self.cur.expect("a chunk with room was just ensured");
        let dst = write(&self.chunks[c], used, s);
        self.cur = Some((c, used + len));
        dst
    }

    pub(crate) fn chars(&self) -> usize {
        self.chars
    }

    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    pub(crate) fn directory_bytes(&self) -> usize {
        self.chunks.capacity() * std::mem::size_of::<RawChunk>()
    }
}
