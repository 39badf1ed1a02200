//! Strings over memory the program already owns: [`ByteStr::from_owner`] and
//! [`Str::from_owner`] take any `owner: AsRef<[u8]> + Send + Sync + 'static` (a
//! `Vec<u8>`, a `Box<[u8]>`, `bytes::Bytes`, a mapped file, a pooled buffer) and make a
//! handle over its bytes without copying them; and, with the `bytes` feature, the
//! conversions between [`ByteStr`] and `bytes::Bytes`, both ways without a copy.
//!
//! What every such string does (the control block is `repr/owned.rs`'s):
//!
//! * **One allocation**, a small control block holding a count and the owner (moved in);
//!   the bytes stay where the owner keeps them.
//! * **The first `as_ref` answer only.** The owner is asked for its bytes once, after it
//!   was moved into the block; an owner that would answer differently later is never
//!   asked again.
//! * **Short strings are copied.** Bytes that fit inside the handle (up to 15) are
//!   copied into it and the owner is dropped before the constructor returns: an inline
//!   handle is cheaper to keep than an owner, and needs no block.
//! * **Dropped exactly once**, when the last handle (clones, [`ByteStr::slice_ref`] and
//!   shared [`ByteStr::slice`] parts included) goes, on whichever thread that is. The
//!   block is freed *before* the owner's `Drop` runs, so an owner whose `Drop` panics
//!   panics on that thread (from the handle's drop) with nothing left half released; a
//!   panic there while the thread already unwinds aborts the process, as any panic in a
//!   `Drop` would.
//! * **Interning copies.** An atom owns its bytes; the table copies an owner's bytes (the
//!   adopt path is for the crate's own heap blocks), so atoms never keep an owner alive.

use std::convert::Infallible;

use super::Str;
use super::byte_str::ByteStr;
use crate::error::{Fallibility, FromOwnerError, MAX_LEN, StrError};
use crate::repr::owned::NewOwned;
use crate::repr::str_word::StrWord;
use crate::utf8::Utf8;

impl ByteStr {
    /// A string over the bytes `owner` holds, without copying them: the owner moves into
    /// a small control block (one allocation) and is dropped, exactly once, when the last
    /// handle of it goes, on whichever thread that is.
    ///
    /// * The owner is asked for its bytes (`as_ref`) once, after the move; that first
    ///   answer is what every handle reads.
    /// * At most 15 bytes are copied inside the handle instead, and the owner is dropped
    ///   before this returns.
    /// * Clones share the owner in O(1). For zero-copy parsing take parts with
    ///   [`ByteStr::slice_ref`], which never copies more than 15 bytes; [`ByteStr::slice`]
    ///   copies a part shorter than 1/8 of an owner of 1 KiB or more, so that a value kept
    ///   for long does not keep the whole buffer alive (use it to detach what you keep).
    /// * Interning copies the bytes into the table: an atom never keeps an owner alive.
    ///
    /// # Panics
    /// If the bytes are longer than [`ByteStr::MAX_LEN`] (the owner is dropped); aborts if
    /// memory runs out. [`ByteStr::try_from_owner`] hands the owner back instead.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let buffer: Vec<u8> = b"GET /index.html HTTP/1.1\r\nHost: example.org\r\n\r\n".to_vec();
    /// let at = buffer.as_ptr();
    /// let request = ByteStr::from_owner(buffer);
    /// assert_eq!(request.as_ptr(), at); // the vector's own bytes, not a copy
    /// let line_end = request.iter().position(|&b| b == b'\r').unwrap();
    /// let line = request.slice_ref(&request[..line_end]); // shares the vector
    /// assert_eq!(line, b"GET /index.html HTTP/1.1"[..]);
    /// drop(request);
    /// assert_eq!(line.as_ptr(), at); // the vector lives on while `line` does
    /// ```
    #[must_use]
    pub fn from_owner<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> ByteStr {
        match owned_bytes(owner, Fallibility::Infallible, MAX_LEN) {
            Ok(s) => s,
            Err(err) => panic!("ByteStr::from_owner: {err}"),
        }
    }

    /// Like [`ByteStr::from_owner`], but an owner whose bytes are longer than
    /// [`ByteStr::MAX_LEN`] ([`StrError::TooLong`]), or whose control block cannot be
    /// allocated ([`StrError::AllocFailed`]), comes back inside the error, untouched.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let s = ByteStr::try_from_owner(Box::<[u8]>::from(&b"a boxed slice of bytes: \xff"[..])).unwrap();
    /// assert_eq!(s, b"a boxed slice of bytes: \xff"[..]);
    /// ```
    pub fn try_from_owner<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> Result<ByteStr, FromOwnerError<O>> {
        owned_bytes(owner, Fallibility::Fallible, MAX_LEN)
    }
}

impl Str {
    /// A string over the text `owner` holds, without copying it, as
    /// [`ByteStr::from_owner`] does (read it for the owner's life, short texts, slicing
    /// and interning): the bytes are checked to be UTF-8 once, here.
    ///
    /// # Errors
    /// The owner comes back untouched inside a [`FromOwnerError`] if its bytes are not
    /// UTF-8 ([`StrError::InvalidUtf8`]) or are longer than [`Str::MAX_LEN`]
    /// ([`StrError::TooLong`]). Aborts if memory runs out ([`Str::try_from_owner`]
    /// reports that too).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let body = String::from("a response body assembled elsewhere, kept as it is");
    /// let at = body.as_ptr();
    /// let s = Str::from_owner(body).unwrap();
    /// assert_eq!(s.as_ptr(), at);
    /// let word = s.slice_ref(&s[2..10]);
    /// assert_eq!(word, "response");
    ///
    /// let err = Str::from_owner(vec![b'n', b'o', 0xff]).unwrap_err();
    /// assert_eq!(err.into_owner(), vec![b'n', b'o', 0xff]);
    /// ```
    pub fn from_owner<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> Result<Str, FromOwnerError<O>> {
        owned_text(owner, Fallibility::Infallible, MAX_LEN)
    }

    /// Like [`Str::from_owner`], but also hands the owner back when its control block
    /// cannot be allocated ([`StrError::AllocFailed`]).
    ///
    /// ```
    /// let s = dynatom::Str::try_from_owner("a &'static str is an owner too".to_owned()).unwrap();
    /// assert_eq!(s, "a &'static str is an owner too");
    /// ```
    pub fn try_from_owner<O: AsRef<[u8]> + Send + Sync + 'static>(owner: O) -> Result<Str, FromOwnerError<O>> {
        owned_text(owner, Fallibility::Fallible, MAX_LEN)
    }
}

/// The owner in its block, asked for its bytes once, which are at most `max_len` long.
fn checked_block<O: AsRef<[u8]> + Send + Sync + 'static>(
    owner: O,
    fallibility: Fallibility,
    max_len: usize,
) -> Result<NewOwned<O>, FromOwnerError<O>> {
    let new = NewOwned::new(owner, fallibility).map_err(|(owner, reason)| FromOwnerError::new(owner, reason))?;
    let len = new.bytes().len();
    if len > max_len {
        return Err(FromOwnerError::new(new.into_owner(), StrError::TooLong { len }));
    }
    Ok(new)
}

/// The handle of a checked block: short bytes copied inline (the owner dropped now),
/// anything longer the block itself.
fn publish<O>(new: NewOwned<O>) -> ByteStr {
    if let Some(word) = StrWord::inline(new.bytes()) {
        drop(new);
        return ByteStr::from_word(word);
    }
    ByteStr::from_word(StrWord::owned_whole(new.share()))
}

fn owned_bytes<O: AsRef<[u8]> + Send + Sync + 'static>(
    owner: O,
    fallibility: Fallibility,
    max_len: usize,
) -> Result<ByteStr, FromOwnerError<O>> {
    checked_block(owner, fallibility, max_len).map(publish)
}

fn owned_text<O: AsRef<[u8]> + Send + Sync + 'static>(
    owner: O,
    fallibility: Fallibility,
    max_len: usize,
) -> Result<Str, FromOwnerError<O>> {
    let new = checked_block(owner, fallibility, max_len)?;
    match Utf8::check(new) {
        Ok(text) => {
            let Ok(text) = text.into_same_bytes(|new| Ok::<_, Infallible>(publish(new)));
            Ok(Str::from_utf8_handle(text))
        }
        Err((new, err)) => Err(FromOwnerError::new(new.into_owner(), StrError::InvalidUtf8(err))),
    }
}

#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
impl From<bytes::Bytes> for ByteStr {
    /// The bytes of a [`Bytes`](bytes::Bytes), without copying them: the `Bytes` is the
    /// owner ([`ByteStr::from_owner`]; up to 15 bytes are copied inline instead).
    ///
    /// # Panics
    /// If the bytes are longer than [`ByteStr::MAX_LEN`].
    ///
    /// ```
    /// use bytes::Bytes;
    /// use dynatom::ByteStr;
    ///
    /// let bytes = Bytes::from(b"a frame read by a tokio codec, \xff and all".to_vec());
    /// let s = ByteStr::from(bytes.clone());
    /// assert_eq!(s.as_ptr(), bytes.as_ptr());
    /// assert_eq!(Bytes::from(s), bytes); // and back, still without a copy
    /// ```
    fn from(bytes: bytes::Bytes) -> ByteStr {
        ByteStr::from_owner(bytes)
    }
}

#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
impl From<ByteStr> for bytes::Bytes {
    /// A [`Bytes`](bytes::Bytes) over the string's bytes, without copying them: the handle
    /// becomes the `Bytes`' owner (`Bytes::from_owner`), and the bytes are freed (or
    /// their owner dropped) when the last `Bytes` and the last handle go. The empty
    /// string gives `Bytes::new()`.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use dynatom::ByteStr;
    ///
    /// let s = ByteStr::copy_from_slice(b"a heap string handed to a bytes API");
    /// let bytes = Bytes::from(s.clone());
    /// assert_eq!(bytes.as_ptr(), s.as_ptr());
    /// ```
    fn from(s: ByteStr) -> bytes::Bytes {
        if s.is_empty() { bytes::Bytes::new() } else { bytes::Bytes::from_owner(s) }
    }
}

#[cfg(feature = "bytes")]
#[cfg_attr(docsrs, doc(cfg(feature = "bytes")))]
impl From<Str> for bytes::Bytes {
    /// The text's bytes as a [`Bytes`](bytes::Bytes), without copying them (as
    /// `From<ByteStr>`).
    ///
    /// ```
    /// let s = dynatom::Str::from("text for a bytes API, shared not copied");
    /// assert_eq!(bytes::Bytes::from(s.clone()).as_ptr(), s.as_ptr());
    /// ```
    fn from(s: Str) -> bytes::Bytes {
        bytes::Bytes::from(s.into_byte_str())
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[derive(Debug)]
    struct Counted(Vec<u8>, Arc<AtomicUsize>);

    impl AsRef<[u8]> for Counted {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn counted(bytes: &[u8]) -> (Counted, Arc<AtomicUsize>) {
        let drops = Arc::new(AtomicUsize::new(0));
        (Counted(bytes.to_vec(), drops.clone()), drops)
    }

    #[test]
    fn a_long_owner_is_shared_and_a_short_one_copied() {
        let (owner, drops) = counted(b"sixteen bytes!!!");
        let at = owner.0.as_ptr();
        let s = ByteStr::from_owner(owner);
        assert!(!s.is_inline());
        assert_eq!(s.as_ptr(), at);
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        drop(s);
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let (owner, drops) = counted(b"fifteen bytes!!");
        let s = ByteStr::from_owner(owner);
        assert!(s.is_inline());
        assert_eq!(drops.load(Ordering::SeqCst), 1, "dropped at once");
        assert_eq!(s, b"fifteen bytes!!"[..]);
    }

    #[test]
    fn the_length_limit_hands_the_owner_back() {
        let (owner, drops) = counted(b"twenty-one bytes long");
        let err = owned_bytes(owner, Fallibility::Fallible, 20).unwrap_err();
        assert_eq!(err.reason(), &StrError::TooLong { len: 21 });
        assert_eq!(drops.load(Ordering::SeqCst), 0);
        assert_eq!(err.into_owner().0, b"twenty-one bytes long");
        assert_eq!(drops.load(Ordering::SeqCst), 1);

        let (owner, _) = counted(b"twenty bytes of text");
        assert_eq!(owned_text(owner, Fallibility::Infallible, 20).unwrap(), "twenty bytes of text");
        let (owner, _) = counted(b"twenty-one bytes text");
        let err = owned_text(owner, Fallibility::Infallible, 20).unwrap_err();
        assert!(matches!(err.reason(), StrError::TooLong { len: 21 }));
    }

    #[test]
    fn owned_slices_follow_the_retention_policy() {
        let big = ByteStr::from_owner(vec![0xAB; 4096]);
        let small = big.slice(10..400); // 390 < 4096 / 8: copied out
        assert_ne!(small.as_ptr(), big.as_bytes()[10..].as_ptr());
        let large = big.slice(10..1000); // 990 >= 512: shared
        assert_eq!(large.as_ptr(), big.as_bytes()[10..].as_ptr());
        assert!(big.slice(1..16).is_inline());
        let part = big.slice_ref(&big[10..400]); // never copied
        assert_eq!(part.as_ptr(), big.as_bytes()[10..].as_ptr());
        let of_part = large.slice(5..100); // a part of a part: the owner is the parent
        assert_ne!(of_part.as_ptr(), large.as_bytes()[5..].as_ptr());
    }
}
