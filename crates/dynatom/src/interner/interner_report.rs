//! [`InternerMemoryReport`]: where an interner's bytes go, and how lookups went.

use std::fmt;

use crate::counters::Counters;

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
    /// Fills the counter fields from `c`.
    pub(crate) fn set_counters(&mut self, c: &Counters) {
        self.lookups = c.lookups;
        self.hits = c.hits;
        self.misses = c.misses;
        self.inserts = c.inserts;
        self.mean_probe = c.mean_probe();
        self.max_probe = c.max_probe;
    }

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
        if self.strings == 0 { 0.0 } else { (self.total_bytes() - self.char_bytes) as f64 / self.strings as f64 }
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
            super::interner_error::plural(self.strings, "string"),
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
    /// `header_bytes` = index, `slop_bytes` = unused chunk capacity, and its lookups,
    /// hits and misses become `locked_lookups`, `locked_hits` and `locked_misses`.
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
            locked_lookups: r.lookups,
            locked_hits: r.hits,
            locked_misses: r.misses,
            inserts: r.inserts,
            mean_probe: r.mean_probe,
            max_probe: r.max_probe,
            ..Default::default()
        }
    }
}
