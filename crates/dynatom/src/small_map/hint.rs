//! One-byte hash hints, eight to a word, matched all at once.
//!
//! A small map keeps one hint byte per entry in a single `u64` (slot `i` is bits
//! `8i..8i + 8`; that is arithmetic on the integer, so it holds on any endianness). A
//! lookup compares its hint with all eight bytes in a handful of word operations and
//! touches entries only where a byte matches: the idea of Ruby's `ar_table` hints
//! (Feature #15602), with the byte-parallel compare that SwissTable-style tables such as
//! hashbrown use in their portable "generic" group.

/// A one-byte summary of a key's hash, kept per entry by a [`SmallMap`](crate::SmallMap)
/// in its small form: the hash's top byte.
///
/// ```
/// use dynatom::Hint;
///
/// assert_eq!(Hint::from_hash(0x2a << 56).byte(), 0x2a);
/// assert_eq!(Hint::from_hash(0x2a).byte(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hint(u8);

impl Hint {
    /// The hint of a 64-bit hash: its top byte. One shift on the lookup path; keys'
    /// hashes must be well mixed in their high bits anyway, since the large form's
    /// hashbrown table takes its 7-bit tags from there too. (Ruby takes the low byte of
    /// its hash.)
    ///
    /// ```
    /// use dynatom::Hint;
    ///
    /// let hash = dynatom::Atom::from("a key of some length").hash64();
    /// assert_eq!(Hint::from_hash(hash).byte(), (hash >> 56) as u8);
    /// ```
    #[inline]
    pub const fn from_hash(hash: u64) -> Hint {
        Hint((hash >> 56) as u8)
    }

    /// The hint's byte.
    ///
    /// ```
    /// assert_eq!(dynatom::Hint::from_hash(7 << 56).byte(), 7);
    /// ```
    #[inline]
    pub const fn byte(self) -> u8 {
        self.0
    }
}

/// The byte `0x01` in every lane: multiplying a byte by it copies the byte to all lanes.
const LANES_01: u64 = 0x0101_0101_0101_0101;
/// The low seven bits of every lane.
const LANES_7F: u64 = 0x7f7f_7f7f_7f7f_7f7f;
/// The high bit of every lane.
const LANES_80: u64 = 0x8080_8080_8080_8080;

/// The hints of up to eight entries, slot `i` in bits `8i..8i + 8`. Slots at or past the
/// map's length hold stale bytes; [`Hints::matches`] masks them off by length, so all
/// 256 hint values stay available to keys.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Hints(u64);

impl Hints {
    /// Hints for no entries.
    pub(crate) const EMPTY: Hints = Hints(0);

    /// The hint in `slot` (0..8).
    #[inline]
    pub(crate) fn get(self, slot: usize) -> Hint {
        debug_assert!(slot < 8);
        Hint((self.0 >> (8 * slot)) as u8)
    }

    /// Stores `hint` in `slot` (0..8).
    #[inline]
    pub(crate) fn set(&mut self, slot: usize, hint: Hint) {
        debug_assert!(slot < 8);
        let shift = 8 * slot;
        self.0 = (self.0 & !(0xff << shift)) | (u64::from(hint.0) << shift);
    }

    /// Removes `slot` (0..8), moving the hints above it down by one, as `Vec::remove`
    /// moves the entries.
    #[inline]
    pub(crate) fn remove(&mut self, slot: usize) {
        debug_assert!(slot < 8);
        // `slot < 8`, so the shift is at most 56 and `below` is exact.
        let below = (1u64 << (8 * slot)) - 1;
        self.0 = (self.0 & below) | ((self.0 >> 8) & !below);
    }

    /// The slots among the first `len` (0..=8) whose hint equals `hint`, lowest first.
    ///
    /// The exact "which bytes are zero" test from *Hacker's Delight* (section 6-1) and
    /// Bit Twiddling Hacks: XOR with the broadcast hint turns matching lanes to zero;
    /// adding `0x7f` to each lane's low seven bits sets its high bit unless those bits
    /// are all zero, and cannot carry into the next lane (`0x7f + 0x7f < 0x100`); OR-ing
    /// the lane itself catches a set high bit. Lanes whose high bit is still clear are
    /// exactly the zero lanes. (The shorter `(x - 0x01..) & !x & 0x80..` used by memchr
    /// can flag a lane above a true zero through its borrow: a needless key compare
    /// here, and a wrong false-match count.)
    #[inline]
    pub(crate) fn matches(self, hint: Hint, len: usize) -> Matches {
        debug_assert!(len <= 8);
        if len == 0 {
            return Matches(0);
        }
        let diff = self.0 ^ (u64::from(hint.0) * LANES_01);
        let nonzero_low = (diff & LANES_7F) + LANES_7F;
        let zero_lanes = !(nonzero_low | diff | LANES_7F);
        // `len` is 1..=8, so the shift is 0..=56: keep the high bits of the live slots.
        Matches(zero_lanes & (LANES_80 >> (64 - 8 * len)))
    }
}

/// Slot numbers of matching hints, lowest first (one high bit per matching lane).
pub(crate) struct Matches(u64);

impl Iterator for Matches {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let slot = self.0.trailing_zeros() as usize / 8;
        self.0 &= self.0 - 1;
        Some(slot)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The obvious loop the word trick must agree with.
    fn naive(hints: Hints, hint: Hint, len: usize) -> Vec<usize> {
        (0..len).filter(|&slot| hints.get(slot) == hint).collect()
    }

    #[test]
    fn matches_agree_with_a_loop() {
        // Lanes drawn from the values that stress carries and borrows, and the hint.
        let picks = [0x00u8, 0x01, 0x7f, 0x80, 0x81, 0xfe, 0xff];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for round in 0..50_000 {
            // xorshift64: a cheap, deterministic stream of lane choices.
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let hint = Hint(picks[round % picks.len()]);
            let mut hints = Hints::EMPTY;
            for slot in 0..8 {
                let choice = (state >> (8 * slot)) as usize % (picks.len() + 1);
                hints.set(slot, picks.get(choice).map_or(hint, |&byte| Hint(byte)));
            }
            for len in 0..=8 {
                assert_eq!(hints.matches(hint, len).collect::<Vec<_>>(), naive(hints, hint, len));
            }
        }
    }

    #[test]
    fn remove_shifts_the_higher_slots_down() {
        let mut hints = Hints::EMPTY;
        for slot in 0..8 {
            hints.set(slot, Hint(slot as u8 + 10));
        }
        hints.remove(2);
        let got: Vec<u8> = (0..7).map(|slot| hints.get(slot).byte()).collect();
        assert_eq!(got, [10, 11, 13, 14, 15, 16, 17]);
        hints.remove(6);
        assert_eq!(hints.get(5).byte(), 16);
        hints.remove(0);
        assert_eq!(hints.get(0).byte(), 11);
    }

    #[test]
    fn set_overwrites_only_its_slot() {
        let mut hints = Hints(u64::MAX);
        hints.set(3, Hint(0));
        assert_eq!(hints.0, !(0xff << 24));
    }
}
