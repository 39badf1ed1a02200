//! The single-threaded interner's string hash: foldhash's fast hasher, fed the bytes
//! directly (one `write`, no `str` terminator byte), seeded per interner.
//!
//! Why foldhash here and rapidhash elsewhere: the interner's keys are mostly identifiers
//! and short keys, where foldhash takes one folded multiply up to 16 bytes and two
//! independent ones up to 32, while rapidhash's mixing steps depend on each other; the
//! `intern-local` suite measured the difference on its `keys` corpus. Every byte and the
//! length take part; it is not a cryptographic hash, and a random seed (the default)
//! keeps inputs from being chosen to collide without knowing it.

use std::hash::Hasher;

use foldhash::fast::FoldHasher;
use foldhash::SharedSeed;

/// Longest key the interner's inline lookup path takes (hashing and comparing without a
/// call); longer keys go out of line.
pub(crate) const SHORT: usize = 32;

/// The seeds of one interner's hash.
#[derive(Clone, Debug)]
pub(crate) struct Seeds {
    per_hasher: u64,
    shared: SharedSeed,
}

impl Seeds {
    pub(crate) fn new(seed: u64) -> Seeds {
        Seeds { per_hasher: seed, shared: SharedSeed::from_u64(seed) }
    }

    /// The seed these were made from.
    pub(crate) fn seed(&self) -> u64 {
        self.per_hasher
    }

    /// 64-bit hash of `d`; the table uses its top bits.
    #[inline(always)]
    pub(crate) fn hash(&self, d: &[u8]) -> u64 {
        let mut hasher = FoldHasher::with_seed(self.per_hasher, &self.shared);
        hasher.write(d);
        hasher.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::Seeds;
    use std::collections::HashSet;

    #[test]
    fn every_byte_and_the_length_count() {
        let k = Seeds::new(1);
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
    fn seeds_change_the_hash() {
        assert_ne!(Seeds::new(1).hash(b"main"), Seeds::new(2).hash(b"main"));
    }

    #[test]
    fn top_bits_spread() {
        // 27 top bits of 200 000 similar keys: collisions near the birthday bound.
        let k = Seeds::new(42);
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
