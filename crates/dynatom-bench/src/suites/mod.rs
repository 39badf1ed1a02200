//! The suites. Each one says which cells (peer × corpus × parameter) a repetition runs,
//! how one cell is measured inside a fresh child process, and how the medians turn into
//! tables, charts and target lines.

pub mod atom_to_string;
pub mod build;
pub mod handles;
pub mod intern_global;
pub mod intern_local;
pub mod intern_sync;
pub mod lazy_vs_eager;
pub mod luajit;
pub mod memory;
pub mod small_map;
pub mod substrings;

use crate::corpus::Scale;
use crate::report::Report;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

/// What every suite gets to know about the run.
#[derive(Clone, Debug)]
pub struct Ctx {
    pub scale: Scale,
    pub user_corpus: Option<String>,
    /// `std::thread::available_parallelism`.
    pub cores: usize,
    pub out_dir: PathBuf,
}

impl Ctx {
    /// The corpora of this run: the built-in ones plus `--corpus FILE`.
    pub fn corpora(&self) -> Vec<String> {
        let mut v: Vec<String> = crate::corpus::BUILTIN.iter().map(|s| s.to_string()).collect();
        if self.user_corpus.is_some() {
            v.push(crate::corpus::USER.to_string());
        }
        v
    }

    pub fn load_corpus(&self, name: &str) -> crate::corpus::Corpus {
        crate::corpus::load(name, self.scale, self.user_corpus.as_deref()).unwrap_or_else(|e| panic!("{e}"))
    }
}

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

pub struct SuiteDef {
    pub name: &'static str,
    pub reps_full: usize,
    pub reps_quick: usize,
    pub jobs: fn(&Ctx) -> Vec<Job>,
    pub child: fn(&Job, &Ctx) -> ChildOutput,
    pub report: fn(&Results, &Ctx, &mut Report),
}

pub const SUITES: &[SuiteDef] = &[
    intern_global::SUITE,
    intern_local::SUITE,
    intern_sync::SUITE,
    memory::SUITE,
    lazy_vs_eager::SUITE,
    luajit::SUITE,
    atom_to_string::SUITE,
    substrings::SUITE,
    handles::SUITE,
    build::SUITE,
    small_map::SUITE,
];

pub fn find(name: &str) -> Option<&'static SuiteDef> {
    SUITES.iter().find(|s| s.name == name)
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

/// Wall time of `f` in nanoseconds.
pub fn time_ns<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_nanos() as f64)
}

/// Runs `f` once per item of a batch until at least `min_ns` have passed (and at least
/// once), and returns ns per call: for operations too short to time one at a time.
pub fn ns_per_op(ops_per_round: usize, min_ns: f64, mut round: impl FnMut()) -> f64 {
    round(); // warm caches and lazily created state
    let mut rounds = 0u64;
    let start = Instant::now();
    loop {
        round();
        rounds += 1;
        let el = start.elapsed().as_nanos() as f64;
        if el >= min_ns {
            return el / (rounds as f64 * ops_per_round as f64);
        }
    }
}
