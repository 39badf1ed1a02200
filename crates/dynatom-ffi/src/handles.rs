//! The handles C holds by value: `dt_str` (a `ByteStr`'s two words) and `dt_atom` (a
//! `ByteAtom`'s word). This module is the only place their words become Rust values.
//!
//! A handle C passes in is classified before anything reads through it:
//!
//! ```text
//! dt_str  w0 == 0 && w1 == 0               never initialised   DT_ERR_INVALID_HANDLE
//!         w0 == 0 && w1 == DT_RELEASED_MARK released            DT_ERR_RELEASED
//!         ByteStr::raw_words_plausible      borrowed IN PLACE    (inline bytes live in *s)
//!         anything else                     garbage              DT_ERR_INVALID_HANDLE
//! dt_atom w == 0 / w == DT_RELEASED_MARK / ByteAtom::raw_word_plausible, likewise
//! ```
//!
//! Plausibility is a cheap filter (tag bits, alignment), not a proof: a handle that was
//! copied and released through another copy cannot be told from a live one.

use dynatom_core::{ByteAtom, ByteStr};

use crate::pointers::Out;
use crate::{dt_atom, dt_status, dt_str, DT_RELEASED_MARK};

const RELEASED_WORD: usize = DT_RELEASED_MARK as usize;

fn check_str_words(words: [usize; 2]) -> Result<(), dt_status> {
    match words {
        [0, 0] => Err(dt_status::DT_ERR_INVALID_HANDLE),
        [0, RELEASED_WORD] => Err(dt_status::DT_ERR_RELEASED),
        words if ByteStr::raw_words_plausible(words) => Ok(()),
        _ => Err(dt_status::DT_ERR_INVALID_HANDLE),
    }
}

fn check_atom_word(word: usize) -> Result<(), dt_status> {
    match word {
        0 => Err(dt_status::DT_ERR_INVALID_HANDLE),
        RELEASED_WORD => Err(dt_status::DT_ERR_RELEASED),
        word if ByteAtom::raw_word_plausible(word) => Ok(()),
        _ => Err(dt_status::DT_ERR_INVALID_HANDLE),
    }
}

/// C's `const dt_str *` as the words it points at (NULL: `DT_ERR_NULL`).
fn str_words<'a>(s: *const dt_str) -> Result<&'a [usize; 2], dt_status> {
    if s.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    if !s.is_aligned() {
        return Err(dt_status::DT_ERR_INVALID_HANDLE);
    }
    // SAFETY: non-NULL and aligned; by the header's rule it points at a readable dt_str,
    // which is two u64s: the same size and alignment as [usize; 2] on the 64-bit
    // targets this crate compiles for (lib.rs asserts both).
    Ok(unsafe { &*s.cast::<[usize; 2]>() })
}

fn atom_word<'a>(a: *const dt_atom) -> Result<&'a usize, dt_status> {
    if a.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    if !a.is_aligned() {
        return Err(dt_status::DT_ERR_INVALID_HANDLE);
    }
    // SAFETY: non-NULL and aligned; a dt_atom is one u64, which is a usize here.
    Ok(unsafe { &*a.cast::<usize>() })
}

/// Borrows the string in C's handle in place, for the call.
pub(crate) fn str_ref<'a>(s: *const dt_str) -> Result<&'a ByteStr, dt_status> {
    let words = str_words(s)?;
    check_str_words(*words)?;
    // SAFETY: the words are a live handle made by `into_raw` (the header's rule for a
    // dt_str that is neither zero nor released, which the check above filtered), and
    // they stay where they are, unchanged, for the call.
    Ok(unsafe { ByteStr::from_raw_ref(words) })
}

/// Borrows the atom in C's handle in place, for the call.
pub(crate) fn atom_ref<'a>(a: *const dt_atom) -> Result<&'a ByteAtom, dt_status> {
    let word = atom_word(a)?;
    check_atom_word(*word)?;
    // SAFETY: as in `str_ref`, for the atom's one word.
    Ok(unsafe { ByteAtom::from_raw_ref(word) })
}

/// Takes C's handle back: drops its reference and overwrites it with the released marker.
pub(crate) fn release_str(s: *mut dt_str) -> Result<(), dt_status> {
    let words = *str_words(s)?;
    check_str_words(words)?;
    // SAFETY: a live handle from `into_raw` (checked as in `str_ref`); C gives up this
    // copy of it, and the marker written below keeps it from being taken back twice.
    let owned = unsafe { ByteStr::from_raw(words) };
    Out::new(s)?.write(dt_str { w0: 0, w1: DT_RELEASED_MARK });
    drop(owned);
    Ok(())
}

/// Takes C's atom back, as `release_str`.
pub(crate) fn release_atom(a: *mut dt_atom) -> Result<(), dt_status> {
    let word = *atom_word(a)?;
    check_atom_word(word)?;
    // SAFETY: as in `release_str`.
    let owned = unsafe { ByteAtom::from_raw(word) };
    Out::new(a)?.write(dt_atom { w: DT_RELEASED_MARK });
    drop(owned);
    Ok(())
}

/// The handle C receives for `s` (its reference moves to C).
pub(crate) fn str_to_c(s: ByteStr) -> dt_str {
    let [w0, w1] = s.into_raw();
    dt_str { w0: w0 as u64, w1: w1 as u64 }
}

/// The handle C receives for `a`.
pub(crate) fn atom_to_c(a: ByteAtom) -> dt_atom {
    dt_atom { w: a.into_raw() as u64 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_released_marker_is_never_a_live_handle() {
        assert!(!ByteAtom::raw_word_plausible(RELEASED_WORD));
        assert!(!ByteStr::raw_words_plausible([0, RELEASED_WORD]));
        assert_eq!(check_atom_word(RELEASED_WORD), Err(dt_status::DT_ERR_RELEASED));
        assert_eq!(check_str_words([0, RELEASED_WORD]), Err(dt_status::DT_ERR_RELEASED));
        assert_eq!(check_atom_word(0), Err(dt_status::DT_ERR_INVALID_HANDLE));
        assert_eq!(check_str_words([0, 0]), Err(dt_status::DT_ERR_INVALID_HANDLE));
        assert_eq!(check_str_words([3, 0]), Err(dt_status::DT_ERR_INVALID_HANDLE));
    }

    #[test]
    fn handles_round_trip_and_release_once() {
        for text in [&b""[..], b"inline", b"a heap string of more than fifteen bytes"] {
            let mut s = str_to_c(ByteStr::copy_from_slice(text));
            assert_eq!(str_ref(&s).unwrap().as_bytes(), text);
            let mut a = atom_to_c(str_ref(&s).unwrap().intern());
            assert_eq!(atom_ref(&a).unwrap().as_bytes(), text);
            assert!(atom_ref(&a).is_ok());
            assert_eq!(release_atom(&mut a), Ok(()));
            assert!(atom_ref(&a).is_err());
            assert_eq!(release_atom(&mut a), Err(dt_status::DT_ERR_RELEASED));
            assert_eq!(release_str(&mut s), Ok(()));
            assert_eq!(s, dt_str { w0: 0, w1: DT_RELEASED_MARK });
            assert_eq!(str_ref(&s).err(), Some(dt_status::DT_ERR_RELEASED));
            assert_eq!(release_str(&mut s), Err(dt_status::DT_ERR_RELEASED));
        }
    }

    #[test]
    fn inline_strings_are_borrowed_in_place() {
        let s = str_to_c(ByteStr::copy_from_slice(b"in place"));
        let bytes = str_ref(&s).unwrap().as_ptr() as usize;
        let handle = std::ptr::from_ref(&s) as usize;
        assert!((handle..handle + 16).contains(&bytes));
    }
}
