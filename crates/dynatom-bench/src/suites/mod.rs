//! The suites. Each one says which cells (peer × corpus × parameter) a repetition runs,
//! how one cell is measured inside a fresh child process, and how the medians turn into
//! tables, charts and target lines.

pub mod atom_to_string;
pub mod build;
pub mod churn;
pub mod count_identifiers;
pub mod fill_latency;
pub mod handles;
pub mod intern_global;
pub mod intern_local;
pub mod intern_sync;
pub mod lazy_vs_eager;
pub mod luajit;
pub mod memory;
pub mod openresty;
pub mod owned_buffers;
pub mod prefilled_looks;
pub mod scaling;
pub mod small_map;
pub mod static_atoms;
pub mod substrings;
pub mod table_sweep;

use crate::corpus::Scale;
use crate::report::Report;
pub use crate::results::{median, quantile, ChildOutput, Job, Results};
use std::path::PathBuf;
use std::sync::Barrier;
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

/// A suite as the parent sees it: its cells, how a child measures one, and how the
/// medians feed the report.
pub struct SuiteDef {
    /// The `--only` name, also the report section's tag.
    pub name: &'static str,
    /// One line for the usage text.
    pub about: &'static str,
    pub reps_full: usize,
    pub reps_quick: usize,
    pub jobs: fn(&Ctx) -> Vec<Job>,
    pub child: fn(&Job, &Ctx) -> ChildOutput,
    pub report: fn(&Results, &Ctx, &mut Report),
}

pub const SUITES: &[SuiteDef] = &[
    intern_global::SUITE,
    churn::SUITE,
    count_identifiers::SUITE,
    fill_latency::SUITE,
    intern_local::SUITE,
    intern_sync::SUITE,
    memory::SUITE,
    table_sweep::SUITE,
    lazy_vs_eager::SUITE,
    luajit::SUITE,
    openresty::SUITE,
    atom_to_string::SUITE,
    substrings::SUITE,
    owned_buffers::SUITE,
    handles::SUITE,
    build::SUITE,
    small_map::SUITE,
    static_atoms::SUITE,
];

/// Suites a full report leaves out, run only by name (`--only`): the `scaling` sweep
/// (`scripts/scaling`).
pub const OPT_IN: &[SuiteDef] = &[scaling::SUITE];

pub fn find(name: &str) -> Option<&'static SuiteDef> {
    SUITES.iter().chain(OPT_IN).find(|s| s.name == name)
}

/// Wall time of `f` in nanoseconds.
pub fn time_ns<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_nanos() as f64)
}

/// Wall time of `threads` threads released together: thread `i` runs `prepare(i)` before
/// the clock starts and `run(i, prepared)` after; their results in thread order.
pub fn time_threads<P, R: Send>(
    threads: usize,
    prepare: impl Fn(usize) -> P + Sync,
    run: impl Fn(usize, P) -> R + Sync,
) -> (Vec<R>, f64) {
    let barrier = Barrier::new(threads + 1);
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..threads)
            .map(|i| {
                let (barrier, prepare, run) = (&barrier, &prepare, &run);
                s.spawn(move || {
                    let prepared = prepare(i);
                    barrier.wait();
                    run(i, prepared)
                })
            })
            .collect();
        time_ns(|| {
            barrier.wait();
            workers.into_iter().map(|w| w.join().expect("worker")).collect()
        })
    })
}

/// The indices `0..n` as thread `i` of `threads` walks them: from its own offset, round to
/// where it began, so that threads do not start on the same item.
pub fn from_own_offset(i: usize, threads: usize, n: usize) -> impl Iterator<Item = usize> {
    let start = i * n / threads;
    (start..n).chain(0..start)
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
