//! Filling a string whose final length is known up front: one allocation sized for
//! it (none at all for inline results).

use crate::byte_str::ByteStr;
use crate::error::StrError;
use crate::repr::heap::{Block, Fallibility, UninitBlock};
use crate::repr::str_word::{StrWord, INLINE_CAPACITY};

/// Where the bytes of a string of known length go while they are being copied.
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
    /// If more is pushed than announced: only an `AsRef` that answers differently when
    /// asked twice can cause that.
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
    pub(crate) fn finish(self) -> ByteStr {
        match self {
            ExactSink::Inline { buf, len } => ByteStr::from_word(StrWord::inline(&buf[..len]).expect("fits inline")),
            ExactSink::Heap(block) => whole_block(block.finish()),
        }
    }
}

/// A `ByteStr` spanning all of `block`.
pub(crate) fn whole_block(block: Block) -> ByteStr {
    ByteStr::from_word(StrWord::heap_whole(block))
}
