//! Raw representations. Each submodule owns one layout and is the only code that
//! dereferences its pointers; everything above works through their safe functions.
//! [`utf8`] is the one place where bytes are taken as text without a check.
//!
//! This layer is a leaf: it imports nothing from the tables above it (the test below reads
//! its sources to keep it so). A table holds a plain count of each block it files; the one
//! thing a drop tells a table goes through a hook this layer defines
//! (`heap::set_unused_hook`).

pub(crate) mod atom_word;
pub(crate) mod block_cache;
pub(crate) mod growable;
pub(crate) mod heap;
pub(crate) mod raw_handles;
pub(crate) mod str_word;
pub(crate) mod utf8;

#[cfg(all(test, not(loom)))]
mod tests {
    #[test]
    fn the_raw_layer_imports_nothing_from_the_tables() {
        let needle = concat!("crate::", "table");
        let sources = [
            ("atom_word.rs", include_str!("atom_word.rs")),
            ("block_cache.rs", include_str!("block_cache.rs")),
            ("growable.rs", include_str!("growable.rs")),
            ("heap.rs", include_str!("heap.rs")),
            ("raw_handles.rs", include_str!("raw_handles.rs")),
            ("str_word.rs", include_str!("str_word.rs")),
            ("utf8.rs", include_str!("utf8.rs")),
        ];
        for (name, source) in sources {
            assert!(!source.contains(needle), "repr/{name} names the table layer");
            assert!(!source.contains("TableShared"), "repr/{name} names the table layer");
        }
    }
}
