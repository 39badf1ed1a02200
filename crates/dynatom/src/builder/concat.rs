//! [`Str::concat`], [`Str::join`] and [`ByteStr::concat`]: measure, then one allocation
//! of the exact size.

use std::convert::Infallible;

use super::error::or_panic;
use crate::byte_str::ByteStr;
use crate::error::{Fallibility, StrError};
use crate::repr::str_word::ExactSink;
use crate::str::Str;
use crate::utf8::Utf8;

/// An empty sink for `total` bytes of text.
pub(crate) fn text_sink(total: usize, fallibility: Fallibility) -> Result<Utf8<ExactSink>, StrError> {
    Utf8::from_text("", |_| ExactSink::new(total, fallibility))
}

/// Appends `text` to a text sink.
pub(crate) fn push_text(sink: &mut Utf8<ExactSink>, text: &str) {
    sink.append(text, |sink, bytes| sink.push_bytes(bytes));
}

/// The string a filled text sink holds.
pub(crate) fn finish_text(sink: Utf8<ExactSink>) -> Str {
    let Ok(text) = sink.into_same_bytes(|sink| Ok::<_, Infallible>(ByteStr::from_word(sink.finish())));
    Str::from_utf8_handle(text)
}

/// Sums lengths, reporting overflow the way an over-long string is reported.
fn total_len(mut lens: impl Iterator<Item = usize>) -> Result<usize, StrError> {
    lens.try_fold(0usize, |total, len| total.checked_add(len)).ok_or(StrError::TooLong { len: usize::MAX })
}

impl Str {
    /// All `pieces` back to back, in one allocation sized for the total (none for a
    /// total of at most 15 bytes; see [`Str`] for the size classes of very long texts).
    ///
    /// # Panics
    /// If the total exceeds [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::concat(&["GET ", "/index.html", " HTTP/1.1"]);
    /// assert_eq!(s, "GET /index.html HTTP/1.1");
    /// ```
    #[must_use]
    pub fn concat<T: AsRef<str>>(pieces: &[T]) -> Str {
        or_panic(Str::concat_fallibility(pieces, Fallibility::Infallible))
    }

    /// Like [`Str::concat`], but reports an over-long result or an allocation failure.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let parts = vec![String::from("a"), String::from("b")];
    /// assert_eq!(Str::try_concat(&parts).unwrap(), "ab");
    /// ```
    pub fn try_concat<T: AsRef<str>>(pieces: &[T]) -> Result<Str, StrError> {
        Str::concat_fallibility(pieces, Fallibility::Fallible)
    }

    fn concat_fallibility<T: AsRef<str>>(pieces: &[T], fallibility: Fallibility) -> Result<Str, StrError> {
        let total = total_len(pieces.iter().map(|piece| piece.as_ref().len()))?;
        let mut sink = text_sink(total, fallibility)?;
        pieces.iter().for_each(|piece| push_text(&mut sink, piece.as_ref()));
        Ok(finish_text(sink))
    }

    /// The `items` with `separator` between each two, in one allocation sized for the
    /// total. The iterator is walked twice (once to measure, once to copy), hence
    /// the `Clone` bound; slices, `Vec`s and most adapters over them qualify.
    ///
    /// # Panics
    /// If the total exceeds [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let path = Str::join("/", ["usr", "lib", "ruby"]);
    /// assert_eq!(path, "usr/lib/ruby");
    /// let numbers: Vec<String> = (1..=3).map(|n| n.to_string()).collect();
    /// assert_eq!(Str::join(", ", &numbers), "1, 2, 3");
    /// ```
    #[must_use]
    pub fn join<I>(separator: &str, items: I) -> Str
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<str>,
    {
        or_panic(Str::join_fallibility(separator, items.into_iter(), Fallibility::Infallible))
    }

    /// Like [`Str::join`], but reports an over-long result or an allocation failure.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert_eq!(Str::try_join("-", ["a", "b", "c"]).unwrap(), "a-b-c");
    /// assert_eq!(Str::try_join("-", Vec::<&str>::new()).unwrap(), "");
    /// ```
    pub fn try_join<I>(separator: &str, items: I) -> Result<Str, StrError>
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<str>,
    {
        Str::join_fallibility(separator, items.into_iter(), Fallibility::Fallible)
    }

    fn join_fallibility<I>(separator: &str, items: I, fallibility: Fallibility) -> Result<Str, StrError>
    where
        I: Iterator + Clone,
        I::Item: AsRef<str>,
    {
        let mut count = 0usize;
        let text_len = total_len(items.clone().map(|item| {
            count += 1;
            item.as_ref().len()
        }))?;
        let separators_len = separator.len().checked_mul(count.saturating_sub(1));
        let total =
            separators_len.and_then(|len| len.checked_add(text_len)).ok_or(StrError::TooLong { len: usize::MAX })?;
        let mut sink = text_sink(total, fallibility)?;
        for (index, item) in items.enumerate() {
            if index > 0 {
                push_text(&mut sink, separator);
            }
            push_text(&mut sink, item.as_ref());
        }
        Ok(finish_text(sink))
    }
}

impl ByteStr {
    /// All `pieces` back to back, in one allocation sized for the total (none for a
    /// total of at most 15 bytes).
    ///
    /// # Panics
    /// If the total exceeds [`ByteStr::MAX_LEN`] bytes.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let s = ByteStr::concat(&[&b"\x00\x01"[..], b"payload bytes", b"\xff"]);
    /// assert_eq!(s, b"\x00\x01payload bytes\xff"[..]);
    /// ```
    #[must_use]
    pub fn concat<T: AsRef<[u8]>>(pieces: &[T]) -> ByteStr {
        or_panic(ByteStr::concat_fallibility(pieces, Fallibility::Infallible))
    }

    /// Like [`ByteStr::concat`], but reports an over-long result or an allocation
    /// failure.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let parts = vec![vec![0xffu8], b"ab".to_vec()];
    /// assert_eq!(ByteStr::try_concat(&parts).unwrap(), b"\xffab"[..]);
    /// ```
    pub fn try_concat<T: AsRef<[u8]>>(pieces: &[T]) -> Result<ByteStr, StrError> {
        ByteStr::concat_fallibility(pieces, Fallibility::Fallible)
    }

    fn concat_fallibility<T: AsRef<[u8]>>(pieces: &[T], fallibility: Fallibility) -> Result<ByteStr, StrError> {
        let total = total_len(pieces.iter().map(|piece| piece.as_ref().len()))?;
        let mut sink = ExactSink::new(total, fallibility)?;
        pieces.iter().for_each(|piece| sink.push_bytes(piece.as_ref()));
        Ok(ByteStr::from_word(sink.finish()))
    }
}
