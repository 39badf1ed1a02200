//! Writing [`Pieces`] with vectored I/O, and the error that says how far it got.

use std::fmt;
use std::io::{self, IoSlice, Write};

use super::pieces::Pieces;
use crate::str::byte_str::ByteStr;

/// The error payload of a failed [`Pieces::write_to`]: how many bytes reached the
/// writer before it failed, and the writer's own error.
///
/// `write_to` returns an [`io::Error`] of the writer's error kind carrying this value,
/// so `?` keeps working; [`PartialWrite::of`] digs it out again.
///
/// ```
/// use std::io::{self, Write};
/// use dynatom::{PartialWrite, Pieces};
///
/// /// Accepts 4 bytes, then fails.
/// struct Full(usize);
/// impl Write for Full {
///     fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
///         if self.0 == 0 {
///             return Err(io::Error::new(io::ErrorKind::StorageFull, "disk full"));
///         }
///         let n = buf.len().min(self.0);
///         self.0 -= n;
///         Ok(n)
///     }
///     fn flush(&mut self) -> io::Result<()> {
///         Ok(())
///     }
/// }
///
/// let pieces: Pieces = ["abc", "def"].into_iter().collect();
/// let err = pieces.write_to(&mut Full(4)).unwrap_err();
/// assert_eq!(err.kind(), io::ErrorKind::StorageFull);
/// let partial = PartialWrite::of(&err).unwrap();
/// assert_eq!(partial.written(), 4);
/// assert_eq!(partial.error().to_string(), "disk full");
/// ```
#[derive(Debug)]
pub struct PartialWrite {
    written: usize,
    error: io::Error,
}

impl PartialWrite {
    /// Bytes the writer accepted before it failed.
    ///
    /// ```
    /// # use std::io;
    /// # let err = io::Error::new(io::ErrorKind::Other, "no payload");
    /// // See the type's example; a foreign error has no `PartialWrite`:
    /// assert!(dynatom::PartialWrite::of(&err).is_none());
    /// ```
    pub fn written(&self) -> usize {
        self.written
    }

    /// The writer's error.
    ///
    /// ```
    /// use dynatom::{PartialWrite, Pieces};
    ///
    /// let pieces: Pieces = ["x"].into_iter().collect();
    /// let mut full: &mut [u8] = &mut [];
    /// let err = pieces.write_to(&mut full).unwrap_err();
    /// let partial = PartialWrite::of(&err).unwrap();
    /// assert_eq!(partial.error().kind(), std::io::ErrorKind::WriteZero);
    /// ```
    pub fn error(&self) -> &io::Error {
        &self.error
    }

    /// The `PartialWrite` inside an error returned by [`Pieces::write_to`].
    ///
    /// ```
    /// use dynatom::{PartialWrite, Pieces};
    ///
    /// let pieces: Pieces = ["abc", "de"].into_iter().collect();
    /// let mut buf = [0u8; 4];
    /// let err = pieces.write_to(&mut &mut buf[..]).unwrap_err();
    /// assert_eq!(PartialWrite::of(&err).map(PartialWrite::written), Some(4));
    /// assert_eq!(&buf, b"abcd");
    /// ```
    pub fn of(error: &io::Error) -> Option<&PartialWrite> {
        error.get_ref()?.downcast_ref::<PartialWrite>()
    }

    fn into_io_error(self) -> io::Error {
        io::Error::new(self.error.kind(), self)
    }
}

impl fmt::Display for PartialWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (after {} bytes were written)", self.error, self.written)
    }
}

impl std::error::Error for PartialWrite {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Where the next write starts: a piece, and a byte offset into it.
#[derive(Clone, Copy, Default)]
struct Cursor {
    piece: usize,
    offset: usize,
}

impl Pieces {
    /// The most pieces [`Pieces::write_to`] hands to one `write_vectored` call: Linux's
    /// `IOV_MAX`, the most one `writev` system call accepts.
    pub const MAX_SLICES_PER_WRITE: usize = 1024;

    /// Writes every piece to `out` with `write_vectored`, up to
    /// [`MAX_SLICES_PER_WRITE`](Pieces::MAX_SLICES_PER_WRITE) pieces per call (one
    /// `writev` for a file, pipe or socket), and returns the bytes written: all of them,
    /// [`Pieces::len`]. The joined string is never made.
    ///
    /// Partial writes are resumed where they stopped; `Interrupted` is retried. On any
    /// other error (or a writer that accepts nothing: `WriteZero`) it returns an
    /// `io::Error` of the same kind whose payload is a [`PartialWrite`] telling how many
    /// bytes got through. Writers that keep the default `write_vectored` (which writes
    /// only the first slice) still work, one piece per call. For non-blocking output,
    /// drive [`Pieces::io_slices`] yourself with `IoSlice::advance_slices`.
    ///
    /// ```
    /// use dynatom::{Pieces, Str};
    ///
    /// let mut page = Pieces::new();
    /// for i in 0..3000 {
    ///     page.push(if i % 2 == 0 { "<li>" } else { "</li>\n" });
    /// }
    /// let mut out = Vec::new();
    /// assert_eq!(page.write_to(&mut out).unwrap(), page.len());
    /// assert_eq!(out.len(), 1500 * ("<li>".len() + "</li>\n".len()));
    /// ```
    pub fn write_to<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<usize> {
        let pieces = self.as_slice();
        let mut slices = Vec::with_capacity(pieces.len().min(Pieces::MAX_SLICES_PER_WRITE));
        let mut cursor = Cursor::default();
        let mut written = 0;
        while cursor.piece < pieces.len() {
            slices.clear();
            let batch = pieces[cursor.piece..].iter().take(Pieces::MAX_SLICES_PER_WRITE);
            slices.extend(batch.enumerate().map(|(index, piece)| {
                let skip = if index == 0 { cursor.offset } else { 0 };
                IoSlice::new(&piece.as_bytes()[skip..])
            }));
            let offered: usize = slices.iter().map(|slice| slice.len()).sum();
            let failure = match out.write_vectored(&slices) {
                Ok(0) => io::Error::new(io::ErrorKind::WriteZero, "the writer accepted no bytes"),
                Ok(n) if n > offered => {
                    io::Error::new(io::ErrorKind::InvalidData, "the writer reported more bytes than it was given")
                }
                Ok(n) => {
                    written += n;
                    cursor = advance(pieces, cursor, n);
                    continue;
                }
                Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
                Err(err) => err,
            };
            return Err(PartialWrite { written, error: failure }.into_io_error());
        }
        Ok(written)
    }
}

/// Moves `cursor` forward by `n` bytes (at most what is left) over `pieces`.
fn advance(pieces: &[ByteStr], mut cursor: Cursor, mut n: usize) -> Cursor {
    for piece in &pieces[cursor.piece..] {
        let rest = piece.len() - cursor.offset;
        if n < rest {
            cursor.offset += n;
            break;
        }
        n -= rest;
        cursor.piece += 1;
        cursor.offset = 0;
        if n == 0 {
            break;
        }
    }
    cursor
}
