//! Suite `intern-local`: single-owner interners. Fill a fresh interner with every distinct string
//! once; intern the token stream into another fresh one (first occurrences insert, the
//! rest hit), intern it again (all hits), look every token up (present keys), resolve
//! every symbol: ns per string or token for each phase. Each child also resolves the same
//! symbols through the baseline of the resolve target, a `Vec` of spans plus one
//! chunk lookup. The dynatom rows are `AtomTable::new()` and `Interner`; adding another
//! local type is one adapter plus one entry in `peers::LOCAL`.

use super::{time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::peers::{self, LocalInterner, LocalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, pairwise_target, Report, Table};
use std::collections::HashSet;
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "intern-local",
    about: "single-owner interners",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const PHASES: &[(&str, &str)] = &[
    ("fill_ns", "fill"),
    ("intern_ns", "intern"),
    ("hits_ns", "intern hits"),
    ("lookup_ns", "lookup"),
    ("resolve_ns", "resolve"),
];

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for corpus in ctx.corpora() {
        for peer in peers::LOCAL {
            v.push(Job::new(peer, &corpus, "-"));
        }
    }
    v
}

struct Run<'a> {
    tokens: &'a [&'a str],
    distinct: &'a [String],
}

impl LocalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<L: LocalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let n = self.tokens.len() as f64;

        let mut filled = L::create();
        let (filled_syms, ns) = time_ns(|| self.distinct.iter().map(|s| filled.intern(s)).collect::<Vec<_>>());
        out.fig("fill_ns", ns / self.distinct.len() as f64);
        drop(filled_syms);
        drop(filled);

        let mut table = L::create();
        let mut syms = Vec::with_capacity(self.tokens.len());
        let ((), ns) = time_ns(|| {
            for t in self.tokens {
                syms.push(table.intern(t));
            }
        });
        out.fig("intern_ns", ns / n);

        let mut disagreed = 0usize;
        let ((), ns) = time_ns(|| {
            for (t, s) in self.tokens.iter().zip(&syms) {
                if table.intern(black_box(t)) != *s {
                    disagreed += 1;
                }
            }
        });
        out.fig("hits_ns", ns / n);
        if disagreed > 0 {
            out.fail(format!("{disagreed} re-interned tokens got a different symbol"));
        }

        let mut misses = 0usize;
        let ((), ns) = time_ns(|| {
            for (t, s) in self.tokens.iter().zip(&syms) {
                if table.get(black_box(t)).as_ref() != Some(s) {
                    misses += 1;
                }
            }
        });
        out.fig("lookup_ns", ns / n);
        if misses > 0 {
            out.fail(format!("{misses} lookups of present keys missed or disagreed"));
        }

        let (total, ns) = time_ns(|| syms.iter().map(|s| table.resolve(black_box(s)).len()).sum::<usize>());
        out.fig("resolve_ns", ns / n);
        black_box(total);
        out.fig("baseline_resolve_ns", SpanArena::resolve_ns(self.tokens));

        let set: HashSet<&L::Symbol> = syms.iter().collect();
        if set.len() != self.distinct.len() {
            out.fail(format!("{} distinct symbols for {} distinct strings", set.len(), self.distinct.len()));
        }
        if let Some(i) = (0..syms.len()).find(|&i| table.resolve(&syms[i]) != self.tokens[i]) {
            out.fail(format!("token {i} does not round-trip"));
        }
        drop(syms); // symbols (atoms) before their table
        out
    }
}

/// The resolve target's baseline: strings packed into fixed chunks, and a `Vec` of
/// (chunk, start, end) per symbol; resolving is one `Vec` index plus one chunk lookup.
struct SpanArena {
    chunks: Vec<String>,
    spans: Vec<(u32, u32, u32)>,
}

impl SpanArena {
    const CHUNK: usize = 64 * 1024;

    /// ns per resolve of the symbols of `tokens` (numbered by first occurrence), in
    /// token order, as the suite resolves every peer's symbols.
    fn resolve_ns(tokens: &[&str]) -> f64 {
        let mut arena = SpanArena { chunks: Vec::new(), spans: Vec::new() };
        let mut ids: std::collections::HashMap<&str, u32> = std::collections::HashMap::new();
        let syms: Vec<u32> = tokens.iter().map(|t| *ids.entry(t).or_insert_with(|| arena.push(t))).collect();
        let (total, ns) = time_ns(|| syms.iter().map(|&s| arena.resolve(black_box(s)).len()).sum::<usize>());
        let expected: usize = tokens.iter().map(|t| t.len()).sum();
        assert_eq!(total, expected, "the baseline resolves every token");
        ns / tokens.len() as f64
    }

    fn push(&mut self, s: &str) -> u32 {
        if self.chunks.last().is_none_or(|c| c.capacity() - c.len() < s.len()) {
            self.chunks.push(String::with_capacity(Self::CHUNK.max(s.len())));
        }
        let chunk = self.chunks.last_mut().expect("a chunk was just ensured");
        let start = chunk.len();
        chunk.push_str(s);
        let index = |v: usize| u32::try_from(v).expect("bench corpora fit in u32");
        self.spans.push((index(self.chunks.len() - 1), index(start), index(start + s.len())));
        index(self.spans.len() - 1)
    }

    #[inline]
    fn resolve(&self, sym: u32) -> &str {
        let (chunk, start, end) = self.spans[sym as usize];
        &self.chunks[chunk as usize][start as usize..end as usize]
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let corpus = ctx.load_corpus(&job.corpus);
    let tokens = corpus.token_strs();
    let run = Run { tokens: &tokens, distinct: &corpus.distinct };
    peers::visit_local(&job.peer, run).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "intern-local",
        "Local interners",
        "Interners owned by one thread. *fill*: every distinct string interned once into a fresh \
         interner, ns per string. *intern*: the token stream interned into another fresh one (first \
         occurrences insert, the rest hit), ns per token. *intern hits*: the stream interned again, \
         all present. *lookup*: every token looked up without inserting (all present). *resolve*: \
         every symbol back to its text. Lower is better; ratios against `dynatom AtomTable`. \
         `symbol_table` has no lookup-without-insert, so its lookup column is an intern of a present \
         key. Bytes per distinct string are in the `memory` suite.",
    );
    let mut headers = vec!["corpus".to_string(), "peer".to_string()];
    for (_, label) in PHASES {
        headers.push(format!("{label} ns"));
        headers.push("vs dynatom".into());
    }
    let mut t = Table::new(&headers);
    let reference = peers::LOCAL[0];
    for corpus in ctx.corpora() {
        for peer in peers::LOCAL {
            let job = Job::new(peer, &corpus, "-");
            let mut row = vec![corpus.clone(), peer.to_string()];
            for (fig, _) in PHASES {
                row.push(cell(r, &job, fig));
                row.push(fmt_ratio(r.median(&job, fig), r.median(&Job::new(reference, &corpus, "-"), fig)));
            }
            t.row(row);
        }
    }
    rep.table(&t);

    for (fig, label) in [("intern_ns", "intern"), ("lookup_ns", "get (lookup)")] {
        speed_target(r, rep, fig, label);
    }
    resolve_target(r, ctx, rep);
}

/// The local interners' speed target: on identifiers and keys, the fastest dynatom type
/// ≥1.2× faster than the fastest peer at `fig`.
fn speed_target(r: &Results, rep: &mut Report, fig: &str, label: &str) {
    let mut parts = Vec::new();
    let mut met = Some(true);
    for corpus in ["identifiers", "keys"] {
        let median = |p: &str| r.median(&Job::new(p, corpus, "-"), fig).map(|v| (v, p.to_string()));
        let is_dynatom = |p: &&&str| p.starts_with("dynatom");
        let best_ours =
            peers::LOCAL.iter().filter(is_dynatom).filter_map(|p| median(p)).min_by(|a, b| a.0.total_cmp(&b.0));
        let best_peer =
            peers::LOCAL.iter().filter(|p| !is_dynatom(p)).filter_map(|p| median(p)).min_by(|a, b| a.0.total_cmp(&b.0));
        match (best_ours, best_peer) {
            (Some((d, dn)), Some((b, bn))) => {
                let ratio = b / d;
                combine(&mut met, Some(ratio >= 1.2));
                let others: Vec<String> = peers::LOCAL
                    .iter()
                    .filter(is_dynatom)
                    .filter(|p| **p != dn)
                    .filter_map(|p| median(p).map(|(v, _)| format!("{p} {:.2}×", b / v)))
                    .collect();
                parts.push(format!(
                    "{corpus}: {dn} {ratio:.2}× vs {bn} ({} vs {} ns; {})",
                    fmt_num(Some(d)),
                    fmt_num(Some(b)),
                    others.join(", ")
                ));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{corpus}: not measured"));
            }
        }
    }
    rep.target(
        &format!("{label} ≥1.2× faster than the fastest local peer on identifiers and keys (fastest dynatom type)"),
        parts.join("; "),
        met,
    );
}

/// The resolve target: `Interner::resolve` no slower than a `Vec` index plus one chunk lookup,
/// timed in the same child on the same symbols, every corpus.
fn resolve_target(r: &Results, ctx: &Ctx, rep: &mut Report) {
    const OURS: &str = "dynatom Interner";
    pairwise_target(
        rep,
        &format!("{OURS} resolve no slower than a `Vec` index plus one chunk lookup (same child, same symbols)"),
        &ctx.corpora(),
        "ns",
        |corpus| {
            let job = Job::new(OURS, corpus, "-");
            (r.median(&job, "resolve_ns"), r.median(&job, "baseline_resolve_ns"))
        },
        |ours, baseline| ours <= baseline,
    );
}
