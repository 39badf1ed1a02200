//! Suite `static-atoms`: what declaring a keyword set with `static_atoms!` buys and costs.
//!
//! * Dispatch on 50 keywords (`keywords.rs`) over a token stream that is 30% keywords:
//!   `match` on the static atoms against `match` on `atom.as_str()` (input already atoms),
//!   and `SET.get(text)` then `match` on the atom against `match` on the `&str` (raw text).
//! * Interning a declared text (the ten keywords longer than 7 bytes) against a hit of a
//!   held atom of the same length, in the global table and in a local `AtomTable::new()`.
//! * Start-up and build cost of a 10,000-text set, in two generated crates
//!   (`static_crates.rs`), never in this binary.
//!
//! Each comparison is one cell: its child alternates rounds of the two ways (the order
//! flipping each round) and reports each way's median round and their ratio; the report
//! shows medians over child processes.

use super::{median, time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::keywords::{self, kind_of_atom, kind_of_str, kw, Kind};
use crate::report::{combine, fmt_num, Report, Table};
use crate::static_crates::{self, SET_TEXTS, VARIANTS};
use dynatom::{Atom, AtomTable};
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "static-atoms",
    about: "static_atoms!: match dispatch, declared interns, 10,000-text set start-up and build",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const PEER: &str = "dynatom";
const DISPATCH: &str = "dispatch";
const INTERN: &str = "intern";
const ATOM_INPUT: &str = "atom input";
const TEXT_INPUT: &str = "text input";
const GLOBAL: &str = "global table";
const LOCAL: &str = "local table";
const START_UP: &str = "start-up";
const BUILD: &str = "build";
const SET_PARAM: &str = "10,000-text set";

/// Timed rounds per way in one child (the ways alternate round by round).
const ROUNDS: usize = 30;

fn stream_len(scale: Scale) -> usize {
    scale.div(200_000)
}

/// Interns per timed round of the intern cells.
fn interns_per_round(scale: Scale) -> usize {
    scale.div(100_000)
}

/// Fresh processes per variant in one start-up cell.
fn start_up_runs(scale: Scale) -> usize {
    match scale {
        Scale::Full => 15,
        Scale::Quick => 5,
    }
}

pub fn prepare() {
    if let Err(e) = static_crates::prepare() {
        eprintln!("static-atoms: the generated crates did not build ({e}): start-up and build figures will be missing");
    }
}

fn jobs(_: &Ctx) -> Vec<Job> {
    vec![
        Job::new(PEER, DISPATCH, ATOM_INPUT),
        Job::new(PEER, DISPATCH, TEXT_INPUT),
        Job::new(PEER, INTERN, GLOBAL),
        Job::new(PEER, INTERN, LOCAL),
        Job::new(PEER, START_UP, SET_PARAM),
        Job::new(PEER, BUILD, SET_PARAM),
    ]
}

/// Alternates `ROUNDS` rounds of the static way and the baseline, each returning its ns
/// per operation and a checksum; records both medians and baseline ÷ static, and fails the
/// cell if the two ways' checksums ever differ.
fn alternate(
    out: &mut ChildOutput,
    mut static_way: impl FnMut() -> (f64, u64),
    mut baseline: impl FnMut() -> (f64, u64),
) {
    // Warm both.
    let (_, a) = static_way();
    let (_, b) = baseline();
    if a != b {
        out.fail(format!("the two ways disagree: checksum {a} vs {b}"));
    }
    let (mut s, mut base) = (Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        if round % 2 == 0 {
            s.push(static_way().0);
            base.push(baseline().0);
        } else {
            base.push(baseline().0);
            s.push(static_way().0);
        }
    }
    let (Some(s), Some(b)) = (median(&mut s), median(&mut base)) else {
        out.fail("no rounds".into());
        return;
    };
    out.fig("static_ns", s);
    out.fig("baseline_ns", b);
    out.fig("baseline_over_static", b / s);
}

/// Sums token kinds over a pass, as a checksum both ways must agree on.
fn pass<T>(items: &[T], kind: impl Fn(&T) -> Kind) -> (f64, u64) {
    let (sum, ns) = time_ns(|| items.iter().map(|i| kind(black_box(i)) as u64).sum::<u64>());
    (ns / items.len() as f64, black_box(sum))
}

fn dispatch_child(job: &Job, ctx: &Ctx, out: &mut ChildOutput) {
    let stream = keywords::Stream::new(stream_len(ctx.scale));
    let texts = stream.texts();
    match job.param.as_str() {
        ATOM_INPUT => {
            let atoms: Vec<Atom> = texts.iter().map(|t| Atom::from(*t)).collect();
            alternate(out, || pass(&atoms, kind_of_atom), || pass(&atoms, |a| kind_of_str(a.as_str())));
        }
        TEXT_INPUT => alternate(
            out,
            || pass(&texts, |t| kw::SET.get(t).map_or(Kind::Ident, |a| kind_of_atom(&a))),
            || pass(&texts, |t| kind_of_str(t)),
        ),
        other => panic!("unknown dispatch input {other}"),
    }
}

/// Interns every text of `texts` in turn, dropping each atom at once, `n` interns in all.
fn interns(texts: &[String], n: usize, intern: impl Fn(&str) -> Atom) -> (f64, u64) {
    let ((), ns) = time_ns(|| {
        for i in 0..n {
            drop(black_box(intern(black_box(&texts[i % texts.len()]))));
        }
    });
    (ns / n as f64, n as u64)
}

fn intern_child(job: &Job, ctx: &Ctx, out: &mut ChildOutput) {
    let declared: Vec<String> = keywords::long_keywords().iter().map(|s| s.to_string()).collect();
    let twins = keywords::undeclared_twins();
    let n = interns_per_round(ctx.scale);
    match job.param.as_str() {
        GLOBAL => {
            let held: Vec<Atom> = twins.iter().map(|t| Atom::from(t.as_str())).collect();
            if declared.iter().any(|t| !Atom::from(t.as_str()).is_declared()) || held.iter().any(Atom::is_declared) {
                out.fail("a declared text did not give its static atom, or a twin did".into());
            }
            alternate(out, || interns(&declared, n, |t| Atom::from(t)), || interns(&twins, n, |t| Atom::from(t)));
            drop(held);
        }
        LOCAL => {
            let table = AtomTable::new();
            let held: Vec<Atom> = twins.iter().map(|t| table.intern(t)).collect();
            if declared.iter().any(|t| Some(table.intern(t)) != kw::SET.get(t)) {
                out.fail("a local table's atom of a declared text is not the static atom".into());
            }
            alternate(out, || interns(&declared, n, |t| table.intern(t)), || interns(&twins, n, |t| table.intern(t)));
            drop(held);
        }
        other => panic!("unknown intern table {other}"),
    }
}

/// Runs the two start-up binaries in turn (fresh processes, order flipping) and records
/// each variant's median first global-table use, second use and intern pass.
fn start_up_child(ctx: &Ctx, out: &mut ChildOutput) {
    let mut figures: Vec<Vec<static_crates::StartUp>> = vec![Vec::new(), Vec::new()];
    for round in 0..start_up_runs(ctx.scale) {
        for k in 0..2 {
            let v = if round % 2 == 0 { k } else { 1 - k };
            match static_crates::run(VARIANTS[v].0) {
                Ok(s) => figures[v].push(s),
                Err(e) => {
                    out.fail(e);
                    return;
                }
            }
        }
    }
    for (v, (name, declares)) in VARIANTS.iter().enumerate() {
        let tag = if *declares { "with" } else { "without" };
        let runs = &figures[v];
        let want = if *declares { SET_TEXTS } else { 0 };
        if runs.iter().any(|s| s.set_len != want || s.declared != want) {
            out.fail(format!("{name}: the set was not linked and filed as expected"));
        }
        for (fig, get) in [
            ("first_use_ns", (|s: &static_crates::StartUp| s.first_use_ns) as fn(&static_crates::StartUp) -> f64),
            ("second_use_ns", |s| s.second_use_ns),
            ("intern_pass_ns", |s| s.intern_pass_ns),
        ] {
            let mut v: Vec<f64> = runs.iter().map(get).collect();
            if let Some(m) = median(&mut v) {
                out.fig(&format!("{tag}_{fig}"), m);
            }
        }
    }
}

/// One clean build of each generated crate (dynatom prebuilt), the order picked by the
/// process id so that repetitions alternate.
fn build_child(out: &mut ChildOutput) {
    let first = (std::process::id() % 2) as usize;
    for k in 0..2 {
        let (name, declares) = VARIANTS[(first + k) % 2];
        match static_crates::rebuild(name) {
            Ok(s) => out.fig(if declares { "with_s" } else { "without_s" }, s),
            Err(e) => out.fail(e),
        }
    }
    if let (Some(w), Some(wo)) = (out.figures.get("with_s"), out.figures.get("without_s")) {
        let extra = w - wo;
        out.fig("extra_s", extra);
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    match job.corpus.as_str() {
        DISPATCH => dispatch_child(job, ctx, &mut out),
        INTERN => intern_child(job, ctx, &mut out),
        START_UP => start_up_child(ctx, &mut out),
        BUILD => build_child(&mut out),
        other => panic!("unknown static-atoms group {other}"),
    }
    out
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let long = keywords::long_keywords();
    rep.begin_suite(
        "static-atoms",
        "Static atoms (`static_atoms!`)",
        &format!(
            "A set of {} keywords (JavaScript/TypeScript, Rust, Python; {} longer than 7 bytes: {}) \
             declared with `static_atoms!`. *Dispatch*: a token stream of {} tokens, {:.0}% keywords and the \
             rest drawn from {} identifiers, each token mapped to its kind by a `match` over the 50 \
             keywords; with atom input the static way is `match` on the static atoms and the baseline \
             `match` on `atom.as_str()`; with text input the static way is `SET.get(text)` then `match` \
             on the atom, the baseline `match` on the `&str`. ns per token. *Intern*: the {} long keywords \
             interned (and each atom dropped) against a hit of a held atom of a same-length text declared \
             nowhere, in the global table (`Atom::from`) and in a local `AtomTable::new()`; ns per intern. \
             Each child alternates the two ways for {ROUNDS} rounds and reports each way's median round; \
             medians over child processes here. Ratio = baseline ÷ static (above 1: the static way is faster).",
            keywords::TEXTS.len(),
            long.len(),
            long.join(", "),
            stream_len(ctx.scale),
            keywords::KEYWORD_SHARE * 100.0,
            keywords::IDENTIFIERS,
            long.len(),
        ),
    );
    let mut t = Table::new(&["operation", "input", "static way ns", "baseline ns", "baseline ÷ static"]);
    let rows = [(DISPATCH, ATOM_INPUT), (DISPATCH, TEXT_INPUT), (INTERN, GLOBAL), (INTERN, LOCAL)];
    for (group, param) in rows {
        let j = Job::new(PEER, group, param);
        let cell = |fig: &str| match r.error(&j) {
            Some(_) => "wrong ✗".to_string(),
            None => fmt_num(r.median(&j, fig)),
        };
        t.row(vec![
            group.into(),
            param.into(),
            cell("static_ns"),
            cell("baseline_ns"),
            r.median(&j, "baseline_over_static").map_or("—".into(), |x| format!("{x:.2}×")),
        ]);
    }
    rep.table(&t);
    let ratio_target = |rep: &mut Report, group: &str, param: &str, what: &str, strict: bool| {
        let j = Job::new(PEER, group, param);
        let ratio = r.median(&j, "baseline_over_static");
        let mut met = Some(true);
        combine(&mut met, ratio.map(|x| if strict { x > 1.0 } else { x >= 1.0 }));
        rep.target(
            what,
            format!(
                "{}× ({} vs {} ns)",
                fmt_num(ratio),
                fmt_num(r.median(&j, "static_ns")),
                fmt_num(r.median(&j, "baseline_ns"))
            ),
            met,
        );
    };
    ratio_target(
        rep,
        DISPATCH,
        ATOM_INPUT,
        "static-atoms dispatch on 50 keywords, atom input: `match` on static atoms faster than `match` on `as_str()` (timed)",
        true,
    );
    ratio_target(
        rep,
        DISPATCH,
        TEXT_INPUT,
        "static-atoms dispatch from raw text: `SET.get` then `match` no slower than `match` on `&str` (timed)",
        false,
    );
    ratio_target(
        rep,
        INTERN,
        GLOBAL,
        "static-atoms: global intern of a declared text no slower than a hit of a held atom (timed)",
        false,
    );
    start_up_report(r, rep);
    build_report(r, rep);
}

fn start_up_report(r: &Results, rep: &mut Report) {
    let j = Job::new(PEER, START_UP, SET_PARAM);
    rep.heading("Start-up and build of a 10,000-text set");
    let m = |fig: &str| r.median(&j, fig);
    let us = |v: Option<f64>| fmt_num(v.map(|x| x / 1000.0));
    let mut t = Table::new(&["binary", "first `AtomTable::global()` µs", "second µs", "intern the 10,000 texts µs"]);
    for (name, declares) in VARIANTS {
        let tag = if declares { "with" } else { "without" };
        t.row(vec![
            format!("`{name}`"),
            us(m(&format!("{tag}_first_use_ns"))),
            us(m(&format!("{tag}_second_use_ns"))),
            us(m(&format!("{tag}_intern_pass_ns"))),
        ]);
    }
    rep.para(&format!(
        "Two generated crates (under `target/static-atoms-crates`) hold the same {SET_TEXTS} identifier-like \
         texts (8 to ~30 bytes, so every one is a declared key filed in the global table); one declares \
         them with `static_atoms!`. Each run is a fresh process timing its first `AtomTable::global()` (where \
         the linked sets are filed), a second one, and `Atom::from` of all {SET_TEXTS} texts (misses that \
         file them without the set, hits of immortal entries with it). Medians over runs and child processes."
    ));
    rep.table(&t);
    let with = m("with_first_use_ns");
    let without = m("without_first_use_ns");
    let pass = m("without_intern_pass_ns");
    let mut met = Some(true);
    let figure = match (with, without, pass) {
        (Some(w), Some(wo), Some(p)) => {
            let extra = w - wo;
            combine(&mut met, Some(extra <= p));
            format!(
                "first global-table use {} µs with the set vs {} µs without: +{} µs, {} ns per text; \
                 one intern pass over the texts without the set {} µs ({} ns per text); second use {} vs {} ns",
                fmt_num(Some(w / 1000.0)),
                fmt_num(Some(wo / 1000.0)),
                fmt_num(Some(extra / 1000.0)),
                fmt_num(Some(extra / SET_TEXTS as f64)),
                fmt_num(Some(p / 1000.0)),
                fmt_num(Some(p / SET_TEXTS as f64)),
                fmt_num(m("with_second_use_ns")),
                fmt_num(m("without_second_use_ns")),
            )
        }
        _ => {
            combine(&mut met, None);
            r.error(&j).map_or("not measured".into(), |e| format!("not measured: {e}"))
        }
    };
    rep.target(
        "static-atoms start-up: registering a 10,000-text set costs at most one pass over the texts \
         (extra first global-table use ≤ interning them once without the set), once per process",
        figure,
        met,
    );
}

fn build_report(r: &Results, rep: &mut Report) {
    let j = Job::new(PEER, BUILD, SET_PARAM);
    let m = |fig: &str| r.median(&j, fig);
    rep.para(&format!(
        "Build: wall seconds of `cargo build --release --offline` of each generated crate after touching \
         its `main.rs` (a clean build of that crate alone: dynatom and its dependencies prebuilt in the \
         crates' own target folder), one build of each per child. With the set: {} s; without: {} s; the \
         set adds {} s (median over children of each child's difference).",
        fmt_num(m("with_s")),
        fmt_num(m("without_s")),
        fmt_num(m("extra_s"))
    ));
    let extra = m("extra_s");
    let mut met = Some(true);
    combine(&mut met, extra.map(|x| x <= 10.0));
    rep.target(
        "static-atoms build: a set of 10,000 texts adds at most 10 s to a clean build",
        match extra {
            Some(x) => format!("+{} s ({} vs {} s)", fmt_num(Some(x)), fmt_num(m("with_s")), fmt_num(m("without_s"))),
            None => r.error(&j).map_or("not measured".into(), |e| format!("not measured: {e}")),
        },
        met,
    );
}
