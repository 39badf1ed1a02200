//! Looks on a pre-filled table, for the `scaling` suite: every thread asks whether each
//! token of the stream is interned, without making a handle, in a table that already holds
//! every distinct string. Beside the hits of the same table (which raise and later drop a
//! count), the looks show what the probe and the text comparison cost by themselves as
//! threads are added: the part of a hit that writes nothing.

use super::{from_own_offset, time_threads, ChildOutput};
use crate::peers::{self, GlobalInterner, GlobalVisitor};

/// The global peers that can ask whether a text is interned without making a handle.
pub fn peers_that_look() -> Vec<&'static str> {
    peers::all_global().into_iter().filter(|peer| peers::visit_any_global(peer, AnswersLook) == Some(true)).collect()
}

struct AnswersLook;

impl GlobalVisitor for AnswersLook {
    type Out = bool;
    fn visit<G: GlobalInterner>(self) -> bool {
        G::LOOKS
    }
}

/// One cell: `threads` threads look up every token of the stream, each from its own offset;
/// ns per look = wall time ÷ (tokens × threads).
pub struct Looks<'a> {
    pub tokens: &'a [&'a str],
    pub distinct: &'a [&'a str],
    pub threads: usize,
}

impl GlobalVisitor for Looks<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let Looks { tokens, distinct, threads } = self;
        let mut out = ChildOutput::default();
        let g = G::create();
        let held: Vec<G::Handle> = distinct.iter().map(|s| g.intern(s)).collect();
        let n = tokens.len();
        let g = &g;
        let (found, ns) = time_threads(
            threads,
            |_| (),
            |i, ()| from_own_offset(i, threads, n).filter(|&k| g.look(tokens[k])).count(),
        );
        let found: usize = found.into_iter().sum();
        out.fig("ns_per_token", ns / (n * threads) as f64);
        if found != n * threads {
            out.fail(format!("{found} of {} looks found their interned text", n * threads));
        }
        drop(held);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynatom_looks_and_every_look_finds_its_text() {
        assert!(peers_that_look().contains(&peers::GLOBAL[0]));
        let distinct = ["alpha", "a text longer than the inline ones", "gamma"];
        let tokens = ["gamma", "alpha", "gamma", "a text longer than the inline ones"];
        let looks = Looks { tokens: &tokens, distinct: &distinct, threads: 2 };
        let out = peers::visit_any_global(peers::GLOBAL[0], looks).expect("dynatom is a global peer");
        assert!(out.error.is_none(), "{:?}", out.error);
    }
}
