//! [`Pieces`]: a string kept as a list of pieces and never joined in memory.

use std::fmt;
use std::io::IoSlice;

use crate::atom::Atom;
use crate::atom::byte_atom::ByteAtom;
use crate::error::or_panic;
use crate::error::{Fallibility, StrError};
use crate::repr::str_word::ExactSink;
use crate::str::Str;
use crate::str::byte_str::ByteStr;

/// One piece of a [`Pieces`] list. Its `From` conversions say how each kind enters the
/// list: `Str`, `Atom`, `ByteStr`, `ByteAtom`, `&'static str` and `&'static [u8]` without
/// copying any bytes, `String`, `Vec<u8>` and `char` copied into a handle. A borrowed
/// `&str` or `&[u8]` that is not `'static` must be made a `Str`/`ByteStr` first, so the
/// copy is visible at the call site.
///
/// ```
/// use dynatom::{Atom, ByteStr, Piece, Str};
///
/// let from_static = Piece::from("literal");
/// let from_atom = Piece::from(Atom::from("atom"));
/// let from_bytes = Piece::from(ByteStr::from(&b"\xff\xfe"[..]));
/// assert_eq!(from_static.to_str(), Some("literal"));
/// assert_eq!(from_atom.into_text().unwrap(), "atom");
/// assert_eq!(from_bytes.to_str(), None); // not UTF-8
/// assert_eq!(from_bytes.len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece {
    bytes: ByteStr,
}

impl Piece {
    fn text(s: Str) -> Piece {
        Piece { bytes: s.into_byte_str() }
    }

    fn bytes(bytes: ByteStr) -> Piece {
        Piece { bytes }
    }

    /// The piece's bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Piece::from(&b"raw"[..]).as_bytes(), b"raw");
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        self.bytes.as_bytes()
    }

    /// The piece's text, or `None` if its bytes are not UTF-8 (one check, as
    /// `OsStr::to_str` does).
    ///
    /// ```
    /// assert_eq!(dynatom::Piece::from("text").to_str(), Some("text"));
    /// assert_eq!(dynatom::Piece::from(&b"\xff"[..]).to_str(), None);
    /// ```
    #[must_use]
    pub fn to_str(&self) -> Option<&str> {
        std::str::from_utf8(self.as_bytes()).ok()
    }

    /// Its length in bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Piece::from('é').len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether it is empty.
    ///
    /// ```
    /// assert!(dynatom::Piece::from("").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The piece as a [`ByteStr`] (no copy).
    ///
    /// ```
    /// let s: dynatom::ByteStr = dynatom::Piece::from(&b"p"[..]).into_byte_str();
    /// assert_eq!(s, b"p"[..]);
    /// ```
    #[must_use]
    pub fn into_byte_str(self) -> ByteStr {
        self.bytes
    }

    /// The piece as a [`Str`] (no copy; one UTF-8 check), as [`ByteStr::to_text`].
    ///
    /// # Errors
    /// [`StrError::InvalidUtf8`] if the bytes are not UTF-8.
    ///
    /// ```
    /// let s: dynatom::Str = dynatom::Piece::from("p").into_text().unwrap();
    /// assert_eq!(s, "p");
    /// ```
    pub fn into_text(self) -> Result<Str, StrError> {
        self.bytes.to_text()
    }
}

impl From<Str> for Piece {
    fn from(s: Str) -> Piece {
        Piece::text(s)
    }
}

impl From<&Str> for Piece {
    /// O(1): shares the buffer.
    fn from(s: &Str) -> Piece {
        Piece::text(s.clone())
    }
}

impl From<Atom> for Piece {
    /// O(1): shares the atom's bytes.
    fn from(atom: Atom) -> Piece {
        Piece::text(Str::from(atom))
    }
}

impl From<&Atom> for Piece {
    fn from(atom: &Atom) -> Piece {
        Piece::text(Str::from(atom))
    }
}

impl From<&'static str> for Piece {
    /// No copy: the piece points at the static text.
    fn from(text: &'static str) -> Piece {
        Piece::text(Str::from_static(text))
    }
}

impl From<String> for Piece {
    /// Copies the text into a [`Str`].
    fn from(text: String) -> Piece {
        Piece::text(Str::from(text))
    }
}

impl From<char> for Piece {
    fn from(c: char) -> Piece {
        Piece::text(Str::from(c))
    }
}

impl From<ByteStr> for Piece {
    fn from(bytes: ByteStr) -> Piece {
        Piece::bytes(bytes)
    }
}

impl From<&ByteStr> for Piece {
    /// O(1): shares the buffer.
    fn from(bytes: &ByteStr) -> Piece {
        Piece::bytes(bytes.clone())
    }
}

impl From<ByteAtom> for Piece {
    /// O(1): shares the atom's bytes.
    fn from(atom: ByteAtom) -> Piece {
        Piece::bytes(ByteStr::from(atom))
    }
}

impl From<&ByteAtom> for Piece {
    fn from(atom: &ByteAtom) -> Piece {
        Piece::bytes(ByteStr::from(atom))
    }
}

impl From<&'static [u8]> for Piece {
    /// No copy: the piece points at the static bytes.
    fn from(bytes: &'static [u8]) -> Piece {
        Piece::bytes(ByteStr::from_static(bytes))
    }
}

impl From<Vec<u8>> for Piece {
    /// Copies the bytes into a [`ByteStr`].
    fn from(bytes: Vec<u8>) -> Piece {
        Piece::bytes(ByteStr::copy_from_slice(&bytes))
    }
}

/// A string kept as a list of pieces, never joined in memory: [`write_to`] hands the
/// pieces to the writer with vectored I/O (one `writev` per 1,024 pieces on Linux), the
/// way OpenResty's `ngx.print` takes a table of pieces. Use [`to_text`] when a joined
/// string really is needed.
///
/// Pieces are 16-byte [`ByteStr`] handles (text pieces are [`Str`]s seen as bytes, which
/// is free); empty pieces are dropped on push. [`len`] is the total number of **bytes**,
/// [`piece_count`] the number of pieces. Text and byte pieces mix freely: [`to_text`]
/// checks the joined result's UTF-8 once; [`to_byte_str`] never checks.
///
/// [`write_to`]: Pieces::write_to
/// [`to_text`]: Pieces::to_text
/// [`to_byte_str`]: Pieces::to_byte_str
/// [`len`]: Pieces::len
/// [`piece_count`]: Pieces::piece_count
///
/// ```
/// use dynatom::{Atom, Pieces, Str};
///
/// let status = Atom::from("200 OK");
/// let body = Str::from("<html>...</html>");
/// let mut response = Pieces::new();
/// response.push("HTTP/1.1 ");
/// response.push(&status);
/// response.push("\r\n\r\n");
/// response.push(body);
///
/// let mut out = Vec::new();
/// let written = response.write_to(&mut out).unwrap();
/// assert_eq!(written, response.len());
/// assert_eq!(out, b"HTTP/1.1 200 OK\r\n\r\n<html>...</html>");
/// ```
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Pieces {
    pieces: Vec<ByteStr>,
    len: usize,
}

impl Pieces {
    /// An empty list. Allocates nothing.
    ///
    /// ```
    /// assert!(dynatom::Pieces::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Pieces {
        Pieces { pieces: Vec::new(), len: 0 }
    }

    /// An empty list with room for `count` pieces.
    ///
    /// ```
    /// let p = dynatom::Pieces::with_capacity(8);
    /// assert_eq!(p.piece_count(), 0);
    /// ```
    #[must_use]
    pub fn with_capacity(count: usize) -> Pieces {
        Pieces { pieces: Vec::with_capacity(count), len: 0 }
    }

    /// Appends a piece (see [`Piece`] for what converts without a copy). Empty pieces
    /// are skipped.
    ///
    /// ```
    /// let mut p = dynatom::Pieces::new();
    /// p.push("a");
    /// p.push("");
    /// p.push('b');
    /// assert_eq!(p.piece_count(), 2);
    /// ```
    pub fn push(&mut self, piece: impl Into<Piece>) {
        let Piece { bytes } = piece.into();
        if !bytes.is_empty() {
            // Overflow needs over 2^32 pieces of 4 GiB: a bug or an attack, not input.
            self.len = self.len.checked_add(bytes.len()).expect("total length of pieces overflows usize");
            self.pieces.push(bytes);
        }
    }

    /// Total length in bytes of all pieces.
    ///
    /// ```
    /// let mut p = dynatom::Pieces::new();
    /// p.push("ab");
    /// p.push("cde");
    /// assert_eq!(p.len(), 5);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no bytes at all.
    ///
    /// ```
    /// assert!(dynatom::Pieces::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of pieces.
    ///
    /// ```
    /// let p: dynatom::Pieces = ["a", "b", "c"].into_iter().collect();
    /// assert_eq!(p.piece_count(), 3);
    /// ```
    pub fn piece_count(&self) -> usize {
        self.pieces.len()
    }

    /// Removes every piece, keeping the list's capacity.
    ///
    /// ```
    /// let mut p = dynatom::Pieces::new();
    /// p.push("x");
    /// p.clear();
    /// assert!(p.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.pieces.clear();
        self.len = 0;
    }

    /// The pieces, in order (text pieces seen as bytes).
    ///
    /// ```
    /// let p: dynatom::Pieces = ["a", "b"].into_iter().collect();
    /// assert_eq!(p.as_slice(), [b"a", b"b"]);
    /// ```
    #[must_use]
    pub fn as_slice(&self) -> &[ByteStr] {
        &self.pieces
    }

    /// Iterates over the pieces.
    ///
    /// ```
    /// let p: dynatom::Pieces = ["x", "yz"].into_iter().collect();
    /// let lens: Vec<usize> = p.iter().map(|piece| piece.len()).collect();
    /// assert_eq!(lens, [1, 2]);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, ByteStr> {
        self.pieces.iter()
    }

    /// The pieces as `IoSlice`s, for callers doing their own vectored I/O. Hand them
    /// to the OS at most [`Pieces::MAX_SLICES_PER_WRITE`] at a time.
    ///
    /// ```
    /// use std::io::{IoSlice, Write};
    ///
    /// let p: dynatom::Pieces = ["one ", "two"].into_iter().collect();
    /// let slices: Vec<IoSlice<'_>> = p.io_slices().collect();
    /// let mut out = Vec::new();
    /// let n = out.write_vectored(&slices).unwrap();
    /// assert_eq!(&out[..n], b"one two");
    /// ```
    pub fn io_slices(&self) -> impl ExactSizeIterator<Item = IoSlice<'_>> + Clone + '_ {
        self.pieces.iter().map(|piece| IoSlice::new(piece.as_bytes()))
    }

    /// The joined text, made in one allocation sized for it.
    ///
    /// # Panics
    /// If the total exceeds [`Str::MAX_LEN`] bytes, or byte pieces made it invalid
    /// UTF-8; see [`Pieces::try_to_text`].
    ///
    /// ```
    /// let p: dynatom::Pieces = ["join", "ed"].into_iter().collect();
    /// assert_eq!(p.to_text(), "joined");
    /// ```
    #[must_use]
    pub fn to_text(&self) -> Str {
        or_panic(self.to_text_fallibility(Fallibility::Infallible))
    }

    /// Like [`Pieces::to_text`], but reports an over-long result, allocation failure, or
    /// invalid UTF-8 ([`StrError::InvalidUtf8`]).
    ///
    /// ```
    /// let p: dynatom::Pieces = ["a", "b"].into_iter().collect();
    /// assert_eq!(p.try_to_text().unwrap(), "ab");
    /// ```
    pub fn try_to_text(&self) -> Result<Str, StrError> {
        self.to_text_fallibility(Fallibility::Fallible)
    }

    fn to_text_fallibility(&self, fallibility: Fallibility) -> Result<Str, StrError> {
        // Pieces are kept as bytes (text pieces too, which costs nothing), so the joined
        // result gets one UTF-8 check: a pass over bytes the join has just copied.
        self.to_byte_str_fallibility(fallibility)?.to_text()
    }

    /// The joined bytes, made in one allocation sized for them (none when there is a
    /// single piece: it is returned as it is).
    ///
    /// # Panics
    /// If the total exceeds [`ByteStr::MAX_LEN`] bytes; see [`Pieces::try_to_byte_str`].
    ///
    /// ```
    /// use dynatom::{ByteStr, Pieces};
    ///
    /// let mut p = Pieces::new();
    /// p.push(&b"\x00\x01"[..]);
    /// p.push("text");
    /// assert_eq!(p.to_byte_str(), b"\x00\x01text"[..]);
    /// ```
    #[must_use]
    pub fn to_byte_str(&self) -> ByteStr {
        or_panic(self.to_byte_str_fallibility(Fallibility::Infallible))
    }

    /// Like [`Pieces::to_byte_str`], but reports an over-long result or allocation
    /// failure.
    ///
    /// ```
    /// let p: dynatom::Pieces = [&b"a"[..], b"b"].into_iter().collect();
    /// assert_eq!(p.try_to_byte_str().unwrap(), b"ab"[..]);
    /// ```
    pub fn try_to_byte_str(&self) -> Result<ByteStr, StrError> {
        self.to_byte_str_fallibility(Fallibility::Fallible)
    }

    fn to_byte_str_fallibility(&self, fallibility: Fallibility) -> Result<ByteStr, StrError> {
        if let [only] = self.pieces.as_slice() {
            return Ok(only.clone());
        }
        let mut sink = ExactSink::new(self.len, fallibility)?;
        self.pieces.iter().for_each(|piece| sink.push_bytes(piece.as_bytes()));
        Ok(ByteStr::from_word(sink.finish()))
    }
}

impl fmt::Display for Pieces {
    /// Writes the pieces one after another (no joined string is made). Bytes that are
    /// not UTF-8 are shown as U+FFFD, piece by piece.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces.iter().try_for_each(|piece| f.write_str(&String::from_utf8_lossy(piece.as_bytes())))
    }
}

impl fmt::Debug for Pieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.pieces).finish()
    }
}

impl<'a> IntoIterator for &'a Pieces {
    type Item = &'a ByteStr;
    type IntoIter = std::slice::Iter<'a, ByteStr>;
    fn into_iter(self) -> Self::IntoIter {
        self.pieces.iter()
    }
}

impl IntoIterator for Pieces {
    type Item = ByteStr;
    type IntoIter = std::vec::IntoIter<ByteStr>;
    fn into_iter(self) -> Self::IntoIter {
        self.pieces.into_iter()
    }
}

impl<P: Into<Piece>> Extend<P> for Pieces {
    fn extend<I: IntoIterator<Item = P>>(&mut self, iter: I) {
        iter.into_iter().for_each(|piece| self.push(piece));
    }
}

impl<P: Into<Piece>> FromIterator<P> for Pieces {
    fn from_iter<I: IntoIterator<Item = P>>(iter: I) -> Pieces {
        let mut pieces = Pieces::new();
        pieces.extend(iter);
        pieces
    }
}
