//! One `SyncInterner` shard's hash table: open addressing over `AtomicU64` slots
//! packing `[hash: 32][symbol + 1: 32]`, written once each.
//!
//! Readers load the current generation and probe with plain atomic loads: no lock,
//! no store. The shard's writer (holding the shard lock) fills empty slots, and
//! when the table is 3/4 full it builds the next generation (twice as big) from the
//! slots' own hash bits — never re-reading strings — and publishes it. Earlier
//! generations stay allocated (readers may still be probing them) until `&mut`
//! access ([`ShardTable::drop_old`]) proves no reader is left.

use super::arena::AllocFailed;
use super::segments::Segments;
use crate::sync::{AtomicU64, AtomicUsize, Ordering};

#[cfg(not(loom))]
const FIRST_BITS: u32 = 4;
/// Four slots under loom, so the fourth insert into a shard grows the table.
#[cfg(loom)]
const FIRST_BITS: u32 = 2;
/// Generations 0.. have `2^(FIRST_BITS + g)` slots; the last has 2^32 slots.
const GENERATIONS: usize = 33 - FIRST_BITS as usize;

pub(crate) struct ShardTable {
    gens: Segments<AtomicU64, FIRST_BITS, GENERATIONS>,
    /// Index of the newest generation (valid once `gens[cur]` is set).
    cur: AtomicUsize,
}

/// The 32 hash bits a shard table keeps, from a full 64-bit hash (bits 16..48,
/// disjoint from the shard-selecting top bits).
#[inline]
pub(crate) fn hash32(h: u64) -> u32 {
    (h >> 16) as u32
}

impl ShardTable {
    pub(crate) fn new() -> ShardTable {
        ShardTable { gens: Segments::new(), cur: AtomicUsize::new(0) }
    }

    #[inline]
    fn current(&self) -> Option<&[AtomicU64]> {
        // Acquire: pairs with `grow`'s Release store, so generation `g` is published
        // and filled (`Segments::get` acquires the pointer itself as well).
        let g = self.cur.load(Ordering::Acquire);
        self.gens.get(g)
    }

    /// Finds the symbol index with hash `h` for which `eq` holds; returns it and
    /// the number of slots probed. Lock-free and store-free.
    #[inline(always)]
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

    /// Makes room for one more entry, publishing a bigger generation if needed, or
    /// fails and changes nothing. Caller holds the shard lock and passes the shard's
    /// entry count `len`.
    pub(crate) fn try_reserve(&self, len: usize) -> Result<(), AllocFailed> {
        match self.current() {
            Some(s) if (len + 1) * 4 <= s.len() * 3 => Ok(()),
            _ => self.try_grow().map(|_| ()),
        }
    }

    /// Inserts an absent entry, for which [`try_reserve`](Self::try_reserve) made room.
    /// Caller holds the shard lock.
    pub(crate) fn insert(&self, h: u32, index: u32) {
        let slots = self.current().expect("try_reserve allocated a generation");
        put(slots, h, index);
    }

    fn try_grow(&self) -> Result<&[AtomicU64], AllocFailed> {
        let old = self.current();
        // Relaxed: only the writer (holding the shard lock) stores `cur`.
        let g = if old.is_some() { self.cur.load(Ordering::Relaxed) + 1 } else { 0 };
        assert!(self.gens.get(g).is_none(), "generation set twice");
        // The new generation is filled before `get_or_init` publishes it, and readers
        // reach it only through `cur`, stored below.
        let next = self.gens.try_get_or_init(
            g,
            || AtomicU64::new(0),
            |next| {
                for slot in old.into_iter().flatten() {
                    // Relaxed: every slot was stored by an earlier holder of the
                    // shard lock, which ordered those stores before this load.
                    let v = slot.load(Ordering::Relaxed);
                    if v != 0 {
                        put(next, (v >> 32) as u32, (v as u32) - 1);
                    }
                }
            },
        )?;
        // Release: readers that load `cur == g` see the filled generation.
        self.cur.store(g, Ordering::Release);
        Ok(next)
    }

    /// Frees every generation but the newest (no reader can be probing them).
    pub(crate) fn drop_old(&mut self) {
        // Relaxed: `&mut self` is exclusive.
        let cur = self.cur.load(Ordering::Relaxed);
        for g in 0..cur {
            self.gens.take(g);
        }
    }

    pub(crate) fn bytes(&self) -> usize {
        self.gens.bytes()
    }
}

fn put(slots: &[AtomicU64], h: u32, index: u32) {
    let mask = slots.len() - 1;
    let mut i = h as usize & mask;
    // Relaxed: only the shard's writer stores slots, and it holds the lock.
    while slots[i].load(Ordering::Relaxed) != 0 {
        i = (i + 1) & mask;
    }
    let v = (u64::from(h) << 32) | u64::from(index + 1);
    // Release: a reader that acquires the slot sees the symbol's column entry,
    // published before the insert.
    slots[i].store(v, Ordering::Release);
}
