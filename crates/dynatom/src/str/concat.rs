//! [`Str::concat`], [`Str::join`] and [`ByteStr::concat`]: measure, then one allocation
//! of the exact size.
//!
//! Measuring asks every piece for its text, and copying asks again. A piece's `AsRef`
//! may answer differently the second time (nothing in the trait forbids it), so the
//! copy pass never trusts the measurement: the result is exactly the text the copy pass
//! read. Text past the measured total moves what was copied into a growable buffer,
//! and text short of it is copied out at the end: a slower path, taken only for such
//! pieces, instead of a wrong result or a panic.

use std::convert::Infallible;

use super::Str;
use super::byte_str::ByteStr;
use crate::error::{Fallibility, StrError, or_panic};
use crate::repr::growable::GrowableBlock;
use crate::repr::str_word::ExactSink;
use crate::utf8::Utf8;

/// Whether `len` more bytes fit after `filled` of a `total`-byte buffer.
fn fits(filled: usize, len: usize, total: usize) -> bool {
    filled.checked_add(len).is_some_and(|end| end <= total)
}

/// Where the copy pass of [`Str::concat`] and [`Str::join`] puts text (see the module
/// docs).
enum TextCopy {
    /// The buffer the measuring pass sized, with that size.
    Measured(Utf8<ExactSink>, usize),
    /// Everything copied so far, once a piece did not fit what was measured.
    Grown(Utf8<GrowableBlock>),
}

impl TextCopy {
    fn new(total: usize, fallibility: Fallibility) -> Result<TextCopy, StrError> {
        let sink = Utf8::from_text("", |_| ExactSink::new(total, fallibility))?;
        Ok(TextCopy::Measured(sink, total))
    }

    fn push(&mut self, text: &str, fallibility: Fallibility) -> Result<(), StrError> {
        match self {
            TextCopy::Measured(sink, total) if fits(sink.as_str().len(), text.len(), *total) => {
                sink.append(text, |sink, bytes| sink.push_bytes(bytes));
                Ok(())
            }
            TextCopy::Measured(sink, _) => {
                let mut grown = Utf8::empty_buffer();
                for part in [sink.as_str(), text] {
                    grown.append(part, |buf, bytes| buf.push_bytes(bytes, fallibility))?;
                }
                *self = TextCopy::Grown(grown);
                Ok(())
            }
            TextCopy::Grown(grown) => grown.append(text, |buf, bytes| buf.push_bytes(bytes, fallibility)),
        }
    }

    fn finish(self, fallibility: Fallibility) -> Result<Str, StrError> {
        match self {
            TextCopy::Measured(sink, total) if sink.as_str().len() == total => {
                let Ok(text) = sink.into_same_bytes(|sink| Ok::<_, Infallible>(ByteStr::from_word(sink.finish())));
                Ok(Str::from_utf8_handle(text))
            }
            TextCopy::Measured(sink, _) => Str::from_str_fallibility(sink.as_str(), fallibility),
            TextCopy::Grown(grown) => {
                grown.into_same_bytes(|buf| ByteStr::from_buffer(buf, fallibility)).map(Str::from_utf8_handle)
            }
        }
    }
}

/// Where the copy pass of [`ByteStr::concat`] puts bytes: [`TextCopy`] for bytes.
enum ByteCopy {
    Measured(ExactSink, usize),
    Grown(GrowableBlock),
}

impl ByteCopy {
    fn new(total: usize, fallibility: Fallibility) -> Result<ByteCopy, StrError> {
        Ok(ByteCopy::Measured(ExactSink::new(total, fallibility)?, total))
    }

    fn push(&mut self, bytes: &[u8], fallibility: Fallibility) -> Result<(), StrError> {
        match self {
            ByteCopy::Measured(sink, total) if fits(sink.filled().len(), bytes.len(), *total) => {
                sink.push_bytes(bytes);
                Ok(())
            }
            ByteCopy::Measured(sink, _) => {
                let mut grown = GrowableBlock::new();
                grown.push_bytes(sink.filled(), fallibility)?;
                grown.push_bytes(bytes, fallibility)?;
                *self = ByteCopy::Grown(grown);
                Ok(())
            }
            ByteCopy::Grown(grown) => grown.push_bytes(bytes, fallibility),
        }
    }

    fn finish(self, fallibility: Fallibility) -> Result<ByteStr, StrError> {
        match self {
            ByteCopy::Measured(sink, total) if sink.filled().len() == total => Ok(ByteStr::from_word(sink.finish())),
            ByteCopy::Measured(sink, _) => ByteStr::copy_fallibility(sink.filled(), fallibility),
            ByteCopy::Grown(grown) => ByteStr::from_buffer(grown, fallibility),
        }
    }
}

/// The length of items of `lens` with a separator of `separator_len` bytes between each
/// two, reporting overflow the way an over-long string is reported.
fn joined_len(lens: impl Iterator<Item = usize>, separator_len: usize) -> Result<usize, StrError> {
    let mut count = 0usize;
    let items_len = total_len(lens.inspect(|_| count += 1))?;
    separator_len
        .checked_mul(count.saturating_sub(1))
        .and_then(|len| len.checked_add(items_len))
        .ok_or(StrError::TooLong { len: usize::MAX })
}

/// Sums lengths, reporting overflow the way an over-long string is reported.
fn total_len(mut lens: impl Iterator<Item = usize>) -> Result<usize, StrError> {
    lens.try_fold(0usize, |total, len| total.checked_add(len)).ok_or(StrError::TooLong { len: usize::MAX })
}

impl Str {
    /// All `pieces` back to back, in one allocation sized for the total (none for a
    /// total of at most 15 bytes; see [`Str`] for the size classes of very long texts).
    ///
    /// Each piece is asked for its text twice, to measure and then to copy; the result
    /// is the text the copy read, also from an `AsRef` that answers differently each
    /// time (such pieces cost a second allocation, never a wrong result).
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
        let mut copy = TextCopy::new(total, fallibility)?;
        for piece in pieces {
            copy.push(piece.as_ref(), fallibility)?;
        }
        copy.finish(fallibility)
    }

    /// The `items` with `separator` between each two, in one allocation sized for the
    /// total; the arguments come in std's order (`[items].join(separator)`). The iterator is walked twice (once to measure, once to copy), hence
    /// the `Clone` bound; slices, `Vec`s and most adapters over them qualify. The result
    /// is what the second walk yields, also where it differs from the first (an
    /// iterator or `AsRef` that answers differently each time costs a second allocation,
    /// never a wrong result).
    ///
    /// # Panics
    /// If the total exceeds [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let path = Str::join(["usr", "lib", "ruby"], "/");
    /// assert_eq!(path, ["usr", "lib", "ruby"].join("/"));
    /// let numbers: Vec<String> = (1..=3).map(|n| n.to_string()).collect();
    /// assert_eq!(Str::join(&numbers, ", "), "1, 2, 3");
    /// ```
    #[must_use]
    pub fn join<I>(items: I, separator: &str) -> Str
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<str>,
    {
        or_panic(Str::join_fallibility(items.into_iter(), separator, Fallibility::Infallible))
    }

    /// Like [`Str::join`], but reports an over-long result or an allocation failure.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert_eq!(Str::try_join(["a", "b", "c"], "-").unwrap(), "a-b-c");
    /// assert_eq!(Str::try_join(Vec::<&str>::new(), "-").unwrap(), "");
    /// ```
    pub fn try_join<I>(items: I, separator: &str) -> Result<Str, StrError>
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<str>,
    {
        Str::join_fallibility(items.into_iter(), separator, Fallibility::Fallible)
    }

    fn join_fallibility<I>(items: I, separator: &str, fallibility: Fallibility) -> Result<Str, StrError>
    where
        I: Iterator + Clone,
        I::Item: AsRef<str>,
    {
        let total = joined_len(items.clone().map(|item| item.as_ref().len()), separator.len())?;
        let mut copy = TextCopy::new(total, fallibility)?;
        for (index, item) in items.enumerate() {
            if index > 0 {
                copy.push(separator, fallibility)?;
            }
            copy.push(item.as_ref(), fallibility)?;
        }
        copy.finish(fallibility)
    }
}

impl ByteStr {
    /// All `pieces` back to back, in one allocation sized for the total (none for a
    /// total of at most 15 bytes). As with [`Str::concat`], the result holds the bytes
    /// the copy read, even from an `AsRef` that answers differently each time.
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
        let mut copy = ByteCopy::new(total, fallibility)?;
        for piece in pieces {
            copy.push(piece.as_ref(), fallibility)?;
        }
        copy.finish(fallibility)
    }

    /// The `items` with `separator` between each two, in one allocation sized for the
    /// total: [`Str::join`] for bytes, with the same order of arguments and the same
    /// two walks of the iterator.
    ///
    /// # Panics
    /// If the total exceeds [`ByteStr::MAX_LEN`] bytes.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let record = ByteStr::join([&b"id"[..], b"\xffname", b"size"], b"\t");
    /// assert_eq!(record, b"id\t\xffname\tsize"[..]);
    /// ```
    #[must_use]
    pub fn join<I>(items: I, separator: &[u8]) -> ByteStr
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<[u8]>,
    {
        or_panic(ByteStr::join_fallibility(items.into_iter(), separator, Fallibility::Infallible))
    }

    /// Like [`ByteStr::join`], but reports an over-long result or an allocation failure.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// assert_eq!(ByteStr::try_join([b"a", b"b"], b", ").unwrap(), b"a, b"[..]);
    /// assert_eq!(ByteStr::try_join(Vec::<&[u8]>::new(), b"-").unwrap(), b""[..]);
    /// ```
    pub fn try_join<I>(items: I, separator: &[u8]) -> Result<ByteStr, StrError>
    where
        I: IntoIterator,
        I::IntoIter: Clone,
        I::Item: AsRef<[u8]>,
    {
        ByteStr::join_fallibility(items.into_iter(), separator, Fallibility::Fallible)
    }

    fn join_fallibility<I>(items: I, separator: &[u8], fallibility: Fallibility) -> Result<ByteStr, StrError>
    where
        I: Iterator + Clone,
        I::Item: AsRef<[u8]>,
    {
        let total = joined_len(items.clone().map(|item| item.as_ref().len()), separator.len())?;
        let mut copy = ByteCopy::new(total, fallibility)?;
        for (index, item) in items.enumerate() {
            if index > 0 {
                copy.push(separator, fallibility)?;
            }
            copy.push(item.as_ref(), fallibility)?;
        }
        copy.finish(fallibility)
    }
}
