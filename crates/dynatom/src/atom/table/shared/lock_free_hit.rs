//! The lock-free hit: the probe that takes an atom with no pin (see "A hit" in the
//! module docs of [`super`] for what it reads and why each check is enough), and what
//! every hit does last. Where it cannot answer, [`filing`](super::filing) does: the
//! pinned probe and the locked path.

#[cfg(not(loom))]
use super::is_raised_entry_for;
#[cfg(not(loom))]
use super::probe_hash;
use super::{PaddedShard, TableShared};
#[cfg(not(loom))]
use crate::atom::table::slots::Unpinned;
use crate::repr::atom_word::AtomWord;
#[cfg(not(loom))]
use crate::repr::atom_word::RawAtom;
use crate::repr::heap::HitSigns;

/// What [`TableShared::hit_unpinned`] found.
#[cfg_attr(loom, allow(dead_code))]
pub(super) enum UnpinnedHit {
    /// The atom, with what its raise saw.
    Hit(AtomWord, HitSigns),
    /// No entry under the hash's tag: the slots it read.
    Missed(u64),
    /// A pinned probe must answer; the handle of a candidate that was not the atom is to
    /// be dropped.
    Unanswered(Option<AtomWord>),
}

impl TableShared {
    /// The hit with no pin (see "A hit" in the module docs of `super`): the probe reads
    /// slot words of type-stable arrays, and takes its first candidate by raising its
    /// count from a live value before it reads the atom's hash and bytes. A candidate that
    /// is not the atom (another text under the same tag, or an address reused since the
    /// probe read it) leaves the answer to the pinned probe, which looks further. Calls
    /// nothing for texts of up to
    /// [`HASHED_IN_LINE_UP_TO`](super::HASHED_IN_LINE_UP_TO) bytes. Under loom every hit
    /// pins.
    #[inline(always)]
    pub(super) fn hit_unpinned(&self, padded: &PaddedShard, bytes: &[u8], hash: u64) -> UnpinnedHit {
        #[cfg(loom)]
        let _ = (self, padded, bytes, hash);
        #[cfg(not(loom))]
        match padded.slots.find_unpinned(probe_hash(hash)) {
            (Unpinned::Candidate(entry), _) => {
                let raw = RawAtom::from_slot(entry);
                let mut signs = HitSigns::default();
                // SAFETY: filed in this table (alive: `self` is borrowed) as reachable with
                // no pin.
                let raised = unsafe { raw.raise_unpinned(&mut signs) };
                // The handle keeps the block this table's while its text is compared; one
                // for other text is dropped by the caller, which never frees it (the table
                // holds the count it held when the raise read it).
                return match raised {
                    // SAFETY: raised: the handle holds a count of the entry.
                    Some(atom) if unsafe { is_raised_entry_for(raw, hash, bytes) } => UnpinnedHit::Hit(atom, signs),
                    other => UnpinnedHit::Unanswered(other),
                };
            }
            (Unpinned::Missed, probes) => return UnpinnedHit::Missed(probes),
            (Unpinned::NeedsPin, _) => {}
        }
        UnpinnedHit::Unanswered(None)
    }

    /// What every hit does last: a promotion if the hit saw its signs, a collection if
    /// retired memory waits. Both are rare, and out of line.
    #[inline(always)]
    pub(super) fn after_hit(&self, atom: AtomWord, signs: HitSigns) -> AtomWord {
        if signs.any() || self.has_retired_waiting() {
            return self.after_hit_rare(atom, signs);
        }
        atom
    }

    #[cold]
    #[inline(never)]
    fn after_hit_rare(&self, atom: AtomWord, signs: HitSigns) -> AtomWord {
        if signs.any() {
            self.promote_hot(&atom, signs);
        }
        self.after_read();
        atom
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::super::probe_hash;

    /// Two short texts in one shard with one home slot in its first array (8 slots) and
    /// one tag: the second's lock-free probe meets the first as its candidate, raises it,
    /// finds other text, and leaves the answer to the pinned probe, giving the raise back.
    #[test]
    fn a_candidate_of_other_text_under_the_same_tag_is_given_back() {
        let table = crate::AtomTable::with_seed(7);
        let shared = table.shared();
        let place = |text: &[u8]| {
            let hash = shared.hash(text);
            (shared.shard_index(hash), probe_hash(hash) & 7, hash >> 49)
        };
        let first = *b"same tag #00000000";
        let wanted = place(&first);
        let mut second = first;
        // A search over 21 bits (tag, home slot, shard), in place: about 2 million hashes.
        let found = (1u32..1 << 26).find(|i| {
            second[10..].copy_from_slice(format!("{i:08x}").as_bytes());
            place(&second) == wanted
        });
        assert!(found.is_some(), "no text shares the first's tag, home slot and shard");
        let (first, second) = (std::str::from_utf8(&first).unwrap(), std::str::from_utf8(&second).unwrap());
        let a = table.intern(first);
        let b = table.intern(second);
        assert_ne!(a, b);
        assert_eq!((a.as_str(), b.as_str()), (first, second));
        // Each probe now meets the other atom first, or finds its own.
        assert_eq!(table.intern(second), b);
        assert_eq!(table.intern(first), a);
        // The raises of the wrong candidates were given back: dropped, both are unused.
        drop((a, b));
        assert!(!table.contains_text(first));
        assert!(!table.contains_text(second));
        let report = table.memory_report();
        assert_eq!((report.atoms, report.unused_atoms), (0, 2), "none in use, both kept for reuse");
    }
}
