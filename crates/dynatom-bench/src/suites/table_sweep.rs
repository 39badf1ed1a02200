//! Suite `table-sweep`: how every global interner fares as its table grows. For each size N,
//! a fresh child interns N distinct keys once each (every one a miss) and then N hits drawn
//! Zipf-skewed over them (`corpus::key_sweep`, fixed seed), and measures two things over
//! that one loop: ns per intern (misses and hits together), and resident bytes per atom
//! beyond the characters (the `RssAnon` delta after `malloc_trim(0)`, the memory suite's
//! measure; see `resident.rs`).

use super::{time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::charts::{self, LineChart, Series};
use crate::corpus::Scale;
use crate::peers::{self, GlobalInterner, GlobalVisitor};
use crate::report::{cell, combine, fmt_num, pairwise_target, Report, Table};
use crate::resident::{per_atom_beyond_chars, prefault_spare_capacity, resident_anon_bytes, PackedTexts};

pub const SUITE: SuiteDef = SuiteDef {
    name: "table-sweep",
    about: "global interners at table sizes 1 k to 1 M keys",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

/// The cells' corpus name: every cell interns keys, only their number changes.
const CORPUS: &str = "keys";

/// Distinct keys per table; `--quick` stops at 30 k so the suite stays well under a minute.
fn sizes(scale: Scale) -> &'static [usize] {
    match scale {
        Scale::Full => &[1_000, 10_000, 30_000, 100_000, 300_000, 1_000_000],
        Scale::Quick => &[1_000, 10_000, 30_000],
    }
}

/// The smallest size the speed target covers: below it the whole table fits in L1/L2 and
/// the project sets no bar there.
const TIMED_TARGET_FROM: usize = 10_000;

/// The never-freeing interner whose resident bytes per atom are the memory target's bar.
const MEMORY_BAR: &str = "internment Intern";

/// The largest size string_cache is run at. Its dynamic set keeps a fixed 4096 bucket
/// chains, so an intern walks a chain of N/4096 entries: at 1 M keys one cell took about
/// 140 s (46 µs per intern), five repetitions about 12 minutes of the main job, for a
/// peer already two orders of magnitude off the fastest at 300 k.
const STRING_CACHE_UP_TO: usize = 300_000;

/// Whether `peer` runs at `n` distinct keys (see [`STRING_CACHE_UP_TO`]).
fn runs_at(peer: &str, n: usize) -> bool {
    peer != <peers::global::StringCachePeer as GlobalInterner>::NAME || n <= STRING_CACHE_UP_TO
}

fn param(n: usize) -> String {
    format!("distinct={n}")
}

/// The distinct keys of a cell, from its [`param`].
fn size_of(job: &Job) -> usize {
    job.param
        .strip_prefix("distinct=")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("bad table-sweep parameter {:?}", job.param))
}

/// `1 k`, `30 k`, `1 M`: the sizes as the tables and targets name them.
fn size_label(n: usize) -> String {
    if n >= 1_000_000 && n.is_multiple_of(1_000_000) {
        format!("{} M", n / 1_000_000)
    } else if n >= 1_000 && n.is_multiple_of(1_000) {
        format!("{} k", n / 1_000)
    } else {
        n.to_string()
    }
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for &n in sizes(ctx.scale) {
        for peer in peers::all_global().into_iter().filter(|p| runs_at(p, n)) {
            v.push(Job::new(peer, CORPUS, &param(n)));
        }
    }
    v
}

struct Run<'a> {
    tokens: &'a [&'a str],
    distinct: &'a [&'a str],
}

impl GlobalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        // Resident before the first reading, so the resident delta leaves the handles out.
        let mut handles = Vec::with_capacity(self.tokens.len());
        prefault_spare_capacity(&mut handles);
        let resident_before = resident_anon_bytes();
        // Made inside the resident window (what it allocates is the interner's), outside
        // the clock (as in `intern-global`).
        let g = G::create();
        let ((), ns) = time_ns(|| {
            for t in self.tokens {
                handles.push(g.intern(t));
            }
        });
        let resident_after = resident_anon_bytes();
        out.fig("ns_per_intern", ns / self.tokens.len() as f64);
        let chars = self.distinct.iter().map(|s| s.len()).sum();
        if let Some(per_atom) = per_atom_beyond_chars(resident_before, resident_after, self.distinct.len(), chars) {
            out.fig("resident_per_atom", per_atom);
        }
        super::intern_global::check(&g, &handles, self.tokens, self.distinct.len(), &mut out);
        drop(handles);
        out
    }
}

fn child(job: &Job, _ctx: &Ctx) -> ChildOutput {
    let n = size_of(job);
    // The corpus's own allocations are freed before any reading (see `resident.rs`).
    let (packed, token_ids) = {
        let corpus = crate::corpus::key_sweep(n);
        (PackedTexts::new(corpus.distinct.iter().map(String::as_str)), corpus.tokens)
    };
    let distinct = packed.strs();
    let tokens: Vec<&str> = token_ids.iter().map(|&t| distinct[t as usize]).collect();
    drop(token_ids);
    let run = Run { tokens: &tokens, distinct: &distinct };
    peers::visit_any_global(&job.peer, run).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

/// The best of the other global peers at size `n` for a lower-is-better figure, with its name.
fn best_peer(r: &Results, n: usize, figure: &str) -> Option<(f64, &'static str)> {
    peers::all_global()[1..]
        .iter()
        .filter_map(|p| r.median(&Job::new(p, CORPUS, &param(n)), figure).map(|v| (v, *p)))
        .min_by(|a, b| a.0.total_cmp(&b.0))
}

fn dynatom_median(r: &Results, n: usize, figure: &str) -> Option<f64> {
    r.median(&Job::new(peers::all_global()[0], CORPUS, &param(n)), figure)
}

/// Rows = sizes, one column per peer, then dynatom against the best other peer
/// (best ÷ dynatom: above 1.00× dynatom wins).
fn size_table(r: &Results, ctx: &Ctx, figure: &str) -> Table {
    let mut headers = vec!["distinct keys".to_string()];
    headers.extend(peers::all_global().iter().map(|p| p.to_string()));
    headers.push("best peer ÷ dynatom".into());
    let mut t = Table::new(&headers);
    for &n in sizes(ctx.scale) {
        let mut row = vec![size_label(n)];
        row.extend(peers::all_global().iter().map(|p| cell(r, &Job::new(p, CORPUS, &param(n)), figure)));
        row.push(match (dynatom_median(r, n, figure), best_peer(r, n, figure)) {
            (Some(d), Some((b, name))) if d > 0.0 => format!("{:.2}× ({name})", b / d),
            _ => "—".into(),
        });
        t.row(row);
    }
    t
}

/// One line per peer against table size, both axes log10: the peers lie orders of
/// magnitude apart at small sizes (ustr's up-front tables), which a linear axis flattens.
fn chart(r: &Results, ctx: &Ctx, rep: &mut Report, figure: &str, file: &str, spec: &LineChart) {
    let series: Vec<Series> = peers::all_global()
        .iter()
        .map(|p| Series {
            name: p.to_string(),
            points: sizes(ctx.scale)
                .iter()
                .filter_map(|&n| r.median(&Job::new(p, CORPUS, &param(n)), figure).map(|v| (n as f64, v)))
                // A log axis has no place for a figure ≤ 0; the table still shows it.
                .filter(|&(_, v)| v > 0.0)
                .collect(),
        })
        .collect();
    match charts::lines(&ctx.out_dir.join(file), spec, &series) {
        Ok(()) => rep.chart(file, spec.title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "table-sweep",
        "Table-size sweep",
        "Every global interner at growing table sizes: a fresh process interns N distinct keys \
         (`user:<id>:<kind>`, as the `keys` corpus) once each, then N hits drawn Zipf(s = 1) over \
         them, fixed seed. *ns/intern* = wall time of that whole loop ÷ 2N (lower is better). \
         *resident B/atom* = the growth of the process's resident anonymous memory over the same \
         loop (`RssAnon` of /proc/self/status, each reading after `malloc_trim(0)`, the handles' \
         vector made resident beforehand so it stays out), less the keys' own bytes, ÷ N: the \
         memory suite's *resident* measure. The last column is the best other peer's figure ÷ \
         dynatom's: above 1.00× dynatom is faster (or smaller). string_cache runs up to 300 k \
         keys only: its fixed 4096 bucket chains make one 1 M cell take minutes.",
    );
    rep.heading("ns per intern");
    rep.table(&size_table(r, ctx, "ns_per_intern"));
    chart(
        r,
        ctx,
        rep,
        "ns_per_intern",
        "table-sweep-ns.svg",
        &LineChart {
            title: "Table-size sweep: ns per intern vs distinct keys",
            x_desc: "distinct keys in the table",
            y_desc: "ns per intern (lower is better)",
            log_x: true,
            log_y: true,
        },
    );
    rep.heading("Resident bytes per atom beyond the characters");
    rep.table(&size_table(r, ctx, "resident_per_atom"));
    chart(
        r,
        ctx,
        rep,
        "resident_per_atom",
        "table-sweep-resident.svg",
        &LineChart {
            title: "Table-size sweep: resident bytes per atom vs distinct keys",
            x_desc: "distinct keys in the table",
            y_desc: "resident bytes per atom beyond the characters",
            log_x: true,
            log_y: true,
        },
    );
    speed_target(r, ctx, rep);
    let labels: Vec<String> = sizes(ctx.scale).iter().map(|&n| size_label(n)).collect();
    pairwise_target(
        rep,
        &format!("table sweep: resident bytes per atom ≤ {MEMORY_BAR}'s at every size from 1 k to 1 M"),
        &labels,
        "B",
        |label| {
            let n = sizes(ctx.scale).iter().copied().find(|&n| size_label(n) == label).unwrap_or(0);
            (
                dynatom_median(r, n, "resident_per_atom"),
                r.median(&Job::new(MEMORY_BAR, CORPUS, &param(n)), "resident_per_atom"),
            )
        },
        |ours, bar| ours <= bar,
    );
}

/// No slower than the fastest other global peer at any size from [`TIMED_TARGET_FROM`] up.
fn speed_target(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let timed: Vec<usize> = sizes(ctx.scale).iter().copied().filter(|&n| n >= TIMED_TARGET_FROM).collect();
    let mut parts = Vec::new();
    let mut met = if timed.is_empty() { None } else { Some(true) };
    for n in timed {
        match (dynatom_median(r, n, "ns_per_intern"), best_peer(r, n, "ns_per_intern")) {
            (Some(d), Some((b, name))) => {
                combine(&mut met, Some(b / d >= 1.0));
                parts.push(format!(
                    "{} {:.2}× vs {name} ({} vs {} ns)",
                    size_label(n),
                    b / d,
                    fmt_num(Some(d)),
                    fmt_num(Some(b))
                ));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{} not measured", size_label(n)));
            }
        }
    }
    rep.target(
        "table sweep: dynatom no slower than the fastest global peer at every size from 10 k to 1 M distinct keys",
        parts.join("; "),
        met,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_labelled_as_the_targets_name_them() {
        let labels: Vec<String> = sizes(Scale::Full).iter().map(|&n| size_label(n)).collect();
        assert_eq!(labels, ["1 k", "10 k", "30 k", "100 k", "300 k", "1 M"]);
        assert!(sizes(Scale::Quick).iter().all(|n| sizes(Scale::Full).contains(n)));
    }

    #[test]
    fn every_cell_names_a_global_peer_and_a_size() {
        let ctx = Ctx { scale: Scale::Quick, user_corpus: None, cores: 1, out_dir: std::env::temp_dir() };
        let cells = jobs(&ctx);
        assert_eq!(cells.len(), sizes(Scale::Quick).len() * peers::all_global().len());
        let full = jobs(&Ctx { scale: Scale::Full, ..ctx });
        assert!(full.iter().all(|j| runs_at(&j.peer, size_of(j))));
        assert_eq!(full.len(), sizes(Scale::Full).len() * peers::all_global().len() - 1, "string_cache skips 1 M only");
        assert!(cells.iter().all(|j| peers::all_global().contains(&j.peer.as_str())));
        assert!(peers::all_global().contains(&MEMORY_BAR));
    }

    #[test]
    fn a_child_measures_both_figures_and_checks_the_answers() {
        let ctx = Ctx { scale: Scale::Quick, user_corpus: None, cores: 1, out_dir: std::env::temp_dir() };
        let out = child(&Job::new(peers::all_global()[0], CORPUS, &param(1_000)), &ctx);
        assert_eq!(out.error, None);
        assert!(out.figures.get("ns_per_intern").is_some_and(|v| *v > 0.0), "{:?}", out.figures);
        #[cfg(target_os = "linux")]
        assert!(out.figures.contains_key("resident_per_atom"), "{:?}", out.figures);
    }
}
