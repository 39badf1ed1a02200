//! The large form: entries in insertion order in a vector, found through a hashbrown
//! `HashTable` of their positions.

use std::borrow::Borrow;

use hashbrown::HashTable;

use super::key::HintKey;

/// Entries in insertion order, and an index from key hash to position. Positions are
/// `u32` to halve the index (a map of 2^32 entries would need 64 GiB of entries anyway).
#[derive(Clone)]
pub(crate) struct Large<K, V> {
    pub(crate) entries: Vec<(K, V)>,
    index: HashTable<u32>,
}

/// A position as stored in the index.
fn position(index: usize) -> u32 {
    u32::try_from(index).expect("SmallMap holds at most u32::MAX entries")
}

impl<K, V> Large<K, V> {
    /// The map's own heap bytes in this form (the box, the entries, the index).
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + self.entries.capacity() * std::mem::size_of::<(K, V)>()
            + self.index.allocation_size()
    }
}

impl<K: HintKey, V> Large<K, V> {
    /// An empty large form with room for `capacity` entries.
    pub(crate) fn with_capacity(capacity: usize) -> Large<K, V> {
        Large { entries: Vec::with_capacity(capacity), index: HashTable::with_capacity(capacity) }
    }

    /// Indexes `entries`, which must have distinct keys.
    pub(crate) fn from_entries(entries: Vec<(K, V)>) -> Large<K, V> {
        let mut large = Large { index: HashTable::with_capacity(entries.len()), entries };
        large.reindex();
        large
    }

    /// Rebuilds the index from the entries (after a bulk change such as `retain`).
    pub(crate) fn reindex(&mut self) {
        let Large { entries, index } = self;
        index.clear();
        for (at, (key, _)) in entries.iter().enumerate() {
            index.insert_unique(key.key_hash(), position(at), |&at| entries[at as usize].0.key_hash());
        }
    }

    /// The position of `key`, whose hash is `hash`.
    #[inline]
    pub(crate) fn find<Q>(&self, hash: u64, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        let entries = &self.entries;
        self.index.find(hash, |&at| entries[at as usize].0.borrow() == key).map(|&at| at as usize)
    }

    /// Appends a new entry (its key must not be present) and returns its position.
    pub(crate) fn push(&mut self, hash: u64, entry: (K, V)) -> usize {
        let at = self.entries.len();
        let entries = &self.entries;
        self.index.insert_unique(hash, position(at), |&at| entries[at as usize].0.key_hash());
        self.entries.push(entry);
        at
    }

    /// Removes the entry at `at` (whose key hashes to `hash`), keeping the others in order:
    /// O(n), since the positions after it move down by one.
    pub(crate) fn remove(&mut self, hash: u64, at: usize) -> (K, V) {
        let wanted = position(at);
        match self.index.find_entry(hash, |&stored| stored == wanted) {
            Ok(found) => drop(found.remove()),
            Err(_) => unreachable!("every entry is indexed under its hash"),
        }
        if at + 1 < self.entries.len() {
            for stored in self.index.iter_mut() {
                if *stored > wanted {
                    *stored -= 1;
                }
            }
        }
        self.entries.remove(at)
    }

    /// Releases spare capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        let entries = &self.entries;
        self.index.shrink_to_fit(|&at| entries[at as usize].0.key_hash());
    }
}
