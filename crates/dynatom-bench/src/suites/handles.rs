//! Suite `handles`: owned string handles. `from(&str)` at 5/15/16/64/1024 bytes (time and
//! allocations), then clone, eq (two handles with equal text), hash, and taking an owned
//! slice, for `Str` against the other handle types.

use super::{ns_per_op, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count::counting;
use crate::charts::{self, LineChart, Series};
use crate::corpus::{Rng, Scale};
use crate::peers::{self, HandleVisitor, StringHandle};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::hash::BuildHasher;
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "handles",
    about: "owned string handles: from, clone, eq, hash, slice",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const LENGTHS: &[usize] = &[5, 15, 16, 64, 1024];
const OPS: &[(&str, &str)] =
    &[("from", "from(&str)"), ("clone", "clone"), ("eq", "eq"), ("hash", "hash"), ("slice", "slice [1..len-1]")];
/// Distinct strings per batch: enough to leave the L1 cache now and then.
const BATCH: usize = 256;

fn jobs(_: &Ctx) -> Vec<Job> {
    peers::HANDLES.iter().map(|p| Job::new(p, "-", "-")).collect()
}

struct Run {
    min_ns: f64,
}

impl HandleVisitor for Run {
    type Out = ChildOutput;
    fn visit<H: StringHandle>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let hasher = rapidhash::RapidBuildHasher::default();
        let mut rng = Rng::new(0x4A);
        for &len in LENGTHS {
            let texts: Vec<String> = (0..BATCH)
                .map(|_| {
                    let mut v = vec![0u8; len];
                    rng.fill_alnum(&mut v);
                    String::from_utf8(v).expect("ascii")
                })
                .collect();
            let a: Vec<H> = texts.iter().map(|t| H::from_str(t)).collect();
            let b: Vec<H> = texts.iter().map(|t| H::from_str(t)).collect();
            if a.iter().zip(&texts).any(|(h, t)| h.text() != t) || a.iter().zip(&b).any(|(x, y)| x != y) {
                out.fail(format!("{len} bytes: from/eq does not round-trip"));
            }
            if a.iter().zip(&texts).any(|(h, t)| H::slice_text(&h.slice(1..len - 1)) != &t[1..len - 1]) {
                out.fail(format!("{len} bytes: slice gives the wrong text"));
            }
            let ((), snap) = counting(|| {
                for t in &texts {
                    drop(black_box(H::from_str(black_box(t))));
                }
            });
            out.fig(&format!("from_allocs_{len}"), snap.alloc_calls as f64 / BATCH as f64);
            let m = self.min_ns;
            let from = ns_per_op(BATCH, m, || {
                for t in &texts {
                    black_box(H::from_str(black_box(t)));
                }
            });
            let clone = ns_per_op(BATCH, m, || {
                for h in &a {
                    black_box(black_box(h).clone());
                }
            });
            let eq = ns_per_op(BATCH, m, || {
                for (x, y) in a.iter().zip(&b) {
                    black_box(black_box(x) == black_box(y));
                }
            });
            let hash = ns_per_op(BATCH, m, || {
                for h in &a {
                    black_box(hasher.hash_one(black_box(h)));
                }
            });
            let slice = ns_per_op(BATCH, m, || {
                for h in &a {
                    black_box(black_box(h).slice(1..len - 1));
                }
            });
            for (op, v) in [("from", from), ("clone", clone), ("eq", eq), ("hash", hash), ("slice", slice)] {
                out.fig(&format!("{op}_ns_{len}"), v);
            }
        }
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let min_ns = if ctx.scale == Scale::Quick { 2e6 } else { 10e6 };
    peers::visit_handle(&job.peer, Run { min_ns }).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "handles",
        "String handles",
        "Per operation, in ns (lower is better), over batches of 256 distinct strings: `from(&str)` \
         (create and drop), `clone` (and drop), `eq` of two handles with equal text made separately, \
         `hash` (rapidhash hasher), and an owned slice `[1..len-1]` (arcstr returns its `Substr`; \
         `String`, `Arc<str>`, compact_str and smol_str copy). Ratios against `dynatom Str`.",
    );
    let reference = Job::new(peers::HANDLES[0], "-", "-");
    for (op, label) in OPS {
        rep.heading(label);
        let mut headers = vec!["peer".to_string()];
        for l in LENGTHS {
            headers.push(format!("{l} B ns"));
            headers.push("vs dynatom".into());
        }
        let mut t = Table::new(&headers);
        for p in peers::HANDLES {
            let j = Job::new(p, "-", "-");
            let mut row = vec![p.to_string()];
            for l in LENGTHS {
                let f = format!("{op}_ns_{l}");
                row.push(cell(r, &j, &f));
                row.push(fmt_ratio(r.median(&j, &f), r.median(&reference, &f)));
            }
            t.row(row);
        }
        rep.table(&t);
    }
    rep.heading("allocations per from(&str)");
    let mut headers = vec!["peer".to_string()];
    headers.extend(LENGTHS.iter().map(|l| format!("{l} B")));
    headers.push("vs dynatom (64 B)".into());
    let mut t = Table::new(&headers);
    for p in peers::HANDLES {
        let j = Job::new(p, "-", "-");
        let mut row = vec![p.to_string()];
        row.extend(LENGTHS.iter().map(|l| cell(r, &j, &format!("from_allocs_{l}"))));
        row.push(fmt_ratio(r.median(&j, "from_allocs_64"), r.median(&reference, "from_allocs_64")));
        t.row(row);
    }
    rep.table(&t);

    let series: Vec<Series> = peers::HANDLES
        .iter()
        .map(|p| Series {
            name: p.to_string(),
            points: LENGTHS
                .iter()
                .filter_map(|l| r.median(&Job::new(p, "-", "-"), &format!("from_ns_{l}")).map(|v| (*l as f64, v)))
                .collect(),
        })
        .collect();
    let spec = LineChart {
        title: "from(&str): ns per call vs length",
        x_desc: "length (bytes, log)",
        y_desc: "ns per call (log)",
        log_x: true,
        log_y: true,
    };
    let file = "handles-from.svg";
    match charts::lines(&ctx.out_dir.join(file), &spec, &series) {
        Ok(()) => rep.chart(file, spec.title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }

    let string = Job::new("String", "-", "-");
    let mut met = Some(true);
    let mut parts = Vec::new();
    for l in [5, 15] {
        let allocs = r.median(&reference, &format!("from_allocs_{l}"));
        let ours = r.median(&reference, &format!("from_ns_{l}"));
        let theirs = r.median(&string, &format!("from_ns_{l}"));
        match (allocs, ours, theirs) {
            (Some(a), Some(o), Some(s)) => {
                combine(&mut met, Some(a == 0.0 && o < s));
                parts.push(format!(
                    "{l} B: {} allocations, {} ns vs String {} ns",
                    fmt_num(Some(a)),
                    fmt_num(Some(o)),
                    fmt_num(Some(s))
                ));
            }
            _ => combine(&mut met, None),
        }
    }
    rep.target("`Str::from` of ≤15 bytes allocates nothing and beats `String`", parts.join("; "), met);
    let arc = Job::new("Arc<str>", "-", "-");
    let mut met = Some(true);
    let mut parts = Vec::new();
    for l in LENGTHS {
        let f = format!("clone_ns_{l}");
        match (r.median(&reference, &f), r.median(&arc, &f)) {
            (Some(o), Some(a)) => {
                combine(&mut met, Some(o <= a));
                parts.push(format!("{l} B {} vs {} ns", fmt_num(Some(o)), fmt_num(Some(a))));
            }
            _ => combine(&mut met, None),
        }
    }
    rep.target("`Str` clone no slower than `Arc<str>` clone, every length", parts.join("; "), met);
}
