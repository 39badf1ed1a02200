//! # dynatom from C: the `dt_` ABI
//!
//! This crate is the C face of [`dynatom`](dynatom_core): byte strings (`dt_str`, two
//! words), atoms (`dt_atom`, one word), atom tables, a builder, piece
//! lists written with one `writev`, and the 4-byte-symbol interner. It builds
//! `libdynatom_ffi.so` and `libdynatom_ffi.a` (link with `-ldynatom_ffi`: the library is
//! not `dynatom`, which is the core crate's); the header `include/dynatom.h` is generated
//! from these sources by cbindgen and checked in (`tests/header.rs` fails when it is stale;
//! `DYNATOM_BLESS=1 cargo test -p dynatom-ffi --test header` rewrites it).
//!
//! ## Names and arguments
//!
//! One verb per operation, `dt_<object>_<verb>[_<input>]`: `new`/`free` for the opaque
//! objects, `clone`/`release` for handles, `intern` and `lookup` (never inserts) on
//! tables and the interner, `append` on builders and piece lists, `to_str` for a new
//! string that leaves its source as it was, `finish` for one that consumes it. When a verb
//! takes data, a suffix names its kind: `_bytes` a `(data, len)` pair, `_str` a
//! `const dt_str *`, `_atom` a `const dt_atom *` (`dt_table_intern_bytes`,
//! `dt_table_intern_str`, `dt_pieces_append_atom`). Atoms come from tables only: the
//! global one is `dt_table_global()`. Handles are passed by pointer everywhere (`const`
//! for inputs, `*out` for results, the call returning a [`dt_status`]), never by value.
//!
//! ## Errors
//!
//! Every fallible function returns a [`dt_status`]; [`dt_status_message`] turns one
//! into static text. NULL pointers, lengths past the maximum, never-initialised
//! handles, the released marker, handle words without a handle's shape, the wrong kind
//! of opaque object, a freed object (until its memory is reused) and allocation failure
//! (on the paths that have a `try_` form) come back as a status, never as a crash. Forged
//! words with a handle's shape, copies of a released handle and a reused object's stale
//! pointer cannot be told from live ones: the header lists both sides under "What is
//! checked, and what is not". No panic
//! crosses the boundary: every entry point runs inside one guard
//! (`guard::guarded`) that turns a panic into `DT_ERR_PANIC`, `0` or `NULL`.
//!
//! ## Atoms as hash-map keys
//!
//! The ABI has no map type; an atom is its word, which makes one small. Two atoms are the
//! same atom exactly when their words are equal (`dt_atom_equal`), and [`dt_atom_hash`]
//! is the hash cached with the atom (equal words, equal hashes; keyed per process). A C
//! map files each key under `dt_atom_hash`, compares words and holds one reference per
//! key (`dt_atom_clone` / `dt_atom_release`), so that the word keeps naming its text:
//! `examples/atom_map.c` is that recipe, run by `scripts/c-tests`.
//!
//! ## Safety model
//!
//! The entry points are plain `extern "C" fn`s, as in rustls-ffi: they are called from C,
//! where nothing is checked by a compiler, so each one checks what can be checked at run
//! time and relies on the header's documented rules for the rest (a non-NULL pointer
//! points at memory of the stated type; `data`/`len` pairs are readable). All pointer
//! casts live in small modules, one per raw representation: `handles` (the words
//! of `dt_str`/`dt_atom`), `pointers` (byte buffers, arrays, out-parameters, file
//! descriptors) and `objects` (the opaque objects: shells that are never given back to the
//! allocator, each with a state word that names its kind while it is live and says
//! "freed" after); `set_copy` keeps a static set's copy for the process, or frees it when
//! the library refuses the set; `external` is the owner of C memory that a string reads
//! without copying (`dt_str_from_external`): it reads those bytes, calls the caller's
//! `release`, and declares the owner `Send + Sync` on the contract the header states;
//! `release_queue` is a `release` callback that only files its `ctx` for the program to
//! drain later (for runtimes whose code may not run where a handle dies), with no
//! `unsafe` of its own.
//! Another, `test_hooks`, holds the global allocator that can be told
//! to fail for tests; it is compiled only with the `test-hooks` feature, which the
//! production library does not have. The `*_api` modules above them contain no `unsafe`
//! at all.
//!
//! ## Test hooks
//!
//! With the cargo feature `test-hooks` the library also exports `dt_test_fail_allocations`
//! and `dt_test_panic` (declared in the header under `#if defined(DYNATOM_TEST_HOOKS)`) and
//! routes every allocation through a wrapper that can be told to fail. The C and LuaJIT
//! test suites build that library in their own target directory (`target/test-hooks`);
//! `cargo build --release -p dynatom-ffi` builds the production one, without either.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(missing_docs)]
// The C names (`dt_str`, `DT_OK`) are the ABI: they are spelled as C spells them.
#![allow(non_camel_case_types)]

mod atom_api;
mod block_cache_api;
mod builder_api;
mod external;
mod guard;
mod handles;
mod interner_api;
mod objects;
mod pieces_api;
mod pointers;
mod release_queue;
mod set_copy;
mod static_set_api;
mod status;
mod str_api;
mod table_api;
#[cfg(feature = "test-hooks")]
mod test_hooks;

pub use crate::atom_api::*;
pub use crate::block_cache_api::*;
pub use crate::builder_api::*;
pub use crate::external::dt_release_fn;
pub use crate::interner_api::*;
pub use crate::pieces_api::*;
pub use crate::release_queue::*;
pub use crate::static_set_api::*;
pub use crate::status::{dt_status, dt_status_code, dt_status_message};
pub use crate::str_api::*;
pub use crate::table_api::*;
#[cfg(feature = "test-hooks")]
pub use crate::test_hooks::{dt_test_fail_allocations, dt_test_panic};

/// A byte string: the two words of a dynatom `ByteStr`, stored by value and passed by
/// pointer.
///
/// Up to 15 bytes live inside the handle itself (so `dt_str_bytes` may return a pointer
/// into the `dt_str` you passed: keep the handle where it is while you read them);
/// longer strings point at one shared, reference-counted block. Copying the struct does
/// NOT take a reference: use `dt_str_clone`, and give every handle back with
/// `dt_str_release`, which overwrites it with the released marker
/// (`w0 == 0`, `w1 == DT_RELEASED_MARK`). An all-zero `dt_str` is "never initialised".
/// Words that only a library handle may hold cannot be told from forged ones: see "What
/// is checked, and what is not" at the top of the header.
///
/// Thread safety: a handle is immutable; distinct handles to the same string may be used
/// and released on any threads at once. One handle's release must not race its uses.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dt_str {
    /// First word (tag and inline bytes, or the block pointer). Never 0 in a live handle.
    pub w0: u64,
    /// Second word.
    pub w1: u64,
}

/// An atom: the one word of a dynatom `ByteAtom`. Two atoms of the same table are equal
/// exactly when their words are equal (`dt_atom_equal`). As with `dt_str`, copying does
/// not take a reference: use `dt_atom_clone` and `dt_atom_release`. A released atom
/// holds `DT_RELEASED_MARK`; an all-zero one is "never initialised".
///
/// Thread safety: as `dt_str`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dt_atom {
    /// The atom's word (inline bytes, or a pointer to its table entry).
    pub w: u64,
}

/// The word a release writes into a `dt_atom` (and into `w1` of a `dt_str`, whose `w0`
/// becomes 0), so that a second release or a use after release is reported as
/// `DT_ERR_RELEASED`. Its low byte reads as an inline atom of 15 bytes, which no atom
/// can be (inline atoms hold at most 7), so it never collides with a live handle. Only
/// the variable passed to the release holds it: other copies of the handle still hold the
/// old words, and using one is undefined behaviour that no call detects.
pub const DT_RELEASED_MARK: u64 = 0xDEAD_BEEF_0000_001F;

/// How many other objects of the same kind are freed after an opaque object before its
/// memory may be reused for a new one: until then its stale pointer reports
/// `DT_ERR_RELEASED` (see "Freed objects" at the top of the header).
pub const DT_FREE_QUARANTINE: usize = 64;

/// The longest string, in bytes (4 GiB - 1): longer input is `DT_ERR_TOO_LONG`.
pub const DT_MAX_LEN: usize = u32::MAX as usize;

#[cfg(not(all(target_pointer_width = "64", target_endian = "little")))]
compile_error!("dt_str/dt_atom are the handles' words as u64: a 64-bit little-endian target is required");

const _: () = {
    assert!(std::mem::size_of::<dt_str>() == 16 && std::mem::align_of::<dt_str>() == 8);
    assert!(std::mem::size_of::<dt_atom>() == 8 && std::mem::align_of::<dt_atom>() == 8);
    assert!(DT_MAX_LEN == dynatom_core::Str::MAX_LEN);
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_are_the_words_of_the_rust_handles() {
        assert_eq!(std::mem::size_of::<dt_str>(), std::mem::size_of::<dynatom_core::Str>());
        assert_eq!(std::mem::size_of::<dt_atom>(), std::mem::size_of::<dynatom_core::Atom>());
    }
}
