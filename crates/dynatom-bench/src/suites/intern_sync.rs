//! Suite: interners shared by threads, and the read-only readers they freeze into (`Resolver` against
//! `RodeoReader`). On 1, 2 and all threads, every thread runs the whole token stream from
//! its own offset: intern (into a table that starts empty, so threads race to insert the
//! same new strings), look up, resolve; then the same lookups and resolves on the frozen
//! reader. Besides wall time per operation, each thread times batches of
//! [`BATCH`] operations, and the batches' per-operation times give the percentiles.

use super::{quantile, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::peers::{self, SharedInterner, SharedVisitor};
use crate::report::{cell, fmt_ratio, Report, Table};
use std::collections::HashSet;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::Instant;

pub const SUITE: SuiteDef = SuiteDef {
    name: "intern-sync",
    about: "interners shared by threads, and their frozen readers",
    reps_full: 3,
    reps_quick: 2,
    jobs,
    child,
    report,
};

/// Operations per timed batch: short enough for percentiles to show stalls, long enough
/// that reading the clock (tens of ns here) adds under a nanosecond per operation.
const BATCH: usize = 32;

/// The interner's phases, then the frozen reader's.
const SHARED_PHASES: &[(&str, &str)] = &[("intern", "intern"), ("get", "get"), ("resolve", "resolve")];
const READER_PHASES: &[(&str, &str)] = &[("reader_get", "get"), ("reader_resolve", "resolve")];

fn thread_params(ctx: &Ctx) -> Vec<String> {
    let mut counts = vec![1, 2, ctx.cores];
    counts.sort_unstable();
    counts.dedup();
    counts.into_iter().map(|t| format!("threads={t}")).collect()
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for corpus in ctx.corpora() {
        for t in thread_params(ctx) {
            for peer in peers::SHARED {
                v.push(Job::new(peer, &corpus, &t));
            }
        }
    }
    v
}

/// Wall time per operation and the per-operation time of batches, pooled over threads.
struct Timing {
    ns_per_op: f64,
    batch_ns: Vec<f64>,
}

impl Timing {
    fn record(&self, phase: &str, out: &mut ChildOutput) {
        let mut sorted = self.batch_ns.clone();
        sorted.sort_by(f64::total_cmp);
        out.fig(&format!("{phase}_ns"), self.ns_per_op);
        out.fig(&format!("{phase}_p50"), quantile(&sorted, 0.50));
        out.fig(&format!("{phase}_p99"), quantile(&sorted, 0.99));
        out.fig(&format!("{phase}_p999"), quantile(&sorted, 0.999));
    }
}

/// What one thread of [`run_phase`] hands back: its results by index, its batches'
/// per-operation times, and when it started and ended its work.
struct Worker<R> {
    results: Vec<Option<R>>,
    batch_ns: Vec<f64>,
    began: Instant,
    ended: Instant,
}

/// Runs `op` over every index of `0..n` on each of `threads` threads, each starting at its
/// own offset; returns every thread's results by index, and the timing. The result
/// vectors are written through before the clock starts, so no page is first touched
/// (faulted in) while timing.
fn run_phase<R: Send>(threads: usize, n: usize, op: &(dyn Fn(usize) -> R + Sync)) -> (Vec<Vec<Option<R>>>, Timing) {
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let barrier = &barrier;
                s.spawn(move || {
                    let start = i * n / threads;
                    let order: Vec<usize> = (start..n).chain(0..start).collect();
                    let mut results: Vec<Option<R>> = std::iter::repeat_with(|| None).take(n).collect();
                    let mut batch_ns = vec![0.0; order.len().div_ceil(BATCH)];
                    barrier.wait();
                    let began = Instant::now();
                    for (batch, ns) in order.chunks(BATCH).zip(&mut batch_ns) {
                        let t = Instant::now();
                        for &k in batch {
                            results[k] = Some(op(k));
                        }
                        *ns = t.elapsed().as_nanos() as f64 / batch.len() as f64;
                    }
                    Worker { results, batch_ns, began, ended: Instant::now() }
                })
            })
            .collect();
        barrier.wait();
        let joined: Vec<_> = workers.into_iter().map(|w| w.join().expect("worker")).collect();
        // Wall time from the first worker's start to the last one's end, read by the
        // workers themselves: a clock read by this (coordinating) thread could start
        // late when it is descheduled after the barrier, with every core busy.
        let first = joined.iter().map(|w| w.began).min().expect("at least one worker");
        let last = joined.iter().map(|w| w.ended).max().expect("at least one worker");
        let ns_per_op = last.duration_since(first).as_nanos() as f64 / (n * threads) as f64;
        let (results, batches): (Vec<_>, Vec<_>) = joined.into_iter().map(|w| (w.results, w.batch_ns)).unzip();
        (results, Timing { ns_per_op, batch_ns: batches.concat() })
    })
}

struct Run<'a> {
    tokens: &'a [&'a str],
    distinct: usize,
    threads: usize,
}

impl SharedVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<S: SharedInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let (tokens, n, threads) = (self.tokens, self.tokens.len(), self.threads);
        let shared = S::create();

        let (interned, timing) = run_phase(threads, n, &|k| shared.intern(tokens[k]));
        timing.record("intern", &mut out);
        let syms: Vec<S::Symbol> = interned[0].iter().map(|s| s.expect("every token interned")).collect();
        let syms = &syms;
        if interned.iter().any(|other| other.iter().zip(syms).any(|(o, s)| o.as_ref() != Some(s))) {
            out.fail("threads got different symbols for the same text".into());
        }
        let distinct: HashSet<&S::Symbol> = syms.iter().collect();
        if distinct.len() != self.distinct {
            out.fail(format!("{} distinct symbols for {} distinct strings", distinct.len(), self.distinct));
        }

        let (found, timing) = run_phase(threads, n, &|k| shared.get(black_box(tokens[k])));
        timing.record("get", &mut out);
        check_found(&found, syms, &mut out);
        let (lens, timing) = run_phase(threads, n, &|k| shared.resolve(black_box(syms[k])).len());
        timing.record("resolve", &mut out);
        check_lengths(&lens, tokens, &mut out);
        if let Some(i) = (0..n).find(|&i| shared.resolve(syms[i]) != tokens[i]) {
            out.fail(format!("token {i} does not round-trip"));
        }

        let reader = shared.freeze();
        let (found, timing) = run_phase(threads, n, &|k| S::reader_get(&reader, black_box(tokens[k])));
        timing.record("reader_get", &mut out);
        check_found(&found, syms, &mut out);
        let (lens, timing) = run_phase(threads, n, &|k| S::reader_resolve(&reader, black_box(syms[k])).len());
        timing.record("reader_resolve", &mut out);
        check_lengths(&lens, tokens, &mut out);
        out
    }
}

fn check_found<Sym: PartialEq>(found: &[Vec<Option<Option<Sym>>>], syms: &[Sym], out: &mut ChildOutput) {
    let wrong = found
        .iter()
        .flatten()
        .zip(syms.iter().cycle())
        .filter(|(f, s)| f.as_ref().and_then(Option::as_ref) != Some(s))
        .count();
    if wrong > 0 {
        out.fail(format!("{wrong} lookups of present keys missed or disagreed"));
    }
}

fn check_lengths(lens: &[Vec<Option<usize>>], tokens: &[&str], out: &mut ChildOutput) {
    let wrong = lens.iter().flatten().zip(tokens.iter().cycle()).filter(|(l, t)| **l != Some(t.len())).count();
    if wrong > 0 {
        out.fail(format!("{wrong} resolves gave the wrong text"));
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let corpus = ctx.load_corpus(&job.corpus);
    let tokens = corpus.token_strs();
    let threads = job.param.trim_start_matches("threads=").parse().unwrap_or(1);
    let run = Run { tokens: &tokens, distinct: corpus.distinct.len(), threads };
    peers::visit_shared(&job.peer, run).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

/// "ns (p50 / p99)" for one phase of one cell.
fn timing_cell(r: &Results, job: &Job, phase: &str) -> String {
    format!(
        "{} ({} / {})",
        cell(r, job, &format!("{phase}_ns")),
        cell(r, job, &format!("{phase}_p50")),
        cell(r, job, &format!("{phase}_p99"))
    )
}

fn phase_table(r: &Results, ctx: &Ctx, phases: &[(&str, &str)], name_of: impl Fn(&str) -> String) -> Table {
    let mut headers = vec!["corpus".to_string(), "threads".to_string(), "peer".to_string()];
    for (_, label) in phases {
        headers.push(format!("{label} ns/op (p50 / p99)"));
        headers.push("vs dynatom".into());
    }
    let mut t = Table::new(&headers);
    let dynatom = peers::SHARED[0];
    for corpus in ctx.corpora() {
        for param in thread_params(ctx) {
            for peer in peers::SHARED {
                let job = Job::new(peer, &corpus, &param);
                let reference = Job::new(dynatom, &corpus, &param);
                let mut row = vec![corpus.clone(), param.trim_start_matches("threads=").to_string(), name_of(peer)];
                for (phase, _) in phases {
                    let fig = format!("{phase}_ns");
                    row.push(timing_cell(r, &job, phase));
                    row.push(fmt_ratio(r.median(&job, &fig), r.median(&reference, &fig)));
                }
                t.row(row);
            }
        }
    }
    t
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "intern-sync",
        "Shared interners",
        "An interner shared by 1, 2 and all threads; every thread runs the whole token stream from its \
         own offset. Intern starts from an empty table, so the threads race to insert the same new \
         strings; then every token is looked up (`get`, all present) and every symbol resolved; then \
         the interner is frozen into its read-only reader, which does the lookups and resolves again. \
         ns/op = wall time ÷ (tokens × threads); p50 / p99 are percentiles of the per-operation time \
         of batches of 32 operations, pooled over threads (medians of repetitions). Ratios = peer ÷ \
         dynatom.",
    );
    rep.heading("While shared (`SyncInterner` vs `ThreadedRodeo`)");
    let t = phase_table(r, ctx, SHARED_PHASES, |peer| peer.to_string());
    rep.table(&t);
    rep.heading("Frozen readers (`Resolver` vs `RodeoReader`)");
    let t = phase_table(r, ctx, READER_PHASES, reader_name);
    rep.table(&t);
}

fn reader_name(peer: &str) -> String {
    struct Name;
    impl SharedVisitor for Name {
        type Out = &'static str;
        fn visit<S: SharedInterner>(self) -> &'static str {
            S::READER_NAME
        }
    }
    peers::visit_shared(peer, Name).unwrap_or("?").to_string()
}
