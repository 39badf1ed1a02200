//! The single-threaded interner's hash table: a bucketed cuckoo table of packed
//! `u32` slots, sixteen to a 64-byte bucket (one cache line).
//!
//! * `2^bits` buckets. A string with 27-bit hash `h` lives in its primary bucket
//!   `h & mask` or its alternate `primary ^ alt_offset(tag)`.
//! * A slot packs `[alt: 1][tag: 27 - bits][symbol + 1: bits + 4]` into 32 bits,
//!   where `tag = h >> bits`; a free slot is `u32::MAX`. The bucket index plus the
//!   alt bit give back the low `bits` of the hash and the tag the rest, so **growth
//!   re-hashes from the slot alone** (never reading string bytes), and a lookup
//!   rejects a mismatch on the tag without touching the strings.
//! * A lookup compares the whole bucket against the wanted tag at once
//!   ([`simd::match_masked`]: SSE2 on x86-64, a plain loop elsewhere): the slots are stored as high and low 16-bit
//!   halves, and the high halves hold the alt bit and the tag (its top 15 bits
//!   while the table has at most 2^16 slots, all of it beyond). A free slot never
//!   matches a primary-bucket lookup (its alt bit is set), so the hit path needs
//!   no emptiness test.
//! * Buckets fill left to right and never lose a slot (cuckoo kicks swap), and an
//!   entry only goes to its alternate while its primary is full, so a lookup whose
//!   primary bucket has a free slot stops there. Sixteen slots per bucket keep
//!   most entries in their primary bucket at the loads the table runs at.
//! * Inserting: a new entry takes the first free slot of its primary bucket, else
//!   of its alternate ([`SymTable::free_slot`], one SIMD compare per bucket, no
//!   search); only when both are full does it kick others (a random walk).
//! * The table doubles at 90 % load: two choices of sixteen slots would reach 95 %,
//!   but the last few percent cost a kick chain for one insert in twenty or so,
//!   which showed in the interner's counted fill. So it costs about 4.4–8.9 bytes
//!   per string across a doubling (≈ 5.2 at 50 k or 100 k strings).
//! * Doubling splits each bucket by the masks of its alt bit and of the hash bit
//!   that becomes part of the bucket index (SIMD compares of the slot halves);
//!   the entries sitting in their alternate bucket are placed afterwards.
//! * A tiny stash keeps the rare entry whose kick chain failed.

use super::arena::AllocFailed;
use super::simd::{self, Lanes16, Splat8};

/// Slots per bucket.
const WAYS: usize = 16;
/// log2 of [`WAYS`].
const WAY_BITS: u32 = 4;
/// Hash bits kept per entry (bucket index + tag).
pub(crate) const HASH_BITS: u32 = 27;
/// Largest `bits` (then the tag has 0 bits and the symbol field 31).
const MAX_BITS: u32 = HASH_BITS;
const MIN_BITS: u32 = 1;
const MAX_KICKS: usize = 256;
const ALT: u32 = 1 << 31;
/// A free slot. Its alt bit is set, so it never matches a primary-bucket lookup;
/// no real slot equals it (a symbol field of all ones would need more symbols
/// than the table accepts).
const FREE: u32 = u32::MAX;

/// Sixteen `u32` slots in one cache line, stored as their high and low halves so
/// that a probe compares only the halves holding the tag (sixteen 16-bit lanes:
/// two SSE2 compares).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
pub(crate) struct Bucket {
    hi: Lanes16,
    lo: Lanes16,
}

/// What an empty table's lookups read: one bucket of free slots.
static EMPTY: Bucket = Bucket::FREE;

/// The hash bits a table keeps, from a full 64-bit hash.
#[inline(always)]
pub(crate) fn hash27(h: u64) -> u32 {
    (h >> (64 - HASH_BITS)) as u32
}

#[inline]
fn alt_offset(tag: u32, mask: u32) -> u32 {
    (tag.wrapping_mul(0x9E37_79B1).rotate_left(13) | 1) & mask
}

impl Bucket {
    const FREE: Bucket = Bucket { hi: Lanes16([u16::MAX; WAYS]), lo: Lanes16([u16::MAX; WAYS]) };

    #[inline(always)]
    fn slot(&self, k: usize) -> u32 {
        (u32::from(self.hi.0[k]) << 16) | u32::from(self.lo.0[k])
    }

    #[inline(always)]
    fn set(&mut self, k: usize, v: u32) {
        self.hi.0[k] = (v >> 16) as u16;
        self.lo.0[k] = v as u16;
    }

    /// The occupied slots (a prefix: buckets fill left to right).
    fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        (0..WAYS).map(|k| self.slot(k)).take_while(|&v| v != FREE)
    }

    /// Bit `k` set when the high half of slot `k`, masked by `m`, equals `w`.
    #[inline(always)]
    fn match_hi(&self, m: &Splat8, w: u16) -> u32 {
        simd::match_masked(&self.hi, m, w)
    }

    /// Whether every slot is taken (buckets fill left to right: the last one is).
    #[inline(always)]
    fn is_full(&self) -> bool {
        self.hi.0[WAYS - 1] & self.lo.0[WAYS - 1] != u16::MAX
    }

    /// Bit `k` set when slot `k` sits in its alternate bucket (or is free).
    #[inline(always)]
    fn alt_mask(&self) -> u32 {
        simd::top_bits(&self.hi)
    }

    /// Bit `k` set when bit `bit` of slot `k` is.
    #[inline(always)]
    fn bit_mask(&self, bit: u32) -> u32 {
        let (lanes, b) = if bit < 16 { (&self.lo, bit) } else { (&self.hi, bit - 16) };
        let m = 1u16 << b;
        simd::match_masked(lanes, &Splat8::new(m), m)
    }

    /// Bit `k` set when slot `k` is free.
    #[inline(always)]
    fn free_mask(&self) -> u32 {
        simd::both_all_ones(&self.hi, &self.lo)
    }
}

/// A primary-bucket probe: the bucket and the slots whose tag matched.
pub(crate) struct Probe<'a> {
    pub(crate) bucket: &'a Bucket,
    pub(crate) matches: u32,
}

impl Probe<'_> {
    /// No entry with this hash lives outside the primary bucket (it has a free slot).
    #[inline(always)]
    pub(crate) fn has_room(&self) -> bool {
        !self.bucket.is_full()
    }

    /// The slot of the lowest match (`matches != 0`).
    #[inline(always)]
    pub(crate) fn first(&self) -> u32 {
        self.bucket.slot(self.matches.trailing_zeros() as usize)
    }
}

/// A free slot for a new entry: see [`SymTable::free_slot`].
#[derive(Clone, Copy)]
pub(crate) struct FreeSlot {
    bucket: usize,
    way: usize,
    /// [`ALT`] when `bucket` is the entry's alternate, else 0.
    alt: u32,
}

/// Result of a slow lookup, with the number of buckets (and stash) examined.
pub(crate) struct Found {
    pub(crate) index: Option<u32>,
    pub(crate) probes: u32,
}

pub(crate) struct SymTable {
    /// `buckets.as_ptr()`, or [`EMPTY`] before the first allocation.
    ptr: *const Bucket,
    /// `buckets.len() - 1` (0 before the first allocation).
    mask: u32,
    /// Low `bits + WAY_BITS` bits: the symbol field (0 before the first allocation).
    sym_mask: u32,
    /// `!sym_mask >> 16` in every lane: the tag (and alt) bits of a slot's high half.
    hi_mask: Splat8,
    bits: u32,
    buckets: Vec<Bucket>,
    len: usize,
    /// `max_len(bits)` once allocated, 0 before.
    grow_at: usize,
    stash: Vec<(u32, u32)>,
    rng: u32,
}

// SAFETY: `ptr` points into `buckets` (owned, only written through `&mut self`) or
// at an immutable static; the table has no interior mutability.
unsafe impl Send for SymTable {}
// SAFETY: as above: `&SymTable` only reads.
unsafe impl Sync for SymTable {}

impl SymTable {
    pub(crate) fn new() -> SymTable {
        SymTable {
            ptr: &EMPTY,
            mask: 0,
            sym_mask: 0,
            hi_mask: Splat8::new(u16::MAX),
            bits: 0,
            buckets: Vec::new(),
            len: 0,
            grow_at: 0,
            stash: Vec::new(),
            rng: 0x2545_F491,
        }
    }

    /// Most entries `2^bits` buckets accept (90 % of the slots).
    fn max_len(bits: u32) -> usize {
        (WAYS << bits) / 10 * 9
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

    /// Bytes a `try_reserve(additional)` would newly allocate (`None`: cannot grow).
    #[inline]
    pub(crate) fn reserve_cost(&self, additional: usize) -> Option<usize> {
        let need = self.len.checked_add(additional)?;
        if need <= self.grow_at {
            return Some(0);
        }
        let bits = Self::bits_for(need)?.max(self.bits);
        Some(std::mem::size_of::<Bucket>() << bits)
    }

    /// Makes room for `additional` more entries, or fails and leaves the table as it
    /// was: out of memory, or more entries than the largest table holds (check
    /// `reserve_cost` first to tell the two apart).
    #[inline]
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), AllocFailed> {
        let need = self.len.saturating_add(additional);
        if need > self.grow_at {
            self.try_grow(need)?;
        }
        Ok(())
    }

    /// Makes every allocation that [`insert`](Self::insert) of hash `h` may need: room
    /// for one more entry, and room in the stash when `h`'s primary bucket is full (the
    /// only case in which the entry, or one it kicks, can end up there; buckets fill
    /// left to right, so a bucket is full when its last slot is).
    #[inline]
    pub(crate) fn try_reserve_insert(&mut self, h: u32) -> Result<(), AllocFailed> {
        self.try_reserve(1)?;
        if self.stash.len() == self.stash.capacity() && self.buckets[(h & self.mask) as usize].is_full() {
            self.stash.try_reserve(1).map_err(|_| AllocFailed { bytes: 8 * (self.stash.capacity() + 1) })?;
        }
        Ok(())
    }

    #[cold]
    fn try_grow(&mut self, need: usize) -> Result<(), AllocFailed> {
        let bits = Self::bits_for(need).ok_or(AllocFailed { bytes: usize::MAX })?.max(self.bits);
        if bits == self.bits + 1 && !self.buckets.is_empty() { self.try_double() } else { self.try_rebuild(bits) }
    }

    /// The symbol field of a slot: symbol index + 1 (nonzero for a real slot).
    #[inline(always)]
    pub(crate) fn sym_plus_one(&self, slot: u32) -> u32 {
        slot & self.sym_mask
    }

    /// Compares the primary bucket of hash `h` (see [`hash27`]) against its tag.
    /// A match's symbol field is always a real entry's.
    #[inline(always)]
    pub(crate) fn probe(&self, h: u32) -> Probe<'_> {
        // SAFETY: `h & mask < buckets.len()` once allocated; before that `mask` is 0
        // and `ptr` is the static empty bucket.
        let bucket = unsafe { &*self.ptr.add((h & self.mask) as usize) };
        let hi = !self.sym_mask;
        // `h < 2^27`, so the alt bit of `want` is clear: free slots never match.
        let want = (h << WAY_BITS) & hi;
        Probe { bucket, matches: bucket.match_hi(&self.hi_mask, (want >> 16) as u16) }
    }

    /// Full lookup: every match of the primary bucket, then (if it is full) the
    /// alternate bucket and the stash.
    #[inline(always)]
    pub(crate) fn find(&self, h: u32, mut eq: impl FnMut(u32) -> bool) -> Found {
        let p = self.probe(h);
        let mut m = p.matches;
        while m != 0 {
            let idx = self.sym_plus_one(p.bucket.slot(m.trailing_zeros() as usize)) - 1;
            if eq(idx) {
                return Found { index: Some(idx), probes: 1 };
            }
            m &= m - 1;
        }
        if p.has_room() {
            return Found { index: None, probes: 1 };
        }
        let bits = self.bits;
        let tag = h >> bits;
        let alt = (h & self.mask) ^ alt_offset(tag, self.mask);
        let b = &self.buckets[alt as usize];
        let hi = !self.sym_mask;
        let want = ((h << WAY_BITS) & hi) | ALT;
        let mut m = b.match_hi(&self.hi_mask, (want >> 16) as u16);
        while m != 0 {
            let slot = b.slot(m.trailing_zeros() as usize);
            if slot == FREE {
                // Only at the largest size (no tag bits) can a free slot match.
                break;
            }
            let idx = self.sym_plus_one(slot) - 1;
            if eq(idx) {
                return Found { index: Some(idx), probes: 2 };
            }
            m &= m - 1;
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

    /// Where an entry of hash `h` can go without growing the table or moving another
    /// entry, if the table is below its growth point: the first free slot of its
    /// primary bucket, or of its alternate when the primary is full.
    /// [`fill`](Self::fill) puts it there.
    #[inline(always)]
    pub(crate) fn free_slot(&self, h: u32) -> Option<FreeSlot> {
        if self.len >= self.grow_at {
            return None;
        }
        let primary = h & self.mask;
        let free = self.buckets[primary as usize].free_mask();
        if free != 0 {
            return Some(FreeSlot { bucket: primary as usize, way: free.trailing_zeros() as usize, alt: 0 });
        }
        self.free_alt_slot(h)
    }

    /// [`free_slot`](Self::free_slot) in the primary bucket only.
    #[inline(always)]
    pub(crate) fn free_primary_slot(&self, h: u32) -> Option<FreeSlot> {
        if self.len >= self.grow_at {
            return None;
        }
        let primary = (h & self.mask) as usize;
        let free = self.buckets[primary].free_mask();
        (free != 0).then(|| FreeSlot { bucket: primary, way: free.trailing_zeros() as usize, alt: 0 })
    }

    /// [`free_slot`](Self::free_slot) in the alternate bucket (the primary is full).
    #[inline(always)]
    fn free_alt_slot(&self, h: u32) -> Option<FreeSlot> {
        let alt = (h & self.mask) ^ alt_offset(h >> self.bits, self.mask);
        let free = self.buckets[alt as usize].free_mask();
        (free != 0).then(|| FreeSlot { bucket: alt as usize, way: free.trailing_zeros() as usize, alt: ALT })
    }

    /// Adds an entry known to be absent at `at`, which [`free_slot`](Self::free_slot)
    /// returned for `h` with no change to the table since.
    #[inline(always)]
    pub(crate) fn fill(&mut self, at: FreeSlot, h: u32, index: u32) {
        debug_assert!(self.len < self.grow_at);
        self.len += 1;
        let slot = ((h << WAY_BITS) & !self.sym_mask) | (index + 1) | at.alt;
        self.buckets[at.bucket].set(at.way, slot);
    }

    /// Adds an entry known to be absent; `try_reserve_insert(h)` must have succeeded.
    #[inline]
    pub(crate) fn insert(&mut self, h: u32, index: u32) {
        debug_assert!(self.len < self.grow_at);
        self.len += 1;
        // The common case: a free slot in the primary bucket.
        let primary = (h & self.mask) as usize;
        let slot = ((h << WAY_BITS) & !self.sym_mask) | (index + 1);
        let b = &mut self.buckets[primary];
        let free = b.free_mask();
        if free != 0 {
            b.set(free.trailing_zeros() as usize, slot);
            return;
        }
        self.insert_slow(h, index);
    }

    #[cold]
    fn insert_slow(&mut self, h: u32, index: u32) {
        if let Some(homeless) = self.place(h, index) {
            // `try_reserve_insert` left room in the stash.
            debug_assert!(self.stash.len() < self.stash.capacity());
            self.stash.push(homeless);
            // Repeated failures at a decent load: grow. At a low load they mean
            // colliding hashes, which a bigger table would not separate. Growing is
            // optional here: if it fails, the stash keeps the entries.
            if self.stash.len() > 8 && self.len * 2 > (WAYS << self.bits) && self.bits < MAX_BITS {
                let _ = self.try_rebuild(self.bits + 1);
            }
        }
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
        let mask = self.mask;
        let sym_bits = bits + WAY_BITS;
        let tag = h >> bits;
        let primary = h & mask;
        let slot = (tag << sym_bits) | (index + 1);
        if self.put(primary, slot) {
            return None;
        }
        let alt = primary ^ alt_offset(tag, mask);
        if self.put(alt, slot | ALT) {
            return None;
        }
        let (mut bucket, mut val) = if self.next_rand() & 1 == 0 { (primary, slot) } else { (alt, slot | ALT) };
        for _ in 0..MAX_KICKS {
            let way = (self.next_rand() as usize) % WAYS;
            let b = &mut self.buckets[bucket as usize];
            let kicked = b.slot(way);
            b.set(way, val);
            val = kicked;
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
        let sym_bits = bits + WAY_BITS;
        let tag = (val & !ALT) >> sym_bits;
        let primary = if val & ALT == 0 { bucket } else { bucket ^ alt_offset(tag, self.mask) };
        ((tag << bits) | primary, (val & self.sym_mask) - 1)
    }

    /// Puts `val` in the first free slot of `bucket`, if any.
    #[inline]
    fn put(&mut self, bucket: u32, val: u32) -> bool {
        let b = &mut self.buckets[bucket as usize];
        // Slots fill left to right: the free ones are a suffix.
        let free = b.free_mask();
        if free == 0 {
            return false;
        }
        b.set(free.trailing_zeros() as usize, val);
        true
    }

    /// An empty table of `2^bits` buckets with this one's length and generator.
    fn try_empty_like(&self, bits: u32) -> Result<SymTable, AllocFailed> {
        let n = 1usize << bits;
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(n).map_err(|_| AllocFailed { bytes: n * std::mem::size_of::<Bucket>() })?;
        buckets.resize(n, Bucket::FREE);
        let mut t = SymTable {
            ptr: &EMPTY,
            mask: (1u32 << bits) - 1,
            sym_mask: (1u32 << (bits + WAY_BITS)) - 1,
            hi_mask: Splat8::new((!((1u32 << (bits + WAY_BITS)) - 1) >> 16) as u16),
            bits,
            buckets,
            len: self.len,
            grow_at: Self::max_len(bits),
            stash: Vec::new(),
            rng: self.rng,
        };
        t.ptr = t.buckets.as_ptr();
        Ok(t)
    }

    /// Places `(h, index)` in `self`, a table being built, stashing it if homeless.
    fn try_place_or_stash(&mut self, h: u32, index: u32) -> Result<(), AllocFailed> {
        if let Some(homeless) = self.place(h, index) {
            self.stash.try_reserve(1).map_err(|_| AllocFailed { bytes: 8 * (self.stash.capacity() + 1) })?;
            self.stash.push(homeless);
        }
        Ok(())
    }

    /// Re-inserts everything into `2^bits` buckets, from the slots' own bits. On
    /// failure the table is as it was.
    fn try_rebuild(&mut self, bits: u32) -> Result<(), AllocFailed> {
        let mut next = self.try_empty_like(bits)?;
        for (b, bucket) in self.buckets.iter().enumerate() {
            for val in bucket.slots() {
                let (h, idx) = self.decode(b as u32, val);
                next.try_place_or_stash(h, idx)?;
            }
        }
        for &(h, idx) in &self.stash {
            next.try_place_or_stash(h, idx)?;
        }
        *self = next;
        Ok(())
    }

    /// Doubles the table. An entry in its primary bucket `b` moves to `b` or
    /// `b + 2^bits` by the tag's low bit, which leaves the slot (the symbol field
    /// grows by that bit): bucket `b`'s primaries split in order into two fresh
    /// buckets, with no search. The few entries sitting in their alternate bucket,
    /// and the stash, are placed afterwards. On failure the table is as it was.
    fn try_double(&mut self) -> Result<(), AllocFailed> {
        let old_bits = self.bits;
        let mut next = self.try_empty_like(old_bits + 1)?;
        let half = 1usize << old_bits;
        let split = 1u32 << (old_bits + WAY_BITS);
        let (split_hi, split_lo) = ((split >> 16) as u16, split as u16);
        let mut later = Vec::new();
        let (lower_half, upper_half) = next.buckets.split_at_mut(half);
        for (b, ((bucket, to_lower), to_upper)) in
            self.buckets.iter().zip(lower_half.iter_mut()).zip(upper_half.iter_mut()).enumerate()
        {
            let used = !bucket.free_mask() & ((1 << WAYS) - 1);
            let alt = bucket.alt_mask() & used;
            let upper = bucket.bit_mask(old_bits + WAY_BITS) & used & !alt;
            // Each half moves as it is (`& (WAYS - 1)` only spares the bounds checks).
            let (mut lower, mut k) = (used & !alt & !upper, 0);
            while lower != 0 {
                let j = lower.trailing_zeros() as usize & (WAYS - 1);
                to_lower.hi.0[k & (WAYS - 1)] = bucket.hi.0[j];
                to_lower.lo.0[k & (WAYS - 1)] = bucket.lo.0[j];
                k += 1;
                lower &= lower - 1;
            }
            let (mut upper, mut k) = (upper, 0);
            while upper != 0 {
                let j = upper.trailing_zeros() as usize & (WAYS - 1);
                to_upper.hi.0[k & (WAYS - 1)] = bucket.hi.0[j] & !split_hi;
                to_upper.lo.0[k & (WAYS - 1)] = bucket.lo.0[j] & !split_lo;
                k += 1;
                upper &= upper - 1;
            }
            let mut alt = alt;
            if alt != 0 && later.capacity() - later.len() < WAYS {
                // Room for about as many as this bucket's share of the table.
                let more = (self.len >> old_bits).max(WAYS);
                later.try_reserve(more).map_err(|_| AllocFailed { bytes: 8 * (later.len() + more) })?;
            }
            while alt != 0 {
                later.push(self.decode(b as u32, bucket.slot(alt.trailing_zeros() as usize)));
                alt &= alt - 1;
            }
        }
        for &(h, idx) in later.iter().chain(&self.stash) {
            if !next.put_entry(h, idx) {
                next.try_place_or_stash(h, idx)?;
            }
        }
        *self = next;
        Ok(())
    }

    /// Puts `(h, index)` in a free slot of its primary bucket, or of its alternate when
    /// the primary is full, if either has one (the table's length is left alone).
    #[inline]
    fn put_entry(&mut self, h: u32, index: u32) -> bool {
        let primary = h & self.mask;
        let slot = ((h << WAY_BITS) & !self.sym_mask) | (index + 1);
        self.put(primary, slot) || self.put(primary ^ alt_offset(h >> self.bits, self.mask), slot | ALT)
    }

    /// Shrinks to the smallest table that holds the current entries.
    pub(crate) fn shrink_to_fit(&mut self) {
        if self.len == 0 {
            *self = SymTable::new();
            return;
        }
        if let Some(bits) = Self::bits_for(self.len)
            && bits < self.bits
        {
            // Shrinking is optional: without memory for the smaller copy, the
            // table stays as it is.
            let _ = self.try_rebuild(bits);
        }
        self.stash.shrink_to_fit();
    }

    #[cfg(test)]
    pub(crate) fn stash_len(&self) -> usize {
        self.stash.len()
    }

    /// Every `(hash, index)` held, in no particular order.
    #[cfg(test)]
    pub(crate) fn entries(&self) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        for (b, bucket) in self.buckets.iter().enumerate() {
            for val in bucket.slots() {
                v.push(self.decode(b as u32, val));
            }
        }
        v.extend_from_slice(&self.stash);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(t: &SymTable, h: u32, want: u32) -> Option<u32> {
        t.find(h, |x| x == want).index
    }

    /// The table's hash bits of the integers `0..n` under `seed`.
    fn test_hashes(n: u32, seed: u64) -> Vec<u32> {
        (0..n).map(|i| hash27(rapidhash::rapidhash_seeded(&i.to_le_bytes(), seed))).collect()
    }

    #[test]
    fn insert_find_grow_without_keys() {
        let mut t = SymTable::new();
        let hashes = test_hashes(50_000, 7);
        for (i, &h) in hashes.iter().enumerate() {
            t.try_reserve_insert(h).unwrap();
            t.insert(h, i as u32);
        }
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(find(&t, h, i as u32), Some(i as u32));
        }
        assert!(t.stash_len() < 16);
        t.shrink_to_fit();
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(find(&t, h, i as u32), Some(i as u32));
        }
    }

    #[test]
    fn doubling_keeps_every_entry() {
        let mut t = SymTable::new();
        let hashes = test_hashes(20_000, 3);
        for (i, &h) in hashes.iter().enumerate() {
            t.try_reserve_insert(h).unwrap();
            t.insert(h, i as u32);
            if i % 997 == 0 {
                let mut got = t.entries();
                got.sort_unstable_by_key(|&(_, idx)| idx);
                let want: Vec<(u32, u32)> = hashes[..=i].iter().enumerate().map(|(k, &h)| (h, k as u32)).collect();
                assert_eq!(got, want, "after {i}");
            }
        }
        for (i, &h) in hashes.iter().enumerate() {
            assert_eq!(find(&t, h, i as u32), Some(i as u32));
        }
    }

    #[test]
    fn colliding_hashes_use_the_stash() {
        let mut t = SymTable::new();
        for i in 0..60u32 {
            t.try_reserve_insert(12345).unwrap();
            t.insert(12345, i);
        }
        for i in 0..60u32 {
            assert_eq!(find(&t, 12345, i), Some(i));
        }
        assert!(t.stash_len() > 0);
    }

    #[test]
    fn empty_table_finds_nothing() {
        let t = SymTable::new();
        for h in [0, 1, 12345, (1 << HASH_BITS) - 1] {
            let p = t.probe(h);
            assert_eq!(p.matches, 0);
            assert!(p.has_room());
            assert_eq!(find(&t, h, 0), None);
        }
    }

    #[test]
    fn free_slots_never_match_a_primary_probe() {
        // Tag 0 (the hash's high bits clear) would match a zero free slot; ours has
        // the alt bit set.
        let mut t = SymTable::new();
        t.try_reserve_insert(3).unwrap();
        t.insert(3, 0);
        for h in 0..64u32 {
            let p = t.probe(h);
            let mut m = p.matches;
            while m != 0 {
                assert_ne!(p.bucket.slot(m.trailing_zeros() as usize), FREE);
                m &= m - 1;
            }
        }
    }

    #[test]
    fn primary_probe_sees_the_first_match() {
        let mut t = SymTable::new();
        let hashes: Vec<u32> =
            (0..5_000u32).map(|i| hash27(rapidhash::rapidhash_seeded(&i.to_le_bytes(), 9))).collect();
        for (i, &h) in hashes.iter().enumerate() {
            t.try_reserve_insert(h).unwrap();
            t.insert(h, i as u32);
        }
        let mut primary = 0;
        for (i, &h) in hashes.iter().enumerate() {
            let p = t.probe(h);
            if p.matches != 0 && t.sym_plus_one(p.first()) - 1 == i as u32 {
                primary += 1;
            }
        }
        // Most entries sit first-match in their primary bucket.
        assert!(primary * 10 > hashes.len() * 9, "{primary}");
    }
}
