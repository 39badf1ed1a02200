//! The single-threaded interner's string hash: a seeded folded-multiply hash in
//! the style of foldhash/rapidhash, tuned for identifier-sized keys.
//!
//! Up to 16 bytes cost one 64×64→128-bit multiply (two overlapping word reads
//! cover every byte), up to 32 bytes two, longer strings one per 16 bytes. Every
//! byte and the length take part. It is not a cryptographic hash: a random seed
//! (the default) keeps inputs from being chosen to collide without knowing it.

/// Longest string [`Seeds::hash_short`] takes.
pub(crate) const SHORT: usize = 32;

/// `lo ^ hi` of the full 128-bit product.
#[inline(always)]
fn fold(x: u64, y: u64) -> u64 {
    let r = u128::from(x).wrapping_mul(u128::from(y));
    (r as u64) ^ ((r >> 64) as u64)
}

#[inline(always)]
fn read_u64(d: &[u8], at: usize) -> u64 {
    let mut w = [0; 8];
    w.copy_from_slice(&d[at..at + 8]);
    u64::from_le_bytes(w)
}

#[inline(always)]
fn read_u32(d: &[u8], at: usize) -> u64 {
    let mut w = [0; 4];
    w.copy_from_slice(&d[at..at + 4]);
    u64::from(u32::from_le_bytes(w))
}

/// Four 64-bit keys derived from a seed.
#[derive(Clone, Copy)]
pub(crate) struct Seeds([u64; 4]);

impl Seeds {
    /// Expands `seed` with splitmix64.
    pub(crate) fn new(seed: u64) -> Seeds {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        };
        Seeds([next(), next(), next(), next()])
    }

    /// 64-bit hash of `d`; the table uses its top bits.
    #[inline(always)]
    pub(crate) fn hash(&self, d: &[u8]) -> u64 {
        if d.len() <= SHORT {
            self.hash_short(d)
        } else {
            self.hash_long(d)
        }
    }

    /// [`hash`](Seeds::hash) of at most [`SHORT`] bytes: no call, no loop.
    #[inline(always)]
    pub(crate) fn hash_short(&self, d: &[u8]) -> u64 {
        let k = &self.0;
        let len = d.len();
        debug_assert!(len <= SHORT);
        let (a, b);
        if len <= 16 {
            if len >= 8 {
                a = read_u64(d, 0);
                b = read_u64(d, len - 8);
            } else if len >= 4 {
                a = read_u32(d, 0);
                b = read_u32(d, len - 4);
            } else if len > 0 {
                a = u64::from(d[0]) | (u64::from(d[len / 2]) << 8) | (u64::from(d[len - 1]) << 16);
                b = 0;
            } else {
                a = 0;
                b = 0;
            }
        } else {
            // 17..=32 bytes: two independent multiplies (first and last 16 bytes),
            // so the second does not wait for the first.
            let x = fold(read_u64(d, 0) ^ k[2], read_u64(d, 8) ^ k[3]);
            return x ^ fold(read_u64(d, len - 16) ^ k[0] ^ len as u64, read_u64(d, len - 8) ^ k[1]);
        }
        fold(a ^ k[0] ^ len as u64, b ^ k[1])
    }

    #[inline(never)]
    fn hash_long(&self, d: &[u8]) -> u64 {
        let k = &self.0;
        let len = d.len();
        let (mut s0, mut s1) = (k[0] ^ len as u64, k[1]);
        let mut chunks = d.chunks_exact(32);
        for c in &mut chunks {
            s0 = fold(read_u64(c, 0) ^ s0, read_u64(c, 8) ^ k[2]);
            s1 = fold(read_u64(c, 16) ^ s1, read_u64(c, 24) ^ k[3]);
        }
        // The last 32 bytes (overlapping what the loop read when `len` is not a
        // multiple of 32).
        let t = &d[len - 32..];
        s0 = fold(read_u64(t, 0) ^ s0, read_u64(t, 8) ^ k[2]);
        s1 = fold(read_u64(t, 16) ^ s1, read_u64(t, 24) ^ k[3]);
        fold(s0 ^ k[1], s1 ^ k[0])
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
