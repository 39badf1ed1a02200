//! The small form: up to eight entries in insertion order, their hints in one word.

use std::borrow::Borrow;

use super::hint::{Hint, Hints};
use super::stats;

/// Most entries the small form holds; the ninth moves the map to the large form.
pub(crate) const SMALL_CAPACITY: usize = 8;

/// The slot of `key` among `entries`, comparing keys only where the hint matches. The
/// hint is computed (the key hashed) only when there are entries to compare with. With
/// `scan` (keys compared as one word, see `HintKey::WORD_EQ`) a few entries are simply
/// compared in turn.
#[inline]
pub(crate) fn find<K, V, Q>(
    hints: Hints,
    entries: &[(K, V)],
    hint: impl FnOnce() -> Hint,
    key: &Q,
    scan: bool,
) -> Option<usize>
where
    K: Borrow<Q>,
    Q: Eq + ?Sized,
{
    stats::lookup();
    if scan && entries.len() <= super::key::SCAN_WITHOUT_HINTS {
        let found = entries.iter().position(|(k, _)| k.borrow() == key);
        if found.is_none() {
            stats::not_found();
        }
        return found;
    }
    if !entries.is_empty() {
        for slot in hints.matches(hint(), entries.len()) {
            if entries[slot].0.borrow() == key {
                stats::hint_hit();
                return Some(slot);
            }
            stats::false_match();
        }
    }
    stats::not_found();
    None
}

/// Appends an entry to a small form with room for it (`entries.len() < 8`), growing the
/// vector 1, 2, 4, 8 with `reserve_exact` so that it never holds more than eight slots.
#[inline]
pub(crate) fn push<K, V>(hints: &mut Hints, entries: &mut Vec<(K, V)>, hint: Hint, entry: (K, V)) -> usize {
    let slot = entries.len();
    debug_assert!(slot < SMALL_CAPACITY);
    if slot == entries.capacity() {
        let target = (2 * slot).clamp(1, SMALL_CAPACITY);
        entries.reserve_exact(target - slot);
    }
    entries.push(entry);
    hints.set(slot, hint);
    slot
}

/// Removes the entry in `slot`, keeping the others in order.
pub(crate) fn remove<K, V>(hints: &mut Hints, entries: &mut Vec<(K, V)>, slot: usize) -> (K, V) {
    hints.remove(slot);
    entries.remove(slot)
}

/// Keeps the entries for which `keep` says so, in order, with their hints.
pub(crate) fn retain<K, V>(hints: &mut Hints, entries: &mut Vec<(K, V)>, mut keep: impl FnMut(&K, &mut V) -> bool) {
    let old = *hints;
    let mut slot = 0;
    let mut kept = 0;
    entries.retain_mut(|(key, value)| {
        let stays = keep(key, value);
        if stays {
            hints.set(kept, old.get(slot));
            kept += 1;
        }
        slot += 1;
        stays
    });
}

/// The hints of `entries` (at most eight), computed from their keys' hashes.
pub(crate) fn hints_of<K, V>(entries: &[(K, V)], hash: impl Fn(&K) -> u64) -> Hints {
    let mut hints = Hints::EMPTY;
    for (slot, (key, _)) in entries.iter().enumerate() {
        hints.set(slot, Hint::from_hash(hash(key)));
    }
    hints
}
