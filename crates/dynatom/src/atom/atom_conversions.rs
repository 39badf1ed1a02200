//! [`Atom`]'s conversions to and from std's string types (those that involve no `Str`: the
//! ones that do live with `Str`, in `str/`).

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use super::Atom;
use super::byte_atom::ByteAtom;
use crate::error::StrError;
use crate::utf8::Utf8;

impl From<Box<str>> for Atom {
    /// Copies the text into the global table if it is new.
    #[inline]
    fn from(text: Box<str>) -> Atom {
        Atom::new(&text)
    }
}

impl From<Arc<str>> for Atom {
    /// Copies the text into the global table if it is new.
    #[inline]
    fn from(text: Arc<str>) -> Atom {
        Atom::new(&text)
    }
}

impl From<Rc<str>> for Atom {
    /// Copies the text into the global table if it is new.
    #[inline]
    fn from(text: Rc<str>) -> Atom {
        Atom::new(&text)
    }
}

impl From<char> for Atom {
    /// A character is at most 4 bytes: an atom by value, no table involved.
    #[inline]
    fn from(c: char) -> Atom {
        Atom::new(c.encode_utf8(&mut [0; 4]))
    }
}

impl From<Atom> for String {
    #[inline]
    fn from(atom: Atom) -> String {
        atom.as_str().to_owned()
    }
}

impl From<&Atom> for String {
    #[inline]
    fn from(atom: &Atom) -> String {
        atom.as_str().to_owned()
    }
}

impl From<Atom> for Box<str> {
    #[inline]
    fn from(atom: Atom) -> Box<str> {
        Box::from(atom.as_str())
    }
}

impl<'a> From<&'a Atom> for Cow<'a, str> {
    /// Borrows the text.
    #[inline]
    fn from(atom: &'a Atom) -> Cow<'a, str> {
        Cow::Borrowed(atom.as_str())
    }
}

/// Out into the standard owned string types: each makes its own allocation and copy.
macro_rules! into_std {
    ($($ours:ty),*) => {$(
        impl From<$ours> for Arc<str> {
            #[inline]
            fn from(s: $ours) -> Arc<str> {
                Arc::from(s.as_str())
            }
        }
        impl From<&$ours> for Arc<str> {
            #[inline]
            fn from(s: &$ours) -> Arc<str> {
                Arc::from(s.as_str())
            }
        }
        impl From<$ours> for Rc<str> {
            #[inline]
            fn from(s: $ours) -> Rc<str> {
                Rc::from(s.as_str())
            }
        }
        impl From<$ours> for Vec<u8> {
            #[inline]
            fn from(s: $ours) -> Vec<u8> {
                s.as_str().as_bytes().to_vec()
            }
        }
        impl From<&$ours> for Vec<u8> {
            #[inline]
            fn from(s: &$ours) -> Vec<u8> {
                s.as_str().as_bytes().to_vec()
            }
        }
        impl From<&$ours> for Box<str> {
            #[inline]
            fn from(s: &$ours) -> Box<str> {
                Box::from(s.as_str())
            }
        }
    )*};
}

pub(crate) use into_std;

into_std!(Atom);

/// Bytes to text lives here, beside the other conversions into `Atom`: `Atom` is built over
/// `ByteAtom`, so `byte_atom.rs` names nothing of it.
impl ByteAtom {
    /// The same atom as text: O(1) plus one UTF-8 check. The result is the very atom
    /// [`Atom::from`] gives for that text.
    ///
    /// # Errors
    /// [`StrError::InvalidUtf8`] if the bytes are not UTF-8.
    ///
    /// ```
    /// use dynatom::{Atom, ByteAtom, StrError};
    ///
    /// let atom = ByteAtom::new(b"a header name as bytes").to_text().unwrap();
    /// assert_eq!(atom, Atom::from("a header name as bytes"));
    /// assert!(matches!(ByteAtom::new(b"\xc3(").to_text(), Err(StrError::InvalidUtf8(_))));
    /// ```
    #[inline]
    pub fn to_text(&self) -> Result<Atom, StrError> {
        match Utf8::check(self.clone()) {
            Ok(text) => Ok(Atom::from_utf8_handle(text)),
            Err((_, err)) => Err(StrError::InvalidUtf8(err)),
        }
    }
}
