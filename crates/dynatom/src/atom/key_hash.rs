//! The key hash of an atom in the maps keyed by atoms (`AtomMap`, `SmallMap`'s atom keys),
//! and of a text as its atom would have it, without making the atom: the rule lives here,
//! beside the atom word it reads, so that a change to how atoms are made or hashed changes
//! the maps' hashing with it.
//!
//! An atom of a table hashes as the table's hash of its text, cached with the atom (one
//! load). An atom that is a value (a text of up to 7 bytes, or a declared text) hashes as
//! a keyed mix of its word: atoms of up to 7 bytes are values, so an unkeyed mix would let
//! anyone compute, offline, atoms that share a hint or a bucket. A text hashes as the atom
//! it would give: its inline or declared word if it has one, else the global table's hash.

use super::Atom;
use super::byte_atom::ByteAtom;
use super::table::AtomTable;
use crate::hash;
use crate::repr::atom_word::{AtomWord, inline_bits_fast};
use crate::repr::declared;

/// An atom's key hash under `seed`: a table's atom's cached hash (one load from the
/// header of its block or static entry, no call), or for the atoms that are values a keyed
/// mix of the whole word (one multiply: a lookup waits on this chain before it can touch
/// an entry).
#[inline]
fn word_key_hash(word: &AtomWord, seed: u64) -> u64 {
    match word.table_hash() {
        Some(hash) => hash,
        None => value_key_hash(word.bits(), seed),
    }
}

/// The key hash of an atom that is a value (inline or declared), from its word's bits.
#[inline(always)]
fn value_key_hash(bits: usize, seed: u64) -> u64 {
    hash::mix_word(bits as u64, seed)
}

impl Atom {
    /// This atom's key hash in the maps keyed by atoms, value atoms' words mixed under `seed`.
    #[inline]
    pub(crate) fn map_key_hash(&self, seed: u64) -> u64 {
        word_key_hash(self.word(), seed)
    }

    /// Whether the atom is a value (inline or declared) or the global table's: the atoms
    /// an `AtomMap` keys by as they are.
    #[inline]
    pub(crate) fn is_value_or_global(&self) -> bool {
        let word = self.word();
        word.is_value() || word.is_global_entry()
    }

    /// Whether the atom is inline (up to 7 bytes, the same in every table) or the global
    /// table's.
    #[inline]
    pub(crate) fn is_inline_or_global(&self) -> bool {
        let word = self.word();
        word.is_inline() || word.is_global_entry()
    }
}

impl ByteAtom {
    /// As [`Atom::map_key_hash`]: the same atom seen as bytes has the same word.
    #[inline]
    pub(crate) fn map_key_hash(&self, seed: u64) -> u64 {
        word_key_hash(self.word(), seed)
    }

    /// As [`Atom::is_inline_or_global`].
    #[inline]
    pub(crate) fn is_inline_or_global(&self) -> bool {
        let word = self.word();
        word.is_inline() || word.is_global_entry()
    }
}

/// A text (or bytes) searched for among a map's atom keys without its atom, so without
/// touching the atom table: the key hash its global atom has ([`Atom::map_key_hash`]), and
/// how to tell that atom among the keys.
pub(crate) struct TextProbe<'a> {
    /// The key hash the text's atom has.
    pub(crate) hash: u64,
    target: Target<'a>,
}

#[derive(Clone, Copy)]
enum Target<'a> {
    /// The text's atom is a value (up to 7 bytes, or declared): this word.
    Word(usize),
    /// Only a table's entry holds this text: compared by bytes.
    Bytes(&'a [u8]),
}

impl<'a> TextProbe<'a> {
    /// The probe for `bytes`, value atoms' words mixed under `seed` (the word seed, or for
    /// a search that inserts nothing, the word seed if chosen: see `HintKey::lookup_hash`).
    #[inline]
    pub(crate) fn new(bytes: &'a [u8], seed: u64) -> TextProbe<'a> {
        match inline_bits_fast(bytes) {
            Some(bits) => TextProbe { hash: value_key_hash(bits, seed), target: Target::Word(bits) },
            None => TextProbe::long(bytes, seed),
        }
    }

    /// A text of more than 7 bytes: a declared atom's word if a registered set declares
    /// it, else the global table's hash of the bytes (what its entry caches).
    #[inline]
    fn long(bytes: &'a [u8], seed: u64) -> TextProbe<'a> {
        if declared::may_be_declared(bytes)
            && let Some(bits) = declared::word_of(bytes)
        {
            return TextProbe { hash: value_key_hash(bits, seed), target: Target::Word(bits) };
        }
        TextProbe { hash: AtomTable::global().shared().hash(bytes), target: Target::Bytes(bytes) }
    }

    /// Whether `key`, a global (or value) atom, is the probe's text: one word compare, or
    /// for a long text the bytes of a table entry (a value atom never holds a long text
    /// that no set declares).
    #[inline]
    pub(crate) fn is_key(&self, key: &Atom) -> bool {
        match self.target {
            Target::Word(bits) => key.word().bits() == bits,
            Target::Bytes(bytes) => !key.word().is_value() && hash::bytes_eq(key.as_bytes(), bytes),
        }
    }
}
