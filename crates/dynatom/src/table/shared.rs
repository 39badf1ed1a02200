//! The sharded table itself: what every `AtomTable` handle and every interned block's
//! `owner` pointer refer to.
//!
//! Each shard is a `Mutex` around a hashbrown `HashTable` of raw atoms. An entry holds no
//! count of its block. The thread that drops a block's last handle locks the block's shard,
//! removes the entry (if it is still the one filed) and only then frees the block; so any
//! thread holding a shard lock may read the bytes of every entry in that shard.
//! A lookup that meets an entry whose count already fell to zero does not revive it: it
//! files a fresh block in that slot, and the dying block's dropper, finding its entry gone,
//! just frees it.

use hashbrown::hash_table::Entry;
use hashbrown::HashTable;

use crate::error::StrError;
use crate::hash;
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::heap::{Block, DeadBlock, Fallibility, StaticEntry};
use crate::sync::{lock, Arc, Mutex, MutexGuard};

use crate::counters::Counters;

#[cfg(not(loom))]
const SHARD_COUNT: usize = 64;
#[cfg(loom)]
const SHARD_COUNT: usize = 2;

/// One shard on its own cache line, so threads working in neighbouring shards do not
/// fight over the line.
#[repr(align(64))]
struct PaddedShard(Mutex<Shard>);

#[derive(Default)]
pub(crate) struct Shard {
    pub(crate) entries: HashTable<RawAtom>,
    pub(crate) counters: Counters,
}

pub(crate) struct TableShared {
    seed: u64,
    shards: Box<[PaddedShard]>,
    is_global: bool,
}

impl TableShared {
    pub(crate) fn new(seed: u64, is_global: bool) -> TableShared {
        let shards = (0..SHARD_COUNT).map(|_| PaddedShard(Mutex::new(Shard::default()))).collect();
        TableShared { seed, shards, is_global }
    }

    pub(crate) fn is_global(&self) -> bool {
        self.is_global
    }

    pub(crate) fn hash(&self, bytes: &[u8]) -> u64 {
        hash::hash_bytes(bytes, self.seed)
    }

    fn lock_shard(&self, hash: u64) -> MutexGuard<'_, Shard> {
        // Bits 32.. pick the shard: hashbrown takes its bucket index from the low bits and
        // its 7-bit tag from the top ones, so the three uses of the hash stay independent.
        let index = (hash >> 32) as usize % SHARD_COUNT;
        lock(&self.shards[index].0)
    }

    /// Every shard, one at a time, locked.
    pub(crate) fn for_each_shard(&self, mut visit: impl FnMut(&Shard)) {
        for shard in self.shards.iter() {
            visit(&lock(&shard.0));
        }
    }

    pub(crate) fn shards_size(&self) -> usize {
        std::mem::size_of::<TableShared>() + self.shards.len() * std::mem::size_of::<PaddedShard>()
    }

    fn as_owner(&self) -> *const TableShared {
        self
    }

    /// Every block or static entry a local table files keeps the table alive, so that
    /// its dropper can still find the table after the last `AtomTable` handle is gone.
    fn hold_for_entry(&self) {
        if !self.is_global {
            // SAFETY: a local `TableShared` always lives in the `Arc` of its `AtomTable`,
            // and the caller reached it through such a handle, so the count is positive.
            unsafe { Arc::increment_strong_count(self.as_owner()) };
        }
    }

    /// Finds the live entry for `bytes`, or files the atom `make` builds.
    fn find_or_file(
        &self,
        bytes: &[u8],
        hash: u64,
        make: impl FnOnce() -> Result<AtomWord, StrError>,
    ) -> Result<AtomWord, StrError> {
        let mut guard = self.lock_shard(hash);
        let Shard { entries, counters } = &mut *guard;
        let mut probes = 0;
        let entry = entries.entry(
            hash,
            |raw| {
                probes += 1;
                // SAFETY: we hold this shard's lock, so every entry in it is allocated.
                unsafe { raw.hash() == hash && raw.bytes() == bytes }
            },
            // SAFETY: as above; growth reads only the cached hashes, never the bytes.
            |raw| unsafe { raw.hash() },
        );
        counters.record_lookup(probes);
        match entry {
            Entry::Occupied(mut occupied) => {
                // SAFETY: the shard lock is held.
                if let Some(atom) = unsafe { occupied.get().acquire() } {
                    counters.hits += 1;
                    return Ok(atom);
                }
                counters.misses += 1;
                let atom = make()?;
                // The dying entry leaves the table here; its dropper will find it gone.
                *occupied.get_mut() = atom.raw();
                counters.removals += 1;
                counters.inserts += 1;
                Ok(atom)
            }
            Entry::Vacant(vacant) => {
                counters.misses += 1;
                let atom = make()?;
                vacant.insert(atom.raw());
                counters.inserts += 1;
                Ok(atom)
            }
        }
    }

    /// Interns a copy of `bytes` (longer than an inline atom).
    pub(crate) fn intern_copy(&self, bytes: &[u8], fallibility: Fallibility) -> Result<AtomWord, StrError> {
        let hash = self.hash(bytes);
        self.find_or_file(bytes, hash, || self.file_copy(bytes, hash, fallibility))
    }

    fn file_copy(&self, bytes: &[u8], hash: u64, fallibility: Fallibility) -> Result<AtomWord, StrError> {
        let block = Block::copy_from(bytes, fallibility)?;
        block.cache_hash(hash);
        let claimed = block.try_claim(self.as_owner());
        debug_assert!(claimed, "a fresh block has no owner");
        self.hold_for_entry();
        Ok(AtomWord::from_block(block))
    }

    /// Interns the bytes of `block` (which spans its whole buffer), adopting the block
    /// itself when no atom of those bytes exists. Only the global table adopts: a block's
    /// cached hash is the global one until it is claimed.
    pub(crate) fn intern_block(&self, block: &Block, fallibility: Fallibility) -> Result<AtomWord, StrError> {
        if std::ptr::eq(block.owner(), self) {
            return Ok(AtomWord::from_block(block.clone()));
        }
        let bytes = block.bytes();
        if !self.is_global || !block.owner().is_null() {
            return self.intern_copy(bytes, fallibility);
        }
        let hash = block.cached_hash().unwrap_or_else(|| {
            let hash = self.hash(bytes);
            block.cache_hash(hash);
            hash
        });
        self.find_or_file(bytes, hash, || {
            if block.try_claim(self.as_owner()) {
                self.hold_for_entry();
                Ok(AtomWord::from_block(block.clone()))
            } else {
                self.file_copy(bytes, hash, fallibility)
            }
        })
    }

    /// Interns `bytes`, keeping them where they are if no atom of them exists.
    /// A local table copies them instead: a static entry never dies, so its hold on the
    /// table would keep the whole table allocated after its last handle is gone.
    pub(crate) fn intern_static(&self, bytes: &'static [u8]) -> AtomWord {
        if !self.is_global {
            return self.intern_copy(bytes, Fallibility::Infallible).expect("a static text fits in a block");
        }
        let hash = self.hash(bytes);
        let filed = self.find_or_file(bytes, hash, || {
            self.hold_for_entry();
            Ok(AtomWord::from_static(StaticEntry::leak(bytes, hash, self.as_owner())))
        });
        filed.expect("filing a static entry cannot fail")
    }

    /// The live atom for `bytes`, if any. Never files anything.
    pub(crate) fn lookup(&self, bytes: &[u8]) -> Option<AtomWord> {
        let hash = self.hash(bytes);
        let mut guard = self.lock_shard(hash);
        let Shard { entries, counters } = &mut *guard;
        let mut probes = 0;
        let found = entries.find(hash, |raw| {
            probes += 1;
            // SAFETY: we hold this shard's lock, so every entry in it is allocated.
            unsafe { raw.hash() == hash && raw.bytes() == bytes }
        });
        counters.record_lookup(probes);
        // SAFETY: the shard lock is held.
        let atom = found.and_then(|raw| unsafe { raw.acquire() });
        match atom {
            Some(_) => counters.hits += 1,
            None => counters.misses += 1,
        }
        atom
    }

    /// Removes a dying block's entry and frees the block.
    ///
    /// # Safety
    /// - `owner` is the owner recorded in `dead`'s header, and
    /// - `dead` was that table's entry (its filing still holds the table alive).
    pub(crate) unsafe fn release_dead(owner: *const TableShared, dead: DeadBlock) {
        // SAFETY: the entry's hold (`hold_for_entry`) keeps a local table alive until the
        // decrement below; the global table is never freed.
        let table = unsafe { &*owner };
        let hash = dead.cached_hash();
        {
            let mut guard = table.lock_shard(hash);
            let Shard { entries, counters } = &mut *guard;
            let target = Some(dead.as_raw());
            if let Ok(entry) = entries.find_entry(hash, |raw| raw.block_ptr() == target) {
                entry.remove();
                counters.removals += 1;
            }
        }
        let is_global = table.is_global;
        drop(dead);
        if !is_global {
            // SAFETY: gives back the hold this block's filing took; `table` is not used
            // after this point.
            unsafe { Arc::decrement_strong_count(owner) };
        }
    }
}
