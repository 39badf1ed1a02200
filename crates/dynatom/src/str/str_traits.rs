//! The standard traits of [`Str`]: they all agree with `str`'s.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use crate::atom::Atom;
use crate::error::{Fallibility, StrError};
use crate::str::Str;

impl Deref for Str {
    type Target = str;
    #[inline]
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Str {
    #[inline]
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<[u8]> for Str {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Borrow<str> for Str {
    #[inline]
    fn borrow(&self) -> &str {
        self.as_str()
    }
}

impl Hash for Str {
    /// Hashes exactly as `str` does, so `Borrow<str>` lookups work.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl Ord for Str {
    #[inline]
    fn cmp(&self, other: &Str) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Str {
    #[inline]
    fn partial_cmp(&self, other: &Str) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Display for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl fmt::Debug for Str {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl Default for Str {
    #[inline]
    fn default() -> Str {
        Str::new()
    }
}

impl std::str::FromStr for Str {
    type Err = StrError;
    #[inline]
    fn from_str(text: &str) -> Result<Str, StrError> {
        Str::try_from_str(text)
    }
}

#[inline]
fn from_str_or_panic(text: &str) -> Str {
    match Str::from_str_fallibility(text, Fallibility::Infallible) {
        Ok(s) => s,
        Err(err) => panic!("{err}"),
    }
}

impl From<&str> for Str {
    /// Copies `text`: inline up to 15 bytes, else one allocation. Panics if longer
    /// than [`Str::MAX_LEN`]; use [`Str::try_from_str`] to get an error instead.
    #[inline]
    fn from(text: &str) -> Str {
        from_str_or_panic(text)
    }
}

impl From<&mut str> for Str {
    #[inline]
    fn from(text: &mut str) -> Str {
        from_str_or_panic(text)
    }
}

impl From<String> for Str {
    /// Copies the text into the single-allocation layout (header and bytes together);
    /// a `String`'s buffer has no room for the header in front, so it cannot be adopted.
    #[inline]
    fn from(text: String) -> Str {
        from_str_or_panic(&text)
    }
}

impl From<&String> for Str {
    #[inline]
    fn from(text: &String) -> Str {
        from_str_or_panic(text)
    }
}

impl From<Box<str>> for Str {
    #[inline]
    fn from(text: Box<str>) -> Str {
        from_str_or_panic(&text)
    }
}

impl From<Cow<'_, str>> for Str {
    #[inline]
    fn from(text: Cow<'_, str>) -> Str {
        from_str_or_panic(&text)
    }
}

impl From<char> for Str {
    #[inline]
    fn from(c: char) -> Str {
        from_str_or_panic(c.encode_utf8(&mut [0; 4]))
    }
}

impl From<Atom> for Str {
    /// O(1): the `Str` shares the atom's bytes.
    #[inline]
    fn from(atom: Atom) -> Str {
        Str::from_atom(&atom)
    }
}

impl From<&Atom> for Str {
    /// O(1): the `Str` shares the atom's bytes (one reference counted).
    ///
    /// ```
    /// use dynatom::{Atom, Str};
    ///
    /// let atom = Atom::from("handed out without a copy");
    /// let s = Str::from(&atom);
    /// assert_eq!(s, "handed out without a copy");
    /// assert_eq!(s.as_ptr(), atom.as_ptr());
    /// assert!(s.is_interned());
    /// ```
    #[inline]
    fn from(atom: &Atom) -> Str {
        Str::from_atom(atom)
    }
}

impl From<Str> for String {
    #[inline]
    fn from(s: Str) -> String {
        s.as_str().to_owned()
    }
}

impl From<&Str> for String {
    #[inline]
    fn from(s: &Str) -> String {
        s.as_str().to_owned()
    }
}

impl From<Str> for Box<str> {
    #[inline]
    fn from(s: Str) -> Box<str> {
        s.as_str().into()
    }
}

impl FromIterator<char> for Str {
    #[inline]
    fn from_iter<I: IntoIterator<Item = char>>(iter: I) -> Str {
        Str::from(iter.into_iter().collect::<String>())
    }
}

impl<'a> FromIterator<&'a str> for Str {
    #[inline]
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> Str {
        Str::from(iter.into_iter().collect::<String>())
    }
}

macro_rules! eq_with_str_likes {
    ($($other:ty),*) => {$(
        impl PartialEq<$other> for Str {
            #[inline]
            fn eq(&self, other: &$other) -> bool {
                self.as_str() == AsRef::<str>::as_ref(other)
            }
        }
        impl PartialEq<Str> for $other {
            #[inline]
            fn eq(&self, other: &Str) -> bool {
                AsRef::<str>::as_ref(self) == other.as_str()
            }
        }
    )*};
}

eq_with_str_likes!(str, &str, String, Box<str>, Cow<'_, str>);

impl PartialEq<Atom> for Str {
    #[inline]
    fn eq(&self, other: &Atom) -> bool {
        self.as_str() == other.as_str()
    }
}

impl PartialEq<Str> for Atom {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        self.as_str() == other.as_str()
    }
}
