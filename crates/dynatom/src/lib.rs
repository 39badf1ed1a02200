//! # dynatom: a string costs nothing until it has to be an atom
//!
//! Language runtimes, caches and compilers juggle millions of strings, but only some of
//! them are ever used as keys or compared. dynatom lets a string stay a plain string
//! (one allocation and a copy, no hashing, no global table) until it has to be an
//! interned atom, and then the atom adopts the string's own buffer.
//!
//! * [`Str`]: a 16-byte immutable string handle. Up to 15 bytes inline; longer strings
//!   are one allocation (header + bytes). O(1) clone and O(1) slices of any range.
//! * [`Atom`]: an 8-byte interned string. Equality is one word compare, hashing reads
//!   a cached hash, and [`Atom::to_str`] turns it back into a [`Str`] without a copy.
//! * [`ByteStr`] / [`ByteAtom`]: the same handles for any bytes (Lua strings, HTTP bodies,
//!   C strings): same layout, tables, adoption and cached hash. Equal bytes are one atom
//!   whether they came in as bytes or text; [`Str`] and [`Atom`] are these handles plus a
//!   UTF-8 promise ([`Str::as_byte_str`] is free, [`ByteStr::to_text`] checks once).
//!   [`ByteStrBuilder`] builds one without a final copy; the raw-word functions
//!   ([`ByteStr::into_raw`], [`ByteStr::from_raw_ref`], ...) serve a C ABI.
//! * [`AtomTable`]: the sharded table behind atoms, with the global one used by
//!   [`Str::intern`] and [`Atom::from`], and independent ones from [`AtomTable::new`].
//!   Atoms are freed when their last handle goes.
//!
//! ```
//! use dynatom::{Atom, Str};
//!
//! // Creating strings: one allocation each, no hashing, no table.
//! let key = Str::from(format!("session:{}:user-profile", 42));
//! let same_text = Str::from("session:42:user-profile");
//!
//! // Used as a key: now it becomes an atom, adopting its own buffer.
//! let atom = key.intern();
//! assert_eq!(atom.as_ptr(), key.as_ptr());
//! assert_eq!(same_text.intern(), atom); // one word compare
//!
//! // And back to a string in O(1).
//! let back: Str = atom.to_str();
//! assert_eq!(back.as_ptr(), key.as_ptr());
//! ```
//!
//! * [`Interner`] / [`SyncInterner`]: 4-byte `Copy` [`Symbol`]s for compilers and
//!   parsers, characters packed in chunks that never move, about 8 bytes per string.
//!
#![doc = include_str!("interner/WHICH_TYPE.md")]
//!
//! ## Safety
//!
//! All `unsafe` code lives in the private `repr` modules, one per raw layout (and `utf8`,
//! the one place bytes are read as text unchecked, with its invariant), plus the
//! table's shard code that reads entries under their lock; every block has a `// SAFETY:`
//! comment. The atomics go through one module so the table can be model-checked with
//! loom (`RUSTFLAGS="--cfg loom"`).
//!
//! ## Features
//!
//! * `serde`: `Serialize`/`Deserialize` for [`Str`] and [`Atom`] as plain strings, for
//!   [`ByteStr`] and [`ByteAtom`] as byte strings.
//! * `glibc-slop` (off by default; glibc targets): memory reports give allocator slop.
//!   The strings' heap blocks then come from [`std::alloc::System`] (glibc's malloc)
//!   instead of the global allocator, so `malloc_usable_size` is only ever asked about
//!   malloc's own blocks: sound with any global allocator, at the price that strings
//!   bypass it. Without the feature, [`MemoryReport::slop_bytes`] is `None` ("unknown").
//! * `stats`: extra counters in the small-map code (off: zero cost).
//!
//! Platform: 64-bit little-endian targets.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod atom;
mod builder;
mod byte_atom;
mod byte_str;
mod byte_traits;
mod error;
mod hash;
pub mod interner;
mod repr;
pub mod small_map;
mod str;
mod str_access;
mod str_traits;
mod sync;
mod table;

#[cfg(feature = "serde")]
mod serde_impls;

pub use crate::atom::Atom;
pub use crate::builder::{BuildError, ByteStrBuilder, PartialWrite, Piece, Pieces, StrBuilder};
pub use crate::byte_atom::ByteAtom;
pub use crate::byte_str::ByteStr;
pub use crate::error::StrError;
pub use crate::interner::{Interner, InternerError, Resolver, Symbol, SyncInterner};
pub use crate::small_map::{AtomMap, Hint, HintKey, SmallMap, SmallMapStats};
pub use crate::str::Str;
pub use crate::str_access::{Separator, SubStrs};
pub use crate::table::{AtomTable, MemoryReport};

/// The README's examples, compiled and run as doctests so they cannot rot.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
