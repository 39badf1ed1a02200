//! Suite `build`: building strings without intermediates.
//!
//! * 100,000 appends of `"a"` and of a 10-byte piece, five ways: naive `s = s + piece`
//!   (a new `Str` every step, O(n²) like Lua's `..`), `String::push_str` then one
//!   conversion to `Str`, `StrBuilder` then `finish`, and `Pieces` written to
//!   `io::sink()` and to a pipe (drained by another thread).
//! * `str_format!` against `format!` + `Str::from`, for small and large outputs.
//!
//! One cell is one way at one piece size (or one formatter at one output size). A child
//! times one warm-up run and then the median of a few whole runs (the naive way, which is
//! quadratic, runs once); the report shows the median of that over child processes.
//! Target: `StrBuilder` within 1.2× of `String::push_str` + `Str::from`.

use super::{median, time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::peers::{self, Appender, AppenderVisitor, Formatter, FormatterVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use dynatom::Str;
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "build",
    about: "building strings: StrBuilder, Pieces, str_format!",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

/// The two pieces the article appends: one byte, and ten.
const PIECES: [(&str, &str); 2] = [("a", "a"), ("10-byte", "0123456789")];
const WAYS: &[&str] = peers::APPENDERS;
const FORMATTERS: &[&str] = peers::FORMATTERS;
const FORMAT_SIZES: [(&str, &str); 2] = [("small", "small (≤15 B)"), ("large", "large (~220 B)")];

fn appends(ctx: &Ctx) -> usize {
    if ctx.scale == Scale::Quick {
        10_000
    } else {
        100_000
    }
}

/// Timed whole runs per child (after one warm-up run); the child reports their median.
fn runs(ctx: &Ctx) -> usize {
    if ctx.scale == Scale::Quick {
        3
    } else {
        5
    }
}

fn jobs(_: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for (label, _) in PIECES {
        v.extend(WAYS.iter().map(|w| Job::new(w, "append", label)));
    }
    for (size, _) in FORMAT_SIZES {
        v.extend(FORMATTERS.iter().map(|f| Job::new(f, "format", size)));
    }
    v
}

/// Median wall time (ns) of `runs` runs of `f`, after one untimed warm-up run when `warm`.
fn median_ns<T>(runs: usize, warm: bool, mut f: impl FnMut() -> T) -> f64 {
    if warm {
        black_box(f());
    }
    let mut v: Vec<f64> = (0..runs.max(1)).map(|_| time_ns(|| black_box(f())).1).collect();
    median(&mut v).unwrap_or(f64::NAN)
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    match job.corpus.as_str() {
        "append" => append_child(job, ctx, &mut out),
        "format" => format_child(job, ctx, &mut out),
        other => panic!("unknown build group {other}"),
    }
    out
}

struct AppendRun<'a> {
    piece: &'static str,
    appends: usize,
    runs: usize,
    out: &'a mut ChildOutput,
}

impl AppenderVisitor for AppendRun<'_> {
    type Out = ();
    fn visit<A: Appender>(self) {
        let AppendRun { piece, appends: n, runs, out } = self;
        let mut sink = match A::sink() {
            Ok(sink) => sink,
            Err(e) => return out.fail(format!("{}: {e}", A::NAME)),
        };
        let expected_len = n * piece.len();
        let ns = if A::QUADRATIC {
            // O(n²): one run is plenty (and long: it copies n²/2 pieces).
            let (built, ns) = time_ns(|| A::build(&mut sink, piece, n));
            check(out, A::NAME, A::len(&built), expected_len);
            ns
        } else {
            check(out, A::NAME, A::len(&A::build(&mut sink, piece, n)), expected_len);
            median_ns(runs, true, || A::build(&mut sink, piece, n))
        };
        out.fig("ns_per_run", ns);
        out.fig("ns_per_append", ns / n as f64);
        out.fig("appends", n as f64);
    }
}

fn check(out: &mut ChildOutput, what: &str, len: usize, expected_len: usize) {
    if len != expected_len {
        out.fail(format!("{what}: {len} bytes, expected {expected_len}"));
    }
}

fn append_child(job: &Job, ctx: &Ctx, out: &mut ChildOutput) {
    let piece: &'static str = PIECES
        .iter()
        .find(|(label, _)| *label == job.param)
        .map(|(_, p)| *p)
        .unwrap_or_else(|| panic!("unknown piece {}", job.param));
    let run = AppendRun { piece, appends: appends(ctx), runs: runs(ctx), out };
    peers::visit_appender(&job.peer, run).unwrap_or_else(|| panic!("unknown way {}", job.peer));
}

const LONG_ARG: &str = "a longer argument that pushes the output well past the inline limit";

/// One way of formatting `(n, text)` into a `Str`.
type FormatFn = fn(u64, &str) -> Str;

/// One formatter at one output size, chosen once before the timed loop.
fn formatter<F: Formatter>(size: &str) -> FormatFn {
    match size {
        "small" => |n, _| F::small(n),
        "large" => F::large,
        other => panic!("unknown output size {other}"),
    }
}

/// The reference's output, to check another formatter against.
struct ReferenceText<'a> {
    size: &'a str,
    n: u64,
}

impl FormatterVisitor for ReferenceText<'_> {
    type Out = Str;
    fn visit<F: Formatter>(self) -> Str {
        formatter::<F>(self.size)(self.n, LONG_ARG)
    }
}

struct FormatRun<'a> {
    size: &'a str,
    iterations: u64,
    runs: usize,
    out: &'a mut ChildOutput,
}

impl FormatterVisitor for FormatRun<'_> {
    type Out = ();
    fn visit<F: Formatter>(self) {
        let FormatRun { size, iterations, runs, out } = self;
        let f = formatter::<F>(size);
        // Every formatter must produce the same text.
        for other in FORMATTERS.iter().filter(|f| **f != F::NAME) {
            for n in [0, 7, 123_456_789, u64::MAX / 31] {
                let theirs = peers::visit_formatter(other, ReferenceText { size, n }).expect("a listed formatter");
                if f(n, LONG_ARG) != theirs {
                    out.fail(format!("{} differs from {other} at n = {n}", F::NAME));
                }
            }
        }
        let ns = median_ns(runs, true, || {
            let mut total = 0;
            for n in 0..iterations {
                total += f(black_box(n), black_box(LONG_ARG)).len();
            }
            total
        });
        out.fig("ns_per_op", ns / iterations as f64);
    }
}

fn format_child(job: &Job, ctx: &Ctx, out: &mut ChildOutput) {
    let iterations: u64 = if ctx.scale == Scale::Quick { 20_000 } else { 200_000 };
    let run = FormatRun { size: &job.param, iterations, runs: runs(ctx), out };
    peers::visit_formatter(&job.peer, run).unwrap_or_else(|| panic!("unknown formatter {}", job.peer));
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let n = appends(ctx);
    rep.begin_suite(
        "build",
        "Building strings without intermediates",
        &format!(
            "{n} appends of one piece, then the finished string: naive `s = s + piece` (a new `Str` \
             per step, O(n²) like Lua's `..`), `String::push_str` then one `Str::from`, `StrBuilder` \
             then `finish`, and `Pieces` written to `io::sink()` and to a pipe drained by another \
             thread. Each child times one warm-up run and the median of a few runs (naive: one run). \
             Lower is better; ratio = way ÷ `StrBuilder + finish`."
        ),
    );
    let ours_of = |label: &str| Job::new(WAYS[0], "append", label);
    for (label, piece) in PIECES {
        rep.heading(&format!("{n} appends of {label} (`{piece:?}`)"));
        let ours = ours_of(label);
        let mut t = Table::new(&["way", "appends", "ms per run", "ns per append", "vs dynatom (StrBuilder)"]);
        for w in WAYS {
            let j = Job::new(w, "append", label);
            t.row(vec![
                w.to_string(),
                cell(r, &j, "appends"),
                fmt_num(r.median(&j, "ns_per_run").map(|v| v / 1e6)),
                cell(r, &j, "ns_per_append"),
                fmt_ratio(r.median(&j, "ns_per_append"), r.median(&ours, "ns_per_append")),
            ]);
        }
        rep.table(&t);
    }

    rep.heading("`str_format!` vs `format!` + `Str::from`");
    let iterations = if ctx.scale == Scale::Quick { 20_000 } else { 200_000 };
    rep.para(&format!(
        "ns per formatted `Str` (created and dropped), over {iterations} calls; ratio = \
         `format!` + `Str::from` ÷ `str_format!`."
    ));
    let mut headers = vec!["way".to_string()];
    for (_, desc) in FORMAT_SIZES {
        headers.push(format!("{desc} ns"));
        headers.push("vs dynatom".into());
    }
    let mut t = Table::new(&headers);
    for f in FORMATTERS {
        let mut row = vec![f.to_string()];
        for (size, _) in FORMAT_SIZES {
            let j = Job::new(f, "format", size);
            row.push(cell(r, &j, "ns_per_op"));
            row.push(fmt_ratio(
                r.median(&j, "ns_per_op"),
                r.median(&Job::new(FORMATTERS[0], "format", size), "ns_per_op"),
            ));
        }
        t.row(row);
    }
    rep.table(&t);

    let mut met = Some(true);
    let mut parts = Vec::new();
    for (label, _) in PIECES {
        let string = Job::new(WAYS[1], "append", label);
        match (r.median(&ours_of(label), "ns_per_run"), r.median(&string, "ns_per_run")) {
            (Some(b), Some(s)) => {
                combine(&mut met, Some(b <= 1.2 * s));
                parts.push(format!(
                    "{label}: {} ms vs {} ms = {:.2}×",
                    fmt_num(Some(b / 1e6)),
                    fmt_num(Some(s / 1e6)),
                    b / s
                ));
            }
            _ => combine(&mut met, None),
        }
    }
    rep.target("`StrBuilder` + `finish` within 1.2× of `String::push_str` + `Str::from`", parts.join("; "), met);
}
