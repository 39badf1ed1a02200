//! Lookup counters, one type for every table in the crate: the atom table's shards, the
//! `SyncInterner`'s shards and the single-threaded `Interner` all count lookups, hits,
//! misses, inserts and probes the same way, and their memory reports read them from
//! [`Counters`].
//!
//! * [`Counters`]: plain integers, for counters that live under a lock (a shard's) or
//!   behind `&mut`; updating them costs a few adds on a cache line the lookup owns.
//! * [`RelaxedCounters`]: the same figures counted through `&self` (the `Interner`
//!   counts its `get`s, which take `&self`), as relaxed loads and stores.
//! * [`Counter`]: where a lookup reports its outcome, so that readers which must write
//!   no memory at all pass [`Uncounted`] and the counting compiles away.

#[cfg(feature = "interner")]
use crate::sync::{AtomicU64, Ordering};

/// Lookup and insert counts of one table (or the sum of several).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct Counters {
    pub(crate) lookups: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) inserts: u64,
    pub(crate) removals: u64,
    /// Probes (candidate entries, slots or buckets examined), summed over all lookups.
    pub(crate) probes: u64,
    pub(crate) max_probe: u64,
    /// The most entries one lookup compared in full (the atom table's slots reject most
    /// entries by their hash tag, so this stays far below `max_probe`).
    pub(crate) max_compared: u64,
}

impl Counters {
    pub(crate) fn record_lookup(&mut self, probes: u64) {
        self.lookups += 1;
        self.probes += probes;
        self.max_probe = self.max_probe.max(probes);
    }

    pub(crate) fn record_compared(&mut self, compared: u64) {
        self.max_compared = self.max_compared.max(compared);
    }

    pub(crate) fn add(&mut self, other: &Counters) {
        self.lookups += other.lookups;
        self.hits += other.hits;
        self.misses += other.misses;
        self.inserts += other.inserts;
        self.removals += other.removals;
        self.probes += other.probes;
        self.max_probe = self.max_probe.max(other.max_probe);
        self.max_compared = self.max_compared.max(other.max_compared);
    }

    /// Mean probes per lookup (0 with no lookups).
    #[cfg(feature = "interner")]
    pub(crate) fn mean_probe(&self) -> f64 {
        if self.lookups == 0 { 0.0 } else { self.probes as f64 / self.lookups as f64 }
    }
}

/// Where a lookup reports its outcome: a table's own [`RelaxedCounters`], or
/// [`Uncounted`] for readers that must write no memory at all (the frozen `Resolver`).
#[cfg(feature = "interner")]
pub(crate) trait Counter {
    /// A lookup that found its string in the first bucket it examined.
    fn fast_hit(&self);
    /// A lookup that missed after examining one bucket.
    fn fast_miss(&self);
    /// Any other lookup: whether it found its string, and the probes it took.
    fn lookup(&self, hit: bool, probes: u32);
}

/// Counts nothing (every method compiles to nothing).
#[cfg(feature = "interner")]
pub(crate) struct Uncounted;

#[cfg(feature = "interner")]
impl Counter for Uncounted {
    #[inline(always)]
    fn fast_hit(&self) {}
    #[inline(always)]
    fn fast_miss(&self) {}
    #[inline(always)]
    fn lookup(&self, _: bool, _: u32) {}
}

/// [`Counters`] bumped through `&self` with a plain load and store each (no locked
/// instruction): exact when used from one thread, possibly lossy under concurrent
/// `&` readers. Every access is Relaxed: the counters are statistics and order no
/// other memory.
///
/// The two common outcomes of a one-probe lookup each bump a single counter
/// (`fast_hits`, `fast_misses`), folded into the others by [`snapshot`](Self::snapshot).
#[cfg(feature = "interner")]
#[derive(Default)]
pub(crate) struct RelaxedCounters {
    fast_hits: AtomicU64,
    fast_misses: AtomicU64,
    lookups: AtomicU64,
    hits: AtomicU64,
    inserts: AtomicU64,
    probes: AtomicU64,
    max_probe: AtomicU64,
}

#[inline(always)]
#[cfg(feature = "interner")]
fn bump(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
}

#[cfg(feature = "interner")]
impl Counter for RelaxedCounters {
    #[inline(always)]
    fn fast_hit(&self) {
        bump(&self.fast_hits, 1);
    }

    #[inline(always)]
    fn fast_miss(&self) {
        bump(&self.fast_misses, 1);
    }

    #[inline]
    fn lookup(&self, hit: bool, probes: u32) {
        bump(&self.lookups, 1);
        if hit {
            bump(&self.hits, 1);
        }
        bump(&self.probes, u64::from(probes));
        if u64::from(probes) > self.max_probe.load(Ordering::Relaxed) {
            self.max_probe.store(u64::from(probes), Ordering::Relaxed);
        }
    }
}

#[cfg(feature = "interner")]
impl RelaxedCounters {
    #[inline]
    pub(crate) fn insert(&self) {
        bump(&self.inserts, 1);
    }

    /// The counts so far, one-probe lookups included.
    pub(crate) fn snapshot(&self) -> Counters {
        let fast_hits = self.fast_hits.load(Ordering::Relaxed);
        let fast = fast_hits.wrapping_add(self.fast_misses.load(Ordering::Relaxed));
        let lookups = self.lookups.load(Ordering::Relaxed).wrapping_add(fast);
        let hits = self.hits.load(Ordering::Relaxed).wrapping_add(fast_hits).min(lookups);
        Counters {
            lookups,
            hits,
            misses: lookups - hits,
            inserts: self.inserts.load(Ordering::Relaxed),
            removals: 0,
            probes: self.probes.load(Ordering::Relaxed).wrapping_add(fast),
            max_probe: self.max_probe.load(Ordering::Relaxed).max(u64::from(fast > 0)),
            // The `Interner` does not count entries compared apart from probes.
            max_compared: 0,
        }
    }
}

#[cfg(all(test, not(loom), feature = "interner"))]
mod tests {
    use super::*;

    #[test]
    fn plain_counters_add_up_and_keep_the_longest_probe() {
        let mut a = Counters::default();
        a.record_lookup(3);
        a.hits += 1;
        a.record_lookup(1);
        a.misses += 1;
        let mut b = Counters::default();
        b.record_lookup(5);
        b.inserts += 1;
        a.add(&b);
        assert_eq!((a.lookups, a.hits, a.misses, a.inserts, a.probes, a.max_probe), (3, 1, 1, 1, 9, 5));
        assert_eq!(a.mean_probe(), 3.0);
        assert_eq!(Counters::default().mean_probe(), 0.0);
    }

    #[test]
    fn relaxed_counters_fold_one_probe_lookups_in() {
        let c = RelaxedCounters::default();
        c.fast_hit();
        c.fast_hit();
        c.fast_miss();
        c.lookup(true, 2);
        c.lookup(false, 3);
        c.insert();
        let s = c.snapshot();
        assert_eq!((s.lookups, s.hits, s.misses, s.inserts), (5, 3, 2, 1));
        assert_eq!((s.probes, s.max_probe), (3 + 2 + 3, 3));
        let fast_only = RelaxedCounters::default();
        fast_only.fast_miss();
        assert_eq!(fast_only.snapshot().max_probe, 1);
        assert_eq!(RelaxedCounters::default().snapshot(), Counters::default());
        Uncounted.lookup(true, 9);
    }
}
