//! The 16-byte tagged representation behind [`ByteStr`](crate::ByteStr) (and so
//! [`Str`](crate::Str), which wraps it). It holds any bytes; whether they are UTF-8 is
//! the business of [`crate::utf8`].
//!
//! # Memory layout
//!
//! Two words; the two low bits of the first word say which of four forms it is.
//!
//! ```text
//!            byte 0            bytes 1..8              bytes 8..16
//! inline   +----------------+----------------------+------------------------+
//!          | len<<2 | 0b01  | bytes[0..7]          | bytes[7..15]           |
//!          +----------------+----------------------+------------------------+
//!
//!            word 0 (8 bytes)                        word 1 (8 bytes)
//! heap     +---------------------------------------+------------------------+
//!          | block pointer (align 8: low bits 00)  | offset:u32 << 32 | len |
//!          +---------------------------------------+------------------------+
//! static   +---------------------------------------+------------------------+
//!          | len << 2 | 0b10                       | pointer to the bytes   |
//!          +---------------------------------------+------------------------+
//! owned    +---------------------------------------+------------------------+
//!          | control block pointer | 0b11          | offset:u32 << 32 | len |
//!          +---------------------------------------+------------------------+
//! ```
//!
//! The owned form is the heap form for bytes that live in memory someone else owns
//! (`ByteStr::from_owner`): word 0 points at a control block ([`super::owned`]: a count,
//! the owner, and the pointer and length of its bytes), tagged `0b11`, and word 1 is a
//! range of those bytes packed as the heap form packs its own.
//!
//! Word 0 is never zero (the inline, static and owned tags are non-zero, a block pointer
//! is non-null), which gives `Option<ByteStr>` its niche. The layout assumes a 64-bit
//! little-endian target: the inline length must be the first byte in memory.

use std::num::NonZeroUsize;
use std::ptr::NonNull;

use super::heap::{Block, UninitBlock};
use super::owned::{Owned, OwnedRef};
use crate::error::{Fallibility, StrError};

#[cfg(not(all(target_pointer_width = "64", target_endian = "little")))]
compile_error!("dynatom's handle layouts assume a 64-bit little-endian target");

const TAG_MASK: usize = 0b11;
const TAG_HEAP: usize = 0b00;
const TAG_INLINE: usize = 0b01;
const TAG_STATIC: usize = 0b10;
const TAG_OWNED: usize = 0b11;
const LEN_SHIFT: u32 = 2;

/// Strings up to this many bytes are stored inside the handle.
pub(crate) const INLINE_CAPACITY: usize = 15;

#[repr(C)]
pub(crate) struct StrWord {
    word0: NonNull<u8>,
    word1: *const u8,
}

const _: () = {
    assert!(std::mem::size_of::<StrWord>() == 16);
    assert!(std::mem::size_of::<Option<StrWord>>() == 16);
};

// SAFETY: the inline and static forms are plain data (static bytes are `&'static [u8]`,
// which is Send + Sync); the heap form holds a `Block` and the owned form an `Owned`,
// both Send + Sync.
unsafe impl Send for StrWord {}
// SAFETY: as for `Send`.
unsafe impl Sync for StrWord {}

/// The four forms, borrowed.
pub(crate) enum StrForm<'a> {
    Inline(&'a [u8]),
    Static(&'static [u8]),
    Heap { block: &'a Block, offset: usize, len: usize },
    Owned { block: OwnedRef<'a>, offset: usize, len: usize },
}

impl StrWord {
    /// The empty string (static form: it needs no bytes at all).
    #[inline]
    pub(crate) const fn empty() -> StrWord {
        StrWord::from_static(b"")
    }

    #[inline]
    pub(crate) const fn from_static(bytes: &'static [u8]) -> StrWord {
        let tagged = (bytes.len() << LEN_SHIFT) | TAG_STATIC;
        let Some(nonzero) = NonZeroUsize::new(tagged) else {
            panic!("a static tag is never zero");
        };
        StrWord { word0: NonNull::without_provenance(nonzero), word1: bytes.as_ptr() }
    }

    /// Copies `bytes` into the handle if they fit.
    #[inline]
    pub(crate) fn inline(bytes: &[u8]) -> Option<StrWord> {
        if bytes.len() > INLINE_CAPACITY {
            return None;
        }
        let mut raw = [0u8; 16];
        let len = bytes.len();
        raw[0] = ((len << LEN_SHIFT) | TAG_INLINE) as u8;
        // Two overlapping fixed-size moves instead of a call to `memcpy` for a variable
        // length: a parser that takes short parts pays this on every part.
        if len >= 8 {
            raw[1..9].copy_from_slice(&bytes[..8]);
            raw[len - 7..=len].copy_from_slice(&bytes[len - 8..]);
        } else if len >= 4 {
            raw[1..5].copy_from_slice(&bytes[..4]);
            raw[len - 3..=len].copy_from_slice(&bytes[len - 4..]);
        } else if len > 0 {
            raw[1] = bytes[0];
            raw[1 + len / 2] = bytes[len / 2];
            raw[len] = bytes[len - 1];
        }
        // SAFETY: `StrWord` is 16 bytes of `repr(C)` pointers; the first byte is non-zero
        // (it carries TAG_INLINE), so `word0` is a valid `NonNull`, and pointers may hold
        // any bit pattern that is never dereferenced (inline words never are).
        Some(unsafe { std::mem::transmute::<[u8; 16], StrWord>(raw) })
    }

    /// The inline word of `len` bytes (at most 7) held little-endian in `packed`, the way
    /// an inline atom's word holds them: a shift and an or where [`StrWord::inline`]
    /// copies bytes through a buffer.
    #[inline]
    pub(crate) fn inline_packed(len: usize, packed: u64) -> StrWord {
        debug_assert!(len <= 7 && (len == 0 || packed >> (len * 8) == 0));
        let first = ((packed << 8) as usize) | (len << LEN_SHIFT) | TAG_INLINE;
        let word0 = NonNull::new(std::ptr::without_provenance_mut(first)).expect("the inline tag is non-zero");
        StrWord { word0, word1: std::ptr::null() }
    }

    /// A view of the whole of `block`, taking over the block's count.
    #[inline]
    pub(crate) fn heap_whole(block: Block) -> StrWord {
        let len = block.len();
        StrWord { word0: block.into_raw().cast(), word1: std::ptr::without_provenance(len) }
    }

    /// A view of `len` bytes at `offset` in `block`, taking over the block's count.
    ///
    /// # Panics
    /// If the range lies outside the block.
    #[inline]
    pub(crate) fn heap(block: Block, offset: usize, len: usize) -> StrWord {
        let end = offset.checked_add(len).expect("range overflow");
        assert!(end <= block.len(), "range outside the block");
        let packed = (offset << 32) | len;
        StrWord { word0: block.into_raw().cast(), word1: std::ptr::without_provenance(packed) }
    }

    /// A view of the whole of an owner's bytes, taking over the block's count.
    ///
    /// # Panics
    /// If the bytes are longer than [`MAX_LEN`](super::heap::MAX_LEN) (the caller checks).
    #[inline]
    pub(crate) fn owned_whole(block: Owned) -> StrWord {
        let len = block.len();
        StrWord::owned(block, 0, len)
    }

    /// A view of `len` bytes at `offset` of an owner's bytes, taking over the block's
    /// count.
    ///
    /// # Panics
    /// If the range lies outside the bytes, or past [`MAX_LEN`](super::heap::MAX_LEN).
    #[inline]
    pub(crate) fn owned(block: Owned, offset: usize, len: usize) -> StrWord {
        let end = offset.checked_add(len).expect("range overflow");
        assert!(end <= block.len() && end <= super::heap::MAX_LEN, "range outside the owner's bytes");
        let packed = (offset << 32) | len;
        let word0 = block.into_raw().cast::<u8>().map_addr(|addr| addr | TAG_OWNED);
        StrWord { word0, word1: std::ptr::without_provenance(packed) }
    }

    #[inline]
    fn tag(&self) -> usize {
        self.word0.as_ptr().addr() & TAG_MASK
    }

    #[inline]
    pub(crate) fn form(&self) -> StrForm<'_> {
        match self.tag() {
            TAG_INLINE => {
                // SAFETY: in the inline form the struct's 16 bytes are plain data; reading
                // them as bytes is valid and the borrow is tied to `self`.
                let raw = unsafe { &*(self as *const StrWord).cast::<[u8; 16]>() };
                let len = (raw[0] >> LEN_SHIFT) as usize;
                StrForm::Inline(&raw[1..=len])
            }
            TAG_STATIC => {
                let len = self.word0.as_ptr().addr() >> LEN_SHIFT;
                // SAFETY: the static form was built from a `&'static [u8]` of this length.
                StrForm::Static(unsafe { std::slice::from_raw_parts(self.word1, len) })
            }
            TAG_OWNED => {
                let packed = self.word1.addr();
                // SAFETY: the owned form's word 0 is a control block pointer owning one
                // count, which `self` keeps for the borrow's lifetime.
                let block = unsafe { Owned::borrow_raw(self.owned_ptr()) };
                StrForm::Owned { block, offset: packed >> 32, len: packed & 0xFFFF_FFFF }
            }
            _ => {
                let packed = self.word1.addr();
                StrForm::Heap { block: self.block(), offset: packed >> 32, len: packed & 0xFFFF_FFFF }
            }
        }
    }

    /// The control block pointer of an owned-form word, untagged.
    #[inline]
    fn owned_ptr(&self) -> NonNull<super::owned::Control> {
        debug_assert_eq!(self.tag(), TAG_OWNED);
        let untagged = self.word0.as_ptr().map_addr(|addr| addr & !TAG_MASK);
        // SAFETY: an owned-form word 0 is a tagged control block pointer, non-null once
        // untagged (blocks are allocations).
        unsafe { NonNull::new_unchecked(untagged) }.cast()
    }

    /// The block of a heap-form word.
    #[inline]
    fn block(&self) -> &Block {
        debug_assert_eq!(self.tag(), TAG_HEAP);
        // SAFETY: `Block` is a transparent wrapper of a block pointer, and the heap form's
        // word 0 is exactly such a pointer owning one count.
        unsafe { &*(&self.word0 as *const NonNull<u8>).cast::<Block>() }
    }

    #[inline]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        match self.form() {
            StrForm::Inline(bytes) => bytes,
            StrForm::Static(bytes) => bytes,
            StrForm::Heap { block, offset, len } => &block.bytes()[offset..offset + len],
            StrForm::Owned { block, offset, len } => &block.bytes()[offset..offset + len],
        }
    }

    /// Both words, for "same buffer and same range" tests.
    #[inline]
    pub(crate) fn bits(&self) -> (usize, usize) {
        (self.word0.as_ptr().addr(), self.word1.addr())
    }
}

impl StrWord {
    /// Gives the handle up as two plain words (its count, for the heap form, goes with
    /// them). The block pointer's provenance is exposed so [`StrWord::from_raw_words`]
    /// can take it back.
    #[inline]
    pub(crate) fn into_raw_words(self) -> [usize; 2] {
        let words = [self.word0.as_ptr().expose_provenance(), self.word1.expose_provenance()];
        std::mem::forget(self);
        words
    }

    /// # Safety
    /// `words` came from [`StrWord::into_raw_words`], and the count they stand for (heap
    /// form) is handed to the result exactly once.
    #[inline]
    pub(crate) unsafe fn from_raw_words(words: [usize; 2]) -> StrWord {
        let word0 = NonNull::new(std::ptr::with_exposed_provenance_mut::<u8>(words[0]));
        // SAFETY: the caller guarantees the words came from `into_raw_words`, whose word 0
        // is never zero.
        let word0 = unsafe { word0.unwrap_unchecked() };
        StrWord { word0, word1: std::ptr::with_exposed_provenance(words[1]) }
    }

    /// A cheap test that two words could be a handle: a valid tag, a non-zero first word,
    /// an 8-aligned block pointer, an inline length of at most 15, a non-null static
    /// pointer, a heap range that does not overflow; for the owned form, a non-null
    /// 8-aligned control block pointer and such a range. It cannot tell a live block from
    /// a freed or forged one.
    #[inline]
    pub(crate) fn raw_words_plausible(words: [usize; 2]) -> bool {
        let [word0, word1] = words;
        if word0 == 0 {
            return false;
        }
        match word0 & TAG_MASK {
            TAG_HEAP => {
                let (offset, len) = (word1 >> 32, word1 & 0xFFFF_FFFF);
                word0 & 0b111 == 0 && offset.checked_add(len).is_some_and(|end| end <= super::heap::MAX_LEN)
            }
            TAG_INLINE => (word0 & 0xFF) >> LEN_SHIFT <= INLINE_CAPACITY,
            TAG_STATIC => word1 != 0 || word0 >> LEN_SHIFT == 0,
            _ => {
                let (offset, len) = (word1 >> 32, word1 & 0xFFFF_FFFF);
                word0 & !TAG_MASK != 0
                    && word0 & 0b111 == TAG_OWNED
                    && offset.checked_add(len).is_some_and(|end| end <= super::heap::MAX_LEN)
            }
        }
    }
}

/// Where the bytes of a string of known length go while they are being copied (the
/// builder's `concat`, `join` and `Pieces::to_text`): one allocation sized for it, none at
/// all for inline results.
pub(crate) enum ExactSink {
    /// Short results are gathered on the stack and stored inside the handle.
    Inline {
        buf: [u8; INLINE_CAPACITY],
        len: usize,
    },
    Heap(UninitBlock),
}

impl ExactSink {
    /// Room for `total` bytes, allocated once.
    pub(crate) fn new(total: usize, fallibility: Fallibility) -> Result<ExactSink, StrError> {
        if total <= INLINE_CAPACITY {
            return Ok(ExactSink::Inline { buf: [0; INLINE_CAPACITY], len: 0 });
        }
        UninitBlock::allocate(total, fallibility).map(ExactSink::Heap)
    }

    /// Appends `bytes`.
    ///
    /// # Panics
    /// If more is pushed than announced (the callers check the room first: their pieces'
    /// `AsRef` may answer differently when asked twice).
    pub(crate) fn push_bytes(&mut self, bytes: &[u8]) {
        match self {
            ExactSink::Inline { buf, len } => {
                let end = *len + bytes.len();
                assert!(end <= INLINE_CAPACITY, "pieces changed length between measuring and copying");
                buf[*len..end].copy_from_slice(bytes);
                *len = end;
            }
            ExactSink::Heap(block) => block.push_bytes(bytes),
        }
    }

    /// The bytes pushed so far.
    pub(crate) fn filled(&self) -> &[u8] {
        match self {
            ExactSink::Inline { buf, len } => &buf[..*len],
            ExactSink::Heap(block) => block.filled(),
        }
    }

    /// The finished string.
    ///
    /// # Panics
    /// If fewer bytes were pushed than announced (see [`ExactSink::push_bytes`]).
    pub(crate) fn finish(self) -> StrWord {
        match self {
            ExactSink::Inline { buf, len } => StrWord::inline(&buf[..len]).expect("fits inline"),
            ExactSink::Heap(block) => StrWord::heap_whole(block.finish()),
        }
    }
}

impl Clone for StrWord {
    #[inline]
    fn clone(&self) -> StrWord {
        // The copy below needs a count of its own; take it and keep it.
        match self.tag() {
            TAG_HEAP => std::mem::forget(self.block().clone()),
            // SAFETY: the owned form's word 0 holds a count of its control block, which
            // `self` keeps for the borrow.
            TAG_OWNED => std::mem::forget(unsafe { Owned::borrow_raw(self.owned_ptr()) }.counted()),
            _ => {}
        }
        // SAFETY: inline and static forms hold no ownership, and for the heap and owned
        // forms the count the copy owns was just taken: a bitwise copy is then a valid
        // clone.
        unsafe { std::ptr::read(self) }
    }
}

impl Drop for StrWord {
    #[inline]
    fn drop(&mut self) {
        match self.tag() {
            // SAFETY: the heap form owns one count of the block in word 0, given up here
            // exactly once.
            TAG_HEAP => drop(unsafe { Block::from_raw(self.word0.cast()) }),
            // SAFETY: the owned form owns one count of the control block in word 0 (tag
            // cleared), given up here exactly once. The last count drops the owner, whose
            // panic, if any, unwinds from here after the block is freed.
            TAG_OWNED => drop(unsafe { Owned::from_raw(self.owned_ptr()) }),
            _ => {}
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::repr::heap::Fallibility;

    #[test]
    fn inline_packed_is_the_inline_word() {
        let bytes = b"\x00\xffabcde";
        for len in 0..=7 {
            let packed = bytes[..len].iter().rev().fold(0u64, |word, &b| (word << 8) | u64::from(b));
            let word = StrWord::inline_packed(len, packed);
            assert_eq!(word.as_bytes(), &bytes[..len]);
            let copied = StrWord::inline(&bytes[..len]).unwrap();
            assert_eq!((word.word0, word.word1), (copied.word0, copied.word1));
        }
    }

    #[test]
    fn inline_round_trips_every_length() {
        let bytes = b"0123456789ab\xff\x00de";
        for len in 0..=INLINE_CAPACITY {
            let word = StrWord::inline(&bytes[..len]).unwrap();
            assert_eq!(word.as_bytes(), &bytes[..len]);
            assert!(matches!(word.form(), StrForm::Inline(_)));
        }
        assert!(StrWord::inline(bytes).is_none());
    }

    #[test]
    fn inline_words_hold_zeros_past_the_bytes() {
        // Equal inline strings must be equal words: nothing but the bytes and the tag byte
        // may be set, whatever the overlapping moves wrote.
        let bytes = b"\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f";
        for len in 0..=INLINE_CAPACITY {
            let mut expected = [0u8; 16];
            expected[0] = ((len << LEN_SHIFT) | TAG_INLINE) as u8;
            expected[1..=len].copy_from_slice(&bytes[..len]);
            let word = StrWord::inline(&bytes[..len]).unwrap();
            let (word0, word1) = word.bits();
            let mut got = [0u8; 16];
            got[..8].copy_from_slice(&word0.to_ne_bytes());
            got[8..].copy_from_slice(&word1.to_ne_bytes());
            assert_eq!(got, expected, "length {len}");
        }
    }

    #[test]
    fn static_form_points_at_the_bytes() {
        static BYTES: &[u8] = b"static \xff bytes";
        let word = StrWord::from_static(BYTES);
        assert!(matches!(word.form(), StrForm::Static(bytes) if bytes.as_ptr() == BYTES.as_ptr()));
        assert_eq!(StrWord::empty().as_bytes(), b"");
    }

    #[test]
    fn heap_views_share_one_block() {
        let block = Block::copy_from(b"a block viewed through several ranges", Fallibility::Infallible).unwrap();
        let whole = StrWord::heap_whole(block.clone());
        let part = StrWord::heap(block, 2, 5);
        assert_eq!(part.as_bytes(), b"block");
        assert_eq!(whole.clone().bits(), whole.bits());
        assert_ne!(whole.bits(), part.bits());
        assert_eq!(part.bits().0, whole.bits().0, "same block pointer");
    }

    #[test]
    fn owned_views_share_one_control_block() {
        use crate::repr::owned::NewOwned;
        let owner = b"bytes an owner keeps, viewed through two ranges".to_vec();
        let at = owner.as_ptr();
        let block = NewOwned::new(owner, Fallibility::Infallible).unwrap().share();
        let whole = StrWord::owned_whole(block.clone());
        let part = StrWord::owned(block, 6, 2);
        assert_eq!(whole.as_bytes().as_ptr(), at);
        assert_eq!(part.as_bytes(), b"an");
        assert!(matches!(part.form(), StrForm::Owned { offset: 6, len: 2, .. }));
        assert_eq!(whole.clone().bits(), whole.bits());
        assert_eq!(part.bits().0, whole.bits().0, "same control block");
        assert_eq!(whole.bits().0 & TAG_MASK, TAG_OWNED);
    }

    #[test]
    #[should_panic(expected = "range outside the owner's bytes")]
    fn owned_views_stay_inside_the_bytes() {
        use crate::repr::owned::NewOwned;
        let block = NewOwned::new(vec![7u8; 20], Fallibility::Infallible).unwrap().share();
        let _ = StrWord::owned(block, 10, 11);
    }

    #[test]
    #[should_panic(expected = "range outside the block")]
    fn heap_views_stay_inside_the_block() {
        let block = Block::copy_from(b"twenty bytes of text", Fallibility::Infallible).unwrap();
        let _ = StrWord::heap(block, 10, 11);
    }
}
