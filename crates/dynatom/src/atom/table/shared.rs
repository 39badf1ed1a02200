//! The sharded table itself: what every `AtomTable` handle refers to.
//!
//! Each shard is a [`Slots`] set of raw atoms: one-word slots carrying 16 bits of the hash
//! beside the entry's address, probed **without a lock** by every lookup, and changed by
//! writers holding the shard's lock, a few slots at a time while it grows. **Every entry
//! holds one count of its block**, so nothing the table does depends on being told about
//! drops: a block whose last handle goes is still the table's (count 1), an *unused* atom
//! that the next intern of the same text revives without allocating.
//!
//! # A hit
//!
//! Pin the thread ([`reclaim::pin`]), probe the slots (a tag mismatch is rejected from the
//! slot word; a match reads the block's cached hash and bytes), then raise the block's
//! count with a compare-and-swap from a non-zero value. That count is the only shared
//! write. A count of 0 means a sweep took the block back: it is never raised again, and the
//! intern falls back to the locked path, which files a new block.
//!
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
//! set, and so does a lock-free reader, once unpinned, on one in [`READS_PER_COLLECTION`]
//! of its reads that see a bit set: memory retired in a shard that is never
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
//! Two things make a shard check:
//! * in the global table, the drop that turns an atom unused counts it in its shard
//!   (through the hook `repr::heap` calls); past the bound the dropper checks the shard;
//! * in the other tables, whose drops tell nobody, filing a new atom checks the shard
//!   whenever it has grown to twice its size at the last check (so their unused atoms
//!   wait for the next growth, [`TableShared::sweep`], or the table's drop). The global
//!   table skips that check: its pressure already counts every unused atom, and a check
//!   walks the whole shard, a pause of tens of microseconds in the middle of a fill.

use std::ptr::NonNull;

use crate::error::{MAX_LEN, StrError};
use crate::hash::{self, TextHash};
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::declared::{self, DeclareError, StaticText};
use crate::repr::heap::{
    Block, DeadBlock, Fallibility, HEADER_SIZE, HitSigns, INTERNED, LOCAL, OWN_SEED, StaticEntry, cacheable_hash,
};
use crate::repr::slab::{MAX_STRIPES, SlabUsage, Slabs};
use crate::sync::{AtomicBool, AtomicU64, AtomicUsize, Mutex, Ordering, lock};

mod late_registration;
mod process_hooks;
mod shared_ref;

pub(crate) use late_registration::register_late_set;
pub(crate) use process_hooks::note_global_unused;
pub(crate) use shared_ref::SharedRef;

use super::permanent::Permanent;
use super::reclaim::{self, Retired};
use super::slots::{Slots, SlotsGuard};
use crate::counters::Counters;

#[cfg(not(loom))]
const SHARD_COUNT: usize = 64;
#[cfg(loom)]
const SHARD_COUNT: usize = 2;

// `TableShared::waiting_shards` has a bit per shard.
const _: () = assert!(SHARD_COUNT <= 64);

/// While a table holds retired memory, each thread's lock-free reads (intern hits and
/// lookups) make a collection every this many: often enough that memory waits for reads
/// measured in microseconds, seldom enough that readers do not queue on the reclaimer's
/// lock while a pinned thread holds the epoch back.
const READS_PER_COLLECTION: u32 = 256;

/// Unused atoms a table keeps, beyond half its atoms in use, before it sweeps.
pub(crate) const DEFAULT_UNUSED_LIMIT: usize = 4096;

/// Bytes (headers and texts) of unused atoms a table keeps, beyond half the bytes of its
/// atoms in use, before it sweeps.
pub(crate) const DEFAULT_UNUSED_BYTES_LIMIT: usize = 4 << 20;

/// A shard's pressure, and the mark past which a dropper checks the shard, each hold two
/// counts in one word: drops that turned atoms unused in the bits from this one up, their
/// bytes below. One atomic add records a drop, and each count meets its own room: with a
/// single weighted sum, rooms in bytes made a shard of small atoms check (walking all its
/// entries) some twenty times more often than either bound needed.
const DROPS_SHIFT: u32 = 44;
/// The top bit of each field: always clear in a pressure (each count stays below it),
/// always set in a mark, so that one subtraction compares both fields at once (a field
/// whose pressure passed its mark borrows its guard bit, and never the next field's).
const GUARDS: u64 = (1 << 63) | (1 << (DROPS_SHIFT - 1));
/// The most drops and bytes a check leaves as room: a dropper checks once either count
/// passes its room, and each field holds more than four times that below its guard bit
/// (65,536 drops; 1 TiB).
const MAX_DROPS_ROOM: usize = 1 << (60 - DROPS_SHIFT);
const MAX_BYTES_ROOM: usize = 1 << (DROPS_SHIFT - 4);

/// What one drop of an atom of `bytes` (header and text, at most 4 GiB and a header) adds
/// to its shard's pressure.
#[inline]
fn one_drop(bytes: usize) -> u64 {
    (1 << DROPS_SHIFT) | bytes as u64
}

/// The mark for a room of `drops` and `bytes`, guard bits set.
fn mark_word(drops: usize, bytes: usize) -> u64 {
    ((drops.min(MAX_DROPS_ROOM) as u64) << DROPS_SHIFT) | bytes.min(MAX_BYTES_ROOM) as u64 | GUARDS
}

/// Whether `pressure` passed `mark` in either count.
#[inline]
fn passes(pressure: u64, mark: u64) -> bool {
    mark.wrapping_sub(pressure) & GUARDS != GUARDS
}

/// One shard on its own cache line, so threads working in neighbouring shards do not
/// fight over the line.
#[repr(align(64))]
struct PaddedShard {
    slots: Slots<Shard>,
    /// The drops that turned atoms unused since the shard was last checked (global table),
    /// and their bytes: see [`DROPS_SHIFT`].
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
    /// A fixed-size array, so that `shards[shard_index(hash)]` needs no bounds check.
    shards: Box<[PaddedShard; SHARD_COUNT]>,
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
    /// every [`READS_PER_COLLECTION`]th lock-free read of a thread, collects the shards it
    /// names (see [`TableShared::collect_waiting`]), so that memory retired in a shard that
    /// is not touched again is freed all the same.
    waiting_shards: AtomicU64,
    /// The atoms made permanent (global table only; see [`super::permanent`]).
    permanent: Permanent,
    /// Whether a set registered at run time left some of its texts unfiled here (it ran
    /// out of memory filing them; global table only): misses then ask for them
    /// ([`TableShared::late_declared_entry`]), which costs every miss a call otherwise.
    unfiled_published: AtomicBool,
}

/// `retain`'s test for a sweep: an unused entry's count is taken back and its block goes
/// to `dead`, its bytes (header and text) to `dead_bytes` (`retain` unlinks it at once);
/// every entry kept goes to `kept`.
fn sweep_into<'a>(
    dead: &'a mut Vec<DeadBlock>,
    dead_bytes: &'a mut usize,
    mut kept: impl FnMut(RawAtom) + 'a,
) -> impl FnMut(NonNull<u8>) -> bool + 'a {
    move |entry| {
        let raw = RawAtom::from_slot(entry);
        // SAFETY: `retain` passes entries of the slots, whose counts the table holds, under
        // the shard's lock; a reclaimed entry is unlinked before the lock goes.
        match unsafe { raw.reclaim_unused() } {
            Some(block) => {
                // SAFETY: reclaimed, so the block is this sweep's alone, and allocated until
                // the retired list frees it.
                *dead_bytes += HEADER_SIZE + unsafe { raw.bytes() }.len();
                dead.push(block);
                false
            }
            None => {
                kept(raw);
                true
            }
        }
    }
}

/// Why a shard is checked (see [`TableShared::check_shard`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Check {
    /// Count the unused atoms; sweep if they pass half a bound.
    Count,
    /// The shard's pressure passed its mark (global table): as `Count`, except that a
    /// shard of [`SWEEP_WHILE_COUNTING_FLOORS`] floors or more sweeps as it counts.
    AfterDrops,
    /// Sweep every unused atom.
    Sweep,
}

/// Shards this many times their floor or larger sweep in the pass that counts when their
/// drops pass the mark.
const SWEEP_WHILE_COUNTING_FLOORS: usize = 4;

/// What a lock-free probe that found nothing saw.
struct Missed {
    /// The shard's write version read before it.
    version: usize,
    /// Slots it read.
    probes: u64,
    /// Entries it compared in full.
    compared: u64,
}

/// The hash the slots see: the cached hash's four low bits are the header's flag bits
/// (zero), and the slots take their index from the low bits, so fold high bits in (the
/// top 16 bits, the slot's tag, stay the hash's own).
#[inline]
fn probe_hash(hash: u64) -> u64 {
    hash ^ (hash >> 32)
}

/// Bits 40..46 pick the shard: independent of the slot index (low bits, folded with bits
/// 32..) and the slot's tag (bits 48..).
#[inline]
fn shard_index(hash: u64) -> usize {
    (hash >> 40) as usize % SHARD_COUNT
}

/// The global table's slabs have a stripe per core (up to [`MAX_STRIPES`], picked by
/// shard), which come into use as its threads contend; another table keeps one set of
/// classes (about 2.4 KiB), as it is mostly filled by one thread at a time.
fn slab_stripes(kind: TableKind) -> usize {
    if kind != TableKind::Global || cfg!(loom) {
        return 1;
    }
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    cores.next_power_of_two().min(MAX_STRIPES)
}

impl TableShared {
    /// A new, empty table, or the allocation failure (the shards are its one
    /// allocation; their slot arrays come with the first atoms).
    pub(crate) fn try_new(seed: u64, kind: TableKind) -> Result<TableShared, StrError> {
        let floor = DEFAULT_UNUSED_LIMIT.div_ceil(SHARD_COUNT);
        let bytes_floor = DEFAULT_UNUSED_BYTES_LIMIT / SHARD_COUNT;
        let mut shards = Vec::new();
        if shards.try_reserve_exact(SHARD_COUNT).is_err() {
            return Err(StrError::AllocFailed { size: SHARD_COUNT * std::mem::size_of::<PaddedShard>() });
        }
        shards.extend((0..SHARD_COUNT).map(|_| PaddedShard {
            slots: Slots::new(Shard { check_at_len: floor, ..Shard::default() }, entry_probe_hash),
            pressure: AtomicU64::new(0),
            check_after: AtomicU64::new(mark_word(floor, bytes_floor)),
        }));
        let Ok(shards) = <Box<[PaddedShard; SHARD_COUNT]>>::try_from(shards.into_boxed_slice()) else {
            unreachable!("exactly SHARD_COUNT shards were made")
        };
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

    /// Sets how many unused atoms the table keeps beyond half of those in use, and
    /// checks every shard against it.
    pub(crate) fn set_unused_limit(&self, atoms: usize) {
        self.unused_floor.store(atoms.div_ceil(SHARD_COUNT), Ordering::Relaxed);
        self.check_every_shard();
    }

    /// Sets how many bytes of unused atoms the table keeps beyond half the bytes of those
    /// in use, and checks every shard against it.
    pub(crate) fn set_unused_bytes_limit(&self, bytes: usize) {
        self.unused_bytes_floor.store(bytes, Ordering::Relaxed);
        self.check_every_shard();
    }

    /// The bytes of unused atoms the table keeps beyond half the bytes of those in use.
    pub(crate) fn unused_bytes_floor(&self) -> usize {
        self.unused_bytes_floor.load(Ordering::Relaxed)
    }

    /// Checks every shard (see [`check_shard`](Self::check_shard)), then sets how many
    /// bytes may be filed before the next such check: the room left under the table's
    /// byte bound.
    fn check_every_shard(&self) {
        let filed_seen = self.filed_bytes.load(Ordering::Relaxed);
        let mut unused_bytes = 0;
        for padded in self.shards.iter() {
            let mut shard = padded.slots.lock();
            self.check_shard(padded, &mut shard, Check::Count);
            unused_bytes += shard.unused_bytes + shard.retired.bytes();
        }
        self.filed_bytes.fetch_sub(filed_seen, Ordering::Relaxed);
        self.filed_bytes_room.store(self.byte_bound().saturating_sub(unused_bytes), Ordering::Relaxed);
    }

    /// The table's byte bound, `max(floor, live / 2)`.
    fn byte_bound(&self) -> usize {
        let live = self.live_bytes.load(Ordering::Relaxed);
        self.unused_bytes_floor.load(Ordering::Relaxed).max(live / 2)
    }

    /// A shard's share of the byte bound.
    fn shard_byte_bound(&self) -> usize {
        self.byte_bound() / SHARD_COUNT
    }

    /// Finds the entry for `bytes` (reviving it if unused), or files the atom `make` builds
    /// (with the entry that holds the table's count of it).
    #[inline]
    fn find_or_file(
        &self,
        bytes: &[u8],
        hash: u64,
        make: impl FnOnce() -> Result<(AtomWord, RawAtom), StrError>,
    ) -> Result<AtomWord, StrError> {
        let padded = &self.shards[shard_index(hash)];
        // Read before the lock-free probe: unchanged under the lock, it says that no entry
        // came or went since, so a miss here is a miss there and the locked probe is
        // skipped (the usual case for a new atom on one thread).
        let version = padded.slots.version();
        let mut compared = 0;
        let probes = {
            let guard = reclaim::pin();
            let (found, probes) = padded.slots.find_counting(&guard, probe_hash(hash), |entry| {
                compared += 1;
                is_entry_for(RawAtom::from_slot(entry), hash, bytes)
            });
            let mut signs = HitSigns::default();
            let hit = found.and_then(|entry| {
                // SAFETY: pinned: a swept block is freed only after this guard is dropped,
                // and a count of 0 (swept) is never raised.
                unsafe { RawAtom::from_slot(entry).acquire_noting(true, &mut signs) }
            });
            if let Some(atom) = hit {
                drop(guard);
                if signs.any() {
                    self.promote_hot(&atom, signs);
                }
                self.after_read();
                return Ok(atom);
            }
            probes
        };
        self.file_locked(padded, bytes, hash, Missed { version, probes, compared }, make)
    }

    /// `find_or_file` after its lock-free probe `missed`: under the shard's lock, probe
    /// again if anything changed, else file the atom `make` builds. Out of line, so that a
    /// hit's path saves and restores only the registers it needs.
    #[inline(never)]
    fn file_locked(
        &self,
        padded: &PaddedShard,
        bytes: &[u8],
        hash: u64,
        missed: Missed,
        make: impl FnOnce() -> Result<(AtomWord, RawAtom), StrError>,
    ) -> Result<AtomWord, StrError> {
        // Declared atoms are values, the same in every table, asked for on a miss before
        // any lock (the global table files them when it is made, so it never asks).
        let generation = declared::late_generation();
        if let Some(atom) = self.lookup_declared(bytes) {
            return Ok(atom);
        }
        let Missed { version, probes, mut compared } = missed;
        let mut shard = padded.slots.lock();
        // A set registered at run time while this thread waited for the lock holds every
        // table's shards locked while it checks them, then publishes its texts: asked
        // again, this miss gives the declared atom rather than filing an ordinary one.
        if declared::late_generation() != generation
            && let Some(atom) = self.lookup_declared(bytes)
        {
            return Ok(atom);
        }
        if shard.version() != version {
            // The probe length is the slots read, not the entries compared: the tags keep
            // the latter near zero, whatever the keys.
            compared = 0;
            let (found, probes) = shard.find_counting(probe_hash(hash), |entry| {
                compared += 1;
                is_entry_for(RawAtom::from_slot(entry), hash, bytes)
            });
            shard.counters.record_lookup(probes);
            shard.counters.record_compared(compared);
            if let Some(entry) = found {
                shard.counters.hits += 1;
                // SAFETY: the table holds a count of every listed entry and sweeps only
                // under this lock, so the count is at least 1 and reviving cannot fail.
                let atom = unsafe { RawAtom::from_slot(entry).acquire(true) };
                return Ok(atom.expect("a listed entry holds the table's count"));
            }
        } else {
            // The lock-free probe read what a locked one would have.
            shard.counters.record_lookup(probes);
            shard.counters.record_compared(compared);
        }
        shard.counters.misses += 1;
        let late =
            if self.unfiled_published.load(Ordering::Relaxed) { self.late_declared_entry(bytes, hash) } else { None };
        let (atom, raw) = match late {
            Some(declared) => declared,
            None => make()?,
        };
        if let Err(err) = shard.insert(probe_hash(hash), raw.as_slot()) {
            // SAFETY: the entry was never listed; its count goes back at once.
            unsafe { raw.release() };
            return Err(err);
        }
        shard.counters.inserts += 1;
        self.collect_after_write(shard_index(hash), &mut shard);
        // The global table hears of every atom that turns unused (its shards' pressure);
        // see the module's docs.
        if self.kind != TableKind::Global && shard.len() > shard.check_at_len {
            self.check_shard(padded, &mut shard, Check::Count);
        }
        if self.kind != TableKind::Global {
            // SAFETY: just filed: the table holds its count, under the lock.
            let footprint = unsafe { raw.footprint() };
            let bytes = footprint.header + footprint.chars;
            let filed = self.filed_bytes.fetch_add(bytes, Ordering::Relaxed).wrapping_add(bytes);
            if filed > self.filed_bytes_room.load(Ordering::Relaxed) {
                // Every shard is locked in turn: not while holding this one.
                drop(shard);
                self.check_every_shard();
                // The new atom was in use at the check, and may be unused by the next.
                self.filed_bytes.fetch_add(bytes, Ordering::Relaxed);
            }
        }
        Ok(atom)
    }

    /// The entry `accept` picks among those filed under `hash`, found without the lock,
    /// with a new count: `revive` also takes unused entries. Writes nothing but the count.
    fn find_unlocked(
        &self,
        padded: &PaddedShard,
        hash: u64,
        accept: impl Fn(RawAtom) -> bool,
        revive: bool,
    ) -> Option<AtomWord> {
        let guard = reclaim::pin();
        let entry = padded.slots.find(&guard, probe_hash(hash), |entry| accept(RawAtom::from_slot(entry)));
        let mut signs = HitSigns::default();
        // SAFETY: pinned: a swept block is freed only after this guard is dropped, and a
        // count of 0 (swept) is never raised.
        let atom = entry.and_then(|entry| unsafe { RawAtom::from_slot(entry).acquire_noting(revive, &mut signs) });
        drop(guard);
        if let Some(atom) = atom.as_ref().filter(|_| signs.any()) {
            self.promote_hot(atom, signs);
        }
        self.after_read();
        atom
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

    /// What a lock-free read does once unpinned: one relaxed load, and a collection now
    /// and then while retired memory waits (see [`READS_PER_COLLECTION`]). Unpinned
    /// first, so that the reader's own pin holds nothing back.
    #[inline(always)]
    fn after_read(&self) {
        if self.waiting_shards.load(Ordering::Relaxed) != 0 {
            self.collect_after_reads();
        }
    }

    /// [`TableShared::after_read`]'s collection, on one in [`READS_PER_COLLECTION`] of the
    /// thread's reads that find retired memory waiting (in any table: the count is the
    /// thread's).
    #[cold]
    #[inline(never)]
    fn collect_after_reads(&self) {
        // Loom's threads share the process's thread-locals: there, every such read collects.
        #[cfg(not(loom))]
        {
            std::thread_local! {
                static READS_TO_COLLECT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
            }
            let due = READS_TO_COLLECT.try_with(|left| {
                let now = left.get();
                left.set(if now == 0 { READS_PER_COLLECTION - 1 } else { now - 1 });
                now == 0
            });
            if due != Ok(true) {
                return;
            }
        }
        self.collect_waiting(None);
    }

    /// The index of one of this table's shards.
    fn index_of(&self, padded: &PaddedShard) -> usize {
        (std::ptr::from_ref(padded).addr() - self.shards.as_ptr().addr()) / std::mem::size_of::<PaddedShard>()
    }

    /// Records whether the shard at `index` (locked) still holds retired memory: swept
    /// blocks, or old slot arrays.
    fn note_waiting(&self, index: usize, shard: &ShardGuard<'_>) {
        let bit = 1 << index;
        let waits = shard.retired.len() > 0 || shard.arrays_waiting() > 0;
        // Only this shard's lock holder changes its bit: a load says whether it must.
        if waits != (self.waiting_shards.load(Ordering::Relaxed) & bit != 0) {
            if waits {
                self.waiting_shards.fetch_or(bit, Ordering::Relaxed);
            } else {
                self.waiting_shards.fetch_and(!bit, Ordering::Relaxed);
            }
        }
    }

    /// One collection of the shard at `index` (locked): frees what the epoch allows of its
    /// swept blocks and old arrays, moving the epoch a step if it can.
    fn collect_shard(&self, index: usize, shard: &mut ShardGuard<'_>) {
        shard.retired.collect();
        shard.collect_arrays();
        self.note_waiting(index, shard);
    }

    /// Collects every shard whose retired memory waits, except `held` (which the caller
    /// has locked and collects itself). A shard whose lock another thread holds is
    /// skipped: the caller may hold a shard's lock, so waiting for a second one could
    /// deadlock with a thread locking them the other way, and a reader must not wait for
    /// a writer. The holder collects its own shard when it writes.
    #[cold]
    #[inline(never)]
    fn collect_waiting(&self, held: Option<usize>) {
        let mut waiting = self.waiting_shards.load(Ordering::Relaxed);
        if let Some(held) = held {
            waiting &= !(1 << held);
        }
        while waiting != 0 {
            let index = waiting.trailing_zeros() as usize;
            waiting &= waiting - 1;
            let Some(mut shard) = self.shards[index].slots.try_lock() else { continue };
            self.collect_shard(index, &mut shard);
        }
    }

    /// What a write to the shard at `index` (locked) does for retired memory: records
    /// whether the shard's own still waits (the write may have retired an old array),
    /// and while any shard's waits, collects them all.
    #[inline]
    fn collect_after_write(&self, index: usize, shard: &mut ShardGuard<'_>) {
        // The common case, nothing waiting anywhere, in one load and two compares (counted:
        // noting the shard's state first cost every filing some 20 instructions).
        if self.waiting_shards.load(Ordering::Relaxed) == 0 && shard.retired.len() == 0 && shard.arrays_waiting() == 0 {
            return;
        }
        self.collect_everywhere_after_write(index, shard);
    }

    #[cold]
    #[inline(never)]
    fn collect_everywhere_after_write(&self, index: usize, shard: &mut ShardGuard<'_>) {
        self.note_waiting(index, shard);
        if self.waiting_shards.load(Ordering::Relaxed) != 0 {
            self.collect_shard(index, shard);
            self.collect_waiting(Some(index));
        }
    }

    /// Whether the entry `accept` picks among those filed under `hash` is in use, found
    /// without the lock and taking no count: a look that writes nothing shared.
    fn in_use_unlocked(&self, padded: &PaddedShard, hash: u64, accept: impl Fn(RawAtom) -> bool) -> bool {
        let guard = reclaim::pin();
        let Some(entry) = padded.slots.find(&guard, probe_hash(hash), |entry| accept(RawAtom::from_slot(entry))) else {
            return false;
        };
        // SAFETY: pinned: a swept block is freed only after this guard is dropped.
        unsafe { RawAtom::from_slot(entry).is_in_use() }
    }

    /// Counts a shard's unused atoms and their bytes, and frees them all if they pass
    /// half of either bound, `max(floor, live / 2)` atoms or the shard's share of the byte
    /// bound (or always, with [`Check::Sweep`]); then sets when the next check comes.
    /// Returns the atoms freed.
    ///
    /// Sweeping from half a bound, not the whole, leaves every check at least half a
    /// bound of room before the next: however drops and revivals interleave, a shard is
    /// checked once per half a bound's worth of drops at most.
    fn check_shard(&self, padded: &PaddedShard, shard: &mut ShardGuard<'_>, check: Check) -> usize {
        let pressure_seen = padded.pressure.load(Ordering::Relaxed);
        let floor = self.unused_floor.load(Ordering::Relaxed);
        // A large shard whose drops passed its mark sweeps in the pass that counts: the
        // drops say that about half a bound of its atoms went unused, and a second pass
        // over a large shard is what made a mass drop (a big map of atoms going at once)
        // cost hundreds of instructions per atom. A small shard counts first, so that a
        // few atoms interned and dropped in turn are not swept and refiled over and over.
        let sweep_while_counting =
            check == Check::AfterDrops && shard.len() >= SWEEP_WHILE_COUNTING_FLOORS * floor.max(1);
        let (mut unused, mut unused_bytes, mut live_bytes, mut dead_bytes) = (0, 0, 0, 0);
        let mut dead = Vec::new();
        if sweep_while_counting {
            // Room for the atoms the drops turned unused, so that the pass does not grow
            // the list one reallocation at a time (a tenth of a mass drop's instructions).
            let drops = (pressure_seen >> DROPS_SHIFT) as usize;
            let _ = dead.try_reserve_exact(drops.min(shard.len()));
            shard.retain(
                sweep_into(&mut dead, &mut dead_bytes, |raw| {
                    // SAFETY: kept, so the table still holds its count.
                    let footprint = unsafe { raw.footprint() };
                    live_bytes += footprint.header + footprint.chars;
                }),
                |_| {},
            );
        } else {
            for_each_entry(shard, |raw| {
                // SAFETY: the table holds every entry's count; only this lock's holder sweeps.
                let (footprint, is_unused) = unsafe { (raw.footprint(), raw.is_unused()) };
                let bytes = footprint.header + footprint.chars;
                if is_unused {
                    unused += 1;
                    unused_bytes += bytes;
                } else {
                    live_bytes += bytes;
                }
            });
        }
        let live = shard.len() - unused;
        // The table's live bytes as this shard now counts them: the byte bound follows.
        if live_bytes >= shard.live_bytes {
            self.live_bytes.fetch_add(live_bytes - shard.live_bytes, Ordering::Relaxed);
        } else {
            self.live_bytes.fetch_sub(shard.live_bytes - live_bytes, Ordering::Relaxed);
        }
        shard.live_bytes = live_bytes;
        let count_bound = floor.max(live / 2);
        let byte_bound = self.shard_byte_bound();
        // Swept blocks that readers still hold count as unused bytes: retirements that
        // readers keep from being freed bring the next check, and its collection, sooner.
        let retired_bytes = shard.retired.bytes();
        if !sweep_while_counting
            && (check == Check::Sweep || unused > count_bound / 2 || unused_bytes + retired_bytes > byte_bound / 2)
        {
            let _ = dead.try_reserve_exact(unused);
            shard.retain(sweep_into(&mut dead, &mut dead_bytes, |_| {}), |_| {});
            // Whatever was unused is gone, or was revived meanwhile; a drop since is in the
            // pressure beyond what this check saw.
            (unused, unused_bytes) = (0, 0);
        }
        let freed = dead.len();
        // Most checks free nothing: an empty list's iterator is not worth building (counted:
        // a tenth of the check on a shard of a few dozen atoms).
        if freed > 0 {
            // SAFETY: unlinked from the slots above (no reader pinning from now on can find
            // them), retired once, and each `free` frees a dead block from any thread. The
            // list is dropped with the table, when no reader is left.
            unsafe { shard.retired.retire_all(dead.into_iter().map(DeadBlock::into_retirable), dead_bytes) };
        }
        shard.counters.removals += freed as u64;
        // Swept blocks are freed as soon as no reader holds them: with none pinned, the
        // two epoch steps take a few collections, and a large atom's memory goes now.
        for _ in 0..if freed > 0 { 3 } else { 1 } {
            if shard.retired.collect() == 0 {
                break;
            }
        }
        // What a reader still holds waits for a later collection, by any write to any shard
        // or by reads (see `waiting_shards`); meanwhile its bytes take room under the bound.
        let index = self.index_of(padded);
        self.collect_after_write(index, shard);
        padded.pressure.fetch_sub(pressure_seen, Ordering::Relaxed);
        let count_room = count_bound.saturating_sub(unused);
        let byte_room = byte_bound.saturating_sub(unused_bytes + shard.retired.bytes());
        padded.check_after.store(mark_word(count_room, byte_room), Ordering::Relaxed);
        shard.check_at_len = floor.max(shard.len() * 2);
        shard.unused_bytes = unused_bytes;
        freed
    }

    /// A global atom of `bytes` (header and text) in `hash`'s shard became unused.
    ///
    /// Every drop that leaves an atom unused runs this: the common case (no check due)
    /// is an add and a compare, with the locking check out of line so that this path
    /// saves no registers and sets up no stack frame.
    #[inline]
    fn note_unused(&self, hash: u64, bytes: usize) {
        let padded = &self.shards[shard_index(hash)];
        let added = one_drop(bytes);
        let pressure = padded.pressure.fetch_add(added, Ordering::Relaxed).wrapping_add(added);
        if passes(pressure, padded.check_after.load(Ordering::Relaxed)) {
            self.check_shard_after_drop(padded);
        }
    }

    /// [`TableShared::note_unused`]'s check, once the shard's pressure passed its mark.
    #[cold]
    #[inline(never)]
    fn check_shard_after_drop(&self, padded: &PaddedShard) {
        let mut shard = padded.slots.lock();
        // Another dropper may have checked while we waited for the lock.
        if passes(padded.pressure.load(Ordering::Relaxed), padded.check_after.load(Ordering::Relaxed)) {
            self.check_shard(padded, &mut shard, Check::AfterDrops);
        }
    }

    /// Frees every unused atom now, and whatever lock-free readers have moved on from.
    /// Returns the atoms swept.
    pub(crate) fn sweep(&self) -> usize {
        let mut freed = 0;
        for padded in self.shards.iter() {
            let mut shard = padded.slots.lock();
            freed += self.check_shard(padded, &mut shard, Check::Sweep);
            // The sweep may have started moving the entries to a smaller array: a pass that
            // keeps everything finishes that, and retires the old array.
            shard.retain(|_| true, |_| {});
            // An item is freed two epoch steps after it was retired: with no reader pinned,
            // a few collections free them all.
            for _ in 0..3 {
                shard.retired.collect();
                shard.collect_arrays();
            }
            self.note_waiting(self.index_of(padded), &shard);
        }
        freed
    }

    /// Interns a copy of `bytes` (longer than an inline atom).
    pub(crate) fn intern_copy(&self, bytes: &[u8], fallibility: Fallibility) -> Result<AtomWord, StrError> {
        if fallibility == Fallibility::Fallible {
            reclaim::ensure_registered()?;
        }
        let hash = self.hash_inlined(bytes);
        self.find_or_file(bytes, hash, move || self.file_copy(bytes, hash, fallibility))
    }

    fn file_copy(&self, bytes: &[u8], hash: u64, fallibility: Fallibility) -> Result<(AtomWord, RawAtom), StrError> {
        // Under loom the global table is dropped among the model's statics, where the
        // slabs' disowning would be a step out of order: it copies into malloc blocks.
        let (block, entry) = if cfg!(loom) && self.kind == TableKind::Global {
            Block::copy_filed(bytes, hash, self.claim_flags(), fallibility)?
        } else {
            // SAFETY: this table files the block, and disowns its slabs (first thing in
            // its drop) before it gives up its entries.
            unsafe {
                Block::copy_filed_in(&self.slabs, shard_index(hash), bytes, hash, self.claim_flags(), fallibility)?
            }
        };
        Ok(AtomWord::filed_copy(block, entry))
    }

    /// Interns the bytes of `block` (which spans its whole buffer), adopting the block
    /// itself when no atom of those bytes exists and no table has it yet. Tables with
    /// their own seed copy: the block's one hash slot holds the process seed's hash.
    pub(crate) fn intern_block(&self, block: &Block, fallibility: Fallibility) -> Result<AtomWord, StrError> {
        if fallibility == Fallibility::Fallible {
            reclaim::ensure_registered()?;
        }
        if self.kind == TableKind::Global && block.is_global_entry() {
            return Ok(AtomWord::from_block(block.clone()));
        }
        let bytes = block.bytes();
        let own_flags = INTERNED | self.claim_flags();
        if block.flags() & (INTERNED | LOCAL | OWN_SEED) == own_flags {
            // Perhaps this table's entry: then its cached hash is the one it is filed under,
            // and finding it compares pointers, not text.
            let found = block.cached_hash().and_then(|hash| self.find_entry(bytes, hash, Some(block.bytes_ptr())));
            if let Some(atom) = found {
                return Ok(atom);
            }
        }
        if self.kind == TableKind::OwnSeed {
            return self.intern_copy(bytes, fallibility);
        }
        let hash = block.cached_process_hash().unwrap_or_else(|| {
            let hash = self.hash(bytes);
            block.cache_hash(hash);
            hash
        });
        self.find_or_file(bytes, hash, || {
            if block.flags() & INTERNED == 0 && block.try_claim(self.claim_flags()) {
                let atom = AtomWord::from_block(block.clone());
                let entry = atom.counted_entry();
                Ok((atom, entry))
            } else {
                self.file_copy(bytes, hash, fallibility)
            }
        })
    }

    /// Interns `bytes`, keeping them where they are if no atom of them exists.
    /// A local table copies them instead: its entries are freed with it, and a static
    /// entry never is.
    pub(crate) fn intern_static(&self, bytes: &'static [u8]) -> AtomWord {
        if self.kind != TableKind::Global {
            return self.intern_copy(bytes, Fallibility::Infallible).expect("a static text fits in a block");
        }
        let hash = self.hash(bytes);
        let filed = self.find_or_file(bytes, hash, || {
            // Refused here, under the lock, as an error rather than a panic (the callers
            // check the length before hashing, so this is not reached).
            if bytes.len() > MAX_LEN {
                return Err(StrError::TooLong { len: bytes.len() });
            }
            let leaked = StaticEntry::leak(bytes, hash, 0);
            lock(&self.static_entries).push(leaked.as_ptr().addr());
            let atom = AtomWord::from_static(leaked);
            let entry = atom.counted_entry();
            Ok((atom, entry))
        });
        filed.expect("filing a static entry cannot fail")
    }

    /// Files a set's declared texts longer than 7 bytes in the global table as immortal
    /// entries (made in one allocation) whose hits hand out their declared words: the
    /// global table's start-up is one pass. A text already filed as an ordinary atom (a set
    /// registered after its text was interned) is an error; the others are filed.
    pub(crate) fn file_declared_set(&self, texts: &[StaticText]) -> Result<(), DeclareError> {
        debug_assert!(self.kind == TableKind::Global);
        let long = || texts.iter().filter(|text| text.bytes().len() > crate::repr::atom_word::INLINE_ATOM_CAPACITY);
        let entries = StaticEntry::leak_all(long().map(|text| (text.bytes(), self.hash(text.bytes()), text.bits())));
        if entries.is_empty() {
            return Ok(());
        }
        lock(&self.static_entries).push(entries.as_ptr().addr());
        let mut result = Ok(());
        for (entry, text) in entries.iter().zip(long()) {
            let entry = NonNull::from(entry);
            // SAFETY: just leaked: immortal.
            let hash = unsafe { StaticEntry::hash(entry) };
            let filed = self.find_or_file(text.bytes(), hash, || {
                let raw = AtomWord::from_static(entry).raw();
                Ok((AtomWord::from_declared_bits(text.bits()), raw))
            });
            if !matches!(&filed, Ok(atom) if atom.bits() == text.bits()) {
                let permanent = matches!(&filed, Ok(atom) if atom.is_permanent());
                result = result.and(Err(DeclareError::InternedBefore { text: text.bytes().to_vec(), permanent }));
            }
        }
        result
    }

    /// The global table's entry for a text of a set registered at run time that is not
    /// filed yet (the registration files them all, unless it ran out of memory doing so,
    /// which [`TableShared::unfiled_published`] records): for texts the prefix filter lets
    /// through.
    #[cold]
    #[inline(never)]
    fn late_declared_entry(&self, bytes: &[u8], hash: u64) -> Option<(AtomWord, RawAtom)> {
        if self.kind != TableKind::Global || declared::late_generation() == 0 || !declared::may_be_declared(bytes) {
            return None;
        }
        let bits = declared::word_of(bytes)?;
        let text = declared::text_of(bits)?;
        let entry = StaticEntry::leak(text, hash, bits);
        lock(&self.static_entries).push(entry.as_ptr().addr());
        Some((AtomWord::from_declared_bits(bits), AtomWord::from_static(entry).raw()))
    }

    /// The atom for `bytes` if one is in use. Never files or revives anything.
    pub(crate) fn lookup(&self, bytes: &[u8]) -> Option<AtomWord> {
        let hash = self.hash(bytes);
        self.find_entry(bytes, hash, None)
    }

    /// A miss's last look: the declared atom of `bytes` (only tables other than the global
    /// one, which files the declared texts itself).
    #[inline(always)]
    fn lookup_declared(&self, bytes: &[u8]) -> Option<AtomWord> {
        if self.kind == TableKind::Global || !declared::may_be_declared(bytes) {
            return None;
        }
        Self::declared_word_of(bytes)
    }

    #[cold]
    #[inline(never)]
    fn declared_word_of(bytes: &[u8]) -> Option<AtomWord> {
        declared::word_of(bytes).map(AtomWord::from_declared_bits)
    }

    /// Whether an entry for `bytes` is in use (one [`TableShared::lookup`] would find),
    /// looked up without the lock and without a count.
    pub(crate) fn holds_in_use(&self, bytes: &[u8]) -> bool {
        let hash = self.hash_inlined(bytes);
        let padded = &self.shards[shard_index(hash)];
        self.in_use_unlocked(padded, hash, |raw| is_entry_for(raw, hash, bytes))
            || self.lookup_declared(bytes).is_some()
    }

    /// Whether `atom` (not inline) is this table's entry. Takes no count: the caller's
    /// handle keeps the entry in use, so only its address needs finding.
    pub(crate) fn lists(&self, atom: &AtomWord) -> bool {
        if atom.is_global_entry() || self.kind == TableKind::Global {
            return atom.is_global_entry() && self.kind == TableKind::Global;
        }
        let Some(hash) = atom.table_hash() else { return false };
        let at = atom.as_bytes().as_ptr();
        let padded = &self.shards[shard_index(hash)];
        self.in_use_unlocked(padded, hash, |raw| {
            // SAFETY: `in_use_unlocked` is pinned while it calls this, so the entry is
            // allocated.
            let entry_bytes = unsafe { raw.bytes() };
            std::ptr::eq(entry_bytes.as_ptr(), at)
        })
    }

    /// The entry in use for `bytes` filed under `hash`, without the lock, or else the
    /// declared atom of `bytes` (tables other than the global one); with `at`, only the
    /// entry whose characters are at that address (found by address, comparing no text).
    fn find_entry(&self, bytes: &[u8], hash: u64, at: Option<*const u8>) -> Option<AtomWord> {
        let padded = &self.shards[shard_index(hash)];
        match at {
            Some(at) => {
                let at_address = |raw: RawAtom| {
                    // SAFETY: `find_unlocked` is pinned while it calls this, so the entry
                    // is allocated.
                    let entry_bytes = unsafe { raw.bytes() };
                    std::ptr::eq(entry_bytes.as_ptr(), at)
                };
                self.find_unlocked(padded, hash, at_address, false)
            }
            None => match self.find_unlocked(padded, hash, |raw| is_entry_for(raw, hash, bytes), false) {
                Some(atom) => Some(atom),
                None => self.lookup_declared(bytes),
            },
        }
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

    #[test]
    fn pressure_meets_each_room_on_its_own() {
        // Room for 700 drops and 60 KiB: 1,000 drops of 40-byte atoms pass the drop room
        // alone, 61 drops of 1 KiB atoms the byte room alone, 600 small drops neither.
        let mark = mark_word(700, 60 << 10);
        let after =
            |drops: usize, bytes_each: usize| (0..drops).fold(0u64, |pressure, _| pressure + one_drop(bytes_each));
        assert!(!passes(after(600, 40), mark), "600 small drops are within both rooms");
        assert!(!passes(after(700, 40), mark), "the room itself is within it");
        assert!(passes(after(701, 40), mark));
        assert!(passes(after(61, 1024), mark));
        assert!(!passes(after(60, 1024), mark));
        assert!(!passes(0, mark_word(0, 0)));
        assert!(passes(one_drop(0), mark_word(0, 0)));
        // Subtracting what a check saw leaves what came after it, in both counts.
        let seen = after(500, 40);
        assert_eq!(after(520, 40) - seen, after(20, 40));
    }

    #[test]
    fn rooms_stay_clear_of_the_guard_bits() {
        let huge = mark_word(usize::MAX, usize::MAX) & !GUARDS;
        assert_eq!(huge >> DROPS_SHIFT, MAX_DROPS_ROOM as u64);
        assert_eq!(huge & ((1 << DROPS_SHIFT) - 1), MAX_BYTES_ROOM as u64);
        // A pressure may pass its room by what other droppers add before the check runs:
        // up to three rooms more, and the largest atom's bytes, stay below the guards.
        assert!(4 * (MAX_DROPS_ROOM as u64) < 1 << (63 - DROPS_SHIFT));
        assert!(4 * (MAX_BYTES_ROOM as u64) + one_drop(MAX_LEN + 64) - (1 << DROPS_SHIFT) < 1 << (DROPS_SHIFT - 1));
        // Both fields far past their rooms: still seen as passing, not wrapped around.
        let full = after_many(3 * MAX_DROPS_ROOM, 0);
        assert!(passes(full, mark_word(MAX_DROPS_ROOM, MAX_BYTES_ROOM)));
        assert!(passes(one_drop(MAX_LEN) * 2, mark_word(MAX_DROPS_ROOM, 1 << 20)));
    }

    /// Sweeps a large unused atom of `table` while another thread is pinned, and returns
    /// the atom's bytes (header and text) and its shard, with the reader released.
    fn retire_beside_a_pinned_reader(table: &crate::AtomTable, text: &str) -> (usize, usize) {
        drop(table.intern(text));
        let (pinned_tx, pinned_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let guard = reclaim::pin();
            pinned_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            drop(guard);
        });
        pinned_rx.recv().unwrap();
        assert_eq!(table.shrink(), 1);
        let bytes = HEADER_SIZE + text.len();
        let report = table.memory_report();
        assert_eq!(
            (report.unused_bytes, report.retired_bytes),
            (0, bytes),
            "shown while the reader holds it\n{report}"
        );
        release_tx.send(()).unwrap();
        reader.join().unwrap();
        (bytes, shard_index(table.shared().hash(text.as_bytes())))
    }

    /// Texts filed in shards other than `shard`.
    fn texts_elsewhere<'a>(
        table: &'a crate::AtomTable,
        shard: usize,
        tag: &'a str,
    ) -> impl Iterator<Item = String> + 'a {
        (0..)
            .map(move |i| format!("{tag}, number {i}"))
            .filter(move |text| shard_index(table.shared().hash(text.as_bytes())) != shard)
    }

    #[test]
    fn memory_swept_beside_a_pinned_reader_is_freed_by_writes_to_other_shards() {
        let _serial = reclaim::long_pins_serial();
        let table = crate::AtomTable::with_seed(3);
        let (_, shard) = retire_beside_a_pinned_reader(&table, &"w".repeat(1 << 20));
        let mut kept = Vec::new();
        // Other tests' pins are short, but on a loaded machine their threads may sleep
        // while pinned: seconds, not a count of writes.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        for text in texts_elsewhere(&table, shard, "a write to another shard") {
            if table.memory_report().retired_bytes == 0 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "writes elsewhere must free it\n{}", table.memory_report());
            kept.push(table.intern(&text));
        }
        assert!(!kept.is_empty(), "the reader's unpin alone frees nothing");
        assert_eq!(table.shared().waiting_shards.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn memory_swept_beside_a_pinned_reader_is_freed_by_lookups_alone() {
        let _serial = reclaim::long_pins_serial();
        let table = crate::AtomTable::with_seed(4);
        let large = "r".repeat(1 << 20);
        let shard = shard_index(table.shared().hash(large.as_bytes()));
        let held: Vec<_> = texts_elsewhere(&table, shard, "looked up in another shard")
            .take(4)
            .map(|text| table.intern(&text))
            .collect();
        retire_beside_a_pinned_reader(&table, &large);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut lookups = 0;
        while table.memory_report().retired_bytes > 0 {
            assert!(std::time::Instant::now() < deadline, "lookups must free it\n{}", table.memory_report());
            for atom in &held {
                assert_eq!(table.lookup(atom.as_str()).as_ref(), Some(atom));
                lookups += 1;
            }
        }
        assert!(lookups > 0, "the reader's unpin alone frees nothing");
    }

    fn after_many(drops: usize, bytes_each: usize) -> u64 {
        (drops as u64) * one_drop(bytes_each)
    }
}
