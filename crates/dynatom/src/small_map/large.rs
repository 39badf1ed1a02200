//! The large form: entries in insertion order in a vector, found through a hashbrown
//! `HashTable` of their positions.

use std::borrow::Borrow;

use hashbrown::HashTable;

use super::key::HintKey;
use super::retain;

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

    /// Indexes `entries`, which must have distinct keys, with room for one more entry
    /// (the one whose insert is making this form). Every key is hashed before the
    /// entries are touched: a `key_hash` that panics leaves the caller's vector as it was.
    pub(crate) fn from_entries(entries: &mut Vec<(K, V)>) -> Large<K, V> {
        let hashes = hashes_of(entries);
        let mut index = HashTable::with_capacity(entries.len() + 1);
        for (at, &hash) in hashes.iter().enumerate() {
            index.insert_unique(hash, position(at), |&at| hashes[at as usize]);
        }
        Large { entries: std::mem::take(entries), index }
    }

    /// The position of `key`, whose hash is `hash`.
    #[inline]
    pub(crate) fn find<Q>(&self, hash: u64, key: &Q) -> Option<usize>
    where
        K: Borrow<Q>,
        Q: Eq + ?Sized,
    {
        self.find_by(hash, |k| k.borrow() == key)
    }

    /// The position of the key `is_key` accepts, whose hash is `hash`.
    #[inline]
    pub(crate) fn find_by(&self, hash: u64, is_key: impl Fn(&K) -> bool) -> Option<usize> {
        let entries = &self.entries;
        self.index.find(hash, |&at| is_key(&entries[at as usize].0)).map(|&at| at as usize)
    }

    /// Appends a new entry (its key must not be present) and returns its position.
    pub(crate) fn push(&mut self, hash: u64, entry: (K, V)) -> usize {
        let at = self.entries.len();
        if self.index.len() == self.index.capacity() {
            // The index must grow (or rehash in place), hashing every key again. Hashing
            // them here first keeps the keys' own code out of hashbrown's rehash: if it
            // panicked there, a rehash in place would lose the positions it was moving.
            let hashes = hashes_of(&self.entries);
            self.index.reserve(1, |&at| hashes[at as usize]);
        }
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

    /// Keeps the entries for which `keep` says so, in order, moving their positions in the
    /// index rather than hashing them again; if `keep` panics, the index still matches the
    /// entries left (see [`retain::retain`]).
    pub(crate) fn retain(&mut self, keep: impl FnMut(&K, &mut V) -> bool) {
        let moved = vec![GONE; self.entries.len()];
        retain::retain(&mut self.entries, keep, IndexPlacement { index: &mut self.index, moved });
    }

    /// Releases spare capacity.
    pub(crate) fn shrink_to_fit(&mut self) {
        self.entries.shrink_to_fit();
        let hashes = hashes_of(&self.entries);
        self.index.shrink_to_fit(|&at| hashes[at as usize]);
    }
}

/// Every entry's key hash, in order (the keys' own code runs here, and nowhere inside a
/// hashbrown operation that would be left half done if it panicked).
fn hashes_of<K: HintKey, V>(entries: &[(K, V)]) -> Vec<u64> {
    entries.iter().map(|(key, _)| key.key_hash()).collect()
}

/// The new position of a removed entry.
const GONE: u32 = u32::MAX;

/// Records where each staying entry moves, then renumbers the index to match.
struct IndexPlacement<'a> {
    index: &'a mut HashTable<u32>,
    moved: Vec<u32>,
}

impl retain::Placement for IndexPlacement<'_> {
    fn place(&mut self, from: usize, to: usize) {
        self.moved[from] = position(to);
    }

    fn finish(&mut self) {
        let moved = &self.moved;
        self.index.retain(|at| match moved.get(*at as usize) {
            Some(&to) if to != GONE => {
                *at = to;
                true
            }
            _ => false,
        });
    }
}
