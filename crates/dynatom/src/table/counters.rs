//! Per-shard lookup counters. They live inside the shard's lock, so updating them costs
//! a few plain adds on a cache line the lookup already owns.

#[derive(Clone, Copy, Default, Debug)]
pub(crate) struct Counters {
    pub(crate) lookups: u64,
    pub(crate) hits: u64,
    pub(crate) misses: u64,
    pub(crate) inserts: u64,
    pub(crate) removals: u64,
    /// Candidate entries compared, summed over all lookups.
    pub(crate) probes: u64,
    pub(crate) max_probe: u64,
}

impl Counters {
    pub(crate) fn record_lookup(&mut self, probes: u64) {
        self.lookups += 1;
        self.probes += probes;
        self.max_probe = self.max_probe.max(probes);
    }

    pub(crate) fn add(&mut self, other: &Counters) {
        self.lookups += other.lookups;
        self.hits += other.hits;
        self.misses += other.misses;
        self.inserts += other.inserts;
        self.removals += other.removals;
        self.probes += other.probes;
        self.max_probe = self.max_probe.max(other.max_probe);
    }
}
