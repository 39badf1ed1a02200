//! The slot word's encoding: the tag bit and the tombstone, and how an entry pointer, 15
//! bits of its hash and whether a reader must pin to follow it are packed into one word
//! and read back (see "The slot word" in the module docs of [`super`]). Apart so that the
//! bit layout is read in one place.

/// Bit 2 of a slot word: the entry carries a hash tag in the top bits.
pub(super) const TAGGED: usize = 0b100;
/// A removed entry's slot.
pub(super) const TOMBSTONE: usize = TAGGED;

/// Whether a reader may follow an entry with no pin: its memory stays an entry's (or
/// zeros) once freed, while the table lives. See [`super::Slots::find_unpinned`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Reach {
    /// Type-stable memory: a slab block of the table, or a static entry.
    Unpinned,
    /// Memory the allocator may reuse for anything: only a pinned reader follows it.
    Pinned,
}

#[cfg(target_pointer_width = "64")]
pub(super) mod tag {
    use std::ptr::NonNull;

    use super::{Reach, TAGGED};

    /// Bit 48: the entry needs a pinned reader.
    const PINNED: usize = 1 << 48;
    const SHIFT: u32 = 49;
    const ADDRESS: usize = PINNED - 1;
    const TAG: usize = !((1 << SHIFT) - 1);

    /// The tag bits a slot keeps for `hash`, in place.
    #[inline]
    pub(in super::super) fn of(hash: u64) -> usize {
        ((hash >> SHIFT) as usize) << SHIFT
    }

    /// The slot word for `entry`: tagged if its top bits are free.
    #[inline]
    pub(in super::super) fn pack(entry: NonNull<u8>, hash: u64, reach: Reach) -> *mut u8 {
        let ptr = entry.as_ptr();
        let pinned = if reach == Reach::Pinned { PINNED } else { 0 };
        if ptr.addr() >> 48 == 0 { ptr.map_addr(|addr| addr | TAGGED | pinned | of(hash)) } else { ptr }
    }

    /// Whether `word` is tagged with `wanted` (as made by [`of`]), in one mask and compare.
    /// A tombstone (tagged, tag 0) passes when `wanted` is 0: the caller checks for it.
    #[inline]
    pub(in super::super) fn tagged_with(word: usize, wanted: usize) -> bool {
        word & (TAG | TAGGED) == wanted | TAGGED
    }

    /// Whether only a pinned reader may follow the entry of `word` (not empty, not a
    /// tombstone): it was filed as [`Reach::Pinned`], or untagged.
    #[inline]
    pub(in super::super) fn needs_pin(word: usize) -> bool {
        word & (PINNED | TAGGED) != TAGGED
    }

    /// The entry of a non-empty, non-tombstone word.
    #[inline]
    pub(in super::super) fn unpack(word: *mut u8) -> *mut u8 {
        if word.addr() & TAGGED != 0 { word.map_addr(|addr| addr & ADDRESS & !TAGGED) } else { word }
    }
}

/// Without 64-bit pointers there are no spare top bits: every entry is untagged.
#[cfg(not(target_pointer_width = "64"))]
pub(super) mod tag {
    use std::ptr::NonNull;

    #[inline]
    pub(in super::super) fn of(_hash: u64) -> usize {
        0
    }

    #[inline]
    pub(in super::super) fn pack(entry: NonNull<u8>, _hash: u64, _reach: super::Reach) -> *mut u8 {
        entry.as_ptr()
    }

    #[inline]
    pub(in super::super) fn tagged_with(_word: usize, _wanted: usize) -> bool {
        false
    }

    #[inline]
    pub(in super::super) fn unpack(word: *mut u8) -> *mut u8 {
        word
    }

    #[inline]
    pub(in super::super) fn needs_pin(_word: usize) -> bool {
        true
    }
}
