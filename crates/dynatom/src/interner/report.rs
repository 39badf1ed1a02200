//! [`InternerMemoryReport`]: where an interner's bytes go, and how lookups went.

use crate::sync::{AtomicU64, Ordering};
use std::fmt;

/// Memory and lookup statistics of an interner (same shape as the atom table's
/// report: sizes, then counters, then probe lengths).
///
/// A "probe" is one hash-table bucket (single-threaded interner) or slot
/// (`SyncInterner`) examined.
///
/// ```
/// let mut i = dynatom::interner::Interner::new();
/// i.intern("hello");
/// let r = i.memory_report();
/// assert_eq!((r.strings, r.char_bytes), (1, 5));
/// println!("{r}");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InternerMemoryReport {
    /// Distinct strings (symbols) held.
    pub strings: usize,
    /// Hash table allocation, in bytes.
    pub table_bytes: usize,
    /// Symbol → text index (offset column, chunk directory), in bytes.
    pub index_bytes: usize,
    /// Characters copied into chunks (`intern_static` text is not counted).
    pub char_bytes: usize,
    /// Chunk bytes not holding characters: unused capacity (and, in the
    /// single-threaded interner, the copies a page's run leaves behind when it
    /// moves to a new chunk, and the 4-byte records of out-of-line strings).
    pub slack_bytes: usize,
    /// Lookups counted (`intern`, `get`); the `SyncInterner` counts only
    /// lookups that took a shard lock, so that reads write no shared memory.
    pub lookups: u64,
    /// Lookups that found their string.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Strings added.
    pub inserts: u64,
    /// Mean probes per counted lookup.
    pub mean_probe: f64,
    /// Longest probe sequence seen.
    pub max_probe: u64,
}

impl InternerMemoryReport {
    /// All bytes allocated: table + index + characters + slack.
    ///
    /// ```
    /// let i = dynatom::interner::Interner::new();
    /// assert_eq!(i.memory_report().total_bytes(), 0);
    /// ```
    pub fn total_bytes(&self) -> usize {
        self.table_bytes + self.index_bytes + self.char_bytes + self.slack_bytes
    }

    /// Bytes per string beyond its characters: `(total - char_bytes) / strings`
    /// (0 when empty).
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// for n in 0..1000 { i.intern(&format!("id{n}")); }
    /// assert!(i.memory_report().overhead_per_string() > 0.0);
    /// ```
    pub fn overhead_per_string(&self) -> f64 {
        if self.strings == 0 {
            0.0
        } else {
            (self.total_bytes() - self.char_bytes) as f64 / self.strings as f64
        }
    }
}

impl fmt::Display for InternerMemoryReport {
    /// An indented tree in the atom table report's style.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_bytes().max(1);
        let line = |f: &mut fmt::Formatter<'_>, indent: &str, bytes: usize, name: &str| {
            let pct = bytes as f64 * 100.0 / total as f64;
            writeln!(f, "{indent}{bytes:>12} B ({pct:>5.1}%) -- {name}")
        };
        writeln!(
            f,
            "{:>12} B (100.0%) -- interner ({}, {:.2} B/string beyond characters)",
            self.total_bytes(),
            super::error::plural(self.strings, "string"),
            self.overhead_per_string()
        )?;
        line(f, "├──", self.table_bytes, "hash table")?;
        line(f, "├──", self.index_bytes, "index (symbol -> text)")?;
        line(f, "├──", self.char_bytes, "characters")?;
        line(f, "└──", self.slack_bytes, "unused chunk capacity")?;
        write!(
            f,
            "lookups {} (hits {}, misses {}), inserts {}, probe mean {:.2} max {}",
            self.lookups, self.hits, self.misses, self.inserts, self.mean_probe, self.max_probe
        )
    }
}

impl From<InternerMemoryReport> for crate::MemoryReport {
    /// The same figures in the atom table's report type: `atoms` = strings,
    /// `header_bytes` = index, `slop_bytes` = unused chunk capacity.
    ///
    /// ```
    /// let mut i = dynatom::interner::Interner::new();
    /// i.intern("abc");
    /// let r: dynatom::MemoryReport = i.memory_report().into();
    /// assert_eq!((r.atoms, r.char_bytes), (1, 3));
    /// ```
    fn from(r: InternerMemoryReport) -> crate::MemoryReport {
        crate::MemoryReport {
            atoms: r.strings,
            table_bytes: r.table_bytes,
            header_bytes: r.index_bytes,
            char_bytes: r.char_bytes,
            slop_bytes: Some(r.slack_bytes),
            lookups: r.lookups,
            hits: r.hits,
            misses: r.misses,
            inserts: r.inserts,
            mean_probe: r.mean_probe,
            max_probe: r.max_probe,
            ..Default::default()
        }
    }
}

/// Counters bumped with a plain load + store (no locked instruction): exact when
/// used from one thread, possibly lossy under concurrent `&Interner` reads. Every
/// access is Relaxed: the counters are statistics and order no other memory.
///
/// The common outcomes of the single-threaded interner's one-bucket lookups each
/// bump one counter (`fast_hits`, `fast_misses`); every other lookup goes through
/// [`Stats::lookup`].
#[derive(Default)]
pub(crate) struct Stats {
    fast_hits: AtomicU64,
    fast_misses: AtomicU64,
    lookups: AtomicU64,
    hits: AtomicU64,
    inserts: AtomicU64,
    probes: AtomicU64,
    max_probe: AtomicU64,
}

/// Where a lookup reports its outcome: the interner's own [`Stats`], or [`Uncounted`]
/// for readers that must write no memory at all (the frozen
/// [`Resolver`](super::Resolver)).
pub(crate) trait Counter {
    /// A lookup that found its string in the first bucket it examined.
    fn fast_hit(&self);
    /// A lookup that missed after examining one bucket.
    fn fast_miss(&self);
    /// Any other lookup: whether it found its string, and the buckets examined.
    fn lookup(&self, hit: bool, probes: u32);
}

/// Counts nothing (every method compiles to nothing).
pub(crate) struct Uncounted;

impl Counter for Uncounted {
    #[inline(always)]
    fn fast_hit(&self) {}
    #[inline(always)]
    fn fast_miss(&self) {}
    #[inline(always)]
    fn lookup(&self, _: bool, _: u32) {}
}

#[inline(always)]
fn bump(c: &AtomicU64, n: u64) {
    c.store(c.load(Ordering::Relaxed).wrapping_add(n), Ordering::Relaxed);
}

impl Counter for Stats {
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

impl Stats {
    #[inline]
    pub(crate) fn insert(&self) {
        bump(&self.inserts, 1);
    }

    /// Fills the counter fields of `r`.
    pub(crate) fn fill(&self, r: &mut InternerMemoryReport) {
        let fast_hits = self.fast_hits.load(Ordering::Relaxed);
        let fast = fast_hits.wrapping_add(self.fast_misses.load(Ordering::Relaxed));
        r.lookups = self.lookups.load(Ordering::Relaxed).wrapping_add(fast);
        r.hits = self.hits.load(Ordering::Relaxed).wrapping_add(fast_hits).min(r.lookups);
        r.misses = r.lookups - r.hits;
        r.inserts = self.inserts.load(Ordering::Relaxed);
        r.max_probe = self.max_probe.load(Ordering::Relaxed).max(u64::from(fast > 0));
        let probes = self.probes.load(Ordering::Relaxed).wrapping_add(fast);
        r.mean_probe = if r.lookups == 0 { 0.0 } else { probes as f64 / r.lookups as f64 };
    }
}
