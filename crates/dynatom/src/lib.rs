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
//!   a cached hash, and `Str::from(atom)` turns it back into a [`Str`] without a copy.
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
//! let back = Str::from(&atom);
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
//!   keyed by strings, with one-byte hash [hints][`Hint`] per entry; `AtomMap` interns its
//!   keys. Keys are any [`HintKey`]: strings, atoms, integers, or anything `Hash + Eq`
//!   through [`small_map::Hashed`].
//! * [`Interner`], [`SyncInterner`] and [`Resolver`] (module [`interner`]): 4-byte `Copy`
//!   [`Symbol`]s for compilers and parsers, characters packed in chunks that never move,
//!   about 8 bytes per string; [`Limits`] caps them.
//! * [`static_atoms!`] and [`StaticSet`] (the default feature `static-atoms`): atoms
//!   declared at compile time, `const` words usable as `match` patterns, the same atoms as
//!   [`Atom::from`] of their text. Sets can also be registered at run time, with or
//!   without the feature ([`AtomTable::register_static_set`]).
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
//!   A **declared** atom is a static atom of a set made by [`static_atoms!`], whose word is
//!   computed from the text at compile time.
//! * **Hint**: one byte of a key's hash that a [`SmallMap`] keeps beside each entry, so a
//!   lookup compares a key only when its hint matches.
//!
//! ## Names
//!
//! One rule, taken from std and the [API guidelines](https://rust-lang.github.io/api-guidelines/naming.html),
//! so a name can be guessed:
//!
//! * **A word that names a std type means that type.** `str` is always std's `str`:
//!   [`Str::as_str`] borrows a `&str`, [`StrBuilder::push_str`] takes one, and `Str`
//!   derefs to `str`, so `s.trim()` is std's `&str`. dynatom's own [`Str`] is never
//!   spelled `_str` in a method name: it comes from `Str::from(..)` (from an [`Atom`]
//!   in O(1)) or from a verb on a handle (`intern`, `slice`, `finish`). Where a method
//!   must name the UTF-8 handle, the word is `text`: [`ByteStr::to_text`] gives a
//!   `Str`, [`ByteAtom::to_text`] an `Atom`, [`Pieces::to_text`] the joined `Str`.
//! * **Prefixes** as in std: `as_*` borrows and is free ([`Str::as_byte_str`]); `to_*`
//!   makes a new value from a borrowed one, counting a reference, checking or copying
//!   ([`Pieces::to_byte_str`]; [`Piece::to_str`] checks UTF-8
//!   and borrows, as `OsStr::to_str` does); `into_*` consumes
//!   ([`Str::into_byte_str`], [`ByteStr::into_raw`]); `new`, `with_*` and `from_*` make;
//!   `try_*` returns an error where the plain form panics or aborts; `get_*` returns an
//!   `Option` where the plain form panics.
//! * **Suffixes**: after `as_`/`to_`/`into_` the suffix names the result
//!   (`into_byte_atom`, `into_small_map`); after any other verb it names the argument,
//!   as `String::push_str` does (`intern_bytes(&[u8])`, `intern_static(&'static str)`,
//!   `insert_atom(Atom)`, `push_bytes(&[u8])`).
//! * **`_in`** picks the table, like the allocator API's `Box::new_in`: [`Str::intern`]
//!   uses the global table, [`Str::intern_in`] the one given.
//! * **Sub-strings sharing the buffer** are `slice` (a byte range, [`Str::slice`] /
//!   [`Str::get_slice`]) and `slice_ref` (a `&str` borrowed from the string, as in
//!   `bytes`): `s.slice_ref(s.trim())`, `s.split(',').map(|f| s.slice_ref(f))`.
//!
//! ```
//! use dynatom::{Atom, AtomTable, Str};
//!
//! let line = Str::from("  name = a value long enough to live on the heap  ");
//! let (key, value) = line.split_once('=').unwrap(); // std: two `&str`
//! let value = line.slice_ref(value.trim()); // a `Str` sharing `line`'s buffer
//! assert_eq!((key.trim(), value.as_str()), ("name", "a value long enough to live on the heap"));
//! assert_eq!(value.as_ptr(), line.as_str()[9..].as_ptr());
//!
//! let table = AtomTable::new();
//! let atom: Atom = value.intern_in(&table);
//! assert_eq!(Str::from(&atom), value); // back to a `Str`, O(1)
//! ```
//!
//! ## Safety
//!
//! `unsafe` code lives only in the files listed here (paths under `src/`), each the one
//! owner of a raw representation or of one unchecked step; everything else is safe Rust.
//! Every `unsafe` block has a `// SAFETY:` comment and every `unsafe fn` a `# Safety`
//! section (the workspace's clippy lints enforce both), and `tests/unsafe_locations.rs`
//! fails when a file outside this list gains `unsafe`, or a file in it no longer has any.
//!
//! * The raw layouts, one module each: `repr/heap.rs` (the heap block: header, bytes,
//!   reference count), `repr/owned.rs` (the control block of a string over an owner's
//!   bytes: count, owner, its bytes' pointer), `repr/str_word.rs` (the 16-byte [`ByteStr`] word),
//!   `repr/atom_word.rs` (the 8-byte [`ByteAtom`] word), `repr/growable.rs` (a builder's
//!   block under construction), `repr/block_cache.rs` (freed large blocks kept for
//!   reuse), `repr/slab.rs` (a table's size-class slabs, where the atoms it copies in
//!   live), `repr/late_sets.rs` (the static sets registered at run time, read without a
//!   lock), `repr/checker.rs` (tells valgrind and ASan which memory the library holds
//!   freed: a client request's `asm!`, the sanitizer's functions, and its tests' planted
//!   read of a freed slot), and the test-only `repr/heap_count_limit_tests.rs` (drives a
//!   count to its limit), `repr/heap_permanent_tests.rs` and `repr/heap_permanent_loom.rs`
//!   (make blocks permanent, then set their counts back by hand to free them).
//! * The unchecked steps between the byte handles and what sits above them, each a small
//!   file of its own above `repr/` (which knows no handle type): `utf8.rs` (the one
//!   place bytes are read as text unchecked, for [`Str`] and [`Atom`] over [`ByteStr`]
//!   and [`ByteAtom`]), and the handles' raw sides, `str/byte_str_raw.rs` and `atom/byte_atom_raw.rs` (a
//!   byte handle as machine words, for the C ABI, and what its bytes promise to
//!   `utf8.rs`).
//! * The atom table's shard code, which reads entries under their shard's lock:
//!   `atom/table/shared/mod.rs` with its parts `atom/table/shared/lock_free_hit.rs` (the
//!   hit with no pin, which raises a count before it reads an entry),
//!   `atom/table/shared/filing.rs` (pinned hits, misses and lookups),
//!   `atom/table/shared/static_entries.rs` (static and declared
//!   texts), `atom/table/shared/sweeps.rs` (checks and sweeps),
//!   `atom/table/shared/late_registration.rs` (static sets registered at run time, checked
//!   against every live table), `atom/table/shared/process_hooks.rs` (the exit-time sweep,
//!   the locks held across `fork`, the unused-atom hook) and
//!   `atom/table/shared/shared_ref.rs` (the table's counted handle), and
//!   `atom/table/report_collect.rs` (memory reports; with `glibc-slop`, also glibc's
//!   `malloc_usable_size`), and the lock-free slot array and the reclamation of what its
//!   readers may still see: `atom/table/slots/mod.rs` with its parts
//!   `atom/table/slots/array.rs` (one array's probe), `atom/table/slots/array_pool.rs`
//!   (where a table's slot arrays come from and go back to: memory kept slot-shaped
//!   while the table lives),
//!   `atom/table/slots/growth.rs` (migration to a fresh array) and
//!   `atom/table/slots/removal.rs` (tombstones), and `atom/table/reclaim.rs`, with the
//!   set's own tests and loom models (`atom/table/slots/slots_tests.rs`,
//!   `atom/table/slots/slots_loom.rs`), which free what they file through the same
//!   reclaimer, and the loom models of the read protocol with no pin
//!   (`atom/table/read_protocol_loom.rs`, which read loom's cells).
//! * The interners' storage: `interner/arena.rs` (the bump arena both interners keep their text
//!   in), `interner/text_store.rs` (the [`Interner`]'s index of that text),
//!   `interner/segments.rs` (arrays published to readers without a lock),
//!   `interner/cuckoo_table.rs` (the `Interner`'s hash table), and the two lookups that trust
//!   that storage without checking twice: `interner/mod.rs` (the `Interner`'s fast
//!   path) and `interner/sync_interner.rs` (the `SyncInterner`'s text of a published entry).
//! * `interner/simd.rs`, the one place that picks SSE2 or its portable fallback for the
//!   interner's bucket match and short byte compares.
//! * `sync/mod.rs`, the one door to atomics, locks, waiting and the allocator, so that the
//!   tables can be model-checked with loom (`RUSTFLAGS="--cfg loom"`); its raw allocation
//!   functions forward to the allocator. `sync/pages.rs` maps, hands back and unmaps whole
//!   pages for the slabs and the slot arrays' pool. `sync/cores.rs` asks the kernel for the
//!   process's CPU affinity mask without allocating. `sync/fork_gate.rs` registers the fork handlers
//!   (`pthread_atfork`, and an `.init_array` entry that does so before `main`).
//!
//! ## Features
//!
//! On by default, each can be left out with `default-features = false`:
//!
//! * `interner`: the [`interner`] module (foldhash).
//! * `small-map`: the [`small_map`] module (hashbrown, foldhash).
//! * `static-atoms`: [`static_atoms!`] and [`StaticSet`], sets found at link time by
//!   linkme, a proc macro (so syn, quote and proc-macro2 are built too). Without it,
//!   [`StaticText`], [`AtomTable::register_static_set`], [`Atom::is_declared`] and
//!   [`ByteAtom::from_static_name`] still work, for sets registered at run time.
//!
//! Off by default:
//!
//! * `serde`: `Serialize`/`Deserialize` for [`Str`] and [`Atom`] (as strings),
//!   [`ByteStr`] and [`ByteAtom`] (as byte strings), [`SmallMap`] and [`AtomMap`] (as
//!   maps, in insertion order), [`Interner`] and [`SyncInterner`] (as the sequence of
//!   their strings in symbol order, so symbols survive a round trip; a [`Resolver`]
//!   serializes the same way) and [`Symbol`] (as its index).
//! * `bytes`: `From<bytes::Bytes> for ByteStr` and `From<ByteStr> for bytes::Bytes`,
//!   neither copying the bytes (the first goes through [`ByteStr::from_owner`], the
//!   second makes the handle the `Bytes`' owner).
//! * `stats`: [`SmallMapStats`], counters of hint hits, false matches and unknown-text
//!   lookups in the small maps (off: zero cost).
//! * `glibc-slop` (off by default; glibc targets): memory reports give allocator slop.
//!   The strings' heap blocks then come from [`std::alloc::System`] (glibc's malloc)
//!   instead of the global allocator, so `malloc_usable_size` is only ever asked about
//!   malloc's own blocks: sound with any global allocator, at the price that strings
//!   bypass it. Without the feature, [`MemoryReport::slop_bytes`] is `None` ("unknown").
//!
//! ## Hash seeds
//!
//! The global table, every [`AtomTable::new`] table and the word-sized keys (inline atoms'
//! hashes, [`SmallMap`]'s atom and integer keys) hash under seeds chosen at random once per
//! process, so that no one can compute texts or keys that collide. No call fixes them:
//! they are shared by all the code in the process, so a fixed seed chosen by one
//! dependency would expose every other one's tables. A table of your own can have a seed
//! of your own ([`AtomTable::with_seed`], [`Interner::with_seed`]), which changes no one
//! else's.
//!
//! Runs that must repeat exactly (the benchmark's counted figures) build with
//! `RUSTFLAGS="--cfg dynatom_fixed_seed"`, a compiler flag that the final build sets for
//! every crate, not a Cargo feature (which any dependency could switch on): only in such a
//! build, the environment variable `DYNATOM_FIXED_SEED` (a number, decimal or `0x`
//! hexadecimal), when set, fixes both process-wide seeds. Without the flag it is never read.
//!
//! ```compile_fail
//! // Gone: a process-wide seed is no one's to fix.
//! dynatom::AtomTable::fix_process_seed(42);
//! ```
//!
//! Platform: 64-bit little-endian targets.

// Without a sub-library its items are not in this build: the crate docs, which name them,
// link to their published pages instead, so that every build's docs resolve. (The empty
// line ends the paragraph before: a link definition cannot interrupt one.)
#![doc = ""]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`Interner`]: https://docs.rs/dynatom/latest/dynatom/struct.Interner.html"
)]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`SyncInterner`]: https://docs.rs/dynatom/latest/dynatom/struct.SyncInterner.html"
)]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`Resolver`]: https://docs.rs/dynatom/latest/dynatom/struct.Resolver.html"
)]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`interner`]: https://docs.rs/dynatom/latest/dynatom/interner/index.html"
)]
#![cfg_attr(not(feature = "interner"), doc = "[`Symbol`]: https://docs.rs/dynatom/latest/dynatom/struct.Symbol.html")]
#![cfg_attr(not(feature = "interner"), doc = "[`Limits`]: https://docs.rs/dynatom/latest/dynatom/struct.Limits.html")]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`interner::InternerMemoryReport`]: https://docs.rs/dynatom/latest/dynatom/interner/struct.InternerMemoryReport.html"
)]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`InternerError`]: https://docs.rs/dynatom/latest/dynatom/enum.InternerError.html"
)]
#![cfg_attr(
    not(feature = "interner"),
    doc = "[`Interner::with_seed`]: https://docs.rs/dynatom/latest/dynatom/struct.Interner.html#method.with_seed"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`SmallMap`]: https://docs.rs/dynatom/latest/dynatom/small_map/struct.SmallMap.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`AtomMap`]: https://docs.rs/dynatom/latest/dynatom/small_map/struct.AtomMap.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`small_map`]: https://docs.rs/dynatom/latest/dynatom/small_map/index.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`Hint`]: https://docs.rs/dynatom/latest/dynatom/small_map/struct.Hint.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`HintKey`]: https://docs.rs/dynatom/latest/dynatom/small_map/trait.HintKey.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`small_map::Hashed`]: https://docs.rs/dynatom/latest/dynatom/small_map/struct.Hashed.html"
)]
#![cfg_attr(
    not(feature = "small-map"),
    doc = "[`SmallMapStats`]: https://docs.rs/dynatom/latest/dynatom/small_map/struct.SmallMapStats.html"
)]
#![cfg_attr(feature = "small-map", doc = "[`Hint`]: crate::small_map::Hint")]
#![cfg_attr(
    not(feature = "static-atoms"),
    doc = "[`static_atoms!`]: https://docs.rs/dynatom/latest/dynatom/macro.static_atoms.html"
)]
#![cfg_attr(
    not(feature = "static-atoms"),
    doc = "[`StaticSet`]: https://docs.rs/dynatom/latest/dynatom/struct.StaticSet.html"
)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]

mod accessors;
mod atom;
mod builder;
mod counters;
mod error;
mod hash;
#[cfg(feature = "interner")]
#[cfg_attr(docsrs, doc(cfg(feature = "interner")))]
pub mod interner;
mod memory_report;
mod repr;
#[cfg(feature = "small-map")]
#[cfg_attr(docsrs, doc(cfg(feature = "small-map")))]
pub mod small_map;
mod str;
mod sync;
mod utf8;

#[cfg(feature = "serde")]
mod handle_serde;

pub use crate::atom::Atom;
pub use crate::atom::atom_hasher::{AtomHasher, BuildAtomHasher};
pub use crate::atom::byte_atom::ByteAtom;
#[cfg(feature = "static-atoms")]
#[cfg_attr(docsrs, doc(cfg(feature = "static-atoms")))]
pub use crate::atom::static_set::StaticSet;
pub use crate::atom::static_set_error::StaticSetError;
pub use crate::atom::table::AtomTable;
pub use crate::builder::{ByteStrBuilder, PartialWrite, Piece, Pieces, StrBuilder};
pub use crate::error::{BuildError, FromOwnerError, StrError};
#[cfg(feature = "interner")]
pub use crate::interner::{Interner, InternerError, Limits, Resolver, Symbol, SyncInterner};
pub use crate::memory_report::MemoryReport;
pub use crate::repr::block_cache::{
    DEFAULT_BLOCK_CACHE_LIMIT, block_cache_bytes, set_block_cache_limit, trim_block_cache,
};
pub use crate::repr::declared::StaticText;
#[cfg(feature = "small-map")]
pub use crate::small_map::{AtomMap, Hint, HintKey, SmallMap, SmallMapStats};
pub use crate::str::Str;
pub use crate::str::byte_str::ByteStr;

/// What [`static_atoms!`] expands to names; not part of the API.
#[cfg(feature = "static-atoms")]
#[doc(hidden)]
pub mod __private {
    pub use crate::atom::static_set::__text_of_name as text_of_name;
    pub use crate::repr::declared::{DECLARED_SETS, DeclaredSet};
    pub use linkme;
}

/// The README's examples, compiled and run as doctests so they cannot rot. The crate's
/// `README.md` is a link to the workspace's, so this path works in the packaged crate too.
#[cfg(all(doctest, feature = "interner", feature = "small-map", feature = "static-atoms"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
