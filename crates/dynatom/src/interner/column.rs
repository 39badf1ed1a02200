//! The `SyncInterner`'s symbol → text column: segments of doubling size, each
//! allocated once and never moved, so readers index it without a lock.

use super::arena::AllocFailed;
use super::segments::Segments;
use crate::sync::{AtomicPtr, AtomicUsize, Ordering};

/// log2 of the first segment's length.
#[cfg(not(loom))]
const FIRST_BITS: u32 = 10;
/// Tiny segments under loom, so models cross segment boundaries (and race to
/// allocate one) with a handful of strings.
#[cfg(loom)]
const FIRST_BITS: u32 = 1;
/// Enough segments for every `u32` symbol index: segment `k` starts at index
/// `2^(FIRST_BITS + k) - 2^FIRST_BITS`, and the last index `2^32 - 2` needs
/// `k = 32 - FIRST_BITS`.
const SEGMENTS: usize = 33 - FIRST_BITS as usize;

/// One published string: `ptr` is null until the entry is written.
struct Entry {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
}

impl Entry {
    fn empty() -> Entry {
        Entry { ptr: AtomicPtr::new(std::ptr::null_mut()), len: AtomicUsize::new(0) }
    }
}

pub(crate) struct Column {
    segments: Segments<Entry, FIRST_BITS, SEGMENTS>,
}

/// `(segment, offset)` of index `i`.
#[inline]
fn locate(i: usize) -> (usize, usize) {
    let j = i + (1 << FIRST_BITS);
    let seg = (usize::BITS - 1 - j.leading_zeros() - FIRST_BITS) as usize;
    (seg, j - (1 << (seg as u32 + FIRST_BITS)))
}

impl Column {
    pub(crate) fn new() -> Column {
        Column { segments: Segments::new() }
    }

    /// Bytes the segment holding index `i` costs if it is not allocated yet.
    pub(crate) fn cost_of(&self, i: usize) -> usize {
        let (seg, _) = locate(i);
        if self.segments.get(seg).is_some() {
            0
        } else {
            Segments::<Entry, FIRST_BITS, SEGMENTS>::len(seg) * std::mem::size_of::<Entry>()
        }
    }

    /// Allocates the segment holding entry `i`, if it is not there yet. Inserts in
    /// different shards hold different locks, so two of them may race to allocate the
    /// same segment; `try_get_or_init` keeps one.
    pub(crate) fn try_ensure(&self, i: usize) -> Result<(), AllocFailed> {
        let (seg, _) = locate(i);
        self.segments.try_get_or_init(seg, Entry::empty, |_| {}).map(|_| ())
    }

    /// Publishes entry `i` (once), whose segment [`try_ensure`](Self::try_ensure)
    /// allocated: `ptr[..len]` must stay valid UTF-8 for as long as the column's owner
    /// lives.
    ///
    /// # Panics
    /// If entry `i`'s segment is not allocated.
    pub(crate) fn publish(&self, i: usize, ptr: *const u8, len: usize) {
        let (seg, off) = locate(i);
        let segment = self.segments.get(seg).expect("the column segment was allocated before the symbol was taken");
        let e = &segment[off];
        // Relaxed: ordered before readers' loads by the Release store of `ptr` below.
        e.len.store(len, Ordering::Relaxed);
        // Release: a reader that sees the pointer also sees `len` and the bytes.
        e.ptr.store(ptr.cast_mut(), Ordering::Release);
    }

    /// Entry `i`, if published.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<(*const u8, usize)> {
        let (seg, off) = locate(i);
        let e = self.segments.get(seg)?.get(off)?;
        // Acquire: pairs with `publish`'s Release store, so `len` and the bytes the
        // pointer leads to are visible.
        let ptr = e.ptr.load(Ordering::Acquire);
        if ptr.is_null() {
            None
        } else {
            // Relaxed: written before the Release store of `ptr` we acquired.
            Some((ptr.cast_const(), e.len.load(Ordering::Relaxed)))
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.segments.bytes()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    #[cfg(not(loom))]
    fn locate_covers_u32() {
        assert_eq!(super::locate(0), (0, 0));
        assert_eq!(super::locate(1023), (0, 1023));
        assert_eq!(super::locate(1024), (1, 0));
        assert_eq!(super::locate(3071), (1, 2047));
        assert_eq!(super::locate(3072), (2, 0));
        assert!(super::locate(u32::MAX as usize - 1).0 < super::SEGMENTS);
    }

    #[test]
    fn segments_cover_u32() {
        assert_eq!(super::locate(u32::MAX as usize - 1).0, super::SEGMENTS - 1);
    }
}
