//! [`StrBuilder`]: appends into a buffer that becomes the finished [`Str`] in place.

use std::fmt;

use crate::error::Fallibility;
use crate::error::StrError;
use crate::error::{BuildError, or_panic};
use crate::repr::growable::GrowableBlock;
use crate::str::Str;
use crate::str::byte_str::ByteStr;
use crate::utf8::Utf8;

/// A string being built: amortised O(1) appends, and a [`finish`](StrBuilder::finish)
/// that makes no copy.
///
/// The buffer is allocated as a [`Str`] heap block from the start (16 bytes of header
/// room, then the bytes), so finishing only trims the allocation to size (in place on
/// glibc) and writes the header: the finished string's bytes are the bytes the builder
/// wrote. Results of at most 15 bytes come out inline instead, and the buffer is freed.
///
/// Appends take `&str` (so `&Str`, `&Atom` and `&String` work through deref), `char`,
/// and anything `Display` via [`push_display`](StrBuilder::push_display) or `write!`
/// ([`fmt::Write`]).
///
/// The infallible methods panic only past [`Str::MAX_LEN`] bytes (and abort when memory
/// runs out, as `String` does); the `try_` methods report both as errors.
///
/// ```
/// use std::fmt::Write;
/// use dynatom::{Atom, Str, StrBuilder};
///
/// let name = Str::from("world");
/// let mut b = StrBuilder::new();
/// b.push_str("hello, ");
/// b.push_str(&name);
/// b.push('!');
/// write!(b, " {} + {} = {}", 1, 2, 1 + 2).unwrap();
/// b.push_str(&Atom::from(" (atom)"));
///
/// let bytes = b.as_str().as_ptr();
/// let s: Str = b.finish();
/// assert_eq!(s, "hello, world! 1 + 2 = 3 (atom)");
/// assert_eq!(s.as_ptr(), bytes); // the builder's buffer became the string (on glibc)
/// ```
pub struct StrBuilder {
    buf: Utf8<GrowableBlock>,
}

impl StrBuilder {
    /// An empty builder. Allocates nothing until the first append.
    ///
    /// ```
    /// let b = dynatom::StrBuilder::new();
    /// assert_eq!(b.capacity(), 0);
    /// ```
    #[must_use]
    pub const fn new() -> StrBuilder {
        StrBuilder { buf: Utf8::empty_buffer() }
    }

    /// An empty builder with room for `capacity` bytes. A builder filled to exactly its
    /// capacity finishes without even trimming its allocation.
    ///
    /// # Panics
    /// If `capacity` exceeds [`Str::MAX_LEN`].
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::with_capacity(100);
    /// assert!(b.capacity() >= 100);
    /// b.push_str("no reallocation needed for these bytes");
    /// ```
    #[must_use]
    pub fn with_capacity(capacity: usize) -> StrBuilder {
        or_panic(StrBuilder::try_with_capacity(capacity))
    }

    /// Like [`StrBuilder::with_capacity`], but reports a capacity past [`Str::MAX_LEN`]
    /// or a failed allocation.
    ///
    /// ```
    /// use dynatom::{Str, StrBuilder, StrError};
    ///
    /// assert!(StrBuilder::try_with_capacity(64).is_ok());
    /// let too_big = StrBuilder::try_with_capacity(Str::MAX_LEN + 1);
    /// assert!(matches!(too_big, Err(StrError::TooLong { .. })));
    /// ```
    pub fn try_with_capacity(capacity: usize) -> Result<StrBuilder, StrError> {
        let buf = Utf8::from_text("", |_| GrowableBlock::with_capacity(capacity, Fallibility::Fallible))?;
        Ok(StrBuilder { buf })
    }

    /// Appends `text`. `Str`, `Atom` and `String` work through deref: `push_str(&s)`.
    ///
    /// # Panics
    /// If the result would exceed [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("abc");
    /// b.push_str(&dynatom::Str::from("def"));
    /// assert_eq!(b.as_str(), "abcdef");
    /// ```
    #[inline]
    pub fn push_str(&mut self, text: &str) {
        or_panic(self.push_str_fallibility(text, Fallibility::Infallible));
    }

    /// Like [`StrBuilder::push_str`], but reports overflow and allocation failure; the
    /// builder is unchanged on error.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.try_push_str("fallible").unwrap();
    /// assert_eq!(b.as_str(), "fallible");
    /// ```
    #[inline]
    pub fn try_push_str(&mut self, text: &str) -> Result<(), StrError> {
        self.push_str_fallibility(text, Fallibility::Fallible)
    }

    #[inline]
    fn push_str_fallibility(&mut self, text: &str, fallibility: Fallibility) -> Result<(), StrError> {
        self.buf.append(text, |buf, bytes| buf.push_bytes(bytes, fallibility))
    }

    /// Appends one char; ASCII (what formatting pads with) skips the generic copy.
    #[inline]
    fn push_char_fallibility(&mut self, c: char, fallibility: Fallibility) -> Result<(), StrError> {
        let mut utf8 = [0; 4];
        let text = c.encode_utf8(&mut utf8);
        self.buf.append(text, |buf, bytes| match bytes {
            [byte] => buf.push_byte(*byte, fallibility),
            _ => buf.push_bytes(bytes, fallibility),
        })
    }

    /// Appends one character.
    ///
    /// # Panics
    /// If the result would exceed [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push('é');
    /// assert_eq!(b.as_str(), "é");
    /// ```
    #[inline]
    pub fn push(&mut self, c: char) {
        or_panic(self.push_char_fallibility(c, Fallibility::Infallible));
    }

    /// Like [`StrBuilder::push`], but reports errors.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.try_push('x').unwrap();
    /// assert_eq!(b.as_str(), "x");
    /// ```
    #[inline]
    pub fn try_push(&mut self, c: char) -> Result<(), StrError> {
        self.push_char_fallibility(c, Fallibility::Fallible)
    }

    /// Appends `value` formatted with `Display`, straight into the buffer.
    ///
    /// # Panics
    /// If the `Display` implementation returns an error (as `format!` does), or the
    /// result would exceed [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_display(42);
    /// b.push_display(' ');
    /// b.push_display(1.5);
    /// assert_eq!(b.as_str(), "42 1.5");
    /// ```
    pub fn push_display(&mut self, value: impl fmt::Display) {
        self.push_fmt(format_args!("{value}"));
    }

    /// Like [`StrBuilder::push_display`], but reports errors; on error the builder
    /// keeps exactly what it held before the call.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.try_push_display(7).unwrap();
    /// assert_eq!(b.as_str(), "7");
    /// ```
    pub fn try_push_display(&mut self, value: impl fmt::Display) -> Result<(), BuildError> {
        self.try_push_fmt(format_args!("{value}"))
    }

    /// Appends formatted text (`format_args!`).
    ///
    /// # Panics
    /// As [`StrBuilder::push_display`].
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_fmt(format_args!("{}-{:03}", "id", 7));
    /// assert_eq!(b.as_str(), "id-007");
    /// ```
    pub fn push_fmt(&mut self, args: fmt::Arguments<'_>) {
        match self.try_push_fmt(args) {
            Ok(()) => {}
            Err(BuildError::Format) => {
                panic!("a formatting trait implementation returned an error when the underlying stream did not")
            }
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`StrBuilder::push_fmt`], but reports errors; on error the builder keeps
    /// exactly what it held before the call (a half-written value is cut off again).
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.try_push_fmt(format_args!("{:>4}", 1)).unwrap();
    /// assert_eq!(b.as_str(), "   1");
    /// ```
    pub fn try_push_fmt(&mut self, args: fmt::Arguments<'_>) -> Result<(), BuildError> {
        // Literal-only formats need no formatting machinery at all.
        if let Some(text) = args.as_str() {
            return self.try_push_str(text).map_err(BuildError::Str);
        }
        let before = self.len();
        let mut writer = FallibleWriter { builder: self, error: None };
        if fmt::write(&mut writer, args).is_ok() {
            return Ok(());
        }
        let error = writer.error.take();
        self.buf.truncate(before, GrowableBlock::truncate);
        Err(error.map_or(BuildError::Format, BuildError::Str))
    }

    /// Makes room for at least `additional` more bytes.
    ///
    /// # Panics
    /// If the total would exceed [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.reserve(1000);
    /// assert!(b.capacity() >= 1000);
    /// ```
    pub fn reserve(&mut self, additional: usize) {
        or_panic(self.try_reserve(additional));
    }

    /// Like [`StrBuilder::reserve`], but reports errors.
    ///
    /// ```
    /// use dynatom::{Str, StrBuilder};
    ///
    /// let mut b = StrBuilder::new();
    /// assert!(b.try_reserve(Str::MAX_LEN + 1).is_err());
    /// assert!(b.try_reserve(10).is_ok());
    /// ```
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), StrError> {
        self.buf.append("", |buf, _| buf.reserve(additional, Fallibility::Fallible))
    }

    /// The text appended so far.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("so far");
    /// assert_eq!(b.as_str(), "so far");
    /// ```
    #[must_use]
    pub fn as_str(&self) -> &str {
        self.buf.as_str()
    }

    /// Bytes appended so far.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("héllo");
    /// assert_eq!(b.len(), 6);
    /// ```
    pub fn len(&self) -> usize {
        self.buf.get().len()
    }

    /// Whether nothing has been appended.
    ///
    /// ```
    /// assert!(dynatom::StrBuilder::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the buffer holds before it must grow.
    ///
    /// ```
    /// assert!(dynatom::StrBuilder::with_capacity(10).capacity() >= 10);
    /// ```
    pub fn capacity(&self) -> usize {
        self.buf.get().capacity()
    }

    /// Cuts the text back to `len` bytes, keeping the capacity.
    ///
    /// # Panics
    /// If `len` falls inside a character (as `String::truncate`).
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("hello world");
    /// b.truncate(5);
    /// assert_eq!(b.as_str(), "hello");
    /// ```
    pub fn truncate(&mut self, len: usize) {
        self.buf.truncate(len, GrowableBlock::truncate);
    }

    /// Empties the builder, keeping the capacity.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("gone");
    /// b.clear();
    /// assert!(b.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.buf.truncate(0, GrowableBlock::truncate);
    }

    /// The finished string, made without copying the bytes: a heap result is the
    /// builder's own buffer, trimmed to size and given its header; a result of at most
    /// 15 bytes is stored inline.
    ///
    /// Aborts if the allocator fails to trim the buffer (it never does on glibc); use
    /// [`StrBuilder::try_finish`] to get an error instead.
    ///
    /// ```
    /// use dynatom::StrBuilder;
    ///
    /// let mut b = StrBuilder::new();
    /// for i in 0..10 {
    ///     b.push_display(i);
    /// }
    /// let s = b.finish();
    /// assert_eq!(s, "0123456789");
    /// assert!(s.is_inline());
    /// ```
    #[must_use = "the built string is the builder's only result"]
    pub fn finish(self) -> Str {
        or_panic(self.finish_fallibility(Fallibility::Infallible))
    }

    /// Like [`StrBuilder::finish`], but reports a failure to trim the buffer.
    ///
    /// ```
    /// let mut b = dynatom::StrBuilder::new();
    /// b.push_str("a string longer than fifteen bytes");
    /// assert_eq!(b.try_finish().unwrap(), "a string longer than fifteen bytes");
    /// ```
    pub fn try_finish(self) -> Result<Str, StrError> {
        self.finish_fallibility(Fallibility::Fallible)
    }

    fn finish_fallibility(self, fallibility: Fallibility) -> Result<Str, StrError> {
        // The finished string holds the buffer's bytes (see `ByteStr::from_buffer`).
        self.buf.into_same_bytes(|buf| ByteStr::from_buffer(buf, fallibility)).map(Str::from_utf8_handle)
    }
}

/// `fmt::Write` for `try_push_fmt`: keeps the real cause of a failed write, which
/// `fmt::Error` cannot carry.
struct FallibleWriter<'a> {
    builder: &'a mut StrBuilder,
    error: Option<StrError>,
}

impl fmt::Write for FallibleWriter<'_> {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.builder.try_push_str(text).map_err(|err| {
            self.error = Some(err);
            fmt::Error
        })
    }

    fn write_char(&mut self, c: char) -> fmt::Result {
        self.builder.try_push(c).map_err(|err| {
            self.error = Some(err);
            fmt::Error
        })
    }
}

impl fmt::Write for StrBuilder {
    /// Appends `text`; fails (instead of panicking) past [`Str::MAX_LEN`] bytes.
    fn write_str(&mut self, text: &str) -> fmt::Result {
        self.try_push_str(text).map_err(|_| fmt::Error)
    }

    fn write_char(&mut self, c: char) -> fmt::Result {
        self.try_push(c).map_err(|_| fmt::Error)
    }
}

impl fmt::Debug for StrBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for StrBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.as_str(), f)
    }
}

impl Default for StrBuilder {
    fn default() -> StrBuilder {
        StrBuilder::new()
    }
}

impl Clone for StrBuilder {
    fn clone(&self) -> StrBuilder {
        let mut copy = StrBuilder::with_capacity(self.len());
        copy.push_str(self.as_str());
        copy
    }
}

impl From<StrBuilder> for Str {
    /// Same as [`StrBuilder::finish`].
    fn from(builder: StrBuilder) -> Str {
        builder.finish()
    }
}

impl<'a> Extend<&'a str> for StrBuilder {
    fn extend<I: IntoIterator<Item = &'a str>>(&mut self, iter: I) {
        iter.into_iter().for_each(|text| self.push_str(text));
    }
}

impl Extend<char> for StrBuilder {
    fn extend<I: IntoIterator<Item = char>>(&mut self, iter: I) {
        let iter = iter.into_iter();
        self.reserve(iter.size_hint().0);
        iter.for_each(|c| self.push(c));
    }
}

impl<'a> FromIterator<&'a str> for StrBuilder {
    fn from_iter<I: IntoIterator<Item = &'a str>>(iter: I) -> StrBuilder {
        let mut builder = StrBuilder::new();
        builder.extend(iter);
        builder
    }
}

/// The block cache as the builders use it (the cache itself is tested in
/// `repr/block_cache.rs`).
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::repr::block_cache::test_view::{CACHED_FROM_LEN, SERIAL, blocks_with_room_for, capacity_class};
    use crate::{set_block_cache_limit, trim_block_cache};

    #[test]
    fn a_growing_builder_takes_its_next_class_from_the_cache() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let previous = set_block_cache_limit(usize::MAX);
        // A class of its own (about 5 MiB), and the class a builder grows to from it (16 MiB).
        let first_class = capacity_class(CACHED_FROM_LEN * 164 + 1);
        let grown = |text: &str| {
            let mut builder = StrBuilder::with_capacity(first_class);
            builder.push_str(text);
            builder.push_str("!");
            builder
        };
        let text = "z".repeat(first_class);
        let probe = grown(&text);
        let next_class = probe.capacity();
        let cached_bytes = probe.as_str().as_ptr();
        let before = (blocks_with_room_for(first_class), blocks_with_room_for(next_class));
        drop(probe);
        assert_eq!(blocks_with_room_for(next_class), before.1 + 1, "the grown buffer is kept");
        let builder = grown(&text);
        assert_eq!(builder.as_str().as_ptr(), cached_bytes, "growing took the cached block");
        assert_eq!(builder.as_str().len(), first_class + 1);
        assert!(builder.as_str().bytes().take(first_class).all(|b| b == b'z'), "the bytes moved with it");
        assert_eq!(blocks_with_room_for(next_class), before.1, "taken out of the cache");
        assert_eq!(blocks_with_room_for(first_class), before.0 + 1, "and the outgrown buffer went in");
        drop(builder);
        trim_block_cache();
        set_block_cache_limit(previous);
    }

    #[test]
    fn strings_and_builders_go_through_the_cache() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        // 37 times the threshold and a byte: a size class of its own, unused by other tests.
        let text = "y".repeat(CACHED_FROM_LEN * 37 + 1);
        let previous = set_block_cache_limit(usize::MAX);
        let before = blocks_with_room_for(text.len());
        drop(Str::from(text.as_str()));
        assert_eq!(blocks_with_room_for(text.len()), before + 1);
        let mut builder = StrBuilder::new();
        builder.push_str(&text);
        drop(builder.finish());
        assert_eq!(blocks_with_room_for(text.len()), before + 1, "the builder took the block and gave it back");
        trim_block_cache();
        set_block_cache_limit(previous);
    }
}
