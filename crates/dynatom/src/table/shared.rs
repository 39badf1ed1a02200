//! The sharded table itself: what every `AtomTable` handle refers to.
//!
//! Each shard is a `Mutex` around a hashbrown `HashTable` of raw atoms. **Every entry holds
//! one count of its block**, so the block cannot be freed while it is listed, and nothing
//! the table does depends on being told about drops: a block whose last handle goes is
//! still the table's (count 1), an *unused* atom that the next intern of the same text
//! revives without allocating. Unused atoms are taken back in batches by a sweep, under
//! the shard's lock, with a 1 -> 0 compare-and-swap on the count: a handle raised at the
//! same moment wins and the atom stays (a count of 0 is never raised again).
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
//! * in every table, filing a new atom checks the shard whenever it has grown to twice
//!   its size at the last check (local tables' drops tell nobody, so their unused atoms
//!   wait for the next growth, [`TableShared::sweep`], or the table's drop).

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use crate::error::StrError;
use crate::hash;
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::heap::{cacheable_hash, Block, Fallibility, StaticEntry, INTERNED, LOCAL, OWN_SEED};
use crate::sync::{lock, AtomicUsize, Mutex, MutexGuard, Ordering};

use super::counters::Counters;

#[cfg(not(loom))]
const SHARD_COUNT: usize = 64;
#[cfg(loom)]
const SHARD_COUNT: usize = 2;

/// Unused atoms a table keeps, beyond half its atoms in use, before it sweeps.
pub(crate) const DEFAULT_UNUSED_LIMIT: usize = 4096;

/// One shard on its own cache line, so threads working in neighbouring shards do not
/// fight over the line.
#[repr(align(64))]
struct PaddedShard {
    shard: Mutex<Shard>,
    /// Atoms turned unused by a drop since the shard last counted them (global table).
    unused_drops: AtomicUsize,
    /// `unused_drops` beyond which a dropper checks the shard.
    check_after_drops: AtomicUsize,
}

#[derive(Default)]
pub(crate) struct Shard {
    pub(crate) entries: HashTable<RawAtom>,
    pub(crate) counters: Counters,
    /// Filing beyond this many entries checks the shard for unused atoms.
    check_at_len: usize,
}

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
    seed: u64,
    kind: TableKind,
    shards: Box<[PaddedShard]>,
    /// Unused atoms per shard that never trigger a sweep.
    unused_floor: AtomicUsize,
}

/// The hash hashbrown sees: the cached hash's four low bits are the header's flag bits
/// (zero), and hashbrown takes its bucket index from the low bits, so fold high bits in.
#[inline]
fn probe_hash(hash: u64) -> u64 {
    hash ^ (hash >> 32)
}

/// Bits 40.. pick the shard: independent of hashbrown's bucket index (low bits, folded
/// with bits 32..) and its 7-bit tag (top bits).
#[inline]
fn shard_index(hash: u64) -> usize {
    (hash >> 40) as usize % SHARD_COUNT
}

impl TableShared {
    pub(crate) fn new(seed: u64, kind: TableKind) -> TableShared {
        let floor = DEFAULT_UNUSED_LIMIT.div_ceil(SHARD_COUNT);
        let shards = (0..SHARD_COUNT)
            .map(|_| PaddedShard {
                shard: Mutex::new(Shard { check_at_len: floor, ..Shard::default() }),
                unused_drops: AtomicUsize::new(0),
                check_after_drops: AtomicUsize::new(floor),
            })
            .collect();
        if kind == TableKind::Global {
            crate::repr::heap::set_unused_hook(note_global_unused);
        }
        TableShared { seed, kind, shards, unused_floor: AtomicUsize::new(floor) }
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
        cacheable_hash(hash::hash_bytes(bytes, self.seed))
    }

    fn lock_shard(&self, hash: u64) -> MutexGuard<'_, Shard> {
        lock(&self.shards[shard_index(hash)].shard)
    }

    /// Every shard, one at a time, locked.
    pub(crate) fn for_each_shard(&self, mut visit: impl FnMut(&Shard)) {
        for shard in self.shards.iter() {
            visit(&lock(&shard.shard));
        }
    }

    pub(crate) fn shards_size(&self) -> usize {
        std::mem::size_of::<TableShared>() + self.shards.len() * std::mem::size_of::<PaddedShard>()
    }

    /// Atoms in use (not unused) over all shards.
    pub(crate) fn len_in_use(&self) -> usize {
        let mut len = 0;
        // SAFETY: the table holds every entry's count, and `for_each_shard` holds the lock
        // that sweeps need.
        self.for_each_shard(|shard| len += shard.entries.iter().filter(|raw| !unsafe { raw.is_unused() }).count());
        len
    }

    /// Sets how many unused atoms the table keeps beyond half of those in use.
    pub(crate) fn set_unused_limit(&self, atoms: usize) {
        let floor = atoms.div_ceil(SHARD_COUNT);
        self.unused_floor.store(floor, Ordering::Relaxed);
        for padded in self.shards.iter() {
            padded.check_after_drops.store(floor, Ordering::Relaxed);
            let mut shard = lock(&padded.shard);
            shard.check_at_len = shard.check_at_len.min(shard.entries.len().max(floor));
        }
    }

    /// Finds the entry for `bytes` (reviving it if unused), or files the atom `make` builds.
    fn find_or_file(
        &self,
        bytes: &[u8],
        hash: u64,
        make: impl FnOnce() -> Result<AtomWord, StrError>,
    ) -> Result<AtomWord, StrError> {
        let padded = &self.shards[shard_index(hash)];
        let mut guard = lock(&padded.shard);
        let Shard { entries, counters, .. } = &mut *guard;
        let mut probes = 0;
        let entry = entries.entry(
            probe_hash(hash),
            |raw| {
                // SAFETY: the table holds a count of every entry, and sweeps only under
                // this lock.
                unsafe { raw.hash() == hash && text_compared(&mut probes) && raw.bytes() == bytes }
            },
            // SAFETY: as above; growth reads only the cached hashes.
            |raw| probe_hash(unsafe { raw.hash() }),
        );
        counters.record_lookup(probes);
        match entry {
            Entry::Occupied(occupied) => {
                counters.hits += 1;
                // SAFETY: as above. The table's count keeps every entry's count at 1 or
                // more while it is listed, so reviving cannot fail.
                Ok(unsafe { occupied.get().acquire(true) }.expect("a listed entry holds the table's count"))
            }
            Entry::Vacant(vacant) => {
                counters.misses += 1;
                let atom = make()?;
                vacant.insert(atom.counted_entry());
                counters.inserts += 1;
                if guard.entries.len() > guard.check_at_len {
                    self.check_shard(padded, &mut guard, false);
                }
                Ok(atom)
            }
        }
    }

    /// Counts a shard's unused atoms and frees them all if they pass
    /// `max(floor, live / 2)` (or always, with `force`). Returns the atoms freed.
    fn check_shard(&self, padded: &PaddedShard, shard: &mut Shard, force: bool) -> usize {
        let drops_seen = padded.unused_drops.load(Ordering::Relaxed);
        let floor = self.unused_floor.load(Ordering::Relaxed);
        // SAFETY: the table holds every entry's count; only this lock's holder sweeps.
        let unused = shard.entries.iter().filter(|raw| unsafe { raw.is_unused() }).count();
        let live = shard.entries.len() - unused;
        let mut freed = 0;
        if force || unused > floor.max(live / 2) {
            shard.entries.retain(|raw| {
                // SAFETY: the table holds this entry's count and drops the entry when the
                // count is taken back.
                match unsafe { raw.reclaim_unused() } {
                    Some(dead) => {
                        drop(dead);
                        freed += 1;
                        false
                    }
                    None => true,
                }
            });
            shard.counters.removals += freed as u64;
        }
        // What is still unused stays counted, so the next check comes after as many
        // further drops as the bound allows.
        padded.unused_drops.fetch_sub(drops_seen.saturating_sub(unused.saturating_sub(freed)), Ordering::Relaxed);
        let len = shard.entries.len();
        padded.check_after_drops.store(floor.max(len / 2), Ordering::Relaxed);
        shard.check_at_len = floor.max(len * 2);
        freed
    }

    /// A global atom in `hash`'s shard became unused.
    fn note_unused(&self, hash: u64) {
        let padded = &self.shards[shard_index(hash)];
        let drops = padded.unused_drops.fetch_add(1, Ordering::Relaxed) + 1;
        if drops > padded.check_after_drops.load(Ordering::Relaxed) {
            let mut shard = lock(&padded.shard);
            // Another dropper may have checked while we waited for the lock.
            if padded.unused_drops.load(Ordering::Relaxed) > padded.check_after_drops.load(Ordering::Relaxed) {
                self.check_shard(padded, &mut shard, false);
            }
        }
    }

    /// Frees every unused atom now and trims the shards' storage. Returns the atoms freed.
    pub(crate) fn sweep(&self) -> usize {
        let mut freed = 0;
        for padded in self.shards.iter() {
            let mut shard = lock(&padded.shard);
            freed += self.check_shard(padded, &mut shard, true);
            // SAFETY: rehashing reads only the cached hashes of entries the table holds.
            shard.entries.shrink_to_fit(|raw| probe_hash(unsafe { raw.hash() }));
        }
        freed
    }

    /// Interns a copy of `bytes` (longer than an inline atom).
    pub(crate) fn intern_copy(&self, bytes: &[u8], fallibility: Fallibility) -> Result<AtomWord, StrError> {
        let hash = self.hash(bytes);
        self.find_or_file(bytes, hash, || self.file_copy(bytes, hash, fallibility))
    }

    fn file_copy(&self, bytes: &[u8], hash: u64, fallibility: Fallibility) -> Result<AtomWord, StrError> {
        let block = Block::copy_from(bytes, fallibility)?;
        block.cache_hash(hash);
        let claimed = block.try_claim(self.claim_flags());
        debug_assert!(claimed, "a fresh block is nobody's entry");
        Ok(AtomWord::from_block(block))
    }

    /// Interns the bytes of `block` (which spans its whole buffer), adopting the block
    /// itself when no atom of those bytes exists and no table has it yet. Tables with
    /// their own seed copy: the block's one hash slot holds the process seed's hash.
    pub(crate) fn intern_block(&self, block: &Block, fallibility: Fallibility) -> Result<AtomWord, StrError> {
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
                Ok(AtomWord::from_block(block.clone()))
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
        let filed = self.find_or_file(bytes, hash, || Ok(AtomWord::from_static(StaticEntry::leak(bytes, hash))));
        filed.expect("filing a static entry cannot fail")
    }

    /// The atom for `bytes` if one is in use. Never files or revives anything.
    pub(crate) fn lookup(&self, bytes: &[u8]) -> Option<AtomWord> {
        let hash = self.hash(bytes);
        self.find_entry(bytes, hash, None)
    }

    /// Whether `atom` (not inline) is this table's entry.
    pub(crate) fn lists(&self, atom: &AtomWord) -> bool {
        if atom.is_global_entry() || self.kind == TableKind::Global {
            return atom.is_global_entry() && self.kind == TableKind::Global;
        }
        let Some(hash) = atom.table_hash() else { return false };
        let bytes = atom.as_bytes();
        self.find_entry(bytes, hash, Some(bytes.as_ptr())).is_some()
    }

    /// The entry in use for `bytes` filed under `hash`; with `at`, only the entry whose
    /// characters are at that address (found by address, comparing no text).
    fn find_entry(&self, bytes: &[u8], hash: u64, at: Option<*const u8>) -> Option<AtomWord> {
        let mut guard = self.lock_shard(hash);
        let Shard { entries, counters, .. } = &mut *guard;
        let mut probes = 0;
        // SAFETY (both closures): the table holds a count of every entry, and sweeps only
        // under this lock.
        let found = match at {
            Some(at) => entries.find(probe_hash(hash), |raw| std::ptr::eq(unsafe { raw.bytes() }.as_ptr(), at)),
            None => entries.find(probe_hash(hash), |raw| unsafe {
                raw.hash() == hash && text_compared(&mut probes) && raw.bytes() == bytes
            }),
        };
        counters.record_lookup(probes);
        // SAFETY: as above.
        let atom = found.and_then(|raw| unsafe { raw.acquire(false) });
        match atom {
            Some(_) => counters.hits += 1,
            None => counters.misses += 1,
        }
        atom
    }
}

/// Counts one entry whose text a lookup compares (its full cached hash matched), for the
/// report's probe figures.
#[inline]
fn text_compared(probes: &mut u64) -> bool {
    *probes += 1;
    true
}

/// The hook `repr::heap` calls when a global atom becomes unused.
fn note_global_unused(hash: u64) {
    crate::table::AtomTable::global().shared().note_unused(hash);
}

impl Drop for TableShared {
    fn drop(&mut self) {
        for padded in self.shards.iter() {
            let mut shard = lock(&padded.shard);
            for raw in shard.entries.drain() {
                // SAFETY: the table holds this entry's count and is going away.
                unsafe { raw.release() };
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_probe_hash_uses_every_low_bit() {
        let hashes: Vec<u64> = (0..64u64).map(|i| cacheable_hash(i.wrapping_mul(0x9E37_79B9_7F4A_7C15))).collect();
        assert!(hashes.iter().all(|h| h & 0xF == 0));
        assert!(hashes.iter().any(|h| probe_hash(*h) & 0xF != 0));
    }
}
