//! Suite `intern-global`: `Atom::from` (dynatom's global table) against the global / concurrent
//! interners, on one thread, on two (where there are more than two cores) and on every core:
//! ns per token of the whole token stream, starting from an empty table (a fresh process per
//! repetition).

use super::{from_own_offset, prefilled_looks, time_ns, time_threads, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::peers::{self, GlobalInterner, GlobalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::collections::HashSet;

pub const SUITE: SuiteDef = SuiteDef {
    name: "intern-global",
    about: "global interners, 1 thread and all cores",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

/// 1 thread, 2 threads and every core.
fn thread_params(ctx: &Ctx) -> Vec<String> {
    let mut v = vec!["threads=1".to_string()];
    if ctx.cores > 2 {
        v.push("threads=2".to_string());
    }
    if ctx.cores > 1 {
        v.push(format!("threads={}", ctx.cores));
    }
    v
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for corpus in ctx.corpora() {
        for t in thread_params(ctx) {
            for peer in peers::GLOBAL {
                v.push(Job::new(peer, &corpus, &t));
            }
        }
    }
    v
}

struct Run<'a> {
    tokens: &'a [&'a str],
    distinct: &'a [&'a str],
    threads: usize,
    /// Intern (and hold) every distinct string before the clock starts, so that every
    /// timed intern is a hit.
    prefilled: bool,
}

impl GlobalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let g = G::create();
        let n = self.tokens.len();
        let held: Vec<G::Handle> =
            if self.prefilled { self.distinct.iter().map(|s| g.intern(s)).collect() } else { Vec::new() };
        let handles = if self.threads <= 1 {
            let mut handles = Vec::with_capacity(n);
            let ((), ns) = time_ns(|| {
                for t in self.tokens {
                    handles.push(g.intern(t));
                }
            });
            out.fig("ns_per_token", ns / n as f64);
            handles
        } else {
            // Every thread interns the whole stream from its own starting point, so
            // they race to insert the same new strings; ns per token = wall time over
            // all tokens of all threads.
            let (g, tokens, threads) = (&g, self.tokens, self.threads);
            let (mut all, ns) = time_threads(
                threads,
                |_| vec![None; n],
                |i, mut handles| {
                    for k in from_own_offset(i, threads, n) {
                        handles[k] = Some(g.intern(tokens[k]));
                    }
                    handles
                },
            );
            out.fig("ns_per_token", ns / (n * self.threads) as f64);
            all.swap_remove(0).into_iter().map(|h| h.expect("every token interned")).collect()
        };
        check(&g, &handles, self.tokens, self.distinct.len(), &mut out);
        drop(handles);
        drop(held);
        out
    }
}

/// A wrong answer must not win: equal strings share a handle, different ones do not,
/// and every handle reads back its own token.
pub fn check<G: GlobalInterner>(g: &G, handles: &[G::Handle], tokens: &[&str], distinct: usize, out: &mut ChildOutput) {
    let set: HashSet<&G::Handle> = handles.iter().collect();
    if set.len() != distinct {
        out.fail(format!("{} distinct handles for {distinct} distinct strings", set.len()));
    }
    if let Some(i) = (0..tokens.len()).find(|&i| g.resolve(&handles[i]) != tokens[i]) {
        out.fail(format!("token {i} does not round-trip"));
    }
}

/// One cell: `job.peer` (any global interner, the never-freeing ones included, which the
/// `scaling` suite runs too) on `job.corpus` at `job.param` = `threads=N`; with
/// `,prefilled` the table holds every distinct string before the clock starts, and with
/// `,prefilled,looks` the threads look the tokens up instead of interning them (see
/// [`prefilled_looks`]).
pub fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let corpus = ctx.load_corpus(&job.corpus);
    let tokens = corpus.token_strs();
    let distinct: Vec<&str> = corpus.distinct.iter().map(String::as_str).collect();
    let (threads, mode) = job.param.split_once(',').unwrap_or((job.param.as_str(), ""));
    let threads = threads.trim_start_matches("threads=").parse().unwrap_or(1);
    let unknown = || panic!("unknown peer {}", job.peer);
    match mode {
        "prefilled,looks" => {
            let looks = prefilled_looks::Looks { tokens: &tokens, distinct: &distinct, threads };
            peers::visit_any_global(&job.peer, looks).unwrap_or_else(unknown)
        }
        "prefilled" | "" => {
            let run = Run { tokens: &tokens, distinct: &distinct, threads, prefilled: mode == "prefilled" };
            peers::visit_any_global(&job.peer, run).unwrap_or_else(unknown)
        }
        other => panic!("unknown cell mode {other:?} in {}", job.param),
    }
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let params = thread_params(ctx);
    rep.begin_suite(
        "intern-global",
        "Global interners",
        "Intern the whole token stream into a process-global (or shared concurrent) interner that starts \
         empty; ns per token, lower is better. With several threads every thread interns the whole \
         stream from its own offset, and the figure is wall time ÷ (tokens × threads).",
    );
    let mut headers = vec!["corpus".to_string(), "peer".to_string()];
    for p in &params {
        headers.push(format!("{p} ns/token"));
        headers.push("vs dynatom".into());
    }
    let mut t = Table::new(&headers);
    let dynatom = peers::GLOBAL[0];
    for corpus in ctx.corpora() {
        for peer in peers::GLOBAL {
            let mut row = vec![corpus.clone(), peer.to_string()];
            for p in &params {
                let job = Job::new(peer, &corpus, p);
                row.push(cell(r, &job, "ns_per_token"));
                row.push(fmt_ratio(
                    r.median(&job, "ns_per_token"),
                    r.median(&Job::new(dynatom, &corpus, p), "ns_per_token"),
                ));
            }
            t.row(row);
        }
    }
    rep.table(&t);
    for (i, p) in params.iter().enumerate() {
        let (need, what) = if i == 0 {
            (1.5, "1 thread, every corpus: dynatom ≥1.5× faster than the fastest global peer".to_string())
        } else if *p == format!("threads={}", ctx.cores) {
            (1.0, "all cores, every corpus: dynatom ahead of every global peer".to_string())
        } else {
            (
                1.0,
                format!(
                    "{} threads, every corpus: dynatom ahead of every global peer",
                    p.trim_start_matches("threads=")
                ),
            )
        };
        let (figure, met) = best_peer_ratios(r, ctx, p, need, i > 0);
        rep.target(&what, figure, met);
    }
}

/// For each corpus, fastest peer ÷ dynatom; met when every ratio clears `need`.
pub fn best_peer_ratios(r: &Results, ctx: &Ctx, param: &str, need: f64, strict: bool) -> (String, Option<bool>) {
    let mut parts = Vec::new();
    let mut met = Some(true);
    for corpus in ctx.corpora() {
        let d = r.median(&Job::new(peers::GLOBAL[0], &corpus, param), "ns_per_token");
        let best = peers::GLOBAL[1..]
            .iter()
            .filter_map(|p| r.median(&Job::new(p, &corpus, param), "ns_per_token").map(|v| (v, *p)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        match (d, best) {
            (Some(d), Some((b, name))) => {
                let ratio = b / d;
                let ok = if strict { ratio > need } else { ratio >= need };
                combine(&mut met, Some(ok));
                parts.push(format!("{corpus} {ratio:.2}× vs {name} ({} vs {} ns)", fmt_num(Some(d)), fmt_num(Some(b))));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{corpus} not measured"));
            }
        }
    }
    (parts.join("; "), met)
}
