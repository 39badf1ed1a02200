//! The small form: up to eight entries in insertion order, their hints in one word.

use std::borrow::Borrow;

use super::hint::{Hint, Hints, Matches};
use super::retain;
use super::stats;

/// Most entries the small form holds; the ninth moves the map to the large form.
pub(crate) const SMALL_CAPACITY: usize = 8;

/// The most entries a small form of [`HintKey::WORD_EQ`](super::HintKey::WORD_EQ) keys
/// scans without hints.
pub(crate) const SCAN_WITHOUT_HINTS: usize = 4;

/// What `found` makes of the slot and entry of the key among `entries` (the one
/// `is_key` accepts), comparing keys only where the hint matches.
///
/// The common cases take no loop: a miss is one test of the match word; a hit takes the
/// lowest matching slot and compares its key (`entries.get` keeps it safe, and answers a
/// miss when [`Hints::matches`] flags only empty slots). Only a false match at the lowest
/// slot goes on to the other matches, out of line. `found` runs where the entry is found,
/// so that a caller wanting the value gets its address there, not an `Option` of the
/// entry to unpack afterwards.
#[inline]
pub(crate) fn find<'a, K, V, R>(
    hints: Hints,
    entries: &'a [(K, V)],
    hint: impl FnOnce() -> Hint,
    is_key: impl Fn(&K) -> bool,
    found: impl Fn(usize, &'a (K, V)) -> R,
) -> Option<R> {
    stats::lookup();
    let matches = hints.matches(hint());
    if matches.is_empty() {
        stats::not_found();
        return None;
    }
    let slot = matches.lowest_or_8();
    let Some(entry) = entries.get(slot) else {
        // No live slot matched (`matches` may flag the empty ones, past the entries).
        stats::not_found();
        return None;
    };
    if is_key(&entry.0) {
        stats::hint_hit();
        return Some(found(slot, entry));
    }
    stats::false_match();
    find_in(matches.after_lowest(), entries, is_key).map(|(slot, entry)| found(slot, entry))
}

/// [`find`] for keys compared as one word (see `HintKey::WORD_EQ`).
///
/// A form of at most [`SCAN_WITHOUT_HINTS`] entries is searched by comparing keys in
/// turn, and `hint` is never called: such a scan's compares wait only for the key, while
/// a search through the hints waits for the hint's two multiplies and the match before it
/// can compare, which at these sizes costs more than the compares it saves.
///
/// `entries` comes as the vector, not a slice, so that its length is read first and its
/// address only once a hint matches: a miss reads neither the address nor any entry.
/// (Always inlined: otherwise the vector's fields are loaded up front at the call. Kept
/// apart from [`find`], so that other keys' lookups compile as they did.)
#[inline(always)]
pub(crate) fn find_word_key<'a, K, V, Q, R>(
    hints: Hints,
    entries: &'a Vec<(K, V)>,
    hint: impl FnOnce() -> Hint,
    key: &Q,
    found: impl Fn(usize, &'a (K, V)) -> R,
) -> Option<R>
where
    K: Borrow<Q>,
    Q: Eq + ?Sized,
{
    stats::lookup();
    if entries.len() <= SCAN_WITHOUT_HINTS {
        let Some((slot, entry)) = entries.iter().enumerate().find(|(_, (k, _))| k.borrow() == key) else {
            stats::not_found();
            return None;
        };
        return Some(found(slot, entry));
    }
    let matches = hints.matches(hint());
    if matches.is_empty() {
        stats::not_found();
        return None;
    }
    let slot = matches.lowest_or_8();
    let Some(entry) = entries.as_slice().get(slot) else {
        // No live slot matched (`matches` may flag the empty ones, past the entries).
        stats::not_found();
        return None;
    };
    if entry.0.borrow() == key {
        stats::hint_hit();
        return Some(found(slot, entry));
    }
    stats::false_match();
    find_in(matches.after_lowest(), entries, |k: &K| k.borrow() == key).map(|(slot, entry)| found(slot, entry))
}

/// A search of an empty small form: counted as one, and found nothing.
#[inline]
pub(crate) fn find_nothing<R>() -> Option<R> {
    stats::lookup();
    stats::not_found();
    None
}

/// The rest of [`find`]: the matches above a lowest one that was a false match. Rare, so
/// kept out of line, and `#[cold]` so that a hit is the straight path through [`find`].
#[cold]
#[inline(never)]
fn find_in<K, V>(matches: Matches, entries: &[(K, V)], is_key: impl Fn(&K) -> bool) -> Option<(usize, &(K, V))> {
    for slot in matches {
        let Some(entry) = entries.get(slot) else { break };
        if is_key(&entry.0) {
            stats::hint_hit();
            return Some((slot, entry));
        }
        stats::false_match();
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

/// Keeps the entries for which `keep` says so, in order, with their hints; if `keep`
/// panics, the hints still match the entries left (see [`retain::retain`]).
pub(crate) fn retain<K, V>(hints: &mut Hints, entries: &mut Vec<(K, V)>, keep: impl FnMut(&K, &mut V) -> bool) {
    let old = std::mem::replace(hints, Hints::EMPTY);
    retain::retain(entries, keep, HintPlacement { hints, old });
}

/// Moves each staying entry's hint down with it; the slots above stay empty.
struct HintPlacement<'a> {
    hints: &'a mut Hints,
    old: Hints,
}

impl retain::Placement for HintPlacement<'_> {
    fn place(&mut self, from: usize, to: usize) {
        if let Some(hint) = self.old.get(from) {
            self.hints.set(to, hint);
        }
    }

    fn finish(&mut self) {}
}

/// The hints of `entries` (at most eight), computed from their keys' hashes.
pub(crate) fn hints_of<K, V>(entries: &[(K, V)], hash: impl Fn(&K) -> u64) -> Hints {
    let mut hints = Hints::EMPTY;
    for (slot, (key, _)) in entries.iter().enumerate() {
        hints.set(slot, Hint::from_hash(hash(key)));
    }
    hints
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Entries `(id, ())` whose hash is `id << 57` (so the hint is `id`'s low seven bits),
    /// with their hints.
    fn form(ids: &[u8]) -> (Hints, Vec<(u8, ())>) {
        let mut hints = Hints::EMPTY;
        let mut entries = Vec::new();
        for &id in ids {
            push(&mut hints, &mut entries, Hint::from_hash(u64::from(id) << 57), (id, ()));
        }
        (hints, entries)
    }

    /// Every entry is found in its slot, and the slots past the entries match nothing.
    fn assert_consistent(hints: Hints, entries: &[(u8, ())]) {
        for (slot, (id, ())) in entries.iter().enumerate() {
            let found = find(hints, entries, || Hint::from_hash(u64::from(*id) << 57), |k| k == id, |at, _| at);
            assert_eq!(found, Some(slot));
            assert_eq!(hints.get(slot), Some(Hint::from_hash(u64::from(*id) << 57)));
        }
        for slot in entries.len()..SMALL_CAPACITY {
            assert_eq!(hints.get(slot), None, "slot {slot} of {} should be empty", entries.len());
        }
    }

    #[test]
    fn remove_and_retain_leave_the_slots_above_empty() {
        let (mut hints, mut entries) = form(&[3, 1, 4, 129, 5, 9, 2, 6]);
        assert_consistent(hints, &entries);
        assert_eq!(remove(&mut hints, &mut entries, 2), (4, ()));
        assert_consistent(hints, &entries);
        retain(&mut hints, &mut entries, |id, ()| id % 2 == 1);
        assert_eq!(entries.iter().map(|(id, ())| *id).collect::<Vec<_>>(), [3, 1, 129, 5, 9]);
        assert_consistent(hints, &entries);
        retain(&mut hints, &mut entries, |_, ()| false);
        assert_eq!(hints, Hints::EMPTY);
    }

    #[test]
    fn a_false_match_at_the_lowest_slot_goes_on_to_the_next() {
        // 1 and 129 differ but share the hint 1 (`129 << 57` loses its top bit), and so
        // do 2 and 130.
        let (hints, entries) = form(&[1, 129, 2]);
        assert_eq!(find(hints, &entries, || Hint::from_hash(1 << 57), |k| *k == 129, |at, _| at), Some(1));
        assert_eq!(find(hints, &entries, || Hint::from_hash(2 << 57), |k| *k == 130, |at, _| at), None);
        assert_eq!(find(hints, &entries, || Hint::from_hash(3 << 57), |k| *k == 3, |at, _| at), None);
    }

    #[test]
    fn hints_of_rebuilds_what_pushes_built() {
        let (hints, entries) = form(&[7, 0, 127, 64]);
        assert_eq!(hints_of(&entries, |id| u64::from(*id) << 57), hints);
    }
}
