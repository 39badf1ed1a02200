//! Adapters for the `build` suite: ways to append one piece many times and finish a
//! string, and ways to format a value into a `Str`.

use super::{Appender, Formatter};
use dynatom::{str_format, Pieces, Str, StrBuilder};
use std::hint::black_box;
use std::io::{self, Read};

/// `StrBuilder::push_str` per piece, then `finish`.
pub struct BuilderFinish;

impl Appender for BuilderFinish {
    type Sink = ();
    type Built = Str;
    const NAME: &'static str = "StrBuilder + finish";
    fn sink() -> io::Result<()> {
        Ok(())
    }
    fn build(_: &mut (), piece: &'static str, appends: usize) -> Str {
        let mut b = StrBuilder::new();
        for _ in 0..appends {
            b.push_str(black_box(piece));
        }
        b.finish()
    }
    fn len(built: &Str) -> usize {
        built.len()
    }
}

/// `String::push_str` per piece, then one `Str::from`.
pub struct StringThenStr;

impl Appender for StringThenStr {
    type Sink = ();
    type Built = Str;
    const NAME: &'static str = "String::push_str + Str::from";
    fn sink() -> io::Result<()> {
        Ok(())
    }
    fn build(_: &mut (), piece: &'static str, appends: usize) -> Str {
        let mut s = String::new();
        for _ in 0..appends {
            s.push_str(black_box(piece));
        }
        Str::from(s)
    }
    fn len(built: &Str) -> usize {
        built.len()
    }
}

/// `s = s + piece`: a new `Str` every step, O(n²) like Lua's `..` in a loop.
pub struct NaiveConcat;

impl Appender for NaiveConcat {
    type Sink = ();
    type Built = Str;
    const NAME: &'static str = "naive s = s + piece";
    const QUADRATIC: bool = true;
    fn sink() -> io::Result<()> {
        Ok(())
    }
    fn build(_: &mut (), piece: &'static str, appends: usize) -> Str {
        let mut s = Str::new();
        for _ in 0..appends {
            s = Str::concat(&[s.as_str(), black_box(piece)]);
        }
        s
    }
    fn len(built: &Str) -> usize {
        built.len()
    }
}

/// `Pieces` written to `io::sink()`: the rope's cost without any output's.
pub struct PiecesToSink;

impl Appender for PiecesToSink {
    type Sink = io::Sink;
    type Built = usize;
    const NAME: &'static str = "Pieces → io::sink()";
    fn sink() -> io::Result<io::Sink> {
        Ok(io::sink())
    }
    fn build(sink: &mut io::Sink, piece: &'static str, appends: usize) -> usize {
        let mut p = Pieces::new();
        for _ in 0..appends {
            p.push(black_box(piece));
        }
        p.write_to(sink).expect("sink never fails")
    }
    fn len(written: &usize) -> usize {
        *written
    }
}

/// The write end of a pipe whose read end a thread drains; closing it (on drop) ends
/// the thread.
pub struct DrainedPipe {
    writer: Option<io::PipeWriter>,
    drain: Option<std::thread::JoinHandle<()>>,
}

impl Drop for DrainedPipe {
    fn drop(&mut self) {
        drop(self.writer.take());
        if let Some(drain) = self.drain.take() {
            let _ = drain.join();
        }
    }
}

/// `Pieces` written to a pipe drained by another thread.
pub struct PiecesToPipe;

impl Appender for PiecesToPipe {
    type Sink = DrainedPipe;
    type Built = usize;
    const NAME: &'static str = "Pieces → pipe";
    fn sink() -> io::Result<DrainedPipe> {
        let (mut reader, writer) = io::pipe()?;
        let drain = std::thread::spawn(move || {
            let mut buf = vec![0u8; 1 << 16];
            while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
        });
        Ok(DrainedPipe { writer: Some(writer), drain: Some(drain) })
    }
    fn build(sink: &mut DrainedPipe, piece: &'static str, appends: usize) -> usize {
        let mut p = Pieces::new();
        for _ in 0..appends {
            p.push(black_box(piece));
        }
        let writer = sink.writer.as_mut().expect("open until drop");
        p.write_to(writer).expect("the drain thread keeps the pipe open")
    }
    fn len(written: &usize) -> usize {
        *written
    }
}

/// `str_format!`: formats straight into the `Str`'s buffer.
pub struct StrFormat;

impl Formatter for StrFormat {
    const NAME: &'static str = "str_format!";
    fn small(n: u64) -> Str {
        str_format!("k{n}:{}", n % 7)
    }
    fn large(n: u64, s: &str) -> Str {
        str_format!("{s} / {n:>12} / {s} / {:x} / {s}", n * 31)
    }
}

/// `format!` into a `String`, then `Str::from`.
pub struct FormatThenStr;

impl Formatter for FormatThenStr {
    const NAME: &'static str = "format! + Str::from";
    fn small(n: u64) -> Str {
        Str::from(format!("k{n}:{}", n % 7))
    }
    fn large(n: u64, s: &str) -> Str {
        Str::from(format!("{s} / {n:>12} / {s} / {:x} / {s}", n * 31))
    }
}
