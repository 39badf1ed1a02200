//! A [`ByteAtom`] as a plain machine word, for foreign code (the C ABI keeps one as a
//! `uint64_t`).
//!
//! [`ByteAtom`] is `#[repr(transparent)]` over [`AtomWord`], one pointer-sized field, so
//! `usize` and `ByteAtom` have the same size and alignment.

use super::byte_atom::ByteAtom;
use crate::repr::atom_word::AtomWord;
use crate::utf8::ByteView;

const _: () = {
    assert!(std::mem::size_of::<ByteAtom>() == std::mem::size_of::<usize>());
    assert!(std::mem::align_of::<ByteAtom>() == std::mem::align_of::<usize>());
};

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
    /// As for [`ByteStr::from_raw_ref`](crate::ByteStr::from_raw_ref): a live word from [`ByteAtom::into_raw`], left
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

// SAFETY: as for a `ByteStr`: inline words, static entries and published blocks never
// change their bytes.
unsafe impl ByteView for ByteAtom {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn every_form_round_trips_through_a_word() {
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
        assert!(!ByteAtom::raw_word_plausible((8 << 1) | 1), "inline length 8");
        assert!(!ByteAtom::raw_word_plausible(0xFF_0000 | (1 << 1) | 1), "dirty inline padding");
        assert!(!ByteAtom::raw_word_plausible(0x1000 | 0b110));
    }
}

// Only `static_atoms!`'s items and `StaticSet`'s lookups make an `Atom` from a declared
// text unchecked, and both come with the `static-atoms` feature.
#[cfg(feature = "static-atoms")]
impl super::Atom {
    /// The atom of a declared text, for [`static_atoms!`](crate::static_atoms)'s `const`
    /// items. Its set must be registered before the atom's text is read.
    #[doc(hidden)]
    #[must_use]
    pub const fn __declared(text: &crate::repr::declared::StaticText) -> super::Atom {
        assert!(text.is_text(), "a static atom's text is made with `StaticText::from_str`");
        let byte_atom = ByteAtom::from_word(AtomWord::from_declared_bits_const(text.bits()));
        // SAFETY: a `StaticText`'s word is computed from its bytes (its fields are
        // private), and these were a `str` (checked above): UTF-8.
        super::Atom::from_utf8_handle(unsafe { crate::utf8::Utf8::new_unchecked(byte_atom) })
    }

    /// The declared atom of `entry` if its text is `text` (one comparison: of words up to 7
    /// bytes, else of bytes).
    #[inline]
    pub(crate) fn declared_if_text(text: &str, entry: &crate::repr::declared::StaticText) -> Option<super::Atom> {
        // Up to 7 bytes, the word is the bytes: comparing words compares texts.
        let same = match crate::repr::atom_word::inline_bits_fast(text.as_bytes()) {
            Some(bits) => bits == entry.bits(),
            None => entry.bytes() == text.as_bytes(),
        };
        if !same {
            return None;
        }
        let byte_atom = ByteAtom::from_word(AtomWord::from_declared_bits(entry.bits()));
        // SAFETY: a `StaticText`'s word is computed from its bytes (its fields are
        // private), registration refuses two texts with one word, and those bytes are
        // `text`'s: UTF-8.
        Some(super::Atom::from_utf8_handle(unsafe { crate::utf8::Utf8::new_unchecked(byte_atom) }))
    }
}
