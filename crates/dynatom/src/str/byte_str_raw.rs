//! A [`ByteStr`] as plain machine words, for foreign code (the C ABI keeps one as two
//! `uint64_t`).
//!
//! [`ByteStr`] is `#[repr(transparent)]` over [`StrWord`], itself two pointer-sized
//! fields in `repr(C)` order, so `[usize; 2]` and `ByteStr` have the same size,
//! alignment and field order. That is what lets foreign memory holding the words be
//! borrowed in place.

use super::byte_str::ByteStr;
use crate::repr::heap::UTF8_VALID;
use crate::repr::str_word::StrWord;
use crate::utf8::{ByteView, Utf8};

const _: () = {
    assert!(std::mem::size_of::<ByteStr>() == std::mem::size_of::<[usize; 2]>());
    assert!(std::mem::align_of::<ByteStr>() == std::mem::align_of::<[usize; 2]>());
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

// SAFETY: a `ByteStr`'s bytes are immutable (inline copy, `'static` bytes, or a published
// block's bytes, which never change).
unsafe impl ByteView for ByteStr {
    #[inline]
    fn bytes(&self) -> &[u8] {
        self.as_bytes()
    }

    #[inline]
    fn known_utf8(&self) -> bool {
        self.whole_block().is_some_and(|block| block.flags() & UTF8_VALID != 0)
    }

    #[inline]
    fn remember_utf8(&self) {
        if let Some(block) = self.whole_block() {
            block.mark_utf8();
        }
    }
}

/// The text of a `'static` string, usable in `const`.
#[inline]
pub(crate) const fn static_text(text: &'static str) -> Utf8<ByteStr> {
    // SAFETY: the bytes of a `str`.
    unsafe { Utf8::new_unchecked(ByteStr::from_static(text.as_bytes())) }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn every_form_round_trips_through_words() {
        let heap = ByteStr::copy_from_slice(b"a heap string \xff with a byte that is not UTF-8");
        let owned = ByteStr::from_owner(b"bytes an owner keeps, \xff and all, viewed in place".to_vec());
        let forms = [
            ByteStr::new(),
            ByteStr::from_static(b"static"),
            ByteStr::from(&b"inline\0"[..]),
            heap.slice(2..30),
            owned.slice(1..40),
        ];
        for s in forms {
            let expected = s.as_bytes().to_vec();
            let words = s.into_raw();
            assert!(ByteStr::raw_words_plausible(words), "{words:x?}");
            // SAFETY: a live pair, not changed while borrowed.
            assert_eq!(unsafe { ByteStr::from_raw_ref(&words) }.as_bytes(), &expected[..]);
            // SAFETY: taken back once.
            assert_eq!(unsafe { ByteStr::from_raw(words) }.as_bytes(), &expected[..]);
        }
    }

    #[test]
    fn check_vouches_only_for_utf8() {
        assert_eq!(Utf8::check(ByteStr::copy_from_slice("é ok".as_bytes())).unwrap().as_str(), "é ok");
        let (back, err) = Utf8::check(ByteStr::copy_from_slice(b"a\xff")).err().unwrap();
        assert_eq!(back.as_bytes(), b"a\xff");
        assert_eq!(err.valid_up_to(), 1);
    }

    #[test]
    fn a_whole_buffer_is_checked_once() {
        let bytes = ByteStr::copy_from_slice("a whole buffer of text, é".as_bytes());
        assert!(!bytes.known_utf8());
        assert!(Utf8::check(bytes.clone()).is_ok());
        assert!(bytes.known_utf8(), "the check is remembered in the header");
        assert!(!bytes.slice(0..4).known_utf8(), "a part is not the buffer that was checked");
        let bad = ByteStr::copy_from_slice(b"not text, not remembered \xff");
        assert!(Utf8::check(bad.clone()).is_err());
        assert!(!bad.known_utf8());
    }

    #[test]
    fn slices_must_fall_on_char_boundaries() {
        let text = static_text("héllo, a text long enough for the heap");
        assert!(text.slice(0, 2, |b| b.slice(0..2)).is_none());
        assert_eq!(text.slice(0, 3, |b| b.slice(0..3)).unwrap().as_str(), "hé");
        assert!(text.slice(3, 100, |b| b.clone()).is_none());
    }

    #[test]
    fn implausible_words_are_caught() {
        assert!(!ByteStr::raw_words_plausible([0, 5]));
        assert!(!ByteStr::raw_words_plausible([0b11, 0]), "tag 11 is no form");
        assert!(!ByteStr::raw_words_plausible([0x1000 | 0b100, 0]), "misaligned block");
        assert!(!ByteStr::raw_words_plausible([(16 << 2) | 0b01, 0]), "inline length 16");
        assert!(!ByteStr::raw_words_plausible([(3 << 2) | 0b10, 0]), "static bytes at null");
        assert!(!ByteStr::raw_words_plausible([0x1000 | 0b111, 0]), "misaligned control block");
        assert!(!ByteStr::raw_words_plausible([0x1000 | 0b011, (1 << 32) | 0xFFFF_FFFF]), "range past MAX_LEN");
        let words = ByteStr::from_owner(b"an owner's bytes given to C as two words".to_vec()).slice(3..30).into_raw();
        assert_eq!(words[0] & 0b111, 0b011, "the owned form's tag");
        assert!(ByteStr::raw_words_plausible(words));
        // SAFETY: from `into_raw`, taken back once.
        drop(unsafe { ByteStr::from_raw(words) });
    }
}
