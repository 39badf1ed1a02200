//! One `SyncInterner` shard's hash table: open addressing over `AtomicU64` slots
//! packing `[hash: 32][symbol + 1: 32]`, written once each.
//!
//! Readers load the current generation and probe with plain atomic loads: no lock,
//! no store. The shard's writer (holding the shard lock) fills empty slots, and
//! when the table is 3/4 full it builds the next generation (twice as big) from the
//! slots' own hash bits — never re-reading strings — and publishes it. Earlier
//! generations stay allocated (readers may still be probing them) until `&mut`
//! access ([`ShardTable::drop_old`]) proves no reader is left.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

const FIRST_BITS: u32 = 4;
/// Generations 0.. have `2^(FIRST_BITS + g)` slots; 29 reach 2^32 slots.
const GENERATIONS: usize = 29;

type Slots = Box<[AtomicU64]>;

pub(crate) struct ShardTable {
    gens: [OnceLock<Slots>; GENERATIONS],
    /// Index of the newest generation (valid once `gens[cur]` is set).
    cur: AtomicUsize,
}

fn new_slots(n: usize) -> Slots {
    (0..n).map(|_| AtomicU64::new(0)).collect()
}

/// The 32 hash bits a shard table keeps, from a full 64-bit hash (bits 16..48,
/// disjoint from the shard-selecting top bits).
#[inline]
pub(crate) fn hash32(h: u64) -> u32 {
    (h >> 16) as u32
}

impl ShardTable {
    pub(crate) fn new() -> ShardTable {
        ShardTable { gens: std::array::from_fn(|_| OnceLock::new()), cur: AtomicUsize::new(0) }
    }

    #[inline]
    fn current(&self) -> Option<&[AtomicU64]> {
        let g = self.cur.load(Ordering::Acquire);
        self.gens[g].get().map(|b| &b[..])
    }

    /// Finds the symbol index with hash `h` for which `eq` holds; returns it and
    /// the number of slots probed. Lock-free and store-free.
    #[inline]
    pub(crate) fn find(&self, h: u32, mut eq: impl FnMut(u32) -> bool) -> (Option<u32>, u32) {
        let Some(slots) = self.current() else {
            return (None, 0);
        };
        let mask = slots.len() - 1;
        let mut i = h as usize & mask;
        let mut probes = 0;
        loop {
            probes += 1;
            // Acquire: pairs with the writer's Release, so the symbol's column
            // entry (published before the slot) is visible.
            let v = slots[i].load(Ordering::Acquire);
            if v == 0 {
                return (None, probes);
            }
            if (v >> 32) as u32 == h {
                let idx = (v as u32) - 1;
                if eq(idx) {
                    return (Some(idx), probes);
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Bytes the next insert would newly allocate, given `len` entries now.
    pub(crate) fn grow_cost(&self, len: usize) -> usize {
        match self.current() {
            None => (1 << FIRST_BITS) * 8,
            Some(s) if (len + 1) * 4 > s.len() * 3 => s.len() * 2 * 8,
            Some(_) => 0,
        }
    }

    /// Inserts an absent entry. Caller holds the shard lock and passes the
    /// shard's entry count `len` (before this insert).
    pub(crate) fn insert(&self, len: usize, h: u32, index: u32) {
        let slots = match self.current() {
            Some(s) if (len + 1) * 4 <= s.len() * 3 => s,
            _ => self.grow(),
        };
        put(slots, h, index);
    }

    fn grow(&self) -> &[AtomicU64] {
        let (g, n) = match self.current() {
            None => (0, 1usize << FIRST_BITS),
            Some(s) => (self.cur.load(Ordering::Relaxed) + 1, s.len() * 2),
        };
        let next = new_slots(n);
        if let Some(old) = self.current() {
            for slot in old {
                let v = slot.load(Ordering::Relaxed);
                if v != 0 {
                    put(&next, (v >> 32) as u32, (v as u32) - 1);
                }
            }
        }
        assert!(self.gens[g].set(next).is_ok(), "generation set twice");
        // Release: readers that load `cur == g` see the filled generation.
        self.cur.store(g, Ordering::Release);
        self.gens[g].get().expect("just set")
    }

    /// Frees every generation but the newest (no reader can be probing them).
    pub(crate) fn drop_old(&mut self) {
        let cur = *self.cur.get_mut();
        for g in &mut self.gens[..cur] {
            g.take();
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.gens.iter().filter_map(|g| g.get()).map(|s| s.len() * 8).sum()
    }
}

fn put(slots: &[AtomicU64], h: u32, index: u32) {
    let mask = slots.len() - 1;
    let mut i = h as usize & mask;
    while slots[i].load(Ordering::Relaxed) != 0 {
        i = (i + 1) & mask;
    }
    let v = (u64::from(h) << 32) | u64::from(index + 1);
    slots[i].store(v, Ordering::Release);
}
