//! Raw representations. Each submodule owns one layout and is the only code that
//! dereferences its pointers; everything above works through their safe functions.

pub(crate) mod atom_word;
pub(crate) mod growable;
pub(crate) mod heap;
pub(crate) mod str_word;
