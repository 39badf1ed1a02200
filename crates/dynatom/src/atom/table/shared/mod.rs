//! The sharded table itself: what every `AtomTable` handle refers to.
//!
//! Each shard is a [`Slots`] set of raw atoms: one-word slots carrying 15 bits of the hash
//! beside the entry's address, probed **without a lock** by every lookup, and changed by
//! writers holding the shard's lock, a few slots at a time while it grows. **Every entry
//! holds one count of its block**, so nothing the table does depends on being told about
//! drops: a block whose last handle goes is still the table's (count 1), an *unused* atom
//! that the next intern of the same text revives without allocating.
//!
//! # A hit: the read protocol
//!
//! An intern hit takes **no pin and no lock**: it reads the slots, raises the atom's count
//! with one compare-and-swap, and writes nothing else (a permanent atom's hit writes
//! nothing at all). What makes that safe is that everything such a reader can reach keeps
//! its shape while the table lives, even after it is freed:
//!
//! * **Slot arrays** come from the table's pool ([`ArrayPool`]),
//!   which reuses a freed array's memory only for this table's slot arrays, or hands its
//!   pages back (they read zeros). The capacity is in the word that names the array, not
//!   in a header. So a reader that loaded an array just before it was retired, freed and
//!   reused reads slot words of this table, or zeros, and never out of bounds.
//! * **Atoms the table copies in** live in its slabs, which reuse a freed block only for
//!   another atom of the same table and size, or hand the slab's pages back. A free
//!   block's count reads 0; a reused block's fields are written while its count is 0, and
//!   the count (2) is stored last, with Release, under the shard's lock once the insert
//!   can no longer fail, just before the slot store that lists it.
//! * **Other entries** (an adopted `Str` buffer, a text too long for a slab) live in
//!   memory the allocator may give to anything once freed. Their slot word carries a
//!   flag (bit 48); a probe that meets one, or an untagged word, or an array from the
//!   global allocator, starts again **pinned** ([`reclaim::pin`](super::reclaim::pin)),
//!   the path every hit took before: there a swept block is freed only after the reader
//!   unpins. Static entries are never freed and need no flag.
//!
//! The unpinned probe: filter by the slot's tag; load the candidate's count (Acquire);
//! give up on it if the count is 0; otherwise raise it by one with a compare-and-swap
//! from that live value (or, if it is permanent, take it as it is); only then read the
//! block's cached hash, length and bytes and compare them with the text. If they differ,
//! the address was reused for another atom of the table, and the reader drops the count it
//! took. Why each step is enough:
//!
//! * A count of at least 1 can only belong to an atom the table lists, or is listing
//!   under its lock with nothing left that can fail (an unpublished block reads 0; a
//!   sweep takes an unused atom back with a 1 -> 0 compare-and-swap that fails while a
//!   reader's raise holds it). So the raise never revives a freed block, and
//!   the reader's own drop never frees one: the table's count is still there.
//! * The raise reads the count with Acquire from the Release that published it (or a
//!   later step of the count), so the hash, length and bytes read after it are that
//!   atom's, and they cannot change while the reader holds its count.
//! * Text equal to the reader's means the atom is this table's atom for that text, one per
//!   table, wherever the reader found it: pointer equality still means text equality.
//! * A miss goes to the shard's lock with the version read before the probe; a stale
//!   array (one retired since) can only be read if a migration finished since, which
//!   changed the version, so the locked path probes again before filing. An entry is
//!   published before the version moves for it, so a reader that read the new version
//!   never finds it unpublished (which reads as absent) and skips the locked probe.
//!
//! Lookups that take no count of an atom in use ([`AtomTable::lookup`](super::AtomTable),
//! `contains_text`) still pin: they compare the text before any raise, which only a pin
//! makes safe. Under loom every hit pins (its atomics are objects a stale access would
//! read after they were dropped).

//! # A sweep
//!
//! Under the shard's lock, an unused atom is taken back with a 1 -> 0 compare-and-swap on
//! its count (a hit raising it at the same moment wins, and the atom stays), unlinked from
//! the slots, and handed to the shard's [`Retired`] list: freed once every reader that may
//! have loaded it has unpinned.
//!
//! # When retired memory is freed
//!
//! A sweep tries a few collections at once, which free its blocks when no reader was
//! pinned. What a pinned reader holds back waits, and the shard's bit in
//! `waiting_shards` says so (as it does for the shard's old slot arrays). Any shard's
//! later writer (filing an atom, a check, a sweep) then collects every shard whose bit is
//! set, and so does a lock-free reader, once unpinned, on one in
//! [`READS_PER_COLLECTION`](retired_memory::READS_PER_COLLECTION) of its reads that see
//! a bit set: memory retired in a shard that is never
//! touched again is freed all the same. A collection moves the epoch one step if no
//! thread is still pinned from before the last step, and frees what was retired two steps
//! back; it only tries the other shards' locks (the collector may hold its own shard's,
//! and a reader must not wait for a writer), skipping a shard whose lock is held: that
//! shard's holder collects it when it writes. Waiting bytes count as unused ones in
//! their shard's checks ([`MemoryReport::retired_bytes`](super::MemoryReport) reports
//! them), so that the next check, and its collection, come sooner. The hit path's price
//! is one relaxed load of `waiting_shards` after unpinning.
//!
//! # When a shard sweeps
//!
//! A shard with `live` atoms in use sweeps when its unused atoms pass
//! `max(floor, live / 2)`, where `floor` is the table's unused limit divided among the
//! shards ([`DEFAULT_UNUSED_LIMIT`] atoms by default, [`TableShared::set_unused_limit`]).
//! So beyond a fixed floor, a table keeps at most half again as many atoms as are in use.
//! Bytes are bounded the same way: a shard's share of `max(byte floor, live bytes / 2)`
//! for the whole table, and no more than its share of the floor or half its own live
//! bytes, whichever is larger (the table's live bytes are as each shard last counted them,
//! so its share alone lags when every shard drops at once).
//! Two things make a shard check:
//! * in the global table, the drop that turns an atom unused counts it in its shard
//!   (through the hook `repr::heap` calls); past the bound the dropper checks the shard;
//! * in the other tables, whose drops tell nobody, filing a new atom checks the shard
//!   whenever it has grown to twice its size at the last check (so their unused atoms
//!   wait for the next growth, [`TableShared::sweep`], or the table's drop). The global
//!   table skips that check: its pressure already counts every unused atom, and a check
//!   walks the whole shard, a pause of tens of microseconds in the middle of a fill.

use std::ptr::NonNull;

use crate::error::StrError;
use crate::hash::{self, TextHash};
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::heap::{HitSigns, LOCAL, OWN_SEED, cacheable_hash};
use crate::repr::slab::{MAX_STRIPES, SlabUsage, Slabs};
use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering};

mod filing;
mod lock_free_hit;
pub(super) use filing::HASHED_IN_LINE_UP_TO;
mod late_registration;
mod process_hooks;
mod retired_memory;
mod shared_ref;
mod static_entries;
mod sweeps;
#[cfg(feature = "small-map")]
mod unused_batch;

pub(crate) use late_registration::register_late_set;
pub(crate) use process_hooks::note_global_unused;
pub(crate) use shared_ref::SharedRef;
use sweeps::mark_word;
#[cfg(feature = "small-map")]
pub(crate) use unused_batch::drop_together;

use super::permanent::Permanent;
use super::reclaim::Retired;
use super::slots::{ArrayPool, PoolUsage, Slots, SlotsGuard};
use crate::counters::Counters;

/// The most shards a table has: `TableShared::waiting_shards` has a bit per shard.
pub(super) const MAX_SHARDS: usize = 64;

/// Shards per core the machine offers: misses lock their shard (hits take no lock), so
/// threads that miss at once rarely meet in one.
const SHARDS_PER_CORE: usize = 4;

/// The fewest shards a table has.
const MIN_SHARDS: usize = 8;

/// How many shards a new table has: [`SHARDS_PER_CORE`] per core, a power of two from
/// [`MIN_SHARDS`] to [`MAX_SHARDS`] (two under loom). Each shard costs a few cache lines
/// and its own slot array, so a table on a small machine starts smaller: at 1,000 atoms
/// 64 shards held 83.5 resident bytes per atom beyond the characters where 8 held 71.2
/// (and 41.3 against 36.8 at 10,000); 64 are what 16 cores need.
fn shard_count() -> usize {
    if cfg!(loom) {
        return 2;
    }
    let cores = crate::sync::cores::available();
    (cores.saturating_mul(SHARDS_PER_CORE)).next_power_of_two().clamp(MIN_SHARDS, MAX_SHARDS)
}

/// Unused atoms a table keeps, beyond half its atoms in use, before it sweeps.
pub(crate) const DEFAULT_UNUSED_LIMIT: usize = 4096;

/// Bytes (headers and texts) of unused atoms a table keeps, beyond half the bytes of its
/// atoms in use, before it sweeps.
pub(crate) const DEFAULT_UNUSED_BYTES_LIMIT: usize = 4 << 20;

/// One shard on its own cache line, so threads working in neighbouring shards do not
/// fight over the line.
#[repr(align(64))]
struct PaddedShard {
    slots: Slots<Shard>,
    /// The drops that turned atoms unused since the shard was last checked (global table),
    /// and their bytes: see [`DROPS_SHIFT`](sweeps::DROPS_SHIFT).
    pressure: AtomicU64,
    /// The pressure past which a dropper checks the shard: the room the last check left
    /// under each bound, in the same form.
    check_after: AtomicU64,
}

/// What a shard's writers keep under its lock, beside the slots.
#[derive(Default)]
pub(crate) struct Shard {
    pub(crate) counters: Counters,
    /// Filing beyond this many entries checks the shard for unused atoms.
    check_at_len: usize,
    /// Bytes of the atoms in use at the last check (counted in the table's `live_bytes`).
    live_bytes: usize,
    /// Bytes of the unused atoms the last check left.
    unused_bytes: usize,
    /// Swept blocks waiting for lock-free readers to move on.
    retired: Retired,
}

impl Shard {
    /// Bytes (headers and texts) of the swept atoms that wait for readers to move on.
    pub(crate) fn retired_bytes(&self) -> usize {
        self.retired.bytes()
    }
}

/// A locked shard.
pub(crate) type ShardGuard<'a> = SlotsGuard<'a, Shard>;

/// Which seed a table hashes with, and so whether it may adopt a `Str`'s block.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TableKind {
    /// The process-wide table: process seed, adopts, hears about unused atoms.
    Global,
    /// `AtomTable::new()`: the process seed too, so a block's cached hash serves it and
    /// it adopts.
    Local,
    /// `AtomTable::with_seed`: its own seed, so it copies (a block has one hash slot, and
    /// `Str::hash64` must keep reading the process seed's hash from it).
    OwnSeed,
}

pub(crate) struct TableShared {
    /// The table's text hash, keyed by its seed.
    text_hash: TextHash,
    kind: TableKind,
    /// A power of two of them ([`shard_count`]), picked by [`TableShared::shard_index`].
    shards: Box<[PaddedShard]>,
    /// Where the shards' slot arrays come from (see [`ArrayPool`]): declared after the
    /// shards, so dropped after them, and boxed, so that its address, which the shards
    /// keep, stays put when the table moves.
    arrays: Box<[ArrayPool; 1]>,
    /// The addresses of the static entries filed here (global table only). The slots hold
    /// them tagged (hash bits on top), which leak checkers cannot follow; this list keeps
    /// the immortal entries visibly reachable.
    static_entries: Mutex<Vec<usize>>,
    /// Unused atoms per shard that never trigger a sweep.
    unused_floor: AtomicUsize,
    /// Bytes of unused atoms the whole table may keep whatever its size.
    unused_bytes_floor: AtomicUsize,
    /// Bytes of the atoms in use, as each shard counted them at its last check.
    live_bytes: AtomicUsize,
    /// Bytes filed since every shard was last checked (tables other than the global one,
    /// which hear of no drop: any atom they file may be unused by the next check).
    filed_bytes: AtomicUsize,
    /// `filed_bytes` beyond which a filer checks every shard: the room the last such
    /// check left under the table's byte bound.
    filed_bytes_room: AtomicUsize,
    /// Where the atoms this table copies in live (see `repr::slab`): headers and texts of
    /// up to `slab::MAX_BLOCK` bytes, rounded to 8, with no allocator header.
    slabs: Slabs,
    /// A bit per shard whose retired list, or whose slots' list of old arrays, waits for
    /// readers to move on: a bit changes only under its shard's lock. Every write, and
    /// every [`READS_PER_COLLECTION`](retired_memory::READS_PER_COLLECTION)th lock-free
    /// read of a thread, collects the shards it names (see
    /// [`TableShared::collect_waiting`]), so that memory retired in a shard that is not
    /// touched again is freed all the same.
    waiting_shards: AtomicU64,
    /// The atoms made permanent (global table only; see [`super::permanent`]).
    permanent: Permanent,
    /// Whether a set registered at run time left some of its texts unfiled here (it ran
    /// out of memory filing them; global table only): misses then ask for them
    /// ([`TableShared::late_declared_entry`]), which costs every miss a call otherwise.
    unfiled_published: AtomicBool,
}

/// The hash the slots see: the cached hash's four low bits are the header's flag bits
/// (zero), and the slots take their index from the low bits, so fold high bits in (the
/// top 15 bits, the slot's tag, stay the hash's own).
#[inline]
fn probe_hash(hash: u64) -> u64 {
    hash ^ (hash >> 32)
}

/// The global table's slabs have a stripe per core (up to [`MAX_STRIPES`], picked by
/// shard), which come into use as its threads contend; another table keeps one set of
/// classes (about 2.4 KiB), as it is mostly filled by one thread at a time.
fn slab_stripes(kind: TableKind) -> usize {
    if kind != TableKind::Global || cfg!(loom) {
        return 1;
    }
    crate::sync::cores::available().next_power_of_two().min(MAX_STRIPES)
}

impl TableShared {
    /// A new, empty table, or the allocation failure (the shards are its one
    /// allocation; their slot arrays come with the first atoms).
    pub(crate) fn try_new(seed: u64, kind: TableKind) -> Result<TableShared, StrError> {
        let shard_count = shard_count();
        let floor = DEFAULT_UNUSED_LIMIT.div_ceil(shard_count);
        let bytes_floor = DEFAULT_UNUSED_BYTES_LIMIT / shard_count;
        let mut arrays = Vec::new();
        if arrays.try_reserve_exact(1).is_err() {
            return Err(StrError::AllocFailed { size: std::mem::size_of::<ArrayPool>() });
        }
        arrays.push(ArrayPool::default());
        let Ok(arrays) = <Box<[ArrayPool; 1]>>::try_from(arrays.into_boxed_slice()) else {
            unreachable!("exactly one pool was made")
        };
        let mut shards = Vec::new();
        if shards.try_reserve_exact(shard_count).is_err() {
            return Err(StrError::AllocFailed { size: shard_count * std::mem::size_of::<PaddedShard>() });
        }
        shards.extend((0..shard_count).map(|_| PaddedShard {
            // SAFETY: the pool is boxed beside the shards in the table, which drops the
            // shards first.
            slots: unsafe {
                Slots::with_pool(Shard { check_at_len: floor, ..Shard::default() }, entry_probe_hash, &arrays[0])
            },
            pressure: AtomicU64::new(0),
            check_after: AtomicU64::new(mark_word(floor, bytes_floor)),
        }));
        let shards = shards.into_boxed_slice();
        // The process's global table installs the hook once it is in place (see
        // `AtomTable::global`); the models' is made again in each model, and the hook
        // finds it.
        #[cfg(loom)]
        if kind == TableKind::Global {
            crate::repr::heap::set_unused_hook(note_global_unused);
        }
        if kind == TableKind::Global {
            process_hooks::sweep_global_table_at_exit();
            process_hooks::keep_locks_across_fork();
        }
        Ok(TableShared {
            text_hash: TextHash::new(seed),
            kind,
            shards,
            arrays,
            static_entries: Mutex::new(Vec::new()),
            unused_floor: AtomicUsize::new(floor),
            unused_bytes_floor: AtomicUsize::new(DEFAULT_UNUSED_BYTES_LIMIT),
            live_bytes: AtomicUsize::new(0),
            filed_bytes: AtomicUsize::new(0),
            filed_bytes_room: AtomicUsize::new(DEFAULT_UNUSED_BYTES_LIMIT),
            slabs: Slabs::try_with_stripes(slab_stripes(kind))?,
            waiting_shards: AtomicU64::new(0),
            permanent: Permanent::new(),
            unfiled_published: AtomicBool::new(false),
        })
    }

    pub(crate) fn is_global(&self) -> bool {
        self.kind == TableKind::Global
    }

    /// The shard of `hash`. Bits 40..45 pick it: independent of the slot index (low bits,
    /// folded with bits 32..) and the slot's tag (bits 49..).
    #[inline]
    fn shard_index(&self, hash: u64) -> usize {
        (hash >> 40) as usize & (self.shards.len() - 1)
    }

    /// The shard of `hash`.
    #[inline]
    fn shard_of(&self, hash: u64) -> &PaddedShard {
        &self.shards[self.shard_index(hash)]
    }

    /// The flags a block filed here carries besides `INTERNED`.
    fn claim_flags(&self) -> u64 {
        match self.kind {
            TableKind::Global => 0,
            TableKind::Local => LOCAL,
            TableKind::OwnSeed => LOCAL | OWN_SEED,
        }
    }

    /// The table's hash of `bytes`, in the form a block header caches.
    pub(crate) fn hash(&self, bytes: &[u8]) -> u64 {
        cacheable_hash(self.text_hash.hash(bytes))
    }

    /// [`hash`](Self::hash) inlined, for the intern path (see [`TextHash::hash_inlined`]).
    #[inline(always)]
    fn hash_inlined(&self, bytes: &[u8]) -> u64 {
        cacheable_hash(self.text_hash.hash_inlined(bytes))
    }

    /// Every shard, one at a time, locked.
    pub(crate) fn for_each_shard(&self, mut visit: impl FnMut(&mut ShardGuard<'_>)) {
        for padded in self.shards.iter() {
            visit(&mut padded.slots.lock());
        }
    }

    /// What the slabs hold beyond the blocks in them.
    pub(crate) fn slab_usage(&self) -> SlabUsage {
        self.slabs.usage()
    }

    /// What the slot arrays' pool holds beyond the arrays in use.
    pub(crate) fn array_pool_usage(&self) -> PoolUsage {
        self.arrays[0].usage()
    }

    pub(crate) fn shards_size(&self) -> usize {
        std::mem::size_of::<TableShared>() + self.shards.len() * std::mem::size_of::<PaddedShard>()
    }

    /// Atoms in use (not unused) over all shards.
    pub(crate) fn len_in_use(&self) -> usize {
        let mut len = 0;
        self.for_each_shard(|shard| {
            // SAFETY: the table holds every entry's count, and `for_each_shard` holds the
            // lock that sweeps need.
            for_each_entry(shard, |raw| len += usize::from(!unsafe { raw.is_unused() }));
        });
        len
    }

    /// A hit saw `signs` of a hot atom as it raised its count: another thread moving it at
    /// the same moment, or the atom coming back from unused. The global table makes the
    /// atom permanent if the sign's rule is on and its budget allows (see
    /// [`super::permanent`]).
    #[cold]
    #[inline(never)]
    fn promote_hot(&self, atom: &AtomWord, signs: HitSigns) {
        if self.kind == TableKind::Global && self.permanent.promotes_on(signs) {
            self.make_permanent(atom);
        }
    }

    /// Turns every permanent atom back into a counted, unused one (a loom model's
    /// teardown: no handle is left, and the model must free every allocation).
    #[cfg(loom)]
    pub(crate) fn demote_permanent_for_model(&self) {
        for raw in self.permanent.take_for_model() {
            if let Some(block) = raw.block_ptr() {
                // SAFETY: a permanent entry of this table (the global one), which holds
                // it; the model has dropped every handle.
                unsafe { crate::repr::heap::Block::demote_for_model(block) };
            }
        }
    }

    /// Whether contended hits make atoms permanent (the global table's; others never do).
    pub(crate) fn set_permanent_on_contention(&self, on: bool) {
        self.permanent.set_on_contention(on);
    }

    /// Whether atoms that keep coming back from unused become permanent (the global
    /// table's; others never do).
    pub(crate) fn set_permanent_on_reuse(&self, on: bool) {
        self.permanent.set_on_reuse(on);
    }

    /// Makes `atom` permanent if this is the global table and `atom` one of its atoms,
    /// within the permanent budget; says whether it is permanent now (values and static
    /// atoms always are).
    pub(crate) fn make_permanent(&self, atom: &AtomWord) -> bool {
        if self.kind != TableKind::Global {
            return atom.is_permanent();
        }
        self.permanent.promote(atom, self.live_bytes.load(Ordering::Relaxed))
    }
}

/// Whether `raw` is the entry for `bytes` under `hash`: the cached hash first (one read of
/// the header), the bytes only when it matches.
#[inline]
fn is_entry_for(raw: RawAtom, hash: u64, bytes: &[u8]) -> bool {
    // SAFETY: called on entries found in a shard by a pinned reader or the lock's holder,
    // which keep them allocated.
    unsafe { raw.hash() == hash && hash::bytes_eq(raw.bytes(), bytes) }
}

/// [`is_entry_for`] always in line, for the lock-free hit (see
/// [`hash::bytes_eq_in_line`]).
///
/// # Safety
/// The caller holds a count of the entry (its raise succeeded), which keeps it allocated
/// and its text unchanged.
#[cfg(not(loom))]
#[inline(always)]
unsafe fn is_raised_entry_for(raw: RawAtom, hash: u64, bytes: &[u8]) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe { raw.hash() == hash && hash::bytes_eq_in_line(raw.bytes(), bytes) }
}

/// The slots' hash of an entry they hold (the one it was inserted with).
fn entry_probe_hash(entry: NonNull<u8>) -> u64 {
    // SAFETY: the slots call this under the shard's lock on entries they hold, whose
    // counts the table holds.
    probe_hash(unsafe { RawAtom::from_slot(entry).hash() })
}

/// Visits every entry of a locked shard, changing nothing.
pub(crate) fn for_each_entry(shard: &ShardGuard<'_>, mut visit: impl FnMut(RawAtom)) {
    shard.for_each(|entry| visit(RawAtom::from_slot(entry)));
}

impl Drop for TableShared {
    fn drop(&mut self) {
        // Before any entry's count goes: from here on, a block of the slabs that some
        // handle outlives is freed by that handle without the table (see `repr::slab`).
        self.slabs.disown();
        // No reader is left (each holds an `AtomTable`): the shards are ours outright, and
        // are emptied without locks or synchronising operations (loom drops the global
        // table among its statics, where a step of the model would be out of order).
        for padded in self.shards.iter_mut() {
            // SAFETY: the table holds this entry's count and is going away; the entry is
            // taken out of its slot once.
            padded.slots.drain_exclusive(|_, entry| unsafe { RawAtom::from_slot(entry).release() });
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    /// A use after free of an atom in a slab, planted: a table's atom is dropped and swept,
    /// its block goes back to its slab (kept: the class's only one), and its bytes are
    /// read through a pointer kept from before. The memory is still the slab's, so the
    /// read is sound Rust; only the checkers, told by the slab that the block is free,
    /// object. scripts/valgrind-tests and scripts/asan-tests require them to.
    #[test]
    #[ignore = "planted use-after-free: scripts/valgrind-tests and scripts/asan-tests run it and require their checker to catch it"]
    fn planted_use_after_free_of_a_swept_atom() {
        let table = crate::AtomTable::with_seed(1);
        let atom = table.intern("an atom that lies in a slab of its table");
        let bytes = atom.as_str().as_ptr();
        drop(atom);
        table.shrink();
        let report = table.memory_report();
        assert_eq!((report.atoms, report.unused_atoms, report.slabs), (0, 0, 1), "swept, its slab kept");
        let errors_before = crate::repr::checker::valgrind_error_count();
        // SAFETY: the byte lies in the table's slab, which is still mapped; volatile, so
        // the read is not optimised away.
        let stale = unsafe { std::ptr::read_volatile(bytes.add(3)) };
        assert_eq!(stale, b'a', "the slab keeps a freed block's bytes until it is reused");
        if crate::repr::checker::running_on_valgrind() {
            assert!(crate::repr::checker::valgrind_error_count() > errors_before, "memcheck did not count the read");
        }
    }

    #[test]
    fn the_probe_hash_uses_every_low_bit() {
        let hashes: Vec<u64> = (0..64u64).map(|i| cacheable_hash(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))).collect();
        assert!(hashes.iter().all(|h| h & 0xF == 0));
        assert!(hashes.iter().any(|h| probe_hash(*h) & 0xF != 0));
    }
}
