//! `Pieces::write_to`: one `writev` per 1,024 pieces, partial writes resumed, errors
//! reported with the bytes that got through.

mod common;
use common::ChunkedWriter;

use std::io::{self, IoSlice, Read, Write};

use dynatom::{Atom, PartialWrite, Pieces, Str};

fn numbered(count: usize) -> (Pieces, String) {
    let mut pieces = Pieces::new();
    let mut model = String::new();
    for i in 0..count {
        let piece = Str::from(format!("<{i}>"));
        model.push_str(&piece);
        pieces.push(piece);
    }
    (pieces, model)
}

/// Counts `write_vectored` calls and the slices offered, accepting everything.
#[derive(Default)]
struct Counting<W> {
    inner: W,
    calls: usize,
    most_slices: usize,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, _: &[u8]) -> io::Result<usize> {
        panic!("write_to must use write_vectored");
    }
    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        self.calls += 1;
        self.most_slices = self.most_slices.max(bufs.len());
        self.inner.write_vectored(bufs)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[test]
fn one_write_per_1024_pieces() {
    for count in [0, 1, 1023, 1024, 1025, 5000] {
        let (pieces, model) = numbered(count);
        let mut out = Counting::<Vec<u8>>::default();
        assert_eq!(pieces.write_to(&mut out).unwrap(), model.len());
        assert_eq!(out.inner, model.as_bytes());
        assert_eq!(out.calls, count.div_ceil(1024), "{count} pieces");
        assert!(out.most_slices <= Pieces::MAX_SLICES_PER_WRITE);
    }
}

#[test]
fn one_writev_per_1024_pieces_to_a_real_pipe() {
    let (pieces, model) = numbered(10_000);
    let (mut reader, writer) = io::pipe().unwrap();
    let drain = std::thread::spawn(move || {
        let mut got = Vec::new();
        reader.read_to_end(&mut got).unwrap();
        got
    });
    let mut out = Counting { inner: writer, calls: 0, most_slices: 0 };
    assert_eq!(pieces.write_to(&mut out).unwrap(), model.len());
    let calls = out.calls;
    drop(out);
    assert_eq!(drain.join().unwrap(), model.as_bytes());
    // A blocking pipe's writev takes everything it is given, so no call is a retry.
    assert_eq!(calls, 10_000usize.div_ceil(1024));
}

#[test]
fn partial_writes_and_interruptions_are_resumed() {
    let (pieces, model) = numbered(3000);
    for chunk in [1, 2, 3, 7, 100, 5000] {
        let mut out = ChunkedWriter::new(chunk, Some(3));
        assert_eq!(pieces.write_to(&mut out).unwrap(), model.len());
        assert_eq!(out.out, model.as_bytes(), "chunk {chunk}");
    }
}

/// Accepts `budget` bytes in total (in small bites), then fails.
struct FailsMidway {
    out: Vec<u8>,
    budget: usize,
}

impl Write for FailsMidway {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.budget == 0 {
            return Err(io::Error::new(io::ErrorKind::BrokenPipe, "peer went away"));
        }
        let n = buf.len().min(self.budget).min(5);
        self.out.extend_from_slice(&buf[..n]);
        self.budget -= n;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn errors_report_how_much_was_written() {
    let (pieces, model) = numbered(500);
    for budget in [0, 1, 17, 1000] {
        // `FailsMidway` keeps the default `write_vectored` (first slice only): still correct.
        let mut out = FailsMidway { out: Vec::new(), budget };
        let err = pieces.write_to(&mut out).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
        let partial = PartialWrite::of(&err).expect("the payload says how far it got");
        assert_eq!(partial.written(), budget);
        assert_eq!(out.out, &model.as_bytes()[..budget]);
        assert_eq!(partial.error().to_string(), "peer went away");
        assert!(err.to_string().contains(&format!("after {budget} bytes")));
    }
}

#[test]
fn a_writer_that_takes_nothing_is_write_zero() {
    let (pieces, _) = numbered(3);
    let mut full = [0u8; 0];
    let err = pieces.write_to(&mut &mut full[..]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::WriteZero);
    assert_eq!(PartialWrite::of(&err).unwrap().written(), 0);
}

#[test]
fn pieces_of_every_kind_without_copies() {
    let heap = Str::from("a heap string shared, not copied");
    let atom = Atom::from("an atom's bytes, shared as well");
    let mut pieces = Pieces::new();
    pieces.push(&heap);
    pieces.push(&atom);
    pieces.push("static text");
    pieces.push(String::from("+string"));
    pieces.push('!');
    assert_eq!(pieces.as_slice()[0].as_ptr(), heap.as_ptr());
    assert_eq!(pieces.as_slice()[1].as_ptr(), atom.as_ptr());
    assert_eq!(pieces.as_slice()[2].as_ptr(), "static text".as_ptr());
    let joined = pieces.to_text();
    assert_eq!(joined, format!("{heap}{atom}static text+string!"));
    assert_eq!(pieces.io_slices().map(|s| s.len()).sum::<usize>(), pieces.len());
    assert_eq!(pieces.write_to(&mut io::sink()).unwrap(), pieces.len());
    let single: Pieces = [heap.clone()].into_iter().collect();
    assert!(single.to_text().ptr_eq(&heap), "one piece joins to itself");
}
