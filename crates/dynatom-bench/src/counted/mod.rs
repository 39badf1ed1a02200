//! The counted layer: the wall-clock suites' micro-operations counted by
//! callgrind instead of timed, so one binary on one input gives the same figures whatever
//! else the machine does.
//!
//! The parent runs one child per group (one peer, or the harness, of one suite on one
//! input) under `valgrind --tool=callgrind --cache-sim=yes`, two or more at a time (the
//! counts do not depend on load). Each child counts every operation of its group inside
//! [`recorder::counted_region`]; each peer's figure per operation is its run's counts minus
//! the harness's (the same loop over the same inputs around an operation that does
//! nothing), divided by the number of operations.

mod callgrind;
mod check;
mod churn;
mod fixed_seed;
mod handles;
mod interners;
mod maps;
mod owned_intern;
mod recorder;
mod request_heads;
mod section;
mod static_atoms;

pub use check::check;
pub use section::section;

use recorder::{Measured, Recorder, HARNESS};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

/// One group: a child process under callgrind.
#[derive(Clone, Debug)]
struct Group {
    kind: &'static str,
    peer: String,
    param: String,
}

const KIND_MAPS: &str = "small-map";
const KIND_LOCAL: &str = "intern-local";
const KIND_SYNC: &str = "intern-sync";
const KIND_GLOBAL: &str = "intern-global";
const KIND_ATOM: &str = "atom";
const KIND_TO_STR: &str = "to_str";
const KIND_STR: &str = "str";
const KIND_BUILD: &str = "build";
const KIND_CHURN: &str = churn::SUITE;
const KIND_STATIC: &str = static_atoms::SUITE;
const KIND_OWNED: &str = owned_intern::SUITE;
const KIND_HEADS: &str = request_heads::SUITE;

fn groups(quick: bool) -> Vec<Group> {
    let mut v = Vec::new();
    let mut add = |kind: &'static str, peers: Vec<&str>, param: &str| {
        for p in peers.into_iter().chain([HARNESS]) {
            v.push(Group { kind, peer: p.to_string(), param: param.to_string() });
        }
    };
    for corpus in interners::corpora(quick) {
        add(KIND_LOCAL, interners::local_peers(), corpus);
        add(KIND_SYNC, interners::SYNC_PEERS.to_vec(), corpus);
    }
    let keys: &[&str] = if quick { &maps::KEYS[..1] } else { &maps::KEYS };
    for key in keys {
        add(KIND_MAPS, maps::MAPS.to_vec(), key);
    }
    add(KIND_GLOBAL, interners::global_peers(), "-");
    add(KIND_ATOM, handles::atom_peers(), "-");
    add(KIND_TO_STR, handles::TO_STR_WAYS.to_vec(), "-");
    add(KIND_STR, handles::str_peers(), "-");
    add(KIND_BUILD, handles::BUILDERS.to_vec(), "-");
    add(KIND_CHURN, churn::peers(), "-");
    add(KIND_STATIC, static_atoms::PEERS.to_vec(), "-");
    add(KIND_OWNED, owned_intern::PEERS.to_vec(), "-");
    add(KIND_HEADS, request_heads::PEERS.to_vec(), "-");
    v
}

/// The child: `--counted-child KIND PEER PARAM [--quick]`, run under callgrind. Prints
/// what each dump counted as one JSON line.
pub fn child_main(args: &[String]) -> i32 {
    // dynatom's process-wide seeds are fixed by the parent, through `DYNATOM_FIXED_SEED`
    // and a build of this binary that reads it (`fixed_seed`): the same binary must count
    // the same in every run, and which keys share a bucket, a slot tag or a small map's hint
    // would otherwise change with each process's random seeds (the global table's for `Str`
    // keys and texts, the word seed for atom keys).
    let [kind, peer, param, rest @ ..] = args else {
        eprintln!("--counted-child needs KIND PEER PARAM");
        return 2;
    };
    let quick = rest.iter().any(|a| a == "--quick");
    let input_path = rest.iter().skip_while(|a| *a != "--input").nth(1);
    let input = match input_path.map(|p| interners::read_input(p)).transpose() {
        Ok(i) => i,
        Err(e) => {
            eprintln!("{e}");
            return 2;
        }
    };
    let need_input = || input.as_ref().ok_or_else(|| format!("{kind} needs --input FILE"));
    let suite = match kind.as_str() {
        KIND_TO_STR => handles::ATOM_SUITE,
        KIND_ATOM => handles::ATOM_SUITE,
        k => k,
    };
    let mut rec = Recorder::new(suite);
    let result = match kind.as_str() {
        KIND_MAPS => maps::child(&mut rec, peer, param, quick),
        KIND_LOCAL => need_input().and_then(|i| interners::local_child(&mut rec, peer, param, i)),
        KIND_SYNC => need_input().and_then(|i| interners::sync_child(&mut rec, peer, param, i)),
        KIND_GLOBAL => need_input().and_then(|i| interners::global_child(&mut rec, peer, quick, i)),
        KIND_ATOM => handles::atom_child(&mut rec, peer),
        KIND_TO_STR => handles::to_str_child(&mut rec, peer, quick),
        KIND_STR => handles::str_child(&mut rec, peer, quick),
        KIND_BUILD => handles::build_child(&mut rec, peer, quick),
        KIND_CHURN => churn::child(&mut rec, peer, quick),
        KIND_STATIC => static_atoms::child(&mut rec, peer, quick),
        KIND_OWNED => owned_intern::child(&mut rec, peer, quick),
        KIND_HEADS => request_heads::child(&mut rec, peer, quick),
        other => Err(format!("unknown counted group kind {other:?}")),
    };
    if let Err(e) = result {
        eprintln!("{kind} {peer} {param}: {e}");
        return 1;
    }
    match serde_json::to_string(&rec.measured) {
        Ok(line) => {
            println!("{line}");
            0
        }
        Err(e) => {
            eprintln!("serialising: {e}");
            1
        }
    }
}

/// When set to a directory, every group's callgrind profiles (`cg.out.N`, readable with
/// `callgrind_annotate`), the child's list of what each was (`measured.json`) and the
/// corpus inputs are kept there, for finding where an operation's counts went.
pub const KEEP_ENV: &str = "DYNATOM_COUNTED_KEEP";

/// One operation's own counts (harness subtracted), per operation.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub suite: String,
    pub op: String,
    pub param: String,
    pub peer: String,
    pub instructions: f64,
    pub l1_misses: f64,
    pub ll_misses: f64,
    pub estimated_cycles: f64,
    /// Locked instructions (callgrind's bus events) per operation; `None` in counted.json
    /// files written before the counted layer collected them.
    #[serde(default)]
    pub locked_instructions: Option<f64>,
}

impl Row {
    pub fn key(&self) -> String {
        format!("{} · {} · {} · {}", self.suite, self.op, self.param, self.peer)
    }
}

/// A whole counted run, as written to `counted.json` and read back by `--check`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CountedRun {
    pub quick: bool,
    pub caches: Vec<String>,
    pub formula: String,
    pub rows: Vec<Row>,
    /// Groups whose child failed, with why.
    pub errors: Vec<String>,
    pub seconds: f64,
}

impl CountedRun {
    pub fn find(&self, suite: &str, op: &str, param: &str, peer: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.suite == suite && r.op == op && r.param == param && r.peer == peer)
    }

    pub fn est(&self, suite: &str, op: &str, param: &str, peer: &str) -> Option<f64> {
        self.find(suite, op, param, peer).map(|r| r.estimated_cycles)
    }

    /// Whether any row carries locked-instruction counts (runs saved before they were
    /// collected carry none).
    pub fn has_locked_instructions(&self) -> bool {
        self.rows.iter().any(|r| r.locked_instructions.is_some())
    }
}

pub const FORMULA: &str =
    "estimated cycles = (Ir + Dr + Dw − L1 misses) + 5 × (L1 misses − LL misses) + 35 × LL misses \
     (gungraun's / iai-callgrind's formula: an L1 hit costs 1, an LL hit 5, a memory access 35)";

/// Runs every group under callgrind and turns the dumps into per-operation rows.
pub fn run(quick: bool, workers: usize) -> Result<CountedRun, String> {
    if !callgrind::ensure_installed() {
        return Err("valgrind is not installed".into());
    }
    let started = Instant::now();
    let mut errors = Vec::new();
    let exe = match fixed_seed::child_exe() {
        Ok(exe) => exe,
        Err(e) => {
            // Counted all the same, but dynatom's rows that hash under the process-wide
            // seeds may then move between runs: said in the report.
            eprintln!("    ! {e}: the children run under random seeds");
            errors.push(format!("fixed seeds: {e}; dynatom's rows ran under random process-wide seeds"));
            std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?
        }
    };
    let groups = groups(quick);
    // A fixed-width name: the children get its path as an argument, and arguments of
    // another length would shift the child's stack and move its counts by a few parts
    // per million.
    let input_dir = match std::env::var_os(KEEP_ENV) {
        Some(base) => PathBuf::from(base).join("inputs"),
        None => std::env::temp_dir().join(format!("dynatom-counted-{:010}-inputs", std::process::id())),
    };
    std::fs::create_dir_all(&input_dir).map_err(|e| format!("{}: {e}", input_dir.display()))?;
    let input = |corpus: &str| input_dir.join(format!("{corpus}.txt"));
    let mut corpora = interners::corpora(quick);
    corpora.push(interners::GLOBAL_CORPUS);
    corpora.dedup();
    for c in &corpora {
        interners::write_input(c, quick, &input(c))?;
    }
    let next = AtomicUsize::new(0);
    let raw: Mutex<Vec<(Measured, callgrind::Counts)>> = Mutex::new(Vec::new());
    let errors: Mutex<Vec<String>> = Mutex::new(errors);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(g) = groups.get(i) else { break };
                eprintln!(
                    "[counted {:>4.0}s] group {:>3}/{}: {} · {} {}",
                    started.elapsed().as_secs_f64(),
                    i + 1,
                    groups.len(),
                    g.kind,
                    g.peer,
                    g.param
                );
                let corpus = if g.kind == KIND_GLOBAL { interners::GLOBAL_CORPUS } else { g.param.as_str() };
                match run_group(&exe, g, quick, i, &input(corpus)) {
                    Ok(v) => raw.lock().expect("no panics while held").extend(v),
                    Err(e) => {
                        eprintln!("    ! {} {} {}: {e}", g.kind, g.peer, g.param);
                        errors
                            .lock()
                            .expect("no panics while held")
                            .push(format!("{} {} {}: {e}", g.kind, g.peer, g.param));
                    }
                }
            });
        }
    });
    if std::env::var_os(KEEP_ENV).is_none() {
        let _ = std::fs::remove_dir_all(&input_dir);
    }
    let raw = raw.into_inner().expect("workers joined");
    let mut errors = errors.into_inner().expect("workers joined");
    let rows = subtract_harness(&raw, &mut errors);
    Ok(CountedRun {
        quick,
        caches: callgrind::CACHES.iter().map(|c| c.to_string()).collect(),
        formula: FORMULA.to_string(),
        rows,
        errors,
        seconds: started.elapsed().as_secs_f64(),
    })
}

fn run_group(
    exe: &Path,
    g: &Group,
    quick: bool,
    n: usize,
    input: &Path,
) -> Result<Vec<(Measured, callgrind::Counts)>, String> {
    let mut args = vec!["--counted-child".to_string(), g.kind.to_string(), g.peer.clone(), g.param.clone()];
    if quick {
        args.push("--quick".into());
    }
    if input.exists() {
        args.extend(["--input".to_string(), input.display().to_string()]);
    }
    let (dir, keep) = match std::env::var_os(KEEP_ENV) {
        Some(base) => {
            let name: String = format!("{n:03}-{}-{}-{}", g.kind, g.peer, g.param)
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' })
                .collect();
            (PathBuf::from(base).join(name), true)
        }
        None => (std::env::temp_dir().join(format!("dynatom-counted-{:010}-{n:03}", std::process::id())), false),
    };
    let seed = (fixed_seed::SEED_ENV, interners::SEED.to_string());
    let (stdout, dumps) = callgrind::run(exe, &args, &seed, &dir, keep)?;
    if keep {
        let _ = std::fs::write(dir.join("measured.json"), &stdout);
    }
    let line = stdout.lines().last().ok_or("child printed nothing")?;
    let measured: Vec<Measured> = serde_json::from_str(line).map_err(|e| format!("child output: {e}"))?;
    measured
        .into_iter()
        .map(|m| {
            let c = dumps.get(m.dump - 1).copied().ok_or(format!("no dump {} for {} {}", m.dump, m.op, m.param))?;
            Ok((m, c))
        })
        .collect()
}

/// Each peer's counts minus its harness's (same suite, operation, parameter and count).
fn subtract_harness(raw: &[(Measured, callgrind::Counts)], errors: &mut Vec<String>) -> Vec<Row> {
    let mut rows = Vec::new();
    for (m, c) in raw.iter().filter(|(m, _)| m.peer != HARNESS) {
        let harness = raw.iter().find(|(h, _)| {
            h.peer == HARNESS && h.suite == m.suite && h.op == m.op && h.param == m.param && h.ops == m.ops
        });
        let Some((_, h)) = harness else {
            errors.push(format!("{} {} {} {}: no harness run to subtract", m.suite, m.op, m.param, m.peer));
            continue;
        };
        let own = c.per_op_minus(h, m.ops);
        rows.push(Row {
            suite: m.suite.clone(),
            op: m.op.clone(),
            param: m.param.clone(),
            peer: m.peer.clone(),
            instructions: own.ir,
            l1_misses: own.l1_misses(),
            ll_misses: own.ll_misses(),
            estimated_cycles: own.estimated_cycles(),
            locked_instructions: Some(own.ge),
        });
    }
    rows
}

/// The suites in report order, each with its dynatom reference peer and all its peers.
fn suite_peers(quick: bool) -> Vec<(&'static str, Vec<&'static str>)> {
    let mut local = interners::local_peers();
    // The Interner is the reference of the interner targets.
    local.retain(|p| *p != "dynatom Interner");
    local.insert(0, "dynatom Interner");
    let _ = quick;
    vec![
        (maps::SUITE, maps::MAPS.to_vec()),
        (interners::LOCAL_SUITE, local),
        (interners::SYNC_SUITE, interners::SYNC_PEERS.to_vec()),
        (interners::GLOBAL_SUITE, interners::global_peers()),
        (handles::ATOM_SUITE, handles::atom_peers()),
        (handles::STR_SUITE, handles::str_peers()),
        (handles::BUILD_SUITE, handles::BUILDERS.to_vec()),
        (churn::SUITE, churn::peers()),
        (static_atoms::SUITE, static_atoms::PEERS.to_vec()),
        (owned_intern::SUITE, owned_intern::PEERS.to_vec()),
        (request_heads::SUITE, request_heads::PEERS.to_vec()),
    ]
}

/// The report's statement of which figures are which.
pub const TIMED_VS_COUNTED: &str = "Every section is **timed** (wall clock, medians over child processes) except \
     the last one, **Counted**, whose figures are instructions and simulated cache misses counted by callgrind \
     (the same binary on the same input counts the same, whatever the machine's load).";
