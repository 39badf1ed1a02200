//! The single-threaded interner's hash table: a bucketed cuckoo table of packed
//! `u32` slots.
//!
//! * `2^bits` buckets of 8 slots (32 bytes). A string with 28-bit hash `h` lives in
//!   its primary bucket `h & mask` or its alternate `primary ^ alt_offset(tag)`.
//! * A slot packs `[alt: 1][tag: 28 - bits][symbol + 1: bits + 3]` into 32 bits, where
//!   `tag = h >> bits`. The bucket index plus the alt bit give back the low `bits` of
//!   the hash and the tag the rest, so **growth re-hashes from the slot alone** (never
//!   reading string bytes), and a lookup rejects a mismatch on the tag without
//!   touching the strings.
//! * Buckets fill left to right and never lose a slot (cuckoo kicks swap), and an
//!   entry only goes to its alternate while its primary is full, so a lookup whose
//!   primary bucket has a free slot stops there.
//! * Two choices of eight slots reach a 95 % load, so the table costs about
//!   4.2–8.4 bytes per string across a doubling (≈ 5 at 100 k strings).
//! * A tiny stash keeps the rare entry whose kick chain failed.

/// Slots per bucket.
const WAYS: usize = 8;
/// Hash bits kept per entry (bucket index + tag).
const HASH_BITS: u32 = 28;
/// Largest `bits` (then the tag has 0 bits and the symbol field 31).
pub(crate) const MAX_BITS: u32 = HASH_BITS;
const MIN_BITS: u32 = 1;
const MAX_KICKS: usize = 256;
const ALT: u32 = 1 << 31;

type Bucket = [u32; WAYS];

/// The 28 hash bits a table keeps, from a full 64-bit hash.
#[inline]
pub(crate) fn hash28(h: u64) -> u32 {
    (h >> (64 - HASH_BITS)) as u32
}

#[inline]
fn alt_offset(tag: u32, mask: u32) -> u32 {
    (tag.wrapping_mul(0x9E37_79B1).rotate_left(13) | 1) & mask
}

/// Result of a lookup, with the number of buckets (and stash) examined.
pub(crate) struct Found {
    pub(crate) index: Option<u32>,
    pub(crate) probes: u32,
}

pub(crate) struct SymTable {
    buckets: Vec<Bucket>,
    bits: u32,
    len: usize,
    stash: Vec<(u32, u32)>,
    rng: u32,
}

impl SymTable {
    pub(crate) fn new() -> SymTable {
        SymTable { buckets: Vec::new(), bits: 0, len: 0, stash: Vec::new(), rng: 0x2545_F491 }
    }

    /// Most entries `2^bits` buckets accept (95 % of the slots).
    fn max_len(bits: u32) -> usize {
        (WAYS << bits) / 20 * 19
    }

    /// Most entries the largest table accepts.
    pub(crate) fn max_entries() -> usize {
        Self::max_len(MAX_BITS)
    }

    /// Smallest `bits` that holds `n` entries, if any.
    fn bits_for(n: usize) -> Option<u32> {
        (MIN_BITS..=MAX_BITS).find(|&b| Self::max_len(b) >= n)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>()
            + self.stash.capacity() * std::mem::size_of::<(u32, u32)>()
    }

    /// Bytes a `reserve(additional)` would newly allocate (`None`: cannot grow).
    pub(crate) fn reserve_cost(&self, additional: usize) -> Option<usize> {
        let need = self.len.checked_add(additional)?;
        if !self.buckets.is_empty() && need <= Self::max_len(self.bits) {
            return Some(0);
        }
        let bits = Self::bits_for(need)?.max(self.bits);
        Some(std::mem::size_of::<Bucket>() << bits)
    }

    /// Makes room for `additional` more entries. Panics if impossible (check
    /// `reserve_cost` first).
    pub(crate) fn reserve(&mut self, additional: usize) {
        let need = self.len + additional;
        if self.buckets.is_empty() || need > Self::max_len(self.bits) {
            let bits = Self::bits_for(need).expect("table size checked").max(self.bits);
            self.rebuild(bits);
        }
    }

    /// Finds the entry with hash `h` (see [`hash28`]) for which `eq(index)` holds.
    #[inline]
    pub(crate) fn find(&self, h: u32, mut eq: impl FnMut(u32) -> bool) -> Found {
        if self.buckets.is_empty() {
            return Found { index: None, probes: 0 };
        }
        let bits = self.bits;
        let mask = (1u32 << bits) - 1;
        let sym_bits = bits + 3;
        let sym_mask = (1u32 << sym_bits) - 1;
        let tag = h >> bits;
        let primary = h & mask;
        let want = tag << sym_bits;
        for &slot in &self.buckets[primary as usize] {
            if slot == 0 {
                return Found { index: None, probes: 1 };
            }
            if slot & !sym_mask == want && eq((slot & sym_mask) - 1) {
                return Found { index: Some((slot & sym_mask) - 1), probes: 1 };
            }
        }
        let alt = primary ^ alt_offset(tag, mask);
        for &slot in &self.buckets[alt as usize] {
            if slot == 0 {
                break;
            }
            if slot & !sym_mask == want | ALT && eq((slot & sym_mask) - 1) {
                return Found { index: Some((slot & sym_mask) - 1), probes: 2 };
            }
        }
        if !self.stash.is_empty() {
            for &(sh, idx) in &self.stash {
                if sh == h && eq(idx) {
                    return Found { index: Some(idx), probes: 3 };
                }
            }
            return Found { index: None, probes: 3 };
        }
        Found { index: None, probes: 2 }
    }

    /// Adds an entry known to be absent; `reserve(1)` must have been called.
    pub(crate) fn insert(&mut self, h: u32, index: u32) {
        debug_assert!(self.len < Self::max_len(self.bits));
        if let Some(homeless) = self.place(h, index) {
            self.stash.push(homeless);
            // Repeated failures at a decent load: grow. At a low load they mean
            // colliding hashes, which a bigger table would not separate.
            if self.stash.len() > 8 && self.len * 2 > (WAYS << self.bits) && self.bits < MAX_BITS {
                self.rebuild(self.bits + 1);
            }
        }
        self.len += 1;
    }

    fn next_rand(&mut self) -> u32 {
        // xorshift32
        let mut x = self.rng;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.rng = x;
        x
    }

    /// Places an entry, kicking others; returns the `(hash, index)` left homeless.
    fn place(&mut self, h: u32, index: u32) -> Option<(u32, u32)> {
        let bits = self.bits;
        let mask = (1u32 << bits) - 1;
        let sym_bits = bits + 3;
        let tag = h >> bits;
        let primary = h & mask;
        let alt = primary ^ alt_offset(tag, mask);
        let slot = (tag << sym_bits) | (index + 1);
        if self.put(primary, slot) || self.put(alt, slot | ALT) {
            return None;
        }
        let (mut bucket, mut val) = if self.next_rand() & 1 == 0 { (primary, slot) } else { (alt, slot | ALT) };
        for _ in 0..MAX_KICKS {
            let way = (self.next_rand() as usize) % WAYS;
            std::mem::swap(&mut self.buckets[bucket as usize][way], &mut val);
            let vtag = (val & !ALT) >> sym_bits;
            bucket ^= alt_offset(vtag, mask);
            val ^= ALT;
            if self.put(bucket, val) {
                return None;
            }
        }
        Some(self.decode(bucket, val))
    }

    /// `(hash, index)` of slot value `val` sitting in `bucket`.
    fn decode(&self, bucket: u32, val: u32) -> (u32, u32) {
        let bits = self.bits;
        let mask = (1u32 << bits) - 1;
        let sym_bits = bits + 3;
        let tag = (val & !ALT) >> sym_bits;
        let primary = if val & ALT == 0 { bucket } else { bucket ^ alt_offset(tag, mask) };
        ((tag << bits) | primary, (val & ((1u32 << sym_bits) - 1)) - 1)
    }

    fn put(&mut self, bucket: u32, val: u32) -> bool {
        let b = &mut self.buckets[bucket as usize];
        match b.iter().position(|&s| s == 0) {
            Some(w) => {
                b[w] = val;
                true
            }
            None => false,
        }
    }

    /// Re-inserts everything into `2^bits` buckets, from the slots' own bits.
    fn rebuild(&mut self, bits: u32) {
        let mut next =
            SymTable { buckets: vec![[0; WAYS]; 1 << bits], bits, len: self.len, stash: Vec::new(), rng: self.rng };
        for (b, bucket) in self.buckets.iter().enumerate() {
            for &val in bucket.iter().take_while(|&&v| v != 0) {
                let (h, idx) = self.decode(b as u32, val);
                if let Some(homeless) = next.place(h, idx) {
                    next.stash.push(homeless);
                }
            }
        }
        for &(h, idx) in &self.stash {
            if let Some(homeless) = next.place(h, idx) {
                next.stash.push(homeless);
            }
        }
        *self = next;
    }

    /// Shrinks to the smallest table that holds the current entries.
    pub(crate) fn shrink_to_fit(&mut self) {
        if self.len == 0 {
            *self = SymTable::new();
            return;
        }
        if let Some(bits) = Self::bits_for(self.len) {
            if bits < self.bits {
                self.rebuild(bits);
            }
        }
        self.stash.shrink_to_fit();
    }

    #[cfg(test)]
    pub(crate) fn stash_len(&self) -> usize {
        self.stash.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_find_grow_without_keys() {
        let mut t = SymTable::new();
        let hashes: Vec<u32> =
            (0..50_000u32).map(|i| hash28(rapidhash::rapidhash_seeded(&i.to_le_bytes(), 7))).collect();
        for (i, &h) in hashes.iter().enumerate() {
            t.reserve(1);
            t.insert(h, i as u32);
        }
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == i as u32).index, Some(i as u32));
        }
        assert!(t.stash_len() < 16);
        t.shrink_to_fit();
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(t.find(h, |x| x == i as u32).index, Some(i as u32));
        }
    }

    #[test]
    fn colliding_hashes_use_the_stash() {
        let mut t = SymTable::new();
        for i in 0..40u32 {
            t.reserve(1);
            t.insert(12345, i);
        }
        for i in 0..40u32 {
            assert_eq!(t.find(12345, |x| x == i).index, Some(i));
        }
    }
}
