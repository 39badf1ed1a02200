//! Finding and filing atoms: the pinned probe when the lock-free one
//! ([`lock_free_hit`](super::lock_free_hit)) cannot answer, the locked path of a miss that
//! files a new atom (or revives an unused one), the lookups that take no count, and the
//! interning of copies and of `Str` blocks that go through them. "A hit" in the module
//! docs of [`super`] says what a hit writes.

use super::lock_free_hit::UnpinnedHit;
use super::sweeps::Check;
use super::{PaddedShard, TableKind, TableShared, is_entry_for, probe_hash};
use crate::atom::table::reclaim;
use crate::atom::table::slots::Reach;
use crate::error::{StrError, or_panic};
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::declared;
use crate::repr::heap::{Block, Fallibility, HitSigns, INTERNED, LOCAL, OWN_SEED};
use crate::sync::Ordering;

/// The longest text whose hash and compare a hit computes in line (see
/// [`TableShared::intern_short_copy`]); longer ones call rapidhash and `memcmp`.
pub(crate) const HASHED_IN_LINE_UP_TO: usize = 32;

/// A lock-free probe's outcome other than a hit, in one word, so that the call that
/// finishes the intern takes all its arguments in registers (see
/// [`TableShared::intern_short_copy`]): the slots a miss read, shifted up one, with
/// the low bit set; or the raw word of a candidate that was not the atom (a heap or
/// static atom's word: even); or 0. Not `Copy`: a candidate's count is taken back by the
/// one [`ProbeOutcome::open`].
struct ProbeOutcome(usize);

impl ProbeOutcome {
    #[inline(always)]
    fn missed(probes: u64) -> ProbeOutcome {
        ProbeOutcome(((probes as usize) << 1) | 1)
    }

    #[inline(always)]
    fn unanswered(candidate: Option<AtomWord>) -> ProbeOutcome {
        let word = candidate.map_or(0, AtomWord::into_raw_word);
        debug_assert!(word & 1 == 0, "a table entry's word is not an inline atom's");
        ProbeOutcome(word)
    }

    /// The slots a miss read, or the candidate to drop.
    #[inline]
    fn open(self) -> Result<u64, Option<AtomWord>> {
        if self.0 & 1 != 0 {
            return Ok((self.0 >> 1) as u64);
        }
        // SAFETY: a non-zero even word here came from `into_raw_word` in `unanswered`, and
        // this (the one `open` of a by-value outcome) takes its count back once.
        Err((self.0 != 0).then(|| unsafe { AtomWord::from_raw_word(self.0) }))
    }
}

/// What a lock-free probe that found nothing saw.
struct Missed {
    /// The shard's write version read before it.
    version: usize,
    /// Slots it read.
    probes: u64,
    /// Entries it compared in full.
    compared: u64,
}

impl TableShared {
    /// Finds the entry for `bytes` (reviving it if unused), or files the atom `make` builds
    /// (with the entry that holds the table's count of it).
    #[inline]
    pub(super) fn find_or_file(
        &self,
        bytes: &[u8],
        hash: u64,
        make: impl FnOnce(&Self, &[u8], u64) -> Result<(AtomWord, RawAtom), StrError>,
    ) -> Result<AtomWord, StrError> {
        let padded = self.shard_of(hash);
        // Read before the lock-free probe: unchanged under the lock, it says that no entry
        // came or went since, so a miss here is a miss there and the locked probe is
        // skipped (the usual case for a new atom on one thread).
        let version = padded.slots.version();
        match self.hit_unpinned(padded, bytes, hash) {
            UnpinnedHit::Hit(atom, signs) => return Ok(self.after_hit(atom, signs)),
            UnpinnedHit::Missed(probes) => {
                return self.file_locked(padded, bytes, hash, Missed { version, probes, compared: 0 }, make);
            }
            UnpinnedHit::Unanswered(candidate) => drop(candidate),
        }
        self.find_pinned_or_file(padded, bytes, hash, version, make)
    }

    /// [`TableShared::find_or_file`] when its lock-free probe could not answer: the same
    /// probe pinned, which looks past a candidate that is not the atom, then the locked
    /// path.
    fn find_pinned_or_file(
        &self,
        padded: &PaddedShard,
        bytes: &[u8],
        hash: u64,
        version: usize,
        make: impl FnOnce(&Self, &[u8], u64) -> Result<(AtomWord, RawAtom), StrError>,
    ) -> Result<AtomWord, StrError> {
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
                return Ok(self.after_hit(atom, signs));
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
        make: impl FnOnce(&Self, &[u8], u64) -> Result<(AtomWord, RawAtom), StrError>,
    ) -> Result<AtomWord, StrError> {
        self.file_locked_in_line(padded, bytes, hash, missed, make)
    }

    /// [`TableShared::file_locked`] in line, for a caller already out of the hit's line
    /// ([`TableShared::intern_copy_after_probe`]): one call and one register save fewer
    /// per new atom.
    #[inline(always)]
    fn file_locked_in_line(
        &self,
        padded: &PaddedShard,
        bytes: &[u8],
        hash: u64,
        missed: Missed,
        make: impl FnOnce(&Self, &[u8], u64) -> Result<(AtomWord, RawAtom), StrError>,
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
        let probes = if shard.version() != version {
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
            probes
        } else {
            // The lock-free probe read what a locked one would have.
            shard.counters.record_lookup(probes);
            shard.counters.record_compared(compared);
            probes
        };
        // What the probe that missed read; the slots stay so while this lock is held.
        #[cfg(debug_assertions)]
        let probed_at = shard.version();
        shard.counters.misses += 1;
        let late =
            if self.unfiled_published.load(Ordering::Relaxed) { self.late_declared_entry(bytes, hash) } else { None };
        let (atom, raw) = match late {
            Some(declared) => declared,
            None => make(self, bytes, hash)?,
        };
        // SAFETY: just made: the table holds its count, under the lock.
        let reach = if unsafe { raw.reachable_unpinned() } { Reach::Unpinned } else { Reach::Pinned };
        // Published (for a new slab atom: its count stored) before it is listed, and before
        // the version moves: a reader that finds it, or that reads the version and then
        // misses it, must never see it unpublished, which reads as absent.
        // SAFETY: made under this lock, and listed right after (the insert cannot fail
        // once it publishes).
        let publish = || unsafe { raw.publish() };
        #[cfg(debug_assertions)]
        debug_assert_eq!(shard.version(), probed_at, "making the atom writes no slot");
        let listed = shard.insert_after_miss(probe_hash(hash), probes, raw.as_slot(), reach, publish);
        if let Err(err) = listed {
            // SAFETY: the entry was never listed; made under this lock.
            unsafe {
                if raw.is_unpublished() {
                    raw.discard_unpublished(atom);
                } else {
                    raw.release();
                }
            }
            return Err(err);
        }
        shard.counters.inserts += 1;
        self.collect_after_write(self.shard_index(hash), &mut shard);
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

    /// Interns a copy of `bytes` (longer than an inline atom).
    pub(crate) fn intern_copy(&self, bytes: &[u8], fallibility: Fallibility) -> Result<AtomWord, StrError> {
        if fallibility == Fallibility::Fallible {
            reclaim::ensure_registered()?;
        }
        let hash = self.hash_inlined(bytes);
        self.find_or_file(bytes, hash, move |table, bytes, hash| table.file_copy(bytes, hash, fallibility))
    }

    /// [`TableShared::intern_copy`] of a text of at most [`HASHED_IN_LINE_UP_TO`] bytes
    /// (longer than an inline atom) for a caller that aborts on allocation failure,
    /// returning the atom in a register: in line in the handles' `intern`, where a hit
    /// calls nothing. Every call it may make (the pinned probe, the locked path, a
    /// promotion, a collection) is out of line, last, and takes its arguments in
    /// registers, so the hit saves no registers and keeps nothing in memory.
    #[inline(always)]
    pub(crate) fn intern_short_copy(&self, bytes: &[u8]) -> AtomWord {
        debug_assert!(bytes.len() <= HASHED_IN_LINE_UP_TO);
        let hash = self.hash_inlined(bytes);
        let padded = self.shard_of(hash);
        // As in `find_or_file`: read before the lock-free probe.
        let version = padded.slots.version();
        let outcome = match self.hit_unpinned(padded, bytes, hash) {
            UnpinnedHit::Hit(atom, signs) => return self.after_hit(atom, signs),
            UnpinnedHit::Missed(probes) => ProbeOutcome::missed(probes),
            UnpinnedHit::Unanswered(candidate) => ProbeOutcome::unanswered(candidate),
        };
        self.intern_copy_after_probe(bytes, hash, version, outcome)
    }

    /// [`TableShared::intern_short_copy`] after its lock-free probe: the pinned probe if
    /// that one could not answer, then the locked path.
    #[inline(never)]
    fn intern_copy_after_probe(&self, bytes: &[u8], hash: u64, version: usize, outcome: ProbeOutcome) -> AtomWord {
        let padded = self.shard_of(hash);
        let make = move |table: &Self, bytes: &[u8], hash| table.file_copy(bytes, hash, Fallibility::Infallible);
        let filed = match outcome.open() {
            Ok(probes) => self.file_locked_in_line(padded, bytes, hash, Missed { version, probes, compared: 0 }, make),
            Err(candidate) => {
                drop(candidate);
                self.find_pinned_or_file(padded, bytes, hash, version, make)
            }
        };
        or_panic(filed)
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
                Block::copy_filed_in(&self.slabs, self.shard_index(hash), bytes, hash, self.claim_flags(), fallibility)?
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
        self.find_or_file(bytes, hash, |table, bytes, hash| {
            if block.flags() & INTERNED == 0 && block.try_claim(table.claim_flags()) {
                let atom = AtomWord::from_block(block.clone());
                let entry = atom.counted_entry();
                Ok((atom, entry))
            } else {
                table.file_copy(bytes, hash, fallibility)
            }
        })
    }

    /// The atom for `bytes` if one is in use. Never files or revives anything.
    pub(crate) fn lookup(&self, bytes: &[u8]) -> Option<AtomWord> {
        let hash = self.hash(bytes);
        self.find_entry(bytes, hash, None)
    }

    /// Whether an entry for `bytes` is in use (one [`TableShared::lookup`] would find),
    /// looked up without the lock and without a count.
    pub(crate) fn holds_in_use(&self, bytes: &[u8]) -> bool {
        let hash = self.hash_inlined(bytes);
        let padded = self.shard_of(hash);
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
        let padded = self.shard_of(hash);
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
        let padded = self.shard_of(hash);
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
