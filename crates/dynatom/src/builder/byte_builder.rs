//! [`ByteStrBuilder`]: appends any bytes into a buffer that becomes the finished
//! [`ByteStr`] in place, the same growable block [`StrBuilder`](crate::StrBuilder) uses.

use std::fmt;

use crate::error::Fallibility;
use crate::error::StrError;
use crate::error::or_panic;
use crate::repr::growable::GrowableBlock;
use crate::str::byte_str::ByteStr;

/// A byte string being built: amortised O(1) appends of any bytes, and a
/// [`finish`](ByteStrBuilder::finish) that makes no copy. The byte counterpart of
/// [`StrBuilder`](crate::StrBuilder), with the same buffer: laid out as a heap block from
/// the start, so the finished string's bytes are the bytes the builder wrote.
///
/// ```
/// use dynatom::ByteStrBuilder;
///
/// let mut b = ByteStrBuilder::new();
/// b.push_bytes(b"\x00\x00\x00\x2a");
/// b.push_bytes(b" a length-prefixed binary record");
/// let bytes = b.as_bytes().as_ptr();
/// let s = b.finish();
/// assert_eq!(s.as_bytes(), b"\x00\x00\x00\x2a a length-prefixed binary record");
/// assert_eq!(s.as_ptr(), bytes); // the builder's buffer became the string (on glibc)
/// ```
pub struct ByteStrBuilder {
    buf: GrowableBlock,
}

impl ByteStrBuilder {
    /// An empty builder. Allocates nothing until the first append.
    ///
    /// ```
    /// assert!(dynatom::ByteStrBuilder::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> ByteStrBuilder {
        ByteStrBuilder { buf: GrowableBlock::new() }
    }

    /// An empty builder with room for `capacity` bytes.
    ///
    /// # Panics
    /// If `capacity` exceeds [`ByteStr::MAX_LEN`].
    ///
    /// ```
    /// let b = dynatom::ByteStrBuilder::with_capacity(100);
    /// assert!(b.capacity() >= 100);
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> ByteStrBuilder {
        or_panic(ByteStrBuilder::try_with_capacity(capacity))
    }

    /// Like [`ByteStrBuilder::with_capacity`], but reports a capacity past
    /// [`ByteStr::MAX_LEN`] or a failed allocation.
    ///
    /// ```
    /// use dynatom::{ByteStr, ByteStrBuilder, StrError};
    ///
    /// assert!(ByteStrBuilder::try_with_capacity(64).is_ok());
    /// let too_big = ByteStrBuilder::try_with_capacity(ByteStr::MAX_LEN + 1);
    /// assert!(matches!(too_big, Err(StrError::TooLong { .. })));
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<ByteStrBuilder, StrError> {
        Ok(ByteStrBuilder { buf: GrowableBlock::with_capacity(capacity, Fallibility::Fallible)? })
    }

    /// Appends `bytes`.
    ///
    /// # Panics
    /// If the result would exceed [`ByteStr::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"ab");
    /// b.push_bytes(&dynatom::ByteStr::from(&b"\xff"[..]));
    /// assert_eq!(b.as_bytes(), b"ab\xff");
    /// ```
    #[inline]
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        or_panic(self.buf.push_bytes(bytes, Fallibility::Infallible));
    }

    /// Like [`ByteStrBuilder::push_bytes`], but reports overflow and allocation failure;
    /// the builder is unchanged on error.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.try_push_bytes(b"fallible").unwrap();
    /// assert_eq!(b.as_bytes(), b"fallible");
    /// ```
    #[inline]
    pub fn try_push_bytes(&mut self, bytes: &[u8]) -> Result<(), StrError> {
        self.buf.push_bytes(bytes, Fallibility::Fallible)
    }

    /// Appends one byte.
    ///
    /// # Panics
    /// If the result would exceed [`ByteStr::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_byte(0);
    /// assert_eq!(b.as_bytes(), b"\0");
    /// ```
    #[inline]
    pub fn push_byte(&mut self, byte: u8) {
        or_panic(self.buf.push_byte(byte, Fallibility::Infallible));
    }

    /// Makes room for at least `additional` more bytes.
    ///
    /// # Panics
    /// If the total would exceed [`ByteStr::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.reserve(1000);
    /// assert!(b.capacity() >= 1000);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        or_panic(self.try_reserve(additional));
    }

    /// Like [`ByteStrBuilder::reserve`], but reports errors.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// assert!(b.try_reserve(dynatom::ByteStr::MAX_LEN + 1).is_err());
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), StrError> {
        self.buf.reserve(additional, Fallibility::Fallible)
    }

    /// The bytes appended so far.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"so far");
    /// assert_eq!(b.as_bytes(), b"so far");
    /// ```
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        self.buf.as_bytes()
    }

    /// Bytes appended so far.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(&[1, 2, 3]);
    /// assert_eq!(b.len(), 3);
    /// ```
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether nothing has been appended.
    ///
    /// ```
    /// assert!(dynatom::ByteStrBuilder::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the buffer holds before it must grow.
    ///
    /// ```
    /// assert_eq!(dynatom::ByteStrBuilder::new().capacity(), 0);
    /// ```
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Cuts the bytes back to `len`, keeping the capacity (nothing if `len` is past the
    /// end).
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"hello world");
    /// b.truncate(5);
    /// assert_eq!(b.as_bytes(), b"hello");
    /// ```
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    /// Empties the builder, keeping the capacity.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"gone");
    /// b.clear();
    /// assert!(b.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.buf.truncate(0);
    }

    /// The finished byte string, made without copying: a heap result is the builder's
    /// own buffer, trimmed to size and given its header; at most 15 bytes are stored
    /// inline.
    ///
    /// Aborts if the allocator fails to trim the buffer (it never does on glibc); use
    /// [`ByteStrBuilder::try_finish`] to get an error instead.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"\xfe\xff");
    /// let s = b.finish();
    /// assert_eq!(s.as_bytes(), b"\xfe\xff");
    /// assert!(s.is_inline());
    /// ```
    #[must_use = "the built string is the builder's only result"]
    pub fn finish(self) -> ByteStr {
        or_panic(ByteStr::from_buffer(self.buf, Fallibility::Infallible))
    }

    /// Like [`ByteStrBuilder::finish`], but reports a failure to trim the buffer.
    ///
    /// ```
    /// let mut b = dynatom::ByteStrBuilder::new();
    /// b.push_bytes(b"a byte string longer than fifteen bytes");
    /// assert_eq!(b.try_finish().unwrap().len(), 39);
    /// ```
    pub fn try_finish(self) -> Result<ByteStr, StrError> {
        ByteStr::from_buffer(self.buf, Fallibility::Fallible)
    }
}

impl std::io::Write for ByteStrBuilder {
    /// Appends all of `buf`; an error (never a panic) past [`ByteStr::MAX_LEN`] bytes or
    /// when memory runs out.
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.try_push_bytes(buf).map_err(std::io::Error::other)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl fmt::Debug for ByteStrBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.as_bytes().escape_ascii())
    }
}

impl Default for ByteStrBuilder {
    fn default() -> ByteStrBuilder {
        ByteStrBuilder::new()
    }
}

impl Clone for ByteStrBuilder {
    fn clone(&self) -> ByteStrBuilder {
        let mut copy = ByteStrBuilder::with_capacity(self.len());
        copy.push_bytes(self.as_bytes());
        copy
    }
}

impl From<ByteStrBuilder> for ByteStr {
    /// Same as [`ByteStrBuilder::finish`].
    fn from(builder: ByteStrBuilder) -> ByteStr {
        builder.finish()
    }
}

impl<'a> Extend<&'a [u8]> for ByteStrBuilder {
    fn extend<I: IntoIterator<Item = &'a [u8]>>(&mut self, iter: I) {
        iter.into_iter().for_each(|bytes| self.push_bytes(bytes));
    }
}

/// Collects bytes into a [`ByteStr`] through a builder: one buffer, no final copy.
impl FromIterator<u8> for ByteStr {
    fn from_iter<I: IntoIterator<Item = u8>>(iter: I) -> ByteStr {
        let mut builder = ByteStrBuilder::new();
        builder.extend(iter);
        builder.finish()
    }
}

impl Extend<u8> for ByteStrBuilder {
    fn extend<I: IntoIterator<Item = u8>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        iter.for_each(|byte| self.push_byte(byte));
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn any_bytes_finish_in_place() {
        // Exactly the capacity it needs: no growth and no trim, so the pointer check holds
        // under any allocator (valgrind's `realloc` always moves).
        let mut b = ByteStrBuilder::with_capacity(256 + 6);
        for i in 0..=255u8 {
            b.push_byte(i);
        }
        b.write_all(b"\xff tail").unwrap();
        let ptr = b.as_bytes().as_ptr();
        let s = b.finish();
        assert_eq!(s.len(), 256 + 6);
        assert_eq!(&s.as_bytes()[..256], (0..=255u8).collect::<Vec<_>>());
        assert_eq!(s.as_ptr(), ptr, "the buffer became the string");
        assert!(!s.is_utf8());
    }
}
