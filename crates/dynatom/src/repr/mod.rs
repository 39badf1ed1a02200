//! Raw representations. Each submodule owns one layout and is the only code that
//! dereferences its pointers; everything above works through their safe functions.
//!
//! This layer is a leaf: it works on words, blocks and bytes, and imports nothing of the
//! crate but the leaf utilities `sync` and `error` (`tests/module_graph.rs` reads the
//! sources to keep it so). The handles ([`ByteStr`](crate::ByteStr), [`Str`](crate::Str),
//! ...) and the atom table sit above it and call it. A table holds a plain count of each
//! block it files; the one thing a drop tells a table goes through a hook this layer
//! defines (`heap::set_unused_hook`).

pub(crate) mod atom_word;
pub(crate) mod block_cache;
pub(crate) mod checker;
pub(crate) mod declared;
pub(crate) mod growable;
pub(crate) mod heap;
pub(crate) mod late_sets;
pub(crate) mod owned;
pub(crate) mod slab;
pub(crate) mod str_word;
