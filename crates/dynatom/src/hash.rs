//! The tables' hash: seeded, reads every byte, never zero.
//!
//! rapidhash mixes the whole input, so strings that differ in a single byte anywhere
//! (LuaJIT's `hash_sparse` looks at only a few) land in unrelated buckets.

use std::hash::{BuildHasher, RandomState};

/// Hashes `bytes` under `seed`. Zero is reserved for "not cached yet".
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    match rapidhash::rapidhash_seeded(bytes, seed) {
        0 => 1,
        hash => hash,
    }
}

/// The seed for inline atoms' hashes: they are values, not table entries, so every
/// table and thread must agree on them.
pub(crate) const INLINE_ATOM_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// Hashes an inline atom's word (its text is inside it) under `seed`, cheaply.
#[inline]
pub(crate) fn hash_word(word: u64, seed: u64) -> u64 {
    let mixed = (u128::from(word ^ seed)).wrapping_mul(0x9E37_79B9_7F4A_7C15_F39C_C060_5CED_C835);
    match (mixed as u64) ^ ((mixed >> 64) as u64) {
        0 => 1,
        hash => hash,
    }
}

/// A fresh random seed from the operating system's randomness (via std's `RandomState`).
pub(crate) fn random_seed() -> u64 {
    RandomState::new().hash_one(0x5EED_u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_never_zero_and_depend_on_the_seed() {
        assert_ne!(hash_bytes(b"text", 1), hash_bytes(b"text", 2));
        assert_ne!(hash_word(0, 0), 0);
        assert_ne!(random_seed(), random_seed());
    }

    #[test]
    fn one_byte_changes_the_hash() {
        let mut text = vec![b'x'; 4096];
        let base = hash_bytes(&text, 3);
        text[2048] = b'y';
        assert_ne!(hash_bytes(&text, 3), base);
    }
}
