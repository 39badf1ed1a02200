//! [`MemoryReport`]: an about:memory-style account of one atom table (and, converted, of an
//! interner). A leaf: the type is plain figures, filled by the table
//! (`atom/table/report_collect.rs`) and by the interners' conversion, so neither family
//! imports the other for it.

use std::fmt;

/// Where an [`AtomTable`](crate::AtomTable)'s memory goes, and how its lookups went.
///
/// Byte figures are what was requested from the allocator; `slop_bytes` is what the
/// allocator handed out beyond that, known only with the `glibc-slop` feature on glibc
/// (which takes the strings' blocks from glibc's malloc directly and asks its
/// `malloc_usable_size`) and `None` otherwise: no allocator is ever asked about a block
/// it may not own. `Display` prints an indented tree:
///
/// ```
/// let table = dynatom::AtomTable::with_seed(1);
/// let _atoms: Vec<_> = (0..100).map(|i| table.intern(&format!("identifier_{i}"))).collect();
/// let report = table.memory_report();
/// assert_eq!(report.atoms, 100);
/// assert_eq!(report.header_bytes, 100 * dynatom::MemoryReport::HEADER_BYTES);
/// println!("{report}");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct MemoryReport {
    /// Atoms in use filed in the table.
    pub atoms: usize,
    /// Unused atoms: filed, with no handle left, kept for a later intern until a sweep.
    pub unused_atoms: usize,
    /// Heap bytes (headers and characters) of the unused atoms, counted apart from the
    /// figures below, which are the atoms in use.
    pub unused_bytes: usize,
    /// The most bytes of unused atoms the table keeps: `max(byte floor, in-use bytes / 2)`,
    /// the in-use bytes being `header_bytes + char_bytes` (see
    /// [`AtomTable::set_unused_bytes_limit`](crate::AtomTable::set_unused_bytes_limit)).
    /// Retired bytes take room under it too: while they wait, the table sweeps its unused
    /// atoms sooner.
    pub unused_bytes_limit: usize,
    /// Heap bytes (headers and characters) of atoms a sweep has freed whose memory waits
    /// for lock-free readers that were looking when it was swept (threads pinned in a
    /// lookup or an intern at that moment) to move on; counted apart from `unused_bytes`.
    /// Usually 0: the sweep frees at once when no such reader is left. What waits is freed
    /// by a later write to the table (any shard) or lock-free read (see
    /// [`AtomTable`](crate::AtomTable)'s docs for the bound).
    ///
    /// ```
    /// let table = dynatom::AtomTable::new();
    /// drop(table.intern("swept with no reader looking: freed at once"));
    /// table.shrink();
    /// assert_eq!(table.memory_report().retired_bytes, 0);
    /// ```
    pub retired_bytes: usize,
    /// The table's own structures: shards, locks and hash-table storage (the slot arrays
    /// in use, and the resident memory their pool keeps for none: free arrays in pages
    /// that hold some in use, and the pool's page list).
    pub table_bytes: usize,
    /// Headers in front of the atoms' characters (and static atoms' entries).
    pub header_bytes: usize,
    /// Characters held on the heap (static atoms' characters stay in the binary).
    pub char_bytes: usize,
    /// Characters of static atoms in use, which stay in the binary: not heap memory, so
    /// not in [`total_bytes`](Self::total_bytes) (their entries are in `header_bytes`).
    /// A `str_format!` of literal text alone, `Str::from_static` and
    /// `Atom::from_static` make such atoms.
    pub static_char_bytes: usize,
    /// Static atoms in use (immortal entries whose characters stay in the binary), among
    /// [`atoms`](Self::atoms).
    pub static_atoms: usize,
    /// Of the static atoms, those of declared sets (`static_atoms!`
    /// and [`AtomTable::register_static_set`](crate::AtomTable::register_static_set)), which
    /// the global table files when it is made. Declared texts of up to 7 bytes are inline
    /// atoms and filed nowhere.
    pub declared_atoms: usize,
    /// Atoms in use whose handles stop counting, among [`atoms`](Self::atoms): atoms the
    /// global table made permanent (see [`Atom::make_permanent`](crate::Atom::make_permanent)).
    /// They are never unused, never swept and never freed. Static atoms, permanent from
    /// birth, are counted in [`static_atoms`](Self::static_atoms) instead.
    pub permanent_atoms: usize,
    /// Heap bytes (headers and characters) of the permanent atoms, among `header_bytes`
    /// and `char_bytes`: what promotion keeps under `max(1 MiB, in-use bytes / 8)`.
    pub permanent_bytes: usize,
    /// Bytes the allocator gave beyond those requested for the atoms, if known. Atoms in
    /// the table's slabs have none: their rounding is in `slab_spare_bytes`.
    pub slop_bytes: Option<usize>,
    /// Slabs the table holds: the 32 KiB blocks of memory, one block size each, where it
    /// keeps the atoms it copies in (headers and texts of up to 256 bytes together).
    pub slabs: usize,
    /// Bytes of those slabs that hold no atom in use: freed and not yet reused blocks,
    /// room not handed out yet, each slab's header, and the rounding of each atom's block
    /// up to a multiple of 8 (the rest of an unused atom's block is in `unused_bytes`).
    pub slab_spare_bytes: usize,
    /// Slabs that emptied and went *idle*: on Linux the table keeps their mappings, so that
    /// memory which held atoms of one size only ever holds atoms of that size, but hands
    /// their pages back to the system, so they cost address space and no memory (and are
    /// counted nowhere else here). A class takes an idle slab back before it maps another.
    pub idle_slabs: usize,
    /// Bytes of the slabs that the table maps from the operating system itself (on Linux,
    /// where a slab is an anonymous mapping unless the kernel refuses one; 0 elsewhere,
    /// where slabs come from the global allocator like everything else): memory a counting
    /// global allocator does not see.
    pub mapped_bytes: usize,
    /// Lookups made under a shard's lock: interning a text that the lock-free probe did
    /// not find. (Under the lock the probe is made again only if an atom was filed or
    /// removed since; otherwise the lock-free probe's figures stand for it.) Lock-free
    /// hits, the common case, are not counted: counting them would be a shared write on
    /// the path that promises to write nothing but the atom's count.
    pub locked_lookups: u64,
    /// Locked lookups that found the atom (filed by another thread meanwhile).
    pub locked_hits: u64,
    /// Locked lookups that found none (and filed the atom).
    pub locked_misses: u64,
    /// Atoms filed.
    pub inserts: u64,
    /// Unused atoms freed by sweeps.
    pub removals: u64,
    /// Mean number of slots a filing-path lookup read: its probe length (a slot's 16-bit hash
    /// tag rejects most of them without reading the entry's header).
    pub mean_probe: f64,
    /// The most slots one filing-path lookup read.
    pub max_probe: u64,
    /// The most entries one filing-path lookup compared in full: those whose tag matched (at
    /// least the one it found). Similar texts with well-spread hashes keep this at 1 or 2.
    pub max_compared: u64,
    /// The most slot words one step of a shard's growth read or wrote in an insert: the
    /// old slots it copied to the new array, with their probes there (a growing shard
    /// copies a few slots per insert, never a large array at once, though one of up to 256
    /// slots goes whole in the insert that outgrows it; a new array is zeroed memory that
    /// no insert clears; an insert's own probe is in `max_probe`). With `max_insert_bytes`, a bound on
    /// one insert's work that a machine's load cannot move.
    pub max_insert_slots: u64,
    /// The largest slot array one insert allocated (0 if none grew): what the insert that
    /// starts a shard's growth asks of the allocator, beside its atom.
    pub max_insert_bytes: u64,
}

impl MemoryReport {
    /// Bytes of the header in front of every heap string's characters (a unit test of the
    /// table keeps this equal to the heap's header).
    pub const HEADER_BYTES: usize = 16;

    /// Every byte accounted for: table, headers, characters, slop, slabs' spare bytes,
    /// unused atoms and retired ones.
    ///
    /// ```
    /// let report = dynatom::AtomTable::new().memory_report();
    /// assert!(report.total_bytes() >= report.table_bytes);
    /// ```
    pub fn total_bytes(&self) -> usize {
        self.table_bytes
            + self.header_bytes
            + self.char_bytes
            + self.slop_bytes.unwrap_or(0)
            + self.slab_spare_bytes
            + self.unused_bytes
            + self.retired_bytes
    }
}

impl fmt::Display for MemoryReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total_bytes().max(1);
        let line = |f: &mut fmt::Formatter<'_>, indent: &str, bytes: usize, name: &str| {
            writeln!(f, "{indent}{bytes:>12} B ({:>5.1}%) -- {name}", bytes as f64 * 100.0 / total as f64)
        };
        let atoms = if self.atoms == 1 { "atom" } else { "atoms" };
        writeln!(f, "{:>12} B (100.0%) -- atom-table ({} {atoms})", self.total_bytes(), self.atoms)?;
        line(f, "├──", self.table_bytes, "table (shards, locks, slot arrays)")?;
        line(f, "├──", self.header_bytes, "atom headers")?;
        line(f, "├──", self.char_bytes, "characters")?;
        if self.static_atoms > 0 {
            writeln!(
                f,
                "│   {:>12} B more characters in the binary: {} static atoms ({} of declared sets)",
                self.static_char_bytes, self.static_atoms, self.declared_atoms
            )?;
        }
        if self.permanent_atoms > 0 {
            writeln!(
                f,
                "│   {:>12} B of them in {} permanent atoms, never freed",
                self.permanent_bytes, self.permanent_atoms
            )?;
        }
        let unused =
            format!("unused atoms ({}), kept until a sweep (at most {} B)", self.unused_atoms, self.unused_bytes_limit);
        line(f, "├──", self.unused_bytes, &unused)?;
        line(f, "├──", self.retired_bytes, "swept atoms waiting for readers to move on")?;
        let slabs = format!("slab room holding no atom ({} slabs; {} idle, not resident)", self.slabs, self.idle_slabs);
        line(f, "├──", self.slab_spare_bytes, &slabs)?;
        match self.slop_bytes {
            Some(slop) => line(f, "└──", slop, "allocator slop")?,
            None => writeln!(f, "└──      unknown -- allocator slop")?,
        }
        writeln!(
            f,
            "locked lookups {} (found {}, filed {}), inserts {}, removals {}, probe mean {:.2} max {}",
            self.locked_lookups,
            self.locked_hits,
            self.locked_misses,
            self.inserts,
            self.removals,
            self.mean_probe,
            self.max_probe
        )?;
        writeln!(
            f,
            "the most one insert touched: {} slots; the largest slot array one allocated: {} B",
            self.max_insert_slots, self.max_insert_bytes
        )
    }
}
