//! [`Str`]: an immutable string handle the size of `&str`.

mod access;
pub(crate) mod byte_str;
mod byte_str_raw;
mod byte_traits;
mod concat;
mod conversions;
mod format;
mod from_owner;
mod intern;
mod str_traits;

use std::ops::{Bound, RangeBounds};

use self::byte_str::{ByteStr, bounds};
use crate::error::{Fallibility, StrError};
use crate::repr::str_word::INLINE_CAPACITY;
use crate::utf8::Utf8;

/// An immutable UTF-8 string in 16 bytes that costs nothing until it has to be an atom.
///
/// * Up to 15 bytes live inside the handle: no allocation.
/// * Longer strings live in **one** allocation: a 16-byte header (count, length, cached
///   hash and flags) followed by the bytes. Texts of 32 KiB and more get room for
///   one of 8 size classes per doubling (at most 1/8 more, powers of two exact), so that
///   a [`StrBuilder`](crate::StrBuilder)'s doubled buffer can become the string as it is.
/// * Text the program already owns (a `String`, a mapped file) becomes a `Str` without a
///   copy, checked once: [`Str::from_owner`].
/// * Making a `Str` never hashes and never touches a table; [`Str::intern`] does that on
///   demand, adopting the buffer instead of copying it.
/// * Clone is O(1); [`Str::slice`] is O(1) for any range and shares the buffer.
/// * `Hash`, `Eq` and `Ord` agree with `str`'s, so `HashMap<Str, V>` can be searched by
///   `&str` ([`Borrow<str>`](std::borrow::Borrow)).
///
/// The longest string is [`Str::MAX_LEN`] bytes; longer input is an error
/// ([`Str::try_from_str`]) or a panic ([`From`]), never undefined behaviour.
///
/// ```
/// use dynatom::Str;
///
/// let line = Str::from("GET /index.html HTTP/1.1 -- a request line");
/// let path = line.slice(4..15); // O(1); 11 bytes, so it goes inline
/// assert_eq!(path, "/index.html");
/// let tail = line.slice(16..); // O(1), shares `line`'s buffer
/// assert_eq!(tail, "HTTP/1.1 -- a request line");
/// assert_eq!(std::mem::size_of::<Str>(), 16);
/// ```
///
/// A `Str` is a [`ByteStr`] that promises UTF-8 (`#[repr(transparent)]` over it):
/// [`Str::as_byte_str`] is free, and [`ByteStr::to_text`] checks once.
#[repr(transparent)]
pub struct Str {
    text: Utf8<ByteStr>,
}

const _: () = {
    assert!(std::mem::size_of::<Str>() == 16);
    assert!(std::mem::size_of::<Option<Str>>() == 16);
};

impl Str {
    /// The longest string a `Str` can hold, in bytes (`u32::MAX`).
    pub const MAX_LEN: usize = crate::error::MAX_LEN;

    /// Strings of up to this many bytes are stored inside the handle.
    pub const INLINE_CAPACITY: usize = INLINE_CAPACITY;

    #[inline]
    pub(crate) fn from_utf8_handle(text: Utf8<ByteStr>) -> Str {
        Str { text }
    }

    #[inline]
    pub(crate) fn utf8_handle(&self) -> &Utf8<ByteStr> {
        &self.text
    }

    /// The empty string. Allocates nothing.
    ///
    /// ```
    /// assert!(dynatom::Str::new().is_empty());
    /// ```
    #[must_use]
    #[inline]
    pub const fn new() -> Str {
        Str::from_static("")
    }

    /// A handle to a `'static` text. Allocates and copies nothing; usable in `const`.
    ///
    /// # Panics
    /// If `text` is longer than [`Str::MAX_LEN`] (a compile error in a `const`); see
    /// [`Str::try_from_static`] for an error instead.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// const GREETING: Str = Str::from_static("hello, world of static strings");
    /// assert_eq!(GREETING, "hello, world of static strings");
    /// ```
    #[must_use]
    #[inline]
    pub const fn from_static(text: &'static str) -> Str {
        assert!(text.len() <= Str::MAX_LEN, "Str::from_static: text longer than Str::MAX_LEN bytes");
        Str { text: byte_str_raw::static_text(text) }
    }

    /// A copy of `text`, reporting over-long input and allocation failure instead of
    /// panicking or aborting.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::try_from_str("fallible").unwrap();
    /// assert_eq!(s, "fallible");
    /// ```
    #[inline]
    pub fn try_from_str(text: &str) -> Result<Str, StrError> {
        Str::from_str_fallibility(text, Fallibility::Fallible)
    }

    #[inline]
    pub(crate) fn from_str_fallibility(text: &str, fallibility: Fallibility) -> Result<Str, StrError> {
        let text = Utf8::from_text(text, |bytes| ByteStr::copy_fallibility(bytes, fallibility))?;
        Ok(Str { text })
    }

    /// Takes a byte vector that should hold UTF-8. On error the vector comes back inside
    /// std's [`FromUtf8Error`](std::string::FromUtf8Error), untouched, as with
    /// [`String::from_utf8`].
    ///
    /// One error story: this is the only constructor that returns std's error, because
    /// it is the only one that owns input worth handing back. `?` converts it into
    /// [`StrError::InvalidUtf8`], the error of [`Str::from_utf8_slice`] and every other
    /// fallible constructor.
    ///
    /// # Panics
    /// If the text is longer than [`Str::MAX_LEN`] (use [`Str::from_utf8_slice`] to get
    /// [`StrError::TooLong`] instead).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert_eq!(Str::from_utf8(b"bytes".to_vec()).unwrap(), "bytes");
    /// let err = Str::from_utf8(vec![b'a', 0xff]).unwrap_err();
    /// assert_eq!(err.into_bytes(), vec![b'a', 0xff]); // nothing lost
    /// ```
    #[inline]
    pub fn from_utf8(bytes: Vec<u8>) -> Result<Str, std::string::FromUtf8Error> {
        String::from_utf8(bytes).map(Str::from)
    }

    /// A copy of `bytes` if they are UTF-8; also reports over-long input and allocation
    /// failure.
    ///
    /// ```
    /// use dynatom::{Str, StrError};
    ///
    /// assert_eq!(Str::from_utf8_slice("é".as_bytes()).unwrap(), "é");
    /// assert!(matches!(Str::from_utf8_slice(&[0xc3]), Err(StrError::InvalidUtf8(_))));
    /// ```
    #[inline]
    pub fn from_utf8_slice(bytes: &[u8]) -> Result<Str, StrError> {
        let text = std::str::from_utf8(bytes)?;
        Str::try_from_str(text)
    }

    crate::accessors::handle_accessors!(text Str);

    /// The same handle seen as a byte string: free (a `Str` is a [`ByteStr`] that
    /// promises UTF-8).
    ///
    /// ```
    /// let s = dynatom::Str::from("text is bytes too, and longer than 15");
    /// assert_eq!(s.as_byte_str().as_ptr(), s.as_ptr());
    /// ```
    #[must_use]
    #[inline]
    pub fn as_byte_str(&self) -> &crate::ByteStr {
        self.text.get()
    }

    /// The handle as a byte string, giving up the UTF-8 promise: free.
    ///
    /// ```
    /// let s = dynatom::Str::from("into bytes without a copy at all");
    /// let ptr = s.as_ptr();
    /// assert_eq!(s.into_byte_str().as_ptr(), ptr);
    /// ```
    #[must_use]
    #[inline]
    pub fn into_byte_str(self) -> crate::ByteStr {
        self.text.into_inner()
    }

    /// Whether the text is stored inside the handle (at most 15 bytes).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert!(Str::from("fifteen bytes!!").is_inline());
    /// assert!(!Str::from("sixteen bytes!!!").is_inline());
    /// ```
    #[inline]
    pub fn is_inline(&self) -> bool {
        self.text.get().is_inline()
    }

    /// Whether [`Str::intern`] is O(1) and returns this very buffer: the whole buffer
    /// already is the global table's atom, or the text is short enough (7 bytes) to be
    /// an atom by value. A buffer that a local [`AtomTable`](crate::AtomTable) adopted or
    /// holds does not count: `intern` copies it into the global table (that table's own
    /// [`Str::intern_in`] still finds it without hashing or comparing text).
    ///
    /// ```
    /// use dynatom::{AtomTable, Str};
    ///
    /// let s = Str::from(format!("not interned until it has to be, {}", 1));
    /// assert!(!s.is_interned());
    /// let table = AtomTable::new();
    /// let local = s.intern_in(&table);
    /// assert_eq!(local.as_ptr(), s.as_ptr()); // the local table adopted the buffer
    /// assert!(!s.is_interned()); // but the global table does not hold it
    /// let atom = s.intern();
    /// assert_ne!(atom.as_ptr(), s.as_ptr()); // a copy
    /// assert!(Str::from(&atom).is_interned());
    /// ```
    #[inline]
    pub fn is_interned(&self) -> bool {
        self.text.get().is_interned()
    }

    /// Whether two handles are the same view of the same bytes (same buffer and range,
    /// or equal inline contents).
    ///
    /// ```
    /// let a = dynatom::Str::from("one buffer shared by two handles");
    /// assert!(a.ptr_eq(&a.clone()));
    /// assert!(!a.ptr_eq(&dynatom::Str::from("one buffer shared by two handles")));
    /// ```
    #[inline]
    pub fn ptr_eq(&self, other: &Str) -> bool {
        self.text.get().ptr_eq(other.text.get())
    }

    /// The sub-string `range`, in O(1) and without copying the parent.
    ///
    /// Retention policy: a result of up to 15 bytes is stored inline; a result shorter
    /// than 1/8 of a parent buffer of 1 KiB or more is copied out, so a tiny slice never
    /// pins a large buffer; anything else shares the parent's buffer. An owner's text
    /// ([`Str::from_owner`]) is one parent buffer too: for zero-copy parsing take parts
    /// with [`Str::slice_ref`], which shares (or stores up to 15 bytes inline) and never
    /// allocates.
    ///
    /// # Panics
    /// Like `&s[range]`: if the range is out of bounds or not on char boundaries. The
    /// message names the range, e.g. `Str::slice: range 2..4 of a 6-byte string is not
    /// on a char boundary (byte 2 is inside a character)`.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let path = Str::from("/usr/lib/ruby/3.3.0/net/http/response.rb");
    /// let feature = path.slice(20..);
    /// assert_eq!(feature, "net/http/response.rb");
    /// assert_eq!(feature.as_ptr(), path.as_str()[20..].as_ptr()); // shared
    /// ```
    #[must_use = "slicing makes a new handle and leaves this one as it is"]
    #[inline]
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Str {
        let (start, end) = bounds(&range, self.len());
        match self.get_slice((Bound::Included(start), Bound::Excluded(end))) {
            Some(slice) => slice,
            None => bad_slice(self.as_str(), start, end),
        }
    }

    /// Like [`Str::slice`], but `None` instead of a panic.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from("héllo");
    /// assert_eq!(s.get_slice(0..1).unwrap(), "h");
    /// assert!(s.get_slice(0..2).is_none()); // inside 'é'
    /// assert!(s.get_slice(3..10).is_none());
    /// ```
    #[must_use = "slicing makes a new handle and leaves this one as it is"]
    #[inline]
    pub fn get_slice(&self, range: impl RangeBounds<usize>) -> Option<Str> {
        let (start, end) = bounds(&range, self.len());
        let text = self.text.slice(start, end, |bytes| bytes.slice(start..end))?;
        Some(Str { text })
    }

    /// `self[start..end]` without copying: inline if it fits, else the same buffer.
    /// Deliberately skips [`Str::slice`]'s copy-small-pieces policy (see `str/access.rs`).
    ///
    /// # Panics
    /// If the range is out of bounds or not on char boundaries.
    pub(crate) fn share(&self, start: usize, end: usize) -> Str {
        match self.text.slice(start, end, |bytes| bytes.share(start, end)) {
            Some(text) => Str { text },
            None => Str::from(&self.as_str()[start..end]),
        }
    }

    /// The global table's hash of the text. For a heap string spanning its buffer it is
    /// computed once and cached in the header (interning reuses it).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from("hash me once, read me often");
    /// assert_eq!(s.hash64(), Str::from("hash me once, read me often").hash64());
    /// ```
    #[inline]
    pub fn hash64(&self) -> u64 {
        self.text.get().hash64()
    }
}

/// The panic of [`Str::slice`]: names the range, the length and what is wrong.
#[cold]
#[track_caller]
fn bad_slice(text: &str, start: usize, end: usize) -> ! {
    let len = text.len();
    let why = if start > end {
        "starts after it ends".to_owned()
    } else if end > len {
        "is out of bounds".to_owned()
    } else {
        let inside = if text.is_char_boundary(start) { end } else { start };
        format!("is not on a char boundary (byte {inside} is inside a character)")
    };
    panic!("Str::slice: range {start}..{end} of a {len}-byte string {why}")
}

impl Clone for Str {
    #[inline]
    fn clone(&self) -> Str {
        Str { text: self.text.clone() }
    }
}

impl PartialEq for Str {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        self.text.get().eq_fast(other.text.get())
    }
}

impl Eq for Str {}

impl ByteStr {
    /// The same bytes as a text [`Str`]: O(1) (shares the buffer) plus one UTF-8 check.
    ///
    /// # Errors
    /// [`StrError::InvalidUtf8`] if the bytes are not UTF-8 (`self` is untouched).
    ///
    /// ```
    /// use dynatom::{ByteStr, StrError};
    ///
    /// let text = ByteStr::copy_from_slice(b"plain ASCII is UTF-8 too").to_text().unwrap();
    /// assert_eq!(text, "plain ASCII is UTF-8 too");
    /// let err = ByteStr::from(&b"caf\xe9"[..]).to_text().unwrap_err();
    /// assert!(matches!(err, StrError::InvalidUtf8(e) if e.valid_up_to() == 3));
    /// ```
    #[inline]
    pub fn to_text(&self) -> Result<Str, StrError> {
        match Utf8::check(self.clone()) {
            Ok(text) => Ok(Str::from_utf8_handle(text)),
            Err((_, err)) => Err(StrError::InvalidUtf8(err)),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn text_conversion_checks_once_and_shares() {
        let bytes = ByteStr::copy_from_slice("a text of more than fifteen bytes: é".as_bytes());
        let text = bytes.to_text().unwrap();
        assert_eq!(text.as_ptr(), bytes.as_ptr());
        let cut = bytes.slice(..bytes.len() - 1); // cuts 'é' in two
        assert!(!cut.is_utf8());
        assert!(matches!(cut.to_text(), Err(StrError::InvalidUtf8(_))));
    }
}
