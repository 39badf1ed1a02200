//! Static sets registered at run time: checked against every shard of every live table
//! at once, so that no table ever holds an ordinary atom of a declared text beside its
//! declared one.

use std::collections::HashSet;
use std::ptr::NonNull;

use crate::atom::table::slots::Reach;
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::declared::{DeclareError, LateRegistration, StaticText};
use crate::repr::heap::{DeadBlock, StaticEntry};
use crate::sync::{Ordering, lock};

#[cfg(not(loom))]
use super::shared_ref::LIVE_TABLES;
use super::sweeps::sweep_into;
use super::{MAX_SHARDS, ShardGuard, TableKind, TableShared, is_entry_for, probe_hash};

/// Registers the set `registration` checked: with every shard of every table locked
/// (the global one, then the live others), the unused atoms of its texts are evicted; if
/// an atom of one of them is still in use the set is refused whole, else it is published
/// and its texts filed in the global table before any shard opens again. So no table
/// ever holds an ordinary atom of a declared text beside its declared one.
pub(crate) fn register_late_set(global: &TableShared, registration: &LateRegistration) -> Result<(), DeclareError> {
    let long: Vec<&'static StaticText> = registration
        .fresh()
        .iter()
        .copied()
        .filter(|text| text.bytes().len() > crate::repr::atom_word::INLINE_ATOM_CAPACITY)
        .collect();
    if long.is_empty() {
        // Texts of up to 7 bytes are atoms by value in every table: nothing to check.
        registration.publish();
        return Ok(());
    }
    let texts: HashSet<&[u8]> = long.iter().map(|text| text.bytes()).collect();
    #[cfg(not(loom))]
    let live = lock(&LIVE_TABLES);
    #[cfg(not(loom))]
    // SAFETY: a listed table is alive: the drop of its last handle unlists it under the
    // lock held here (until after the guards below are dropped) before freeing it.
    let others = live.iter().map(|&address| unsafe { &*std::ptr::with_exposed_provenance::<TableShared>(address) });
    #[cfg(loom)]
    let others = std::iter::empty::<&TableShared>();
    let tables: Vec<&TableShared> = std::iter::once(global).chain(others).collect();
    let mut locked: Vec<Vec<ShardGuard<'_>>> =
        tables.iter().map(|table| table.shards.iter().map(|padded| padded.slots.lock()).collect()).collect();
    let mut in_use = None;
    for (table, shards) in tables.iter().zip(locked.iter_mut()) {
        table.evict_unused_of(shards, &texts, &mut in_use);
    }
    if let Some((text, permanent)) = in_use {
        return Err(DeclareError::InternedBefore { text, permanent });
    }
    registration.publish();
    global.file_published_texts(&mut locked[0], &long);
    Ok(())
}

/// Notes `bytes` as the text that refuses the set, with whether its atom is permanent,
/// unless a text is noted already; a permanent one replaces an ordinary one, since it is
/// the refusal that waiting cannot lift.
fn note_in_use(in_use: &mut Option<(Vec<u8>, bool)>, bytes: &[u8], permanent: bool) {
    if in_use.as_ref().is_none_or(|(_, noted_permanent)| !noted_permanent && permanent) {
        *in_use = Some((bytes.to_vec(), permanent));
    }
}

impl TableShared {
    /// Under the locks of every shard of this table (`shards`): evicts the unused atoms of
    /// `texts`, and notes in `in_use` those of them that have an atom in use (which stays;
    /// see [`note_in_use`]).
    fn evict_unused_of(
        &self,
        shards: &mut [ShardGuard<'_>],
        texts: &HashSet<&[u8]>,
        in_use: &mut Option<(Vec<u8>, bool)>,
    ) {
        let mut to_sweep = [false; MAX_SHARDS];
        for bytes in texts {
            let hash = self.hash(bytes);
            let at = self.shard_index(hash);
            if shards[at].find(probe_hash(hash), |entry| is_entry_for(RawAtom::from_slot(entry), hash, bytes)).is_some()
            {
                to_sweep[at] = true;
            }
        }
        for (index, shard) in shards.iter_mut().enumerate().filter(|(index, _)| to_sweep[*index]) {
            let (mut dead, mut dead_bytes) = (Vec::new(), 0);
            let mut sweep = sweep_into(&mut dead, &mut dead_bytes, |raw| {
                // SAFETY: kept, so the table still holds its count, under the lock.
                let (bytes, permanent) = unsafe { (raw.bytes(), raw.is_permanent()) };
                note_in_use(in_use, bytes, permanent);
            });
            shard.retain(
                |entry| {
                    // SAFETY: `retain` passes entries of the locked shard, whose counts the
                    // table holds.
                    let bytes = unsafe { RawAtom::from_slot(entry).bytes() };
                    !texts.contains(bytes) || sweep(entry)
                },
                |_| {},
            );
            drop(sweep);
            shard.counters.removals += dead.len() as u64;
            if !dead.is_empty() {
                // SAFETY: unlinked above (no reader pinning from now on can find them),
                // retired once; the list is dropped with the table.
                unsafe { shard.retired.retire_all(dead.into_iter().map(DeadBlock::into_retirable), dead_bytes) };
                self.collect_shard(index, shard);
            }
        }
    }

    /// Files `texts` (declared by a set just published, none filed yet) as immortal
    /// entries, under the locks of every shard (`shards`). Running out of memory here
    /// leaves a text for the first miss of it to file (see `late_declared_entry`).
    fn file_published_texts(&self, shards: &mut [ShardGuard<'_>], texts: &[&'static StaticText]) {
        debug_assert!(self.kind == TableKind::Global);
        let entries =
            StaticEntry::leak_all(texts.iter().map(|text| (text.bytes(), self.hash(text.bytes()), text.bits())));
        if entries.is_empty() {
            return;
        }
        lock(&self.static_entries).push(entries.as_ptr().addr());
        for entry in entries {
            let entry = NonNull::from(entry);
            // SAFETY: just leaked: immortal.
            let hash = unsafe { StaticEntry::hash(entry) };
            let shard = &mut shards[self.shard_index(hash)];
            if shard.insert(probe_hash(hash), AtomWord::from_static(entry).raw().as_slot(), Reach::Unpinned).is_ok() {
                shard.counters.inserts += 1;
            } else {
                self.unfiled_published.store(true, Ordering::Relaxed);
            }
        }
    }
}
