//! Suite `fill-latency`: the latency of each intern while a global table fills
//! with 10⁶ distinct strings. A table that doubles a shard all at once stalls the intern
//! that triggers the doubling for the whole rehash; the tail (p99.9, max) shows it. The
//! targets bound dynatom's p99.9 at 10× its median and at 1.2× the best peer's p99.9, and
//! its table's own counters give the worst single insert's work beside them (a proxy no
//! machine's load moves).
//!
//! One cell is one peer in a fresh child (process-global tables start empty); each intern
//! is timed on its own with `Instant`, so every figure includes one clock read (its cost
//! is reported as *clock ns*).

use super::{quantile, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::peers::{self, GlobalInterner, GlobalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::collections::HashSet;
use std::hint::black_box;
use std::time::Instant;

pub const SUITE: SuiteDef = SuiteDef {
    name: "fill-latency",
    about: "per-intern latency while a global table fills with 10^6 distinct strings",
    // A repetition is 10⁶ interns each timed on its own, about 2–3 s per peer on the 2-core
    // development VM: two keep the suite within its 30 s share of the report.
    reps_full: 2,
    reps_quick: 2,
    jobs,
    child,
    report,
};

/// The bound on dynatom's p99.9 ÷ median.
const TAIL_BOUND: f64 = 10.0;

/// The bound on dynatom's p99.9 ÷ the best peer's.
const PEER_TAIL_BOUND: f64 = 1.2;

/// The peer whose table reports its own worst insert.
const DYNATOM: &str = "dynatom Atom";

/// Distinct strings of the fill.
fn fill_len(scale: Scale) -> usize {
    match scale {
        Scale::Full => 1_000_000,
        Scale::Quick => 100_000,
    }
}

/// Distinct keys of 17 bytes (`key-XXXXXXXX-NNNN`): past dynatom's inline atoms.
pub fn fill_keys(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("key-{i:08x}-{:04}", (i as u64).wrapping_mul(2_654_435_761) % 10_000)).collect()
}

/// Every global interner but string_cache, whose dynamic atoms live in a fixed array of
/// 4,096 chained buckets: a 10⁶ fill walks chains of hundreds (one run measured a mean of
/// 94 µs per intern, about 100 s per repetition), which would blow the report's budget.
fn peers_measured() -> Vec<&'static str> {
    let left_out = <peers::global::StringCachePeer as GlobalInterner>::NAME;
    peers::all_global().into_iter().filter(|p| *p != left_out).collect()
}

fn jobs(_: &Ctx) -> Vec<Job> {
    peers_measured().into_iter().map(|p| Job::new(p, "-", "-")).collect()
}

struct Run<'a> {
    keys: &'a [String],
}

impl GlobalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let n = self.keys.len();
        let g = G::create();
        // Everything the loop writes is allocated, and its pages touched, before it starts:
        // the page faults counted over the loop are then the interner's own.
        let mut handles: Vec<G::Handle> = Vec::with_capacity(n);
        handles.spare_capacity_mut().iter_mut().for_each(|spare| *spare = std::mem::MaybeUninit::zeroed());
        black_box(handles.spare_capacity_mut());
        let mut ns = vec![u32::MAX; n];
        let faults_before = minor_faults();
        for (k, slot) in self.keys.iter().zip(ns.iter_mut()) {
            let start = Instant::now();
            let h = g.intern(black_box(k));
            *slot = u32::try_from(start.elapsed().as_nanos()).unwrap_or(u32::MAX);
            handles.push(h);
        }
        let faults = minor_faults().zip(faults_before).map(|(after, before)| after.saturating_sub(before));
        let distinct = handles.iter().collect::<HashSet<_>>().len();
        if distinct != n {
            out.fail(format!("{distinct} distinct handles for {n} distinct strings"));
        }
        if let Some(i) = (0..n).find(|&i| g.resolve(&handles[i]) != self.keys[i]) {
            out.fail(format!("string {i} does not round-trip"));
        }
        let mut sorted: Vec<f64> = ns.iter().map(|&v| f64::from(v)).collect();
        sorted.sort_by(f64::total_cmp);
        let p50 = quantile(&sorted, 0.5);
        out.fig("mean_ns", sorted.iter().sum::<f64>() / n as f64);
        out.fig("p50_ns", p50);
        out.fig("p99_ns", quantile(&sorted, 0.99));
        out.fig("p999_ns", quantile(&sorted, 0.999));
        out.fig("max_ns", *sorted.last().unwrap_or(&f64::NAN));
        out.fig("p999_over_p50", quantile(&sorted, 0.999) / p50);
        out.fig("clock_ns", clock_ns());
        out.fig("faults_per_1000", faults.map_or(f64::NAN, |f| f as f64 * 1000.0 / n as f64));
        if G::NAME == DYNATOM {
            // The counted proxy: what the worst single insert touched, the same on any
            // machine under any load.
            let table = dynatom::AtomTable::global().memory_report();
            out.fig("insert_slots_max", table.max_insert_slots as f64);
            out.fig("insert_bytes_max", table.max_insert_bytes as f64);
        }
        drop(handles);
        out
    }
}

/// The process's minor page faults so far (`/proc/self/stat`, field 10), if readable.
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count from after it.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(7)?.parse().ok()
}

/// Median cost of the timing itself: `Instant::now` and `elapsed` around nothing.
fn clock_ns() -> f64 {
    let mut v: Vec<f64> = (0..10_000)
        .map(|_| {
            let start = Instant::now();
            black_box(());
            start.elapsed().as_nanos() as f64
        })
        .collect();
    super::median(&mut v).unwrap_or(f64::NAN)
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let keys = fill_keys(fill_len(ctx.scale));
    peers::visit_any_global(&job.peer, Run { keys: &keys }).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let n = fill_len(ctx.scale);
    rep.begin_suite(
        "fill-latency",
        "Intern latency during a fill",
        &format!(
            "{n} distinct 17-byte strings (`key-XXXXXXXX-NNNN`) interned one after another into a \
             global interner that starts empty (a fresh process per repetition), each intern timed \
             on its own with `Instant` (so each figure includes one clock read, *clock ns*). \
             Percentiles over the {n} interns of a repetition, medians of repetitions; lower is \
             better; ratios are peer ÷ dynatom. A table that grows all at once shows it in p99.9 and \
             max. *Faults* are the process's minor page faults during the fill per 1,000 interns \
             (`/proc/self/stat`; the loop's own buffers are touched before it starts): an intern \
             that takes one pays the kernel's fault and zeroing of a fresh page, which on a virtual \
             machine costs microseconds, so an interner that faults its pages in one at a time has \
             mostly those interns in its p99 and p99.9. dynatom faults a large table's slabs in by \
             groups (one system call per group, the faults counted all the same): its p99 and p99.9 \
             are the interns that copy a step of a growing shard's old slots. string_cache is left out: its fixed 4,096-bucket chained set makes a fill this size \
             quadratic (about 100 s per repetition)."
        ),
    );
    let all = peers_measured();
    let ours = Job::new(all[0], "-", "-");
    let figures = [("p50_ns", "median ns"), ("p99_ns", "p99 ns"), ("p999_ns", "p99.9 ns"), ("max_ns", "max ns")];
    let mut headers = vec!["peer".to_string()];
    for (_, label) in figures {
        headers.push(label.to_string());
        headers.push("vs dynatom".into());
    }
    headers.extend(["p99.9 ÷ median", "mean ns", "clock ns", "faults / 1000"].map(String::from));
    let mut t = Table::new(&headers);
    for p in &all {
        let j = Job::new(p, "-", "-");
        let mut row = vec![p.to_string()];
        for (f, _) in figures {
            row.push(cell(r, &j, f));
            row.push(fmt_ratio(r.median(&j, f), r.median(&ours, f)));
        }
        row.extend(["p999_over_p50", "mean_ns", "clock_ns", "faults_per_1000"].map(|f| cell(r, &j, f)));
        t.row(row);
    }
    rep.table(&t);
    rep.para(&format!(
        "Counted proxy for the worst intern (dynatom, from its table's own counters; the same on \
         any machine): the most slot words one intern's share of its shard's growth touched was \
         {} (old slots copied, with their probes in the new array; its own probe is the \
         table's probe length), and the largest slot array one \
         intern allocated was {} bytes.",
        fmt_num(r.median(&ours, "insert_slots_max")),
        fmt_num(r.median(&ours, "insert_bytes_max"))
    ));
    let best_peer = all[1..]
        .iter()
        .filter_map(|p| r.median(&Job::new(p, "-", "-"), "p999_ns").map(|v| (*p, v)))
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let (Some((peer, theirs)), Some(mine)) = (best_peer, r.median(&ours, "p999_ns")) {
        rep.target(
            &format!("fill of {n}: dynatom's p99.9 intern latency within {PEER_TAIL_BOUND}× the best peer's p99.9"),
            format!(
                "{}× of {peer}'s ({} vs {} ns)",
                fmt_num(Some(mine / theirs)),
                fmt_num(Some(mine)),
                fmt_num(Some(theirs))
            ),
            Some(mine <= theirs * PEER_TAIL_BOUND),
        );
    }
    let tail = r.median(&ours, "p999_over_p50");
    let mut met = Some(true);
    combine(&mut met, tail.map(|x| x <= TAIL_BOUND));
    rep.target(
        &format!("fill of {n}: dynatom's p99.9 intern latency ≤{TAIL_BOUND}× its median"),
        format!(
            "{}× (p99.9 {} ns, median {} ns, max {} ns; {} page faults per 1,000 interns)",
            fmt_num(tail),
            fmt_num(r.median(&ours, "p999_ns")),
            fmt_num(r.median(&ours, "p50_ns")),
            fmt_num(r.median(&ours, "max_ns")),
            fmt_num(r.median(&ours, "faults_per_1000"))
        ),
        met,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_keys_are_distinct_and_17_bytes() {
        let keys = fill_keys(100_000);
        assert_eq!(keys.iter().collect::<HashSet<_>>().len(), keys.len());
        assert!(keys.iter().all(|k| k.len() == 17), "{:?}", &keys[..3]);
    }

    #[test]
    fn minor_faults_grow_when_fresh_pages_are_touched() {
        let before = minor_faults().expect("/proc/self/stat is readable on Linux");
        // 16 MiB from the system, touched once per page: well past any reuse of freed pages.
        let mut fresh = vec![0u8; 16 << 20];
        for page in fresh.chunks_mut(4096) {
            page[0] = 1;
        }
        black_box(&fresh);
        let after = minor_faults().expect("readable");
        assert!(after >= before + 1000, "{before} -> {after}");
    }

    #[test]
    fn string_cache_alone_is_left_out() {
        let measured = peers_measured();
        assert_eq!(measured.len() + 1, peers::all_global().len());
        assert!(!measured.contains(&"string_cache"));
        assert_eq!(measured[0], "dynatom Atom");
    }
}
