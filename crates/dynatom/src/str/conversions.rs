//! The conversions and comparisons users of `String` reach for, on [`Str`] and [`Atom`]:
//! comparing with `str`/`&str`/`String` from either side, ordering against them, use as
//! a path, and `From` to and from the standard string types.
//!
//! Every conversion into a `Str` or an `Atom` copies the text once (std's string types
//! have no room for the header a `Str` keeps in front of its bytes), except an owned
//! `String` or `Cow::Owned` turned into an `Atom`, which goes through a `Str` that the
//! table then adopts. Conversions out make the target type's own allocation.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::ffi::OsStr;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use crate::atom::Atom;
use crate::atom::atom_conversions::into_std;
use crate::error::StrError;
use crate::str::Str;

/// `==` with the standard string types, from either side, for a type that derefs to `str`.
macro_rules! eq_both_ways {
    ($ours:ty: $($theirs:ty),*) => {$(
        impl PartialEq<$theirs> for $ours {
            #[inline]
            fn eq(&self, other: &$theirs) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<$ours> for $theirs {
            #[inline]
            fn eq(&self, other: &$ours) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}

// `Atom == str` and `Atom == &str` already live beside `Atom`; `Str`'s beside `Str`.
eq_both_ways!(Atom: String, Box<str>, Cow<'_, str>);

macro_rules! eq_reversed {
    ($ours:ty: $($theirs:ty),*) => {$(
        impl PartialEq<$ours> for $theirs {
            #[inline]
            fn eq(&self, other: &$ours) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}

eq_reversed!(Atom: str, &str);

/// Ordering against the standard string types, from either side: by text, as `str` orders.
macro_rules! ord_both_ways {
    ($ours:ty: $($theirs:ty),*) => {$(
        impl PartialOrd<$theirs> for $ours {
            #[inline]
            fn partial_cmp(&self, other: &$theirs) -> Option<Ordering> {
                Some(self.as_str().cmp(AsRef::<str>::as_ref(other)))
            }
        }
        impl PartialOrd<$ours> for $theirs {
            #[inline]
            fn partial_cmp(&self, other: &$ours) -> Option<Ordering> {
                Some(AsRef::<str>::as_ref(self).cmp(other.as_str()))
            }
        }
    )*};
}

ord_both_ways!(Str: str, &str, String);
ord_both_ways!(Atom: str, &str, String);

/// `File::open(s)`, `Path::new(&s)`, `Command::new(s)`: the text as a path or OS string.
macro_rules! as_ref_path {
    ($($ours:ty),*) => {$(
        impl AsRef<Path> for $ours {
            #[inline]
            fn as_ref(&self) -> &Path {
                Path::new(self.as_str())
            }
        }
        impl AsRef<OsStr> for $ours {
            #[inline]
            fn as_ref(&self) -> &OsStr {
                OsStr::new(self.as_str())
            }
        }
    )*};
}

as_ref_path!(Str, Atom);

impl From<Arc<str>> for Str {
    /// Copies the text (a `Str` keeps its own header in front of its bytes).
    #[inline]
    fn from(text: Arc<str>) -> Str {
        Str::from(&*text)
    }
}

impl From<Rc<str>> for Str {
    /// Copies the text.
    #[inline]
    fn from(text: Rc<str>) -> Str {
        Str::from(&*text)
    }
}

impl From<Cow<'_, str>> for Atom {
    /// Owned text goes through a [`Str`] the table adopts; borrowed text is copied if new.
    #[inline]
    fn from(text: Cow<'_, str>) -> Atom {
        match text {
            Cow::Borrowed(text) => Atom::new(text),
            Cow::Owned(text) => Atom::from(text),
        }
    }
}

into_std!(Str);

impl<'a> From<&'a Str> for Cow<'a, str> {
    /// Borrows the text.
    #[inline]
    fn from(s: &'a Str) -> Cow<'a, str> {
        Cow::Borrowed(s.as_str())
    }
}

impl TryFrom<Vec<u8>> for Str {
    type Error = std::string::FromUtf8Error;

    /// [`Str::from_utf8`]: on invalid UTF-8 the vector comes back inside std's error,
    /// untouched, as with [`String::from_utf8`]; `?` turns the error into
    /// [`StrError::InvalidUtf8`].
    ///
    /// # Panics
    /// If the text is longer than [`Str::MAX_LEN`], as [`Str::from_utf8`] does.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert_eq!(Str::try_from(b"bytes".to_vec()).unwrap(), "bytes");
    /// let err = Str::try_from(vec![b'a', 0xff]).unwrap_err();
    /// assert_eq!(err.into_bytes(), vec![b'a', 0xff]); // nothing lost
    /// ```
    #[inline]
    fn try_from(bytes: Vec<u8>) -> Result<Str, std::string::FromUtf8Error> {
        Str::from_utf8(bytes)
    }
}

impl TryFrom<&[u8]> for Str {
    type Error = StrError;

    /// [`Str::from_utf8_slice`]: a copy of the bytes if they are UTF-8; also reports
    /// over-long input and allocation failure.
    ///
    /// ```
    /// use dynatom::{Str, StrError};
    ///
    /// assert_eq!(Str::try_from("é".as_bytes()).unwrap(), "é");
    /// assert!(matches!(Str::try_from(&b"\xc3"[..]), Err(StrError::InvalidUtf8(_))));
    /// ```
    #[inline]
    fn try_from(bytes: &[u8]) -> Result<Str, StrError> {
        Str::from_utf8_slice(bytes)
    }
}

impl From<std::string::FromUtf8Error> for StrError {
    /// [`Str::from_utf8`] hands the vector back inside std's error; `?` turns that into
    /// the crate's one error type (the vector is dropped then).
    #[inline]
    fn from(err: std::string::FromUtf8Error) -> StrError {
        StrError::InvalidUtf8(err.utf8_error())
    }
}

impl Str {
    /// Like [`Str::from_static`], but text longer than [`Str::MAX_LEN`] is an error
    /// instead of a panic. Allocates and copies nothing.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::try_from_static("a static text, checked").unwrap();
    /// assert_eq!(s, "a static text, checked");
    /// ```
    #[inline]
    pub fn try_from_static(text: &'static str) -> Result<Str, StrError> {
        if text.len() > Str::MAX_LEN {
            return Err(StrError::TooLong { len: text.len() });
        }
        Ok(Str::from_static(text))
    }
}
