//! Filling a string whose final length is known up front: one allocation sized for
//! it (none at all for inline results).

use crate::error::StrError;
use crate::repr::heap::{Block, Fallibility, UninitBlock};
use crate::repr::str_word::{StrWord, INLINE_CAPACITY};
use crate::str::Str;

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

    /// Appends `text`.
    ///
    /// # Panics
    /// If more is pushed than announced: only an `AsRef<str>` that answers differently
    /// when asked twice can cause that.
    pub(crate) fn push_str(&mut self, text: &str) {
        match self {
            ExactSink::Inline { buf, len } => {
                let end = *len + text.len();
                assert!(end <= INLINE_CAPACITY, "pieces changed length between measuring and copying");
                buf[*len..end].copy_from_slice(text.as_bytes());
                *len = end;
            }
            ExactSink::Heap(block) => block.push_str(text),
        }
    }

    /// The finished string.
    ///
    /// # Panics
    /// If fewer bytes were pushed than announced (see [`ExactSink::push_str`]).
    pub(crate) fn finish(self) -> Str {
        match self {
            ExactSink::Inline { buf, len } => {
                // Whole `&str`s back to back are UTF-8; checking 15 bytes costs nothing and
                // keeps this module free of `unsafe`.
                let text = std::str::from_utf8(&buf[..len]).expect("whole strs concatenate to UTF-8");
                Str::from_word(StrWord::inline(text).expect("fits inline"))
            }
            ExactSink::Heap(block) => heap_str(block.finish()),
        }
    }
}

/// A `Str` spanning all of `block`.
pub(crate) fn heap_str(block: Block) -> Str {
    let len = block.len();
    Str::from_word(StrWord::heap(block, 0, len))
}
