//! Suite 2: single-owner interners. Intern the token stream, then look every token up
//! again (present keys), then resolve every symbol: ns per token for each phase.
//! The dynatom rows are `AtomTable::new()` and `Interner`; adding another local type
//! is one adapter plus one entry in `peers::LOCAL`.

use super::{time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::peers::{self, LocalInterner, LocalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::collections::HashSet;
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef { name: "intern-local", reps_full: 5, reps_quick: 3, jobs, child, report };

const PHASES: &[(&str, &str)] = &[("intern_ns", "intern"), ("lookup_ns", "lookup"), ("resolve_ns", "resolve")];

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
    distinct: usize,
}

impl LocalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<L: LocalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let n = self.tokens.len() as f64;
        let mut table = L::create();
        let mut syms = Vec::with_capacity(self.tokens.len());
        let ((), ns) = time_ns(|| {
            for t in self.tokens {
                syms.push(table.intern(t));
            }
        });
        out.fig("intern_ns", ns / n);

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

        let set: HashSet<&L::Symbol> = syms.iter().collect();
        if set.len() != self.distinct {
            out.fail(format!("{} distinct symbols for {} distinct strings", set.len(), self.distinct));
        }
        if let Some(i) = (0..syms.len()).find(|&i| table.resolve(&syms[i]) != self.tokens[i]) {
            out.fail(format!("token {i} does not round-trip"));
        }
        drop(syms); // symbols (atoms) before their table
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let corpus = ctx.load_corpus(&job.corpus);
    let tokens = corpus.token_strs();
    let run = Run { tokens: &tokens, distinct: corpus.distinct.len() };
    peers::visit_local(&job.peer, run).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "intern-local",
        "Local interners",
        "A fresh interner owned by one thread: intern the token stream, look every token up again \
         (all present), resolve every symbol. ns per token, lower is better; ratios against \
         `dynatom AtomTable`. `symbol_table` has no lookup-without-insert, so its lookup column \
         is an intern of a present key.",
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

    let mut parts = Vec::new();
    let mut met = Some(true);
    for corpus in ["identifiers", "keys"] {
        let median = |p: &str| r.median(&Job::new(p, corpus, "-"), "intern_ns").map(|v| (v, p.to_string()));
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
        "intern ≥1.2× faster than the fastest local peer on identifiers and keys (fastest dynatom type)",
        parts.join("; "),
        met,
    );
}
