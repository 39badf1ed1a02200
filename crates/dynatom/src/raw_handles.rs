//! Byte handles as plain machine words, for foreign code (the C ABI keeps a
//! [`ByteStr`] as two `uint64_t` and a [`ByteAtom`] as one).
//!
//! [`ByteStr`] is `#[repr(transparent)]` over [`StrWord`], itself two pointer-sized
//! fields in `repr(C)` order, so `[usize; 2]` and `ByteStr` have the same size,
//! alignment and field order; likewise `usize` and [`ByteAtom`] (over [`AtomWord`], one
//! pointer). That is what lets foreign memory holding the words be borrowed in place.

use crate::byte_atom::ByteAtom;
use crate::byte_str::ByteStr;
use crate::repr::atom_word::AtomWord;
use crate::repr::str_word::StrWord;

const _: () = {
    assert!(std::mem::size_of::<ByteStr>() == std::mem::size_of::<[usize; 2]>());
    assert!(std::mem::align_of::<ByteStr>() == std::mem::align_of::<[usize; 2]>());
    assert!(std::mem::size_of::<ByteAtom>() == std::mem::size_of::<usize>());
    assert!(std::mem::align_of::<ByteAtom>() == std::mem::align_of::<usize>());
};

impl ByteStr {
    /// Gives the handle up as its two words, for foreign code to hold. The handle's
    /// reference goes with them: give it back with [`ByteStr::from_raw`] exactly once, or
    /// the bytes leak.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let words = ByteStr::copy_from_slice(b"bytes handed to C as two words").into_raw();
    /// assert!(ByteStr::raw_words_plausible(words));
    /// // SAFETY: the words came from `into_raw` and are taken back once.
    /// let back = unsafe { ByteStr::from_raw(words) };
    /// assert_eq!(back, b"bytes handed to C as two words"[..]);
    /// ```
    #[must_use = "the raw words hold a reference: dropping them leaks the string"]
    #[inline]
    pub fn into_raw(self) -> [usize; 2] {
        self.into_word().into_raw_words()
    }

    /// Takes back a handle given up by [`ByteStr::into_raw`].
    ///
    /// # Safety
    /// `words` came from [`ByteStr::into_raw`] (or `Str::into_byte_str(..).into_raw()`),
    /// and each such pair is taken back at most once (as with `Box::from_raw`).
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let words = ByteStr::from(&b"short"[..]).into_raw();
    /// // SAFETY: from `into_raw`, taken back once.
    /// assert_eq!(unsafe { ByteStr::from_raw(words) }.as_bytes(), b"short");
    /// ```
    #[must_use]
    #[inline]
    pub unsafe fn from_raw(words: [usize; 2]) -> ByteStr {
        // SAFETY: forwarded from this function's contract.
        ByteStr::from_word(unsafe { StrWord::from_raw_words(words) })
    }

    /// Borrows a handle held as two words, in place: for the inline form the bytes live
    /// inside the words themselves, so the result must point into `words`, not a copy.
    ///
    /// # Safety
    /// `words` holds a pair from [`ByteStr::into_raw`] that has not been taken back, and
    /// it is neither taken back nor changed while the borrow lasts. The words should have
    /// been stored by foreign code or copied as memory (as a C struct is): under Rust's
    /// strict-provenance rules a heap handle's first word must carry its pointer's
    /// provenance, which an integer written by Rust code does not (Miri would object;
    /// the compiled code does not care).
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let words = ByteStr::from(&b"inline"[..]).into_raw();
    /// // SAFETY: a live pair from `into_raw`, unchanged while borrowed.
    /// let borrowed: &ByteStr = unsafe { ByteStr::from_raw_ref(&words) };
    /// assert_eq!(borrowed.as_bytes(), b"inline");
    /// assert!(borrowed.as_ptr() as usize > &words as *const _ as usize); // inside `words`
    /// // SAFETY: taken back once, after the borrow ended.
    /// drop(unsafe { ByteStr::from_raw(words) });
    /// ```
    #[must_use]
    #[inline]
    pub unsafe fn from_raw_ref(words: &[usize; 2]) -> &ByteStr {
        // SAFETY: `ByteStr` is a transparent wrapper of `StrWord`, whose two pointer-sized
        // `repr(C)` fields have `[usize; 2]`'s layout (asserted above); the caller
        // guarantees the words are a live handle's, left alone for the borrow's lifetime.
        unsafe { &*(words as *const [usize; 2]).cast::<ByteStr>() }
    }

    /// A cheap check that two words could be a handle (non-zero first word, a valid tag,
    /// an aligned block pointer, lengths in range). It cannot tell a live handle from a
    /// released or forged one: a guard against accidents, not against an attacker.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// assert!(!ByteStr::raw_words_plausible([0, 0]));
    /// let words = ByteStr::new().into_raw();
    /// assert!(ByteStr::raw_words_plausible(words));
    /// ```
    #[inline]
    pub fn raw_words_plausible(words: [usize; 2]) -> bool {
        StrWord::raw_words_plausible(words)
    }
}

impl ByteAtom {
    /// Gives the atom up as its word, for foreign code to hold. The atom's reference goes
    /// with it: give it back with [`ByteAtom::from_raw`] exactly once, or it leaks.
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// let word = ByteAtom::new(b"an atom handed to C as one word").into_raw();
    /// assert!(ByteAtom::raw_word_plausible(word));
    /// // SAFETY: from `into_raw`, taken back once.
    /// let back = unsafe { ByteAtom::from_raw(word) };
    /// assert_eq!(back, ByteAtom::new(b"an atom handed to C as one word"));
    /// ```
    #[must_use = "the raw words hold a reference: dropping them leaks the string"]
    #[inline]
    pub fn into_raw(self) -> usize {
        self.into_word().into_raw_word()
    }

    /// Takes back an atom given up by [`ByteAtom::into_raw`].
    ///
    /// # Safety
    /// `word` came from [`ByteAtom::into_raw`], and each such word is taken back at most
    /// once.
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// let word = ByteAtom::new(b"x").into_raw();
    /// // SAFETY: from `into_raw`, taken back once.
    /// assert_eq!(unsafe { ByteAtom::from_raw(word) }.as_bytes(), b"x");
    /// ```
    #[must_use]
    #[inline]
    pub unsafe fn from_raw(word: usize) -> ByteAtom {
        // SAFETY: forwarded from this function's contract.
        ByteAtom::from_word(unsafe { AtomWord::from_raw_word(word) })
    }

    /// Borrows an atom held as a word, in place (an inline atom's bytes live inside the
    /// word).
    ///
    /// # Safety
    /// As for [`ByteStr::from_raw_ref`]: a live word from [`ByteAtom::into_raw`], left
    /// alone while borrowed, stored by foreign code or copied as memory.
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// let word = ByteAtom::new(b"abc").into_raw();
    /// // SAFETY: a live word from `into_raw`, unchanged while borrowed.
    /// assert_eq!(unsafe { ByteAtom::from_raw_ref(&word) }.as_bytes(), b"abc");
    /// // SAFETY: taken back once.
    /// drop(unsafe { ByteAtom::from_raw(word) });
    /// ```
    #[must_use]
    #[inline]
    pub unsafe fn from_raw_ref(word: &usize) -> &ByteAtom {
        // SAFETY: `ByteAtom` is a transparent wrapper of `AtomWord`, a transparent
        // pointer: `usize`'s layout (asserted above); the caller guarantees the word is a
        // live atom's, left alone for the borrow's lifetime.
        unsafe { &*(word as *const usize).cast::<ByteAtom>() }
    }

    /// A cheap check that a word could be an atom (non-zero, a valid tag, an aligned
    /// pointer, an inline length of at most 7 with zero padding). It cannot tell a live
    /// atom from a released or forged one.
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// assert!(!ByteAtom::raw_word_plausible(0));
    /// assert!(!ByteAtom::raw_word_plausible(0b100)); // misaligned pointer
    /// ```
    #[inline]
    pub fn raw_word_plausible(word: usize) -> bool {
        AtomWord::raw_word_plausible(word)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn every_form_round_trips_through_words() {
        let heap = ByteStr::copy_from_slice(b"a heap string \xff with a byte that is not UTF-8");
        let forms =
            [ByteStr::new(), ByteStr::from_static(b"static"), ByteStr::from(&b"inline\0"[..]), heap.slice(2..30)];
        for s in forms {
            let expected = s.as_bytes().to_vec();
            let words = s.into_raw();
            assert!(ByteStr::raw_words_plausible(words), "{words:x?}");
            // SAFETY: a live pair, not changed while borrowed.
            assert_eq!(unsafe { ByteStr::from_raw_ref(&words) }.as_bytes(), &expected[..]);
            // SAFETY: taken back once.
            assert_eq!(unsafe { ByteStr::from_raw(words) }.as_bytes(), &expected[..]);
        }
        for atom in [ByteAtom::new(b""), ByteAtom::new(b"seven!!"), ByteAtom::new(b"a heap atom \xfe bytes")] {
            let expected = atom.clone();
            let word = atom.into_raw();
            assert!(ByteAtom::raw_word_plausible(word), "{word:x}");
            // SAFETY: a live word, taken back once.
            assert_eq!(unsafe { ByteAtom::from_raw(word) }, expected);
        }
    }

    #[test]
    fn implausible_words_are_caught() {
        assert!(!ByteStr::raw_words_plausible([0, 5]));
        assert!(!ByteStr::raw_words_plausible([0b11, 0]), "tag 11 is no form");
        assert!(!ByteStr::raw_words_plausible([0x1000 | 0b100, 0]), "misaligned block");
        assert!(!ByteStr::raw_words_plausible([(16 << 2) | 0b01, 0]), "inline length 16");
        assert!(!ByteStr::raw_words_plausible([(3 << 2) | 0b10, 0]), "static bytes at null");
        assert!(!ByteAtom::raw_word_plausible((8 << 1) | 1), "inline length 8");
        assert!(!ByteAtom::raw_word_plausible(0xFF_0000 | (1 << 1) | 1), "dirty inline padding");
        assert!(!ByteAtom::raw_word_plausible(0x1000 | 0b110));
    }
}
