//! Test writers shared by the builder tests.

use std::io::{self, IoSlice, Write};

/// Accepts at most `chunk` bytes per call (vectored or not) and, if `interrupt_every` is
/// set, answers `Interrupted` on every n-th call: a writer that exercises partial-write
/// and retry handling.
pub(crate) struct ChunkedWriter {
    pub out: Vec<u8>,
    pub chunk: usize,
    pub interrupt_every: Option<usize>,
    calls: usize,
}

impl ChunkedWriter {
    pub(crate) fn new(chunk: usize, interrupt_every: Option<usize>) -> ChunkedWriter {
        ChunkedWriter { out: Vec::new(), chunk, interrupt_every, calls: 0 }
    }
}

impl Write for ChunkedWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.calls += 1;
        if self.interrupt_every.is_some_and(|n| self.calls.is_multiple_of(n)) {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let mut left = self.chunk;
        for buf in bufs {
            let n = buf.len().min(left);
            self.out.extend_from_slice(&buf[..n]);
            left -= n;
            if left == 0 {
                break;
            }
        }
        Ok(self.chunk - left)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
