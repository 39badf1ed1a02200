//! The child side of the counted layer: runs under callgrind, which counts only inside
//! [`counted_region`] (`--toggle-collect`) and writes one profile each time it returns
//! (`--dump-after`). The child says, in the same order, what each profile was.

use serde::{Deserialize, Serialize};
use std::hint::black_box;

/// The function callgrind counts in and dumps after. Its demangled path must match
/// [`REGION_SYMBOL`]; the test below keeps the two together.
#[inline(never)]
pub fn counted_region(body: &mut dyn FnMut()) {
    black_box(body)();
}

/// `counted_region`'s demangled name, as callgrind sees it.
pub const REGION_SYMBOL: &str = "dynatom_bench::counted::recorder::counted_region";

/// Which operation a profile counted, and how many times it ran.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Measured {
    pub suite: String,
    pub op: String,
    pub param: String,
    /// The peer, or [`HARNESS`] for the loop around a no-op with the same inputs.
    pub peer: String,
    pub ops: u64,
    /// 1-based number of the callgrind dump that holds this measurement.
    pub dump: usize,
}

/// The peer name of harness measurements: the same loop over the same inputs with an
/// operation that does nothing, subtracted from every peer's figure.
pub const HARNESS: &str = "harness";

/// Collects what each dump was; printed as JSON when the child ends.
#[derive(Default)]
pub struct Recorder {
    pub suite: String,
    pub measured: Vec<Measured>,
    dumps: usize,
}

impl Recorder {
    pub fn new(suite: &str) -> Recorder {
        Recorder { suite: suite.to_string(), ..Recorder::default() }
    }

    /// Counts `ops` operations done by `body`, once warm: `body` runs once uncounted in
    /// spirit (a first dump that is thrown away: cold code, lazily built state), then
    /// once counted.
    pub fn warm(&mut self, op: &str, param: &str, peer: &str, ops: u64, mut body: impl FnMut()) {
        counted_region(&mut body);
        self.dumps += 1;
        self.once(op, param, peer, ops, body);
    }

    /// Counts `ops` operations done by one run of `body` (for phases that cannot repeat:
    /// filling a table, first-time interning).
    pub fn once(&mut self, op: &str, param: &str, peer: &str, ops: u64, mut body: impl FnMut()) {
        counted_region(&mut body);
        self.dumps += 1;
        self.measured.push(Measured {
            suite: self.suite.clone(),
            op: op.to_string(),
            param: param.to_string(),
            peer: peer.to_string(),
            ops,
            dump: self.dumps,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_symbol_names_the_region_function() {
        let name = std::any::type_name_of_val(&counted_region);
        assert_eq!(name, REGION_SYMBOL);
    }

    #[test]
    fn dumps_are_numbered_in_order_and_warm_runs_are_not_recorded() {
        let mut r = Recorder::new("s");
        let mut calls = 0;
        r.warm("op", "p", "peer", 3, || calls += 1);
        r.once("op2", "p", "peer", 1, || calls += 1);
        assert_eq!(calls, 3);
        assert_eq!(r.measured.iter().map(|m| m.dump).collect::<Vec<_>>(), [2, 3]);
    }
}
