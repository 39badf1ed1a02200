//! Suite `build`: building strings without intermediates (issue 4, article 002).
//!
//! * 100,000 appends of `"a"` and of a 10-byte piece, five ways: naive `s = s + piece`
//!   (a new `Str` every step, O(n²) like Lua's `..`), `String::push_str` then one
//!   conversion to `Str`, `StrBuilder` then `finish`, and `Pieces` written to
//!   `io::sink()` and to a pipe (drained by another thread).
//! * `str_format!` against `format!` + `Str::from`, for small and large outputs.
//!
//! Rows are `(name, value)`: names ending in `[s]` are the best-of-N wall time of one
//! whole run in seconds; names ending in `[x]` are ratios computed in the same run
//! (lower is better for the first-named). Target: `StrBuilder ÷ String` ≤ 1.2.

use std::hint::black_box;
use std::io::{self, Read};
use std::time::{Duration, Instant};

use dynatom::{str_format, Pieces, Str, StrBuilder};

/// The two pieces the article appends: one byte, and ten.
const PIECES: [(&str, &str); 2] = [("a", "a"), ("10-byte", "0123456789")];

/// Runs the suite; `quick` shrinks counts and repetitions for smoke runs.
pub fn run(quick: bool) -> Vec<(String, f64)> {
    let appends = if quick { 10_000 } else { 100_000 };
    let reps = if quick { 2 } else { 7 };
    let mut rows = Vec::new();
    for (label, piece) in PIECES {
        append_rows(&mut rows, label, piece, appends, reps);
    }
    format_rows(&mut rows, quick);
    rows
}

/// Best wall time of `reps` runs of `f`.
fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    (0..reps.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed()
        })
        .min()
        .unwrap_or(Duration::ZERO)
        .as_secs_f64()
}

fn append_rows(rows: &mut Vec<(String, f64)>, label: &str, piece: &'static str, appends: usize, reps: usize) {
    let prefix = format!("build/{appends} appends of {label}");
    // O(n²): one run is plenty (and long: it copies n²/2 pieces).
    let naive = best_of(1, || {
        let mut s = Str::new();
        for _ in 0..appends {
            s = Str::concat(&[s.as_str(), piece]);
        }
        s
    });
    let string = best_of(reps, || {
        let mut s = String::new();
        for _ in 0..appends {
            s.push_str(black_box(piece));
        }
        Str::from(s)
    });
    let builder = best_of(reps, || {
        let mut b = StrBuilder::new();
        for _ in 0..appends {
            b.push_str(black_box(piece));
        }
        b.finish()
    });
    let pieces_sink = best_of(reps, || {
        let mut p = Pieces::new();
        for _ in 0..appends {
            p.push(black_box(piece));
        }
        p.write_to(&mut io::sink()).expect("sink never fails")
    });
    let pieces_pipe = pipe_time(piece, appends, reps);
    rows.push((format!("{prefix}: naive s = s + piece [s]"), naive));
    rows.push((format!("{prefix}: String::push_str + Str::from [s]"), string));
    rows.push((format!("{prefix}: StrBuilder + finish [s]"), builder));
    rows.push((format!("{prefix}: Pieces -> io::sink() [s]"), pieces_sink));
    rows.push((format!("{prefix}: Pieces -> pipe [s]"), pieces_pipe));
    rows.push((format!("{prefix}: naive ÷ StrBuilder [x]"), naive / builder));
    rows.push((format!("{prefix}: StrBuilder ÷ String (target <= 1.2) [x]"), builder / string));
    rows.push((format!("{prefix}: Pieces->sink ÷ String [x]"), pieces_sink / string));
}

/// Pieces built and written to a pipe whose other end a thread drains.
fn pipe_time(piece: &'static str, appends: usize, reps: usize) -> f64 {
    let Ok((mut reader, mut writer)) = io::pipe() else {
        return f64::NAN;
    };
    let drain = std::thread::spawn(move || {
        let mut buf = vec![0u8; 1 << 16];
        while matches!(reader.read(&mut buf), Ok(n) if n > 0) {}
    });
    let time = best_of(reps, || {
        let mut p = Pieces::new();
        for _ in 0..appends {
            p.push(black_box(piece));
        }
        p.write_to(&mut writer).expect("the drain thread keeps the pipe open")
    });
    drop(writer);
    let _ = drain.join();
    time
}

/// One way of formatting `(n, text)` into a `Str`.
type FormatFn = fn(u64, &str) -> Str;

fn format_rows(rows: &mut Vec<(String, f64)>, quick: bool) {
    let iterations = if quick { 20_000 } else { 200_000 };
    let reps = if quick { 2 } else { 5 };
    let long = "a longer argument that pushes the output well past the inline limit";
    let cases: [(&str, FormatFn, FormatFn); 2] = [
        ("small (<=15 B)", |n, _| str_format!("k{n}:{}", n % 7), |n, _| Str::from(format!("k{n}:{}", n % 7))),
        (
            "large (~220 B)",
            |n, s| str_format!("{s} / {n:>12} / {s} / {:x} / {s}", n * 31),
            |n, s| Str::from(format!("{s} / {n:>12} / {s} / {:x} / {s}", n * 31)),
        ),
    ];
    for (label, ours, theirs) in cases {
        let run = |f: FormatFn| {
            best_of(reps, || {
                let mut total = 0;
                for n in 0..iterations {
                    total += f(black_box(n), black_box(long)).len();
                }
                total
            }) / iterations as f64
        };
        let ours = run(ours);
        let theirs = run(theirs);
        rows.push((format!("build/format {label}: str_format! per op [s]"), ours));
        rows.push((format!("build/format {label}: format! + Str::from per op [s]"), theirs));
        rows.push((format!("build/format {label}: str_format! ÷ format!+Str::from [x]"), ours / theirs));
    }
}
