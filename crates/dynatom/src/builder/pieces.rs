//! [`Pieces`]: a string kept as a list of pieces and never joined in memory.

use std::fmt;
use std::io::IoSlice;

use super::error::or_panic;
use super::exact::ExactSink;
use crate::atom::Atom;
use crate::error::StrError;
use crate::repr::heap::Fallibility;
use crate::str::Str;

/// One piece of a [`Pieces`] list. Its `From` conversions say how each kind enters the
/// list: `Str`, `Atom` and `&'static str` without copying any text, `String` and `char`
/// copied into a [`Str`]. A borrowed `&str` that is not `'static` must be made a `Str`
/// first, so the copy is visible at the call site.
///
/// ```
/// use dynatom::{Atom, Piece, Str};
///
/// let from_static = Piece::from("literal");
/// let from_atom = Piece::from(Atom::from("atom"));
/// let from_str = Piece::from(Str::from("a handle"));
/// assert_eq!(from_static.as_str(), "literal");
/// assert_eq!(from_atom.into_str(), "atom");
/// assert_eq!(from_str.len(), 8);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Piece(Str);

impl Piece {
    /// The piece's text.
    ///
    /// ```
    /// assert_eq!(dynatom::Piece::from("text").as_str(), "text");
    /// ```
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }

    /// Its length in bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Piece::from('é').len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether it is empty.
    ///
    /// ```
    /// assert!(dynatom::Piece::from("").is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The piece as a [`Str`] (no copy).
    ///
    /// ```
    /// let s: dynatom::Str = dynatom::Piece::from("p").into_str();
    /// assert_eq!(s, "p");
    /// ```
    pub fn into_str(self) -> Str {
        self.0
    }
}

impl From<Str> for Piece {
    fn from(s: Str) -> Piece {
        Piece(s)
    }
}

impl From<&Str> for Piece {
    /// O(1): shares the buffer.
    fn from(s: &Str) -> Piece {
        Piece(s.clone())
    }
}

impl From<Atom> for Piece {
    /// O(1): shares the atom's bytes.
    fn from(atom: Atom) -> Piece {
        Piece(atom.to_str())
    }
}

impl From<&Atom> for Piece {
    fn from(atom: &Atom) -> Piece {
        Piece(atom.to_str())
    }
}

impl From<&'static str> for Piece {
    /// No copy: the piece points at the static text.
    fn from(text: &'static str) -> Piece {
        Piece(Str::from_static(text))
    }
}

impl From<String> for Piece {
    /// Copies the text into a [`Str`].
    fn from(text: String) -> Piece {
        Piece(Str::from(text))
    }
}

impl From<char> for Piece {
    fn from(c: char) -> Piece {
        Piece(Str::from(c))
    }
}

/// A string kept as a list of pieces, never joined in memory: [`write_to`] hands the
/// pieces to the writer with vectored I/O (one `writev` per 1,024 pieces on Linux), the
/// way OpenResty's `ngx.print` takes a table of pieces. Use [`to_str`] when a joined
/// string really is needed.
///
/// Pieces are 16-byte [`Str`] handles; empty pieces are dropped on push. [`len`] is the
/// total number of **bytes**, [`piece_count`] the number of pieces.
///
/// [`write_to`]: Pieces::write_to
/// [`to_str`]: Pieces::to_str
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
    pieces: Vec<Str>,
    len: usize,
}

impl Pieces {
    /// An empty list. Allocates nothing.
    ///
    /// ```
    /// assert!(dynatom::Pieces::new().is_empty());
    /// ```
    pub const fn new() -> Pieces {
        Pieces { pieces: Vec::new(), len: 0 }
    }

    /// An empty list with room for `count` pieces.
    ///
    /// ```
    /// let p = dynatom::Pieces::with_capacity(8);
    /// assert_eq!(p.piece_count(), 0);
    /// ```
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
        let piece = piece.into().0;
        if !piece.is_empty() {
            // Overflow needs over 2^32 pieces of 4 GiB: a bug or an attack, not input.
            self.len = self.len.checked_add(piece.len()).expect("total length of pieces overflows usize");
            self.pieces.push(piece);
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

    /// The pieces, in order.
    ///
    /// ```
    /// let p: dynatom::Pieces = ["a", "b"].into_iter().collect();
    /// assert_eq!(p.as_slice(), ["a", "b"]);
    /// ```
    pub fn as_slice(&self) -> &[Str] {
        &self.pieces
    }

    /// Iterates over the pieces.
    ///
    /// ```
    /// let p: dynatom::Pieces = ["x", "yz"].into_iter().collect();
    /// let lens: Vec<usize> = p.iter().map(|piece| piece.len()).collect();
    /// assert_eq!(lens, [1, 2]);
    /// ```
    pub fn iter(&self) -> std::slice::Iter<'_, Str> {
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

    /// The joined string, made in one allocation sized for it.
    ///
    /// # Panics
    /// If the total exceeds [`Str::MAX_LEN`] bytes; see [`Pieces::try_to_str`].
    ///
    /// ```
    /// let p: dynatom::Pieces = ["join", "ed"].into_iter().collect();
    /// assert_eq!(p.to_str(), "joined");
    /// ```
    pub fn to_str(&self) -> Str {
        or_panic(self.to_str_fallibility(Fallibility::Infallible))
    }

    /// Like [`Pieces::to_str`], but reports an over-long result or allocation failure.
    ///
    /// ```
    /// let p: dynatom::Pieces = ["a", "b"].into_iter().collect();
    /// assert_eq!(p.try_to_str().unwrap(), "ab");
    /// ```
    pub fn try_to_str(&self) -> Result<Str, StrError> {
        self.to_str_fallibility(Fallibility::Fallible)
    }

    fn to_str_fallibility(&self, fallibility: Fallibility) -> Result<Str, StrError> {
        if let [only] = self.pieces.as_slice() {
            return Ok(only.clone());
        }
        let mut sink = ExactSink::new(self.len, fallibility)?;
        self.pieces.iter().for_each(|piece| sink.push_str(piece));
        Ok(sink.finish())
    }
}

impl fmt::Display for Pieces {
    /// Writes the pieces one after another (no joined string is made).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.pieces.iter().try_for_each(|piece| f.write_str(piece))
    }
}

impl fmt::Debug for Pieces {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(&self.pieces).finish()
    }
}

impl<'a> IntoIterator for &'a Pieces {
    type Item = &'a Str;
    type IntoIter = std::slice::Iter<'a, Str>;
    fn into_iter(self) -> Self::IntoIter {
        self.pieces.iter()
    }
}

impl IntoIterator for Pieces {
    type Item = Str;
    type IntoIter = std::vec::IntoIter<Str>;
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
