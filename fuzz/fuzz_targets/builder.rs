//! `StrBuilder`, `str_format!`, `Str::concat`/`Str::join` and `Pieces` against `String`;
//! `concat`/`join` of pieces whose `AsRef` answers differently when asked again (the
//! result is the text the copy read);
//! `Pieces::write_to` with a writer that takes random short writes, is interrupted, and
//! fails at random points: what it reports written must be exactly what got through.

#![no_main]

use std::cell::Cell;
use std::io::{self, IoSlice, Write};

use arbitrary::Arbitrary;
use dynatom::{str_format, Atom, ByteStr, PartialWrite, Pieces, Str, StrBuilder};
use libfuzzer_sys::fuzz_target;

#[derive(Arbitrary, Debug)]
enum Part {
    Text(String),
    Char(char),
    Number(i64),
    Static(bool),
    Atom(String),
    Long(u8),
}

impl Part {
    fn text(&self) -> String {
        match self {
            Part::Text(text) | Part::Atom(text) => text.clone(),
            Part::Char(c) => c.to_string(),
            Part::Number(n) => n.to_string(),
            Part::Static(short) => {
                if *short { "static" } else { "a static piece longer than fifteen bytes" }.to_owned()
            }
            Part::Long(n) => "long piece ".repeat(usize::from(*n) + 1),
        }
    }
}

/// A piece that answers `first` the first time it is asked and `second` from then on.
struct Fickle {
    first: String,
    second: String,
    asked: Cell<bool>,
}

impl Fickle {
    fn answer(&self) -> &str {
        if self.asked.replace(true) {
            &self.second
        } else {
            &self.first
        }
    }
}

impl AsRef<str> for Fickle {
    fn as_ref(&self) -> &str {
        self.answer()
    }
}

impl AsRef<[u8]> for Fickle {
    fn as_ref(&self) -> &[u8] {
        self.answer().as_bytes()
    }
}

/// `concat`, `join` and `ByteStr::concat` of fickle pieces give the pieces' second
/// answers, the ones the copy pass read.
fn check_fickle(pairs: &[(Part, Part)], separator: &str) {
    let fickle = || -> Vec<Fickle> {
        pairs.iter().map(|(a, b)| Fickle { first: a.text(), second: b.text(), asked: Cell::new(false) }).collect()
    };
    let seconds: Vec<String> = pairs.iter().map(|(_, b)| b.text()).collect();
    let expected = seconds.concat();
    let text = Str::concat(&fickle());
    assert_eq!(text, expected.as_str());
    assert_eq!(text.is_inline(), expected.len() <= 15);
    assert_eq!(ByteStr::concat(&fickle()), expected.as_bytes());
    assert_eq!(Str::join(&fickle(), separator), seconds.join(separator).as_str());
}

#[derive(Arbitrary, Debug)]
enum BuilderOp {
    Push(Part),
    Display(i64),
    Fmt(String, u16),
    Truncate(u16),
    Clear,
    Reserve(u16),
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Step {
    Accept(u8),
    Interrupt,
    Fail,
}

/// Follows its script of steps, then accepts everything.
struct FlakyWriter {
    out: Vec<u8>,
    script: Vec<Step>,
    next: usize,
}

impl Write for FlakyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.write_vectored(&[IoSlice::new(buf)])
    }

    fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
        let step = self.script.get(self.next).copied();
        self.next += 1;
        let mut room = match step {
            None => usize::MAX,
            Some(Step::Accept(n)) => usize::from(n),
            Some(Step::Interrupt) => return Err(io::ErrorKind::Interrupted.into()),
            Some(Step::Fail) => return Err(io::Error::other("the writer failed")),
        };
        let before = self.out.len();
        for buf in bufs {
            let n = buf.len().min(room);
            self.out.extend_from_slice(&buf[..n]);
            room -= n;
        }
        Ok(self.out.len() - before)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    builder: Vec<BuilderOp>,
    parts: Vec<Part>,
    separator: String,
    fickle: Vec<(Part, Part)>,
    script: Vec<Step>,
}

fn check_builder(ops: Vec<BuilderOp>) {
    let mut builder = StrBuilder::new();
    let mut model = String::new();
    for op in ops {
        match op {
            BuilderOp::Push(Part::Char(c)) => {
                builder.push(c);
                model.push(c);
            }
            BuilderOp::Push(part) => {
                let text = part.text();
                builder.push_str(&text);
                model.push_str(&text);
            }
            BuilderOp::Display(n) => {
                builder.push_display(n);
                model.push_str(&n.to_string());
            }
            BuilderOp::Fmt(text, n) => {
                builder.push_fmt(format_args!("[{text}:{n:>5}]"));
                model.push_str(&format!("[{text}:{n:>5}]"));
            }
            BuilderOp::Truncate(len) => {
                let len = usize::from(len) % (model.len() + 1);
                if model.is_char_boundary(len) {
                    builder.truncate(len);
                    model.truncate(len);
                }
            }
            BuilderOp::Clear => {
                builder.clear();
                model.clear();
            }
            BuilderOp::Reserve(n) => {
                builder.reserve(usize::from(n));
                assert!(builder.capacity() >= model.len() + usize::from(n));
            }
        }
        assert_eq!(builder.as_str(), model);
        assert_eq!(builder.len(), model.len());
    }
    let built = builder.finish();
    assert_eq!(built, model.as_str());
    assert_eq!(built.is_inline(), model.len() <= 15);
}

fuzz_target!(|input: Input| {
    check_builder(input.builder);
    check_fickle(&input.fickle, &input.separator);

    let texts: Vec<String> = input.parts.iter().map(Part::text).collect();
    let joined = texts.concat();
    assert_eq!(Str::concat(&texts), joined.as_str());
    assert_eq!(Str::join(texts.iter().map(String::as_str), &input.separator), texts.join(&input.separator).as_str());
    if let [first, ..] = texts.as_slice() {
        let n = texts.len();
        assert_eq!(
            str_format!("{first}|{n}|{:?}", input.separator),
            format!("{first}|{n}|{:?}", input.separator).as_str()
        );
    }

    let mut pieces = Pieces::new();
    for part in &input.parts {
        match part {
            Part::Char(c) => pieces.push(*c),
            Part::Static(true) => pieces.push("static"),
            Part::Static(false) => pieces.push("a static piece longer than fifteen bytes"),
            Part::Atom(text) => pieces.push(Atom::from(text.as_str())),
            Part::Text(text) => pieces.push(Str::from(text.as_str())),
            other => pieces.push(other.text()),
        }
    }
    assert_eq!(pieces.len(), joined.len());
    assert_eq!(pieces.to_text(), joined.as_str());
    assert_eq!(pieces.to_string(), joined);

    let mut writer = FlakyWriter { out: Vec::new(), script: input.script, next: 0 };
    match pieces.write_to(&mut writer) {
        Ok(n) => {
            assert_eq!(n, joined.len());
            assert_eq!(writer.out, joined.as_bytes());
        }
        Err(err) => {
            let partial = PartialWrite::of(&err).expect("every write_to error carries a PartialWrite");
            assert_eq!(partial.written(), writer.out.len(), "reported bytes are the bytes that got through");
            assert_eq!(writer.out, joined.as_bytes()[..writer.out.len()]);
            assert!(writer.out.len() < joined.len(), "an error before everything was written");
            let failed = writer.script.get(writer.next - 1).copied();
            match failed {
                Some(Step::Fail) => assert_eq!(err.kind(), io::ErrorKind::Other),
                Some(Step::Accept(0)) => assert_eq!(err.kind(), io::ErrorKind::WriteZero),
                other => panic!("error {err} after step {other:?}"),
            }
        }
    }
    // Atoms whose handles are gone stay in the global table, unused, until a sweep, held
    // only by the table's tagged slot words, which LeakSanitizer cannot follow: sweep them
    // before it checks this input for leaks, and check that the sweep left none behind.
    // The pieces hold atoms: they go first (left to the end of the scope, they outlived
    // the sweep, and an atom too long for a slab read as a leak).
    drop(pieces);
    dynatom::AtomTable::global().shrink();
    assert_eq!(dynatom::AtomTable::global().memory_report().unused_atoms, 0);
});
