//! The `SyncInterner`'s symbol → text column: segments of doubling size, each
//! allocated once and never moved, so readers index it without a lock.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// log2 of the first segment's length.
const FIRST_BITS: u32 = 10;
/// Enough segments for every `u32` symbol index.
const SEGMENTS: usize = 23;

/// One published string: `ptr` is null until the entry is written.
#[derive(Default)]
struct Entry {
    ptr: AtomicPtr<u8>,
    len: AtomicUsize,
}

pub(crate) struct Column {
    segments: [OnceLock<Box<[Entry]>>; SEGMENTS],
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
        Column { segments: std::array::from_fn(|_| OnceLock::new()) }
    }

    /// Bytes the segment holding index `i` costs if it is not allocated yet.
    pub(crate) fn cost_of(&self, i: usize) -> usize {
        let (seg, _) = locate(i);
        if self.segments[seg].get().is_some() {
            0
        } else {
            (1usize << (seg as u32 + FIRST_BITS)) * std::mem::size_of::<Entry>()
        }
    }

    /// Publishes entry `i` (once): `ptr[..len]` must stay valid UTF-8 for as long
    /// as the column's owner lives.
    pub(crate) fn publish(&self, i: usize, ptr: *const u8, len: usize) {
        let (seg, off) = locate(i);
        let segment = self.segments[seg]
            .get_or_init(|| (0..1usize << (seg as u32 + FIRST_BITS)).map(|_| Entry::default()).collect());
        let e = &segment[off];
        e.len.store(len, Ordering::Relaxed);
        // Release: a reader that sees the pointer also sees `len` and the bytes.
        e.ptr.store(ptr.cast_mut(), Ordering::Release);
    }

    /// Entry `i`, if published.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> Option<(*const u8, usize)> {
        let (seg, off) = locate(i);
        let e = self.segments.get(seg)?.get()?.get(off)?;
        let ptr = e.ptr.load(Ordering::Acquire);
        if ptr.is_null() {
            None
        } else {
            Some((ptr.cast_const(), e.len.load(Ordering::Relaxed)))
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.segments.iter().filter_map(|s| s.get()).map(|s| s.len() * std::mem::size_of::<Entry>()).sum()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn locate_covers_u32() {
        assert_eq!(super::locate(0), (0, 0));
        assert_eq!(super::locate(1023), (0, 1023));
        assert_eq!(super::locate(1024), (1, 0));
        assert_eq!(super::locate(3071), (1, 2047));
        assert_eq!(super::locate(3072), (2, 0));
        assert!(super::locate(u32::MAX as usize - 1).0 < super::SEGMENTS);
    }
}
