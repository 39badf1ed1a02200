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
//!   An atom whose last handle goes stays in its table, unused, for the next intern of
//!   its text, until a batch sweep (bounded: see [`AtomTable`]) or [`AtomTable::shrink`].
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
//! The rest of the crate:
//!
//! * [`StrBuilder`] and [`str_format!`]: build or format straight into a [`Str`]; the
//!   buffer becomes the string, no final copy. [`Str::concat`] and [`Str::join`]
//!   allocate once.
//! * [`Pieces`]: a string kept as a list of [`Str`] pieces, never joined, written with
//!   vectored I/O ([`Pieces::write_to`]).
//! * [`SmallMap`] and [`AtomMap`] (module [`small_map`]): maps for the many small tables
//!   keyed by strings, with one-byte hash [hints](Hint) per entry; `AtomMap` interns its
//!   keys. Keys are any [`HintKey`]: strings, atoms, integers, or anything `Hash + Eq`
//!   through [`small_map::Hashed`].
//! * [`Interner`], [`SyncInterner`] and [`Resolver`] (module [`interner`]): 4-byte `Copy`
//!   [`Symbol`]s for compilers and parsers, characters packed in chunks that never move,
//!   about 8 bytes per string; [`Limits`] caps them.
//! * [`MemoryReport`] and [`interner::InternerMemoryReport`]: where the memory goes.
//! * Errors: [`StrError`] (making strings), [`BuildError`] (builders), [`PartialWrite`]
//!   (`Pieces::write_to`), [`InternerError`] (interners). Every operation that can fail on
//!   input or memory has a `try_` form or returns a `Result`.
//!
#![doc = include_str!("interner/WHICH_TYPE.md")]
//!
//! ## Words used in these docs
//!
//! * **Intern**: look a text up in a table and get the one handle that all equal texts
//!   share, adding it if new. An **atom** is such a handle for an [`AtomTable`]; a
//!   **symbol** is a 4-byte index for an [`Interner`].
//! * **Adopt**: when a [`Str`] is interned and its text is new, the table takes the
//!   `Str`'s own buffer for the atom instead of copying it; both then share the bytes.
//! * **Inline**: stored inside the handle, no allocation: up to 15 bytes in a `Str`, up
//!   to 7 in an `Atom` (an *inline atom* is a value, in no table, equal in every table).
//! * **Static**: a `'static` text (a literal) that a handle points at without a copy.
//! * **Hint**: one byte of a key's hash that a [`SmallMap`] keeps beside each entry, so a
//!   lookup compares a key only when its hint matches.
//!
//! ## Safety
//!
//! All `unsafe` code lives in the private `repr` modules, one per raw layout (and `utf8`,
//! the one place bytes are read as text unchecked, with its invariant), plus the table's
//! shard code that reads entries under their lock and the interners' text storage; every
//! block has a `// SAFETY:` comment. The atomics go through one module so the tables can
//! be model-checked with loom (`RUSTFLAGS="--cfg loom"`).
//!
//! ## Features
//!
//! * `serde`: `Serialize`/`Deserialize` for [`Str`] and [`Atom`] (as strings),
//!   [`ByteStr`] and [`ByteAtom`] (as byte strings), [`SmallMap`] and [`AtomMap`] (as
//!   maps, in insertion order), [`Interner`] and [`SyncInterner`] (as the sequence of
//!   their strings in symbol order, so symbols survive a round trip; a [`Resolver`]
//!   serializes the same way) and [`Symbol`] (as its index).
//! * `stats`: [`SmallMapStats`], counters of hint hits, false matches and unknown-text
//!   lookups in the small maps (off: zero cost).
//! * `glibc-slop` (off by default; glibc targets): memory reports give allocator slop.
//!   The strings' heap blocks then come from [`std::alloc::System`] (glibc's malloc)
//!   instead of the global allocator, so `malloc_usable_size` is only ever asked about
//!   malloc's own blocks: sound with any global allocator, at the price that strings
//!   bypass it. Without the feature, [`MemoryReport::slop_bytes`] is `None` ("unknown").
//!
//! Platform: 64-bit little-endian targets.

#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod atom;
mod builder;
mod byte_atom;
mod byte_str;
mod byte_traits;
mod conversions;
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
pub use crate::interner::{Interner, InternerError, Limits, Resolver, Symbol, SyncInterner};
pub use crate::repr::block_cache::{
    block_cache_bytes, set_block_cache_limit, trim_block_cache, DEFAULT_BLOCK_CACHE_LIMIT,
};
pub use crate::small_map::{AtomMap, Hint, HintKey, SmallMap, SmallMapStats};
pub use crate::str::Str;
pub use crate::str_access::{Separator, SubStrs};
pub use crate::table::{AtomTable, MemoryReport};

/// The README's examples, compiled and run as doctests so they cannot rot. The crate's
/// `README.md` is a link to the workspace's, so this path works in the packaged crate too.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
