//! Suite `churn`: a server that interns the same keys for every request and
//! drops them afterwards. Intern-then-drop of the same 1,000 keys, 1,000 times over,
//! against a plain hit of an atom that is held (the same interns while every key has a
//! live handle). A table that frees an atom with its last handle pays allocation, insert,
//! removal and free on every churn step; one that keeps unused atoms pays a hit. ustr,
//! internment's `Intern` and lasso's `ThreadedRodeo` never free, so their churn is hits;
//! string_cache and internment's `ArcIntern` free with the last handle.
//!
//! One cell is one peer; a child alternates churn and held rounds (the order flipping
//! each round) and reports each phase's median round, and their ratio, from the same
//! process; the report shows medians over child processes.

use super::{median, time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::peers::{self, GlobalInterner, GlobalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "churn",
    about: "intern-then-drop of the same 1,000 keys vs hits of held atoms",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

/// Distinct keys a request interns.
pub const KEYS: usize = 1000;
/// Timed rounds per phase in one child (the phases alternate round by round). Short
/// rounds (a few ms) so that the shared VM's slow spells, which last longer, fall on both
/// phases alike: with 5 rounds of 200 passes the never-freeing peers, whose two phases
/// run the same code, read 15 ns in one phase and 35 ns in the other in some children.
const ROUNDS: usize = 20;
/// The churn target's bound on churn ÷ held hit for dynatom.
const CHURN_BOUND: f64 = 1.2;

/// Times the keys are interned per phase in one child, over all its rounds.
fn repeats(scale: Scale) -> usize {
    match scale {
        Scale::Full => 1000,
        Scale::Quick => 100,
    }
}

/// `user:NNNNN:profile`-like keys (18 bytes: past dynatom's 7-byte inline atoms, so
/// every key lives in the table).
pub fn keys() -> Vec<String> {
    // 7919 is prime, so i · 7919 mod 10⁵ is distinct for every i below 10⁵.
    (0..KEYS).map(|i| format!("user:{:05}:profile", i * 7919 % 100_000)).collect()
}

fn jobs(_: &Ctx) -> Vec<Job> {
    peers::all_global().into_iter().map(|p| Job::new(p, "-", "-")).collect()
}

struct Run<'a> {
    keys: &'a [String],
    repeats_per_round: usize,
}

impl Run<'_> {
    /// Every key interned and its handle dropped at once, `repeats_per_round` times.
    fn intern_and_drop<G: GlobalInterner>(&self, g: &G) -> f64 {
        let ((), ns) = time_ns(|| {
            for _ in 0..self.repeats_per_round {
                for k in self.keys {
                    drop(black_box(g.intern(black_box(k))));
                }
            }
        });
        ns / (self.repeats_per_round * self.keys.len()) as f64
    }
}

impl GlobalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let g = G::create();
        // Warm the code and, for interners that never free, the table.
        for k in self.keys {
            drop(g.intern(k));
        }
        let (mut churn, mut held) = (Vec::new(), Vec::new());
        for round in 0..ROUNDS {
            let held_first = round % 2 == 1;
            if !held_first {
                churn.push(self.intern_and_drop(&g));
            }
            let handles: Vec<G::Handle> = self.keys.iter().map(|k| g.intern(k)).collect();
            held.push(self.intern_and_drop(&g));
            if round == 0 && (0..self.keys.len()).any(|i| g.resolve(&handles[i]) != self.keys[i]) {
                out.fail("a held handle does not read back its key".into());
            }
            if round == 0 && self.keys.iter().zip(&handles).any(|(k, h)| g.intern(k) != *h) {
                out.fail("a hit returned a handle unequal to the held one".into());
            }
            drop(handles);
            if held_first {
                churn.push(self.intern_and_drop(&g));
            }
        }
        let (Some(c), Some(h)) = (median(&mut churn), median(&mut held)) else {
            out.fail("no rounds".into());
            return out;
        };
        out.fig("churn_ns", c);
        out.fig("held_ns", h);
        out.fig("churn_over_held", c / h);
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let keys = keys();
    let run = Run { keys: &keys, repeats_per_round: (repeats(ctx.scale) / ROUNDS).max(1) };
    peers::visit_any_global(&job.peer, run).unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let repeats = repeats(ctx.scale);
    rep.begin_suite(
        "churn",
        "Churn: intern-then-drop vs a held atom",
        &format!(
            "The same {KEYS} keys (`user:NNNNN:profile`, 18 bytes) interned and each handle dropped at \
             once, {repeats} times over (*churn*), against the same interns while every key has a live \
             handle (*held hit*). ns per intern, lower is better; the two phases alternate in {ROUNDS} \
             rounds inside each child, whose median rounds give its figures and its ratio *churn ÷ \
             held* (medians over child processes here). ustr, internment `Intern` and lasso never free, \
             so their churn is hits too. Ratios in the *vs dynatom* columns are peer ÷ dynatom."
        ),
    );
    let all = peers::all_global();
    let ours = Job::new(all[0], "-", "-");
    let mut t = Table::new(&["peer", "churn ns", "vs dynatom", "held hit ns", "vs dynatom", "churn ÷ held"]);
    for p in &all {
        let j = Job::new(p, "-", "-");
        t.row(vec![
            p.to_string(),
            cell(r, &j, "churn_ns"),
            fmt_ratio(r.median(&j, "churn_ns"), r.median(&ours, "churn_ns")),
            cell(r, &j, "held_ns"),
            fmt_ratio(r.median(&j, "held_ns"), r.median(&ours, "held_ns")),
            cell(r, &j, "churn_over_held"),
        ]);
    }
    rep.table(&t);
    let ratio = r.median(&ours, "churn_over_held");
    let mut met = Some(true);
    combine(&mut met, ratio.map(|x| x <= CHURN_BOUND));
    rep.target(
        &format!("churn: intern-then-drop of {KEYS} keys ≤{CHURN_BOUND}× a hit of a held atom (dynatom)"),
        format!(
            "{}× ({} vs {} ns)",
            fmt_num(ratio),
            fmt_num(r.median(&ours, "churn_ns")),
            fmt_num(r.median(&ours, "held_ns"))
        ),
        met,
    );
    rep.target(
        "churn: ≥3× faster than the previous table (compares two builds)",
        format!(
            "this build's churn {} ns per intern; compare with the previous build's in BENCHMARKS.md",
            fmt_num(r.median(&ours, "churn_ns"))
        ),
        None,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct_and_too_long_to_be_inline_atoms() {
        let keys = keys();
        assert_eq!(keys.len(), KEYS);
        assert_eq!(keys.iter().collect::<std::collections::HashSet<_>>().len(), KEYS);
        assert!(keys.iter().all(|k| k.len() == 18), "{:?}", &keys[..3]);
    }
}
