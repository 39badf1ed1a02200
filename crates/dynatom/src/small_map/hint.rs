//! One-byte hash hints, eight to a word, matched all at once.
//!
//! A small map keeps one hint byte per entry in a single `u64` (slot `i` is bits
//! `8i..8i + 8`; that is arithmetic on the integer, so it holds on any endianness). A
//! lookup compares its hint with all eight bytes in a handful of word operations and
//! touches entries only where a byte matches: the idea of Ruby's `ar_table` hints
//! (Feature #15602), with the byte-parallel compare that SwissTable-style tables such as
//! hashbrown use in their portable "generic" group. As in hashbrown, a hint is seven bits
//! of the hash and a byte with its high bit set marks an empty slot, which no hint
//! matches: lookups need no length and no mask for the slots past it.

/// A one-byte summary of a key's hash, kept per entry by a [`SmallMap`](crate::SmallMap)
/// in its small form: the hash's top seven bits, so the byte's high bit is always clear.
///
/// Seven bits rather than eight leave the values `0x80..=0xff` to mark empty slots, which
/// no hint can match: a lookup then needs neither the map's length nor a mask to ignore
/// them (hashbrown keeps 7-bit tags for the same reason).
///
/// ```
/// use dynatom::Hint;
///
/// assert_eq!(Hint::from_hash(0x2a << 57).byte(), 0x2a);
/// assert_eq!(Hint::from_hash(u64::MAX).byte(), 0x7f);
/// assert_eq!(Hint::from_hash(0x2a).byte(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hint(u8);

impl Hint {
    /// The hint of a 64-bit hash: its top seven bits. One shift on the lookup path; keys'
    /// hashes must be well mixed in their high bits anyway, since the large form's
    /// hashbrown table takes its 7-bit tags from there too. (Ruby takes the low byte of
    /// its hash.)
    ///
    /// ```
    /// use dynatom::Hint;
    ///
    /// let hash = dynatom::Atom::from("a key of some length").hash64();
    /// assert_eq!(Hint::from_hash(hash).byte(), (hash >> 57) as u8);
    /// ```
    #[must_use]
    #[inline]
    pub const fn from_hash(hash: u64) -> Hint {
        Hint((hash >> 57) as u8)
    }

    /// The hint's byte (below `0x80`).
    ///
    /// ```
    /// assert_eq!(dynatom::Hint::from_hash(7 << 57).byte(), 7);
    /// ```
    #[must_use]
    #[inline]
    pub const fn byte(self) -> u8 {
        self.0
    }
}

/// The byte `0x01` in every lane: multiplying a byte by it copies the byte to all lanes.
const LANES_01: u64 = 0x0101_0101_0101_0101;
/// The high bit of every lane.
const LANES_80: u64 = 0x8080_8080_8080_8080;
/// The byte of a slot that holds no entry: its high bit set, so no [`Hint`] equals it.
const EMPTY_SLOT: u64 = 0x80;

/// The hints of up to eight entries, slot `i` in bits `8i..8i + 8`. Slots at or past the
/// map's length hold [`EMPTY_SLOT`], which no hint matches, so [`Hints::matches`] needs
/// no length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Hints(u64);

impl Default for Hints {
    fn default() -> Self {
        Hints::EMPTY
    }
}

impl Hints {
    /// Hints for no entries: every slot empty.
    pub(crate) const EMPTY: Hints = Hints(LANES_80);

    /// The hint in `slot` (0..8), or `None` for an empty slot.
    #[inline]
    pub(crate) fn get(self, slot: usize) -> Option<Hint> {
        debug_assert!(slot < 8);
        let byte = (self.0 >> (8 * slot)) as u8;
        (u64::from(byte) & EMPTY_SLOT == 0).then_some(Hint(byte))
    }

    /// Stores `hint` in `slot` (0..8).
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, hint: Hint) {
        debug_assert!(slot < 8);
        let shift = 8 * slot;
        self.0 = (self.0 & !(0xff << shift)) | (u64::from(hint.0) << shift);
    }

    /// Removes `slot` (0..8), moving the hints above it down by one, as `Vec::remove`
    /// moves the entries; the top slot becomes empty.
    #[inline]
    pub(crate) fn remove(&mut self, slot: usize) {
        debug_assert!(slot < 8);
        // `slot < 8`, so the shift is at most 56 and `below` is exact.
        let below = (1u64 << (8 * slot)) - 1;
        self.0 = (self.0 & below) | (((self.0 >> 8) | (EMPTY_SLOT << 56)) & !below);
    }

    /// The slots whose hint may equal `hint`, lowest first: every slot whose hint equals
    /// it is among them, and the lowest of them is the lowest such slot whenever there is
    /// one. Past the lowest, a slot may be flagged that does not match (a needless key
    /// compare, only after a false match); and with no live slot matching, a `hint` of 0
    /// flags the empty slots, which all lie at or past the map's length (a lookup's bounds
    /// check answers it: no entry there). Any other `hint` that matches no live slot
    /// flags nothing.
    ///
    /// The borrow form of the zero-lane test (*Hacker's Delight*, section 6-1), shortened
    /// by the layout: XOR with the broadcast hint turns matching lanes to zero, and
    /// subtracting `0x01` from every lane flips a lane's high bit exactly where the lane is
    /// zero (it borrows and becomes `0xff`), as long as no borrow comes in from below.
    /// Below the lowest zero lane none does: live lanes are below `0x80`, so a nonzero one
    /// takes its 1 without a borrow and keeps its high bit (clear). An empty lane (`0x80`
    /// XOR the hint, high bit set) keeps its high bit unless it is exactly `0x80`, that is
    /// unless the hint is 0. XOR with the lane itself keeps just the flipped high bits: four
    /// word operations and two constants (the usual `(x - 0x01..) & !x & 0x80..` takes
    /// one more, and the exact test that was here one more again, and a third constant).
    #[inline]
    pub(crate) fn matches(self, hint: Hint) -> Matches {
        debug_assert!(self.live_below_empty(), "{:#x}", self.0);
        let diff = self.0 ^ (u64::from(hint.0) * LANES_01);
        Matches((diff.wrapping_sub(LANES_01) ^ diff) & LANES_80)
    }

    /// Whether the live slots (high bit clear) all sit below the empty ones: the layout
    /// [`Hints::matches`] relies on.
    fn live_below_empty(self) -> bool {
        let empty = self.0 & LANES_80;
        // Every lane from the lowest empty one up is empty (or none is).
        let lowest = empty & empty.wrapping_neg();
        empty == 0 || empty == LANES_80 & !(lowest - 1)
    }
}

/// Slot numbers of matching hints, lowest first (one high bit per matching lane).
#[derive(Clone, Copy)]
pub(crate) struct Matches(u64);

impl Matches {
    /// The lowest flagged slot, or 8 if none is flagged: one instruction, no branch. It is
    /// the lowest matching slot if one matches, else at or past the end of the small
    /// form's entries, so `entries.get(slot)` answers both.
    #[inline]
    pub(crate) fn lowest_or_8(self) -> usize {
        self.0.trailing_zeros() as usize / 8
    }

    /// Whether no slot matches.
    #[inline]
    pub(crate) fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The matches after the lowest one.
    #[inline]
    pub(crate) fn after_lowest(self) -> Matches {
        Matches(self.0 & self.0.wrapping_sub(1))
    }
}

impl Iterator for Matches {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let slot = self.lowest_or_8();
        *self = self.after_lowest();
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious loop the word trick must agree with.
    fn naive(hints: Hints, hint: Hint) -> Vec<usize> {
        (0..8).filter(|&slot| hints.get(slot) == Some(hint)).collect()
    }

    #[test]
    fn matches_agree_with_a_loop() {
        // Live lanes drawn from the hint values that stress carries, empty lanes on top,
        // and the hint itself in some lanes.
        let picks = [0x00u8, 0x01, 0x3f, 0x40, 0x7e, 0x7f];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..50_000 {
            // xorshift64: a cheap, deterministic stream of lane choices.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let hint = Hint(picks[round % picks.len()]);
            let len = (state >> 60) as usize % 9;
            let mut hints = Hints::EMPTY;
            for slot in 0..len {
                let choice = (state >> (6 * slot)) as usize % (picks.len() + 1);
                hints.set(slot, picks.get(choice).map_or(hint, |&byte| Hint(byte)));
            }
            let expected = naive(hints, hint);
            let flagged = hints.matches(hint).collect::<Vec<_>>();
            assert!(expected.iter().all(|slot| flagged.contains(slot)), "{hints:?} {hint:?}: {flagged:?}");
            match expected.first() {
                Some(&lowest) => assert_eq!(hints.matches(hint).lowest_or_8(), lowest),
                None if hint.0 == 0 => assert!(hints.matches(hint).lowest_or_8() >= len),
                None => assert!(hints.matches(hint).is_empty(), "{hints:?} {hint:?}: {flagged:?}"),
            }
        }
    }

    #[test]
    fn empty_slots_match_no_hint() {
        for byte in 1..0x80 {
            assert_eq!(Hints::EMPTY.matches(Hint(byte)).lowest_or_8(), 8);
        }
        // Hint 0 may flag empty slots, never below a live one.
        let mut hints = Hints::EMPTY;
        hints.set(0, Hint(5));
        hints.set(1, Hint(9));
        assert!(hints.matches(Hint(0)).lowest_or_8() >= 2);
    }

    #[test]
    fn remove_shifts_the_higher_slots_down() {
        let mut hints = Hints::EMPTY;
        for slot in 0..8 {
            hints.set(slot, Hint(slot as u8 + 10));
        }
        hints.remove(2);
        let got: Vec<Option<u8>> = (0..8).map(|slot| hints.get(slot).map(Hint::byte)).collect();
        assert_eq!(got, [Some(10), Some(11), Some(13), Some(14), Some(15), Some(16), Some(17), None]);
        hints.remove(6);
        assert_eq!(hints.get(5), Some(Hint(16)));
        assert_eq!(hints.get(6), None);
        hints.remove(0);
        assert_eq!(hints.get(0), Some(Hint(11)));
        assert_eq!(hints.matches(Hint(17)).lowest_or_8(), 8);
    }

    #[test]
    fn set_overwrites_only_its_slot() {
        let mut hints = Hints::EMPTY;
        hints.set(3, Hint(0));
        assert_eq!(hints.0, LANES_80 & !(0xff << 24));
    }
}
