//! The standard traits of [`ByteStr`] (they agree with `[u8]`'s) and [`ByteAtom`] (as
//! [`Atom`](crate::Atom)'s: one-word equality, cached hash), and the conversions between
//! bytes and text handles.

use std::borrow::{Borrow, Cow};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::Deref;

use crate::atom::byte_atom::ByteAtom;
use crate::atom::byte_atom_traits::debug_bytes;
use crate::error::StrError;
use crate::str::Str;
use crate::str::byte_str::ByteStr;

impl Deref for ByteStr {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl AsRef<[u8]> for ByteStr {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Borrow<[u8]> for ByteStr {
    #[inline]
    fn borrow(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl Hash for ByteStr {
    /// Hashes exactly as `[u8]` does, so `Borrow<[u8]>` lookups work.
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl Ord for ByteStr {
    #[inline]
    fn cmp(&self, other: &ByteStr) -> Ordering {
        self.as_bytes().cmp(other.as_bytes())
    }
}

impl PartialOrd for ByteStr {
    #[inline]
    fn partial_cmp(&self, other: &ByteStr) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl fmt::Debug for ByteStr {
    /// ```
    /// let s = dynatom::ByteStr::from(&b"a\x00\xff\""[..]);
    /// assert_eq!(format!("{s:?}"), r#"b"a\x00\xff\"""#);
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_bytes(self.as_bytes(), f)
    }
}

impl Default for ByteStr {
    #[inline]
    fn default() -> ByteStr {
        ByteStr::new()
    }
}

impl From<&[u8]> for ByteStr {
    /// Copies the bytes; panics past [`ByteStr::MAX_LEN`] (see
    /// [`ByteStr::try_copy_from_slice`]).
    #[inline]
    fn from(bytes: &[u8]) -> ByteStr {
        ByteStr::copy_from_slice(bytes)
    }
}

impl<const N: usize> From<&[u8; N]> for ByteStr {
    #[inline]
    fn from(bytes: &[u8; N]) -> ByteStr {
        ByteStr::copy_from_slice(bytes)
    }
}

impl From<Vec<u8>> for ByteStr {
    /// Copies the bytes into the single-allocation layout (a `Vec`'s buffer has no room
    /// for the header in front).
    #[inline]
    fn from(bytes: Vec<u8>) -> ByteStr {
        ByteStr::copy_from_slice(&bytes)
    }
}

impl From<Box<[u8]>> for ByteStr {
    #[inline]
    fn from(bytes: Box<[u8]>) -> ByteStr {
        ByteStr::copy_from_slice(&bytes)
    }
}

impl From<Cow<'_, [u8]>> for ByteStr {
    #[inline]
    fn from(bytes: Cow<'_, [u8]>) -> ByteStr {
        ByteStr::copy_from_slice(&bytes)
    }
}

impl From<&str> for ByteStr {
    /// Copies the text's bytes.
    #[inline]
    fn from(text: &str) -> ByteStr {
        ByteStr::copy_from_slice(text.as_bytes())
    }
}

impl From<String> for ByteStr {
    #[inline]
    fn from(text: String) -> ByteStr {
        ByteStr::copy_from_slice(text.as_bytes())
    }
}

impl From<Str> for ByteStr {
    /// Free: the same handle without the UTF-8 promise.
    #[inline]
    fn from(s: Str) -> ByteStr {
        s.into_byte_str()
    }
}

impl From<&Str> for ByteStr {
    /// O(1): shares the buffer.
    #[inline]
    fn from(s: &Str) -> ByteStr {
        s.as_byte_str().clone()
    }
}

impl From<ByteAtom> for ByteStr {
    /// O(1): shares the atom's bytes.
    #[inline]
    fn from(atom: ByteAtom) -> ByteStr {
        ByteStr::from_byte_atom(&atom)
    }
}

impl From<&ByteAtom> for ByteStr {
    /// O(1) for every length: the string shares the atom's bytes.
    ///
    /// ```
    /// use dynatom::{ByteAtom, ByteStr};
    ///
    /// let atom = ByteAtom::new(b"handed out without a copy");
    /// let s = ByteStr::from(&atom);
    /// assert_eq!(s.as_ptr(), atom.as_ptr());
    /// assert!(s.is_interned());
    /// ```
    #[inline]
    fn from(atom: &ByteAtom) -> ByteStr {
        ByteStr::from_byte_atom(atom)
    }
}

impl From<ByteStr> for Vec<u8> {
    #[inline]
    fn from(s: ByteStr) -> Vec<u8> {
        s.as_bytes().to_vec()
    }
}

impl From<&ByteStr> for Vec<u8> {
    /// Copies the bytes, as `Vec::<u8>::from(&Str)` does.
    ///
    /// ```
    /// let s = dynatom::ByteStr::copy_from_slice(b"\xffbytes");
    /// assert_eq!(Vec::<u8>::from(&s), b"\xffbytes");
    /// ```
    #[inline]
    fn from(s: &ByteStr) -> Vec<u8> {
        s.as_bytes().to_vec()
    }
}

impl TryFrom<ByteStr> for Str {
    type Error = StrError;
    /// O(1) plus one UTF-8 check ([`ByteStr::to_text`]).
    #[inline]
    fn try_from(bytes: ByteStr) -> Result<Str, StrError> {
        bytes.to_text()
    }
}

macro_rules! eq_with_byte_likes {
    ($([$($generics:tt)*] $other:ty),* $(,)?) => {$(
        impl<$($generics)*> PartialEq<$other> for ByteStr {
            #[inline]
            fn eq(&self, other: &$other) -> bool {
                self.as_bytes() == AsRef::<[u8]>::as_ref(other)
            }
        }
        impl<$($generics)*> PartialEq<ByteStr> for $other {
            #[inline]
            fn eq(&self, other: &ByteStr) -> bool {
                AsRef::<[u8]>::as_ref(self) == other.as_bytes()
            }
        }
    )*};
}

eq_with_byte_likes!([] [u8], ['a] &'a [u8], [] Vec<u8>, [const N: usize] [u8; N], ['a, const N: usize] &'a [u8; N]);

impl PartialEq<Str> for ByteStr {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        self.eq_fast(other.as_byte_str())
    }
}

impl PartialEq<ByteStr> for Str {
    #[inline]
    fn eq(&self, other: &ByteStr) -> bool {
        self.as_byte_str().eq_fast(other)
    }
}

impl PartialEq<ByteAtom> for ByteStr {
    #[inline]
    fn eq(&self, other: &ByteAtom) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl PartialEq<ByteStr> for ByteAtom {
    #[inline]
    fn eq(&self, other: &ByteStr) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

// ---- ByteAtom ----

impl From<ByteStr> for ByteAtom {
    /// Interns in the global table, adopting the buffer when it can.
    #[inline]
    fn from(s: ByteStr) -> ByteAtom {
        s.intern()
    }
}

impl From<&ByteStr> for ByteAtom {
    #[inline]
    fn from(s: &ByteStr) -> ByteAtom {
        s.intern()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::atom::Atom;
    use std::collections::HashMap;

    #[test]
    fn handles_cross_threads() {
        fn send_sync<T: Send + Sync>() {}
        send_sync::<ByteStr>();
        send_sync::<ByteAtom>();
        let s = ByteStr::copy_from_slice(b"moved to another thread \xff and back");
        let back = std::thread::spawn(move || s).join().unwrap();
        assert_eq!(back, b"moved to another thread \xff and back"[..]);
    }

    #[test]
    fn byte_str_traits_agree_with_byte_slices() {
        let mut map = HashMap::new();
        map.insert(ByteStr::from(&b"a heap key, \xff, long enough"[..]), 1);
        assert_eq!(map.get(&b"a heap key, \xff, long enough"[..]), Some(&1));
        let (a, b) = (ByteStr::from(&b"ab"[..]), ByteStr::from(&b"b"[..]));
        assert_eq!(a.cmp(&b), b"ab"[..].cmp(&b"b"[..]));
        assert_eq!(a, b"ab");
        assert_eq!(a, vec![b'a', b'b']);
        assert_eq!(format!("{:?}", ByteStr::from("tab\t")), r#"b"tab\t""#);
    }

    #[test]
    fn conversions_between_text_and_bytes_share_buffers() {
        let s = Str::from("text that becomes bytes and back again");
        let bytes = ByteStr::from(s.clone());
        assert_eq!(bytes.as_ptr(), s.as_ptr());
        assert_eq!(Str::try_from(bytes).unwrap(), s);
        assert!(Str::try_from(ByteStr::from(&b"\xc3"[..])).is_err());
        let atom = Atom::from("an atom that becomes bytes and back");
        let byte_atom = ByteAtom::from(atom.clone());
        assert_eq!(byte_atom, atom);
        assert_eq!(Atom::try_from(byte_atom).unwrap(), atom);
    }
}
