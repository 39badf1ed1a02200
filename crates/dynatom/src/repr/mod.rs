//! Raw representations. Each submodule owns one layout and is the only code that
//! dereferences its pointers; everything above works through their safe functions.
//! [`utf8`] is the one place where bytes are taken as text without a check.

pub(crate) mod atom_word;
pub(crate) mod block_cache;
pub(crate) mod growable;
pub(crate) mod heap;
pub(crate) mod raw_handles;
pub(crate) mod str_word;
pub(crate) mod utf8;
