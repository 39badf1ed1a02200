//! Building strings without intermediates.
//!
//! Appending to an immutable string in a loop (`s = s + piece`) copies everything built
//! so far on every step: O(n²). This module gives the fast ways instead:
//!
//! * [`StrBuilder`] appends into a buffer that is already laid out as a [`Str`] heap
//!   block, so [`StrBuilder::finish`] hands that very buffer over: no final copy.
//! * [`str_format!`](crate::str_format) formats straight into a [`Str`] the same way.
//! * [`Str::concat`] and [`Str::join`] measure first and allocate once.
//! * [`Pieces`] never joins at all: it keeps a list of pieces and writes them with
//!   vectored I/O, the way OpenResty's output functions take a table of pieces.
//!
//! [`Str`]: crate::Str
//! [`Str::concat`]: crate::Str::concat
//! [`Str::join`]: crate::Str::join

mod byte_builder;
mod pieces;
mod pieces_borrowed;
mod str_builder;
mod write;

pub use self::byte_builder::ByteStrBuilder;
pub use self::pieces::{Piece, Pieces};
pub use self::str_builder::StrBuilder;
pub use self::write::PartialWrite;
