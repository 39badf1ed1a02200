//! Every hash and seed in dynatom: which function each table hashes with, under which
//! seed, and where seeds come from.
//!
//! * [`hash_bytes`] (rapidhash): the atom table and the `SyncInterner`. It mixes the
//!   whole input, so strings that differ in a single byte anywhere (LuaJIT's
//!   `hash_sparse` looks at only a few) land in unrelated buckets.
//! * [`StrHasher`] (foldhash): the single-threaded `Interner`, whose keys are mostly
//!   identifiers and short keys: foldhash takes one folded multiply up to 16 bytes and
//!   two independent ones up to 32, while rapidhash's mixing steps depend on each
//!   other; the `intern-local` suite measured the difference on its `keys` corpus.
//! * [`hash_word`]: inline atoms and the small map's word-sized keys.
//!
//! Seeds: [`random_seed`] for every table by default (so inputs cannot be chosen to
//! collide without knowing it), [`DETERMINISTIC_SEED`] for the `deterministic`
//! constructors, and [`INLINE_ATOM_SEED`] for values that every table must agree on.
//! None of these hashes is cryptographic; every byte and the length take part.

use std::hash::{BuildHasher, Hasher, RandomState};

use foldhash::fast::FoldHasher;
use foldhash::SharedSeed;

/// Hashes `bytes` under `seed`. Zero is reserved for "not cached yet".
#[inline]
pub(crate) fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    hash_bytes_inlined(bytes, seed)
}

/// [`hash_bytes`], always inlined: for the atom table's intern path, where an out-of-line
/// call's register saves showed in its counted cycles. (Inlining `hash_bytes` itself
/// everywhere made `SmallMap`'s `Str` lookups, through `Str::hash64`, cost more.)
#[inline(always)]
pub(crate) fn hash_bytes_inlined(bytes: &[u8], seed: u64) -> u64 {
    match rapidhash::rapidhash_seeded(bytes, seed) {
        0 => 1,
        hash => hash,
    }
}

/// The seed for inline atoms' hashes: they are values, not table entries, so every
/// table and thread must agree on them.
pub(crate) const INLINE_ATOM_SEED: u64 = 0x243F_6A88_85A3_08D3;

/// The seed of the interners' `deterministic` constructors: their memory layout and
/// statistics are then the same run to run.
pub(crate) const DETERMINISTIC_SEED: u64 = 0x5EED_D1A7_0A70_u64;

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

/// The single-threaded interner's string hash: foldhash's fast hasher under one
/// interner's seed, fed the bytes directly (one `write`, no `str` terminator byte).
#[derive(Clone, Debug)]
pub(crate) struct StrHasher {
    per_hasher: u64,
    shared: SharedSeed,
}

impl StrHasher {
    pub(crate) fn new(seed: u64) -> StrHasher {
        StrHasher { per_hasher: seed, shared: SharedSeed::from_u64(seed) }
    }

    /// The seed this was made from.
    pub(crate) fn seed(&self) -> u64 {
        self.per_hasher
    }

    /// 64-bit hash of `bytes`; tables use its top bits.
    #[inline(always)]
    pub(crate) fn hash(&self, bytes: &[u8]) -> u64 {
        let mut hasher = FoldHasher::with_seed(self.per_hasher, &self.shared);
        hasher.write(bytes);
        hasher.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn hashes_are_never_zero_and_depend_on_the_seed() {
        assert_ne!(hash_bytes(b"text", 1), hash_bytes(b"text", 2));
        assert_ne!(hash_word(0, 0), 0);
        assert_ne!(random_seed(), random_seed());
        assert_ne!(StrHasher::new(1).hash(b"main"), StrHasher::new(2).hash(b"main"));
        assert_eq!(StrHasher::new(DETERMINISTIC_SEED).seed(), DETERMINISTIC_SEED);
    }

    #[test]
    fn one_byte_changes_the_hash() {
        let mut text = vec![b'x'; 4096];
        let base = hash_bytes(&text, 3);
        text[2048] = b'y';
        assert_ne!(hash_bytes(&text, 3), base);
    }

    #[test]
    fn every_byte_and_the_length_count_in_the_str_hash() {
        let k = StrHasher::new(1);
        for len in 0..100usize {
            let base: Vec<u8> = (0..len as u8).map(|b| b.wrapping_mul(31).wrapping_add(7)).collect();
            let h = k.hash(&base);
            for i in 0..len {
                let mut v = base.clone();
                v[i] ^= 0x20;
                assert_ne!(k.hash(&v), h, "len {len} byte {i}");
            }
            let mut longer = base.clone();
            longer.push(0);
            assert_ne!(k.hash(&longer), h, "len {len} + NUL");
        }
        assert_ne!(k.hash(b"ab"), k.hash(b"abb"));
        assert_ne!(k.hash(b""), k.hash(b"\0"));
    }

    #[test]
    fn str_hash_top_bits_spread() {
        // 27 top bits of 200 000 similar keys: collisions near the birthday bound.
        let k = StrHasher::new(42);
        let n = 200_000u64;
        let mut seen = HashSet::new();
        let mut dup = 0;
        for i in 0..n {
            let s = format!("user:{i}:profile");
            if !seen.insert(k.hash(s.as_bytes()) >> 37) {
                dup += 1;
            }
        }
        // Expected about n^2 / 2^28 = 149.
        assert!(dup < 300, "{dup} collisions");
    }
}
