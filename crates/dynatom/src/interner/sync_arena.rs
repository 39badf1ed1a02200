//! Per-shard character arena for the `SyncInterner`: chunks allocated once and
//! never moved or grown, written only under the shard's lock, read through raw
//! pointers by any thread once published.

use std::ptr::NonNull;

const FIRST_CHUNK: usize = 4096;
const MAX_CHUNK: usize = 64 * 1024;
/// Strings longer than this get a block of their own.
const HUGE: usize = MAX_CHUNK / 4;

/// An owned `Box<[u8]>`, held as a raw pointer so that writing new bytes never
/// asserts unique access over bytes other threads are reading.
struct RawChunk {
    ptr: NonNull<u8>,
    cap: usize,
}

// SAFETY: a RawChunk owns its allocation exactly like the `Box<[u8]>` it came from
// (freed only in Drop); bytes are written only through `&mut Arena` (under the
// shard lock), so moving the owner to another thread is sound.
unsafe impl Send for RawChunk {}

impl RawChunk {
    fn new(cap: usize) -> RawChunk {
        let boxed: Box<[u8]> = vec![0u8; cap].into_boxed_slice();
        let raw: *mut [u8] = Box::into_raw(boxed);
        RawChunk { ptr: NonNull::new(raw.cast::<u8>()).expect("Box pointers are non-null"), cap }
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
        let raw = std::ptr::slice_from_raw_parts_mut(self.ptr.as_ptr(), self.cap);
        // SAFETY: `raw` is exactly the pointer and length `Box::into_raw` returned
        // in `new`, and it is freed only here, once.
        drop(unsafe { Box::from_raw(raw) });
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
