//! What the suites measure, as plain data: a cell (`Job`), what one child measured for
//! it (`ChildOutput`), and every repetition of every cell of a suite (`Results`). The
//! suites produce these; the report and `main` read them. Imports nothing of the crate.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One cell of a suite: measured once per repetition, each time in a fresh process.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Job {
    pub peer: String,
    pub corpus: String,
    pub param: String,
}

impl Job {
    pub fn new(peer: &str, corpus: &str, param: &str) -> Job {
        Job { peer: peer.into(), corpus: corpus.into(), param: param.into() }
    }
}

/// What a child prints on stdout (one JSON line).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ChildOutput {
    /// Named figures (ns per op, bytes, counts).
    pub figures: BTreeMap<String, f64>,
    /// Raw samples for distributions (latency per creation, in µs).
    pub samples: BTreeMap<String, Vec<f64>>,
    /// Set when the peer's answer failed a check (or the child crashed): such a peer
    /// is shown as wrong and can never be "the fastest".
    pub error: Option<String>,
}

impl ChildOutput {
    pub fn fig(&mut self, name: &str, v: f64) {
        self.figures.insert(name.to_string(), v);
    }

    pub fn fail(&mut self, why: String) {
        if self.error.is_none() {
            self.error = Some(why);
        }
    }
}

/// Every repetition's output for every cell of one suite.
#[derive(Default)]
pub struct Results {
    pub runs: BTreeMap<Job, Vec<ChildOutput>>,
}

impl Results {
    /// Median over repetitions; `None` when the figure is missing or the cell failed.
    pub fn median(&self, job: &Job, figure: &str) -> Option<f64> {
        if self.error(job).is_some() {
            return None;
        }
        let mut v: Vec<f64> = self.runs.get(job)?.iter().filter_map(|o| o.figures.get(figure).copied()).collect();
        median(&mut v)
    }

    pub fn error(&self, job: &Job) -> Option<&str> {
        self.runs.get(job)?.iter().find_map(|o| o.error.as_deref())
    }

    /// All repetitions' samples of one distribution, pooled.
    pub fn pooled(&self, job: &Job, name: &str) -> Vec<f64> {
        self.runs.get(job).into_iter().flatten().filter_map(|o| o.samples.get(name)).flatten().copied().collect()
    }
}

pub fn median(v: &mut [f64]) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 })
}

/// The `q` quantile (0..=1) of sorted samples, nearest rank.
pub fn quantile(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[i]
}
