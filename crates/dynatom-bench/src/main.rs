//! `cargo run --release -p dynatom-bench`: dynatom side by side with its peers.
//!
//! The parent process only orchestrates: every repetition of every cell (suite × peer ×
//! corpus × parameter) runs in a fresh child process (this same executable with a hidden
//! `--child` argument), so process-global interners start empty each time, and the
//! cells are interleaved (rotated each repetition) so machine drift hits every peer alike.

// The workspace's `unreachable_pub` lint is off here: this is a binary, so no item is
// reachable from outside and the lint would ask for `pub(crate)` on every shared item of
// every module, which says nothing a binary's reader needs to know.
#![allow(unreachable_pub)]

mod alloc_count;
mod charts;
mod child;
mod corpus;
mod counted;
mod keywords;
mod luajit_model;
mod luajit_real;
mod peers;
mod report;
mod resident;
mod results;
mod static_crates;
mod suites;

use report::{Header, Report};
use results::{ChildOutput, Job, Results};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use suites::{Ctx, SuiteDef};

#[global_allocator]
static ALLOC: alloc_count::CountingAlloc = alloc_count::CountingAlloc;

/// The usage text; the `--only` choices come from the suite list, so a new suite is
/// listed without editing this.
fn usage() -> String {
    let mut text = String::from(
        "usage: dynatom-bench [--quick] [--only SUITE] [--corpus FILE] [--json FILE] [--out DIR] [--reps N]
  --quick        smaller inputs and fewer repetitions (under a minute)
  --only SUITE   run one suite:\n",
    );
    let every_suite = || suites::SUITES.iter().chain(suites::OPT_IN);
    let width = every_suite().map(|s| s.name.len()).chain([COUNTED.len()]).max().unwrap_or(0);
    for s in every_suite() {
        text.push_str(&format!("                   {:width$}  {}\n", s.name, s.about));
    }
    text.push_str(&format!(
        "                   {COUNTED:width$}  only the counted layer (callgrind; see BENCHMARKS.md)\n"
    ));
    text.push_str(
        "  --corpus FILE  add FILE as a corpus (one token per line, or any text split into identifiers)
  --json FILE    also write every figure as JSON
  --out DIR      where report.md and the charts go (default: <workspace>/target/dynatom-report,
                 or target/dynatom-report-quick with --quick)
  --reps N       repetitions per cell (default: per suite)
  --check FILE   count, compare with a saved counted.json and name every operation whose
                 estimated cycles grew by more than 3% (exit status 1 if any did)",
    );
    text
}

struct Options {
    quick: bool,
    only: Option<String>,
    corpus: Option<String>,
    json: Option<PathBuf>,
    out: PathBuf,
    reps: Option<usize>,
    check: Option<PathBuf>,
    /// The `--check` file, read before any counting so a bad path fails at once.
    baseline: Option<counted::CountedRun>,
}

/// `<workspace>/target/dynatom-report`, or `dynatom-report-quick` for `--quick` runs, so
/// that the test suite's quick run never overwrites the main job's report.
fn default_out_dir(quick: bool) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    // crates/dynatom-bench -> the workspace root, without `..` in the printed path.
    let workspace = manifest.parent().and_then(Path::parent).unwrap_or(manifest);
    workspace.join("target").join(if quick { "dynatom-report-quick" } else { "dynatom-report" })
}

fn parse_options(args: &[String]) -> Result<Options, String> {
    let default_out = default_out_dir(args.iter().any(|a| a == "--quick"));
    let mut o = Options {
        quick: false,
        only: None,
        corpus: None,
        json: None,
        out: default_out,
        reps: None,
        check: None,
        baseline: None,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--quick" => o.quick = true,
            "--only" => o.only = Some(value()?),
            "--corpus" => o.corpus = Some(value()?),
            "--json" => o.json = Some(value()?.into()),
            "--out" => o.out = value()?.into(),
            "--check" => o.check = Some(value()?.into()),
            "--reps" => o.reps = Some(value()?.parse().map_err(|e| format!("--reps: {e}"))?),
            "-h" | "--help" => return Err(String::new()),
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    if let Some(name) = &o.only {
        if name != COUNTED && suites::find(name).is_none() {
            return Err(format!("unknown suite {name:?}"));
        }
    }
    if let Some(path) = &o.check {
        let text = std::fs::read_to_string(path).map_err(|e| format!("--check {}: {e}", path.display()))?;
        o.baseline = Some(serde_json::from_str(&text).map_err(|e| format!("--check {}: {e}", path.display()))?);
    }
    if let Some(path) = &o.corpus {
        // Fail early (and in the parent) on an unreadable or empty corpus.
        corpus::load(corpus::USER, corpus::Scale::Full, Some(path))?;
        o.corpus = Some(std::fs::canonicalize(path).map_err(|e| e.to_string())?.display().to_string());
    }
    Ok(o)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        std::process::exit(child::main(&args[1..]));
    }
    if args.first().map(String::as_str) == Some("--counted-child") {
        std::process::exit(counted::child_main(&args[1..]));
    }
    let opts = match parse_options(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("error: {e}");
            }
            eprintln!("{}", usage());
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&opts) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run(opts: &Options) -> Result<(), String> {
    let started = Instant::now();
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let scale = if opts.quick { corpus::Scale::Quick } else { corpus::Scale::Full };
    std::fs::create_dir_all(&opts.out).map_err(|e| format!("{}: {e}", opts.out.display()))?;
    let ctx = Ctx { scale, user_corpus: opts.corpus.clone(), cores, out_dir: opts.out.clone() };
    let header = Header::collect(cores, opts.quick);
    let mut report = Report::default();

    let counted_only = opts.check.is_some() || opts.only.as_deref() == Some(COUNTED);
    let selected: Vec<&SuiteDef> = match &opts.only {
        _ if counted_only => Vec::new(),
        Some(name) => suites::find(name).into_iter().collect(),
        None => suites::SUITES.iter().collect(),
    };
    if selected.iter().any(|s| s.name == suites::luajit::SUITE.name) {
        suites::luajit::prepare(); // installs luajit, builds the C library for the children
    } else if selected.iter().any(|s| s.name == suites::lazy_vs_eager::SUITE.name) {
        luajit_real::ensure_installed();
    }
    if selected.iter().any(|s| s.name == suites::static_atoms::SUITE.name) {
        suites::static_atoms::prepare(); // builds the generated start-up crates once, untimed
    }
    for suite in selected {
        let reps = opts.reps.unwrap_or(if opts.quick { suite.reps_quick } else { suite.reps_full }).max(1);
        let results = run_suite(suite, &ctx, reps);
        (suite.report)(&results, &ctx, &mut report);
        report.record_results(suite.name, &results);
    }
    let counted = match (opts.only.is_none() || counted_only).then(|| run_counted(opts, cores, &mut report)) {
        Some(Ok(run)) => Some(run),
        // Without valgrind the timed report still stands; only a counted-only run fails.
        Some(Err(e)) if !counted_only => {
            eprintln!("counted section skipped: {e}");
            report.para(&format!("\n## Counted\n\nSkipped: {e}."));
            None
        }
        Some(Err(e)) => return Err(e),
        None => None,
    };
    let elapsed = started.elapsed().as_secs_f64();

    let md = format!(
        "# dynatom benchmark report\n\n## Summary\n\n{}\n## Run\n\n{}- Total run time: {elapsed:.0} s\n\n{}\n\n{}\n\n## Targets\n\n{}\n{}",
        report.summary(),
        header.to_markdown(),
        report::RATIO_NOTE,
        counted::TIMED_VS_COUNTED,
        report.targets_table(),
        report.md
    );
    let md_path = opts.out.join("report.md");
    std::fs::write(&md_path, &md).map_err(|e| format!("{}: {e}", md_path.display()))?;
    if let Some(path) = &opts.json {
        let mut json = report.json(&header);
        json["total_seconds"] = serde_json::json!(elapsed);
        let text = serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    // The terminal gets one screen: the counts, the largest misses and wins, and where
    // the whole report is.
    print!("{}", report.screen(elapsed, &shown_path(&md_path)));
    if let (Some(baseline), Some(now)) = (&opts.baseline, &counted) {
        if !counted::check(baseline, now) {
            std::process::exit(1);
        }
    }
    Ok(())
}

/// `path` relative to the current folder when it lies under it (the usual case, run from
/// the workspace), so that the summary's last line stays short.
fn shown_path(path: &Path) -> String {
    let relative = std::env::current_dir().ok().and_then(|cwd| path.strip_prefix(cwd).ok().map(Path::to_path_buf));
    relative.unwrap_or_else(|| path.to_path_buf()).display().to_string()
}

/// `--only` value that runs the counted layer alone.
const COUNTED: &str = "counted";

/// The counted layer: its section in the report, and `counted.json` beside report.md
/// (the file `--check` compares with).
fn run_counted(opts: &Options, cores: usize, report: &mut Report) -> Result<counted::CountedRun, String> {
    let run = counted::run(opts.quick, cores.max(2))?;
    counted::section(&run, opts.baseline.as_ref(), report);
    let path = opts.out.join("counted.json");
    let text = serde_json::to_string_pretty(&run).map_err(|e| e.to_string())?;
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    eprintln!("counted figures: {}", path.display());
    Ok(run)
}

/// Every repetition of every cell, each in its own child, in a rotating order.
fn run_suite(suite: &SuiteDef, ctx: &Ctx, reps: usize) -> Results {
    let jobs = (suite.jobs)(ctx);
    let mut results = Results::default();
    let started = Instant::now();
    for rep in 0..reps {
        let mut order = jobs.clone();
        if !order.is_empty() {
            let shift = rep * order.len() / reps;
            order.rotate_left(shift);
        }
        if rep % 2 == 1 {
            order.reverse();
        }
        for (k, job) in order.iter().enumerate() {
            eprintln!(
                "[{} {:>4.0}s] rep {}/{} cell {:>3}/{}: {} · {} {}",
                suite.name,
                started.elapsed().as_secs_f64(),
                rep + 1,
                reps,
                k + 1,
                order.len(),
                job.peer,
                job.corpus,
                job.param
            );
            let out = run_child(suite.name, job, ctx);
            if let Some(e) = &out.error {
                eprintln!("    ! {}: {e}", job.peer);
            }
            results.runs.entry(job.clone()).or_default().push(out);
        }
    }
    results
}

fn run_child(suite: &str, job: &Job, ctx: &Ctx) -> ChildOutput {
    let failed = |why: String| ChildOutput { error: Some(why), ..ChildOutput::default() };
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => return failed(format!("current_exe: {e}")),
    };
    let mut cmd = Command::new(exe);
    cmd.arg("--child").args([suite, &job.peer, &job.corpus, &job.param]);
    if ctx.scale == corpus::Scale::Quick {
        cmd.arg("--quick");
    }
    if let Some(path) = &ctx.user_corpus {
        cmd.args(["--corpus", path]);
    }
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) => return failed(format!("spawn: {e}")),
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail: String = stderr.lines().rev().take(3).collect::<Vec<_>>().join(" / ");
        return failed(format!("child {}: {tail}", output.status));
    }
    match stdout.lines().last().map(serde_json::from_str::<ChildOutput>) {
        Some(Ok(o)) => o,
        Some(Err(e)) => failed(format!("child output: {e}")),
        None => failed("child printed nothing".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn usage_lists_every_suite_and_counted() {
        let text = usage();
        for name in suites::SUITES.iter().chain(suites::OPT_IN).map(|s| s.name).chain([COUNTED]) {
            assert!(text.lines().any(|l| l.split_whitespace().next() == Some(name)), "{name} missing:\n{text}");
        }
    }

    /// The test suite's `--quick` run and the main job write to different folders, named
    /// without `..`, so neither overwrites the other's report.
    #[test]
    fn quick_and_full_runs_write_to_their_own_folders() {
        let full = parse_options(&[]).unwrap().out;
        let quick = parse_options(&["--quick".into()]).unwrap().out;
        assert_ne!(full, quick);
        for dir in [&full, &quick] {
            assert!(!dir.components().any(|c| c == std::path::Component::ParentDir), "{}", dir.display());
            assert!(dir.ends_with(if dir == &full { "target/dynatom-report" } else { "target/dynatom-report-quick" }));
        }
    }

    #[test]
    fn every_only_choice_is_accepted_and_others_are_not() {
        for s in suites::SUITES.iter().chain(suites::OPT_IN) {
            assert!(parse_options(&["--only".into(), s.name.into()]).is_ok(), "{}", s.name);
        }
        assert!(parse_options(&["--only".into(), "no-such-suite".into()]).is_err());
    }

    /// The report is a leaf: it reads the results' data and nothing else of the crate,
    /// so no suite, peer or measuring code can become part of a circle through it.
    #[test]
    fn report_imports_only_the_results_data() {
        let source = include_str!("report.rs");
        let crate_paths: Vec<&str> = source.match_indices("crate::").map(|(i, _)| &source[i..]).collect();
        assert!(!crate_paths.is_empty());
        for path in crate_paths {
            assert!(path.starts_with("crate::results::"), "report.rs uses {}", &path[..path.len().min(40)]);
        }
        let results = include_str!("results.rs");
        assert!(!results.contains("crate::"), "results.rs must import nothing of the crate");
    }
}
