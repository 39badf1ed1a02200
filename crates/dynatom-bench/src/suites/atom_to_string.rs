//! Suite `atom-to-string`: handing an atom's text out as an owned string (Firefox's
//! `el.id` getter). Copying into a `String` costs more as the text grows; `Str::from(&atom)`
//! should cost the same at every length (a reference-count increment, no copy).

use super::{ns_per_op, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::charts::{self, LineChart, Series};
use crate::corpus::Scale;
use crate::peers::{self, AtomToOwned, AtomToOwnedVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "atom-to-string",
    about: "an atom handed out as an owned string, by length",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const LENGTHS: &[usize] = &[3, 15, 16, 63, 64, 100, 101];
const WAYS: &[&str] = peers::TO_OWNED;

fn jobs(_: &Ctx) -> Vec<Job> {
    WAYS.iter().map(|w| Job::new(w, "-", "-")).collect()
}

fn text_of_len(len: usize) -> String {
    (0..len).map(|i| (b'a' + (i * 7 % 26) as u8) as char).collect()
}

/// One way, timed at every length.
struct Run {
    min_ns: f64,
}

impl AtomToOwnedVisitor for Run {
    type Out = ChildOutput;
    fn visit<A: AtomToOwned>(self) -> ChildOutput {
        const BATCH: usize = 1000;
        let mut out = ChildOutput::default();
        for &len in LENGTHS {
            let text = text_of_len(len);
            let atom = dynatom::Atom::from(text.as_str());
            if A::text(&A::to_owned(&atom)) != text {
                out.fail(format!("{} at {len} bytes does not round-trip", A::NAME));
            }
            let ns = ns_per_op(BATCH, self.min_ns, || {
                for _ in 0..BATCH {
                    black_box(A::to_owned(black_box(&atom)));
                }
            });
            out.fig(&format!("ns_{len}"), ns);
        }
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let min_ns = if ctx.scale == Scale::Quick { 5e6 } else { 30e6 };
    peers::visit_to_owned(&job.peer, Run { min_ns }).unwrap_or_else(|| panic!("unknown way {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "atom-to-string",
        "Atom to owned string",
        "Hand an atom's text out as an owned string, per call (the result is dropped at once). \
         ns per call, lower is better; ratio = copy ÷ `Str::from(&atom)`.",
    );
    let ours = Job::new(WAYS[0], "-", "-");
    let copy = Job::new(WAYS[1], "-", "-");
    let mut t = Table::new(&["length (bytes)", "Str::from(&atom) ns", "copy into String ns", "vs dynatom"]);
    for len in LENGTHS {
        let f = format!("ns_{len}");
        t.row(vec![
            len.to_string(),
            cell(r, &ours, &f),
            cell(r, &copy, &f),
            fmt_ratio(r.median(&copy, &f), r.median(&ours, &f)),
        ]);
    }
    rep.table(&t);
    let series: Vec<Series> = WAYS
        .iter()
        .map(|w| Series {
            name: w.to_string(),
            points: LENGTHS
                .iter()
                .filter_map(|l| r.median(&Job::new(w, "-", "-"), &format!("ns_{l}")).map(|v| (*l as f64, v)))
                .collect(),
        })
        .collect();
    let spec = LineChart {
        title: "Atom → owned string: ns per call vs length",
        x_desc: "length (bytes)",
        y_desc: "ns per call",
        log_x: false,
        log_y: false,
    };
    let file = "atom-to-string.svg";
    match charts::lines(&ctx.out_dir.join(file), &spec, &series) {
        Ok(()) => rep.chart(file, spec.title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }

    let ours_ns: Vec<Option<f64>> = LENGTHS.iter().map(|l| r.median(&ours, &format!("ns_{l}"))).collect();
    let (mut flat, mut flat_fig) = (Some(true), String::from("not measured"));
    if ours_ns.iter().all(Option::is_some) {
        let v: Vec<f64> = ours_ns.iter().flatten().copied().collect();
        let (lo, hi) = (v.iter().copied().fold(f64::INFINITY, f64::min), v.iter().copied().fold(0.0, f64::max));
        combine(&mut flat, Some(hi <= 1.5 * lo));
        flat_fig = format!("slowest {} ns ÷ fastest {} ns = {:.2}×", fmt_num(Some(hi)), fmt_num(Some(lo)), hi / lo);
    } else {
        combine(&mut flat, None);
    }
    rep.target("`Str::from(&atom)`: every length within 1.5× of the fastest length", flat_fig, flat);
    let mut met = Some(true);
    let mut parts = Vec::new();
    for len in LENGTHS.iter().filter(|l| **l >= 64) {
        let f = format!("ns_{len}");
        match (r.median(&copy, &f), r.median(&ours, &f)) {
            (Some(c), Some(o)) => {
                combine(&mut met, Some(c / o >= 5.0));
                parts.push(format!("{len} B {:.1}×", c / o));
            }
            _ => combine(&mut met, None),
        }
    }
    rep.target("`Str::from(&atom)` ≥5× faster than copying at 64 bytes and above", parts.join("; "), met);
}
