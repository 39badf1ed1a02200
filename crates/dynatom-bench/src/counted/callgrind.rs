//! Running a child under callgrind and reading its profiles.
//!
//! Why not `gungraun` (formerly iai-callgrind), the first choice: it is a
//! `cargo bench` harness: its benchmarks are `harness = false` bench targets whose `main`
//! its macros write, and which its separately installed `gungraun-runner` binary drives.
//! The report is one binary (`cargo run -p dynatom-bench`) that must lay the counts beside
//! its wall-clock tables, compute ratios and targets, and compare with a baseline, so it
//! would have to shell out to `cargo bench` and parse gungraun's output, and a fresh
//! machine would first compile the runner (about a hundred crates on two cores). What
//! gungraun does underneath is small: run the benchmark under `valgrind --tool=callgrind
//! --cache-sim=yes`, collect only inside the benchmarked function, read the counts, and
//! combine them into estimated cycles. This module does exactly that, with callgrind's
//! own options (`--toggle-collect`, `--dump-after`), and uses gungraun's formula.
//!
//! It also collects callgrind's bus events (`--collect-bus=yes`, event `Ge`): one per
//! locked instruction, that is, per atomic read-modify-write (`lock`-prefixed, or `xchg`
//! with memory, which a sequentially consistent store compiles to) and per full fence
//! (`mfence`); a plain or release store and an acquire load count none. They are counted
//! beside the cycle estimate, not folded into it: the estimate stays gungraun's.

use std::path::Path;
use std::process::Command;

/// The simulated caches, fixed so counts do not depend on the host: 32 KiB 8-way L1
/// caches and a 1 MiB 16-way last level (a per-core share of a server's LLC), 64-byte
/// lines. The interner corpora's working sets are larger than that last level.
pub const CACHES: [&str; 3] = ["--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64"];
pub const LL_BYTES: usize = 1 << 20;

/// Callgrind's events for one profile (the `--cache-sim=yes` set).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Counts {
    pub ir: f64,
    pub dr: f64,
    pub dw: f64,
    pub i1mr: f64,
    pub d1mr: f64,
    pub d1mw: f64,
    pub ilmr: f64,
    pub dlmr: f64,
    pub dlmw: f64,
    /// Bus events (`Ge`): locked instructions.
    pub ge: f64,
}

impl Counts {
    pub fn l1_misses(&self) -> f64 {
        self.i1mr + self.d1mr + self.d1mw
    }

    pub fn ll_misses(&self) -> f64 {
        self.ilmr + self.dlmr + self.dlmw
    }

    /// gungraun's (and iai's) estimate: every access that hits L1 costs 1, one that
    /// misses L1 and hits the last level 5, one that misses both 35:
    /// `(Ir + Dr + Dw − L1 misses) + 5 × (L1 misses − LL misses) + 35 × LL misses`.
    pub fn estimated_cycles(&self) -> f64 {
        let accesses = self.ir + self.dr + self.dw;
        (accesses - self.l1_misses()) + 5.0 * (self.l1_misses() - self.ll_misses()) + 35.0 * self.ll_misses()
    }

    /// `(self − harness) / ops`: one operation's own counts.
    pub fn per_op_minus(&self, harness: &Counts, ops: u64) -> Counts {
        let n = ops.max(1) as f64;
        let f = |a: f64, b: f64| (a - b) / n;
        Counts {
            ir: f(self.ir, harness.ir),
            dr: f(self.dr, harness.dr),
            dw: f(self.dw, harness.dw),
            i1mr: f(self.i1mr, harness.i1mr),
            d1mr: f(self.d1mr, harness.d1mr),
            d1mw: f(self.d1mw, harness.d1mw),
            ilmr: f(self.ilmr, harness.ilmr),
            dlmr: f(self.dlmr, harness.dlmr),
            dlmw: f(self.dlmw, harness.dlmw),
            ge: f(self.ge, harness.ge),
        }
    }
}

/// Reads the totals of one callgrind profile (`events:` names the columns; `totals:` or
/// `summary:` holds them; trailing zero columns are left out by callgrind, so a profile
/// without locked instructions may end before its `Ge` column).
pub fn parse_profile(text: &str) -> Result<Counts, String> {
    let mut events: Vec<&str> = Vec::new();
    let mut totals: Option<Vec<f64>> = None;
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("events:") {
            events = rest.split_whitespace().collect();
        } else if let Some(rest) = line.strip_prefix("totals:").or_else(|| line.strip_prefix("summary:")) {
            let v: Result<Vec<f64>, _> = rest.split_whitespace().map(str::parse::<f64>).collect();
            totals = Some(v.map_err(|e| format!("bad totals line {line:?}: {e}"))?);
        }
    }
    let totals = totals.ok_or("profile has no totals line")?;
    if events.is_empty() {
        return Err("profile has no events line".into());
    }
    let mut c = Counts::default();
    for (i, name) in events.iter().enumerate() {
        let v = totals.get(i).copied().unwrap_or(0.0);
        match *name {
            "Ir" => c.ir = v,
            "Dr" => c.dr = v,
            "Dw" => c.dw = v,
            "I1mr" => c.i1mr = v,
            "D1mr" => c.d1mr = v,
            "D1mw" => c.d1mw = v,
            "ILmr" => c.ilmr = v,
            "DLmr" => c.dlmr = v,
            "DLmw" => c.dlmw = v,
            "Ge" => c.ge = v,
            _ => {}
        }
    }
    Ok(c)
}

/// Whether `valgrind` answers.
pub fn available() -> bool {
    Command::new("valgrind").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

/// `valgrind --version`, for the report.
pub fn valgrind_version() -> String {
    Command::new("valgrind")
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().trim_start_matches("valgrind-").to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Installs Debian's `valgrind` when it is missing and we may (root, apt-get present), so
/// the report's first command needs no set-up. Returns whether valgrind is there now.
pub fn ensure_installed() -> bool {
    if available() {
        return true;
    }
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if !is_root || Command::new("apt-get").arg("--version").output().is_err() {
        eprintln!("valgrind not found (install Debian's `valgrind`): the counted section will be empty");
        return false;
    }
    eprintln!("installing valgrind with apt-get ...");
    let quiet = |args: &[&str]| {
        Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").output().map(|o| o.status.success())
    };
    let ok =
        quiet(&["update", "-qq"]).unwrap_or(false) && quiet(&["install", "-y", "-qq", "valgrind"]).unwrap_or(false);
    ok && available()
}

/// Runs `exe args` under callgrind with the variable `env` set, counting only inside the
/// recorder's region, with profiles written into `dir` (removed afterwards unless
/// `keep`). Returns the child's stdout and each dump's counts, indexed by dump number − 1.
pub fn run(
    exe: &Path,
    args: &[String],
    env: &(&str, String),
    dir: &Path,
    keep: bool,
) -> Result<(String, Vec<Counts>), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let region = super::recorder::REGION_SYMBOL;
    let out_file = dir.join("cg.out");
    let output = Command::new("valgrind")
        .args(["--tool=callgrind", "--cache-sim=yes", "--collect-bus=yes", "--dump-instr=no", "--collect-atstart=no"])
        .arg(format!("--toggle-collect={region}"))
        .arg(format!("--dump-after={region}"))
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .args(CACHES)
        .arg(exe)
        .args(args)
        .env(env.0, &env.1)
        .output()
        .map_err(|e| format!("valgrind: {e}"))?;
    let result = (|| {
        if !output.status.success() {
            let err = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = err.lines().rev().take(4).collect();
            return Err(format!("child under callgrind: {} ({})", output.status, tail.join(" / ")));
        }
        let mut dumps = Vec::new();
        for n in 1.. {
            let path = dir.join(format!("cg.out.{n}"));
            let Ok(text) = std::fs::read_to_string(&path) else { break };
            dumps.push(parse_profile(&text).map_err(|e| format!("{}: {e}", path.display()))?);
        }
        Ok((String::from_utf8_lossy(&output.stdout).into_owned(), dumps))
    })();
    if !keep {
        let _ = std::fs::remove_dir_all(dir);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const PROFILE: &str = "version: 1\ncreator: callgrind-3.19.0\npart: 2\n\
        events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw\n\nfn=(1) f\n3 5 1\n\n\
        summary: 1000 300 200 10 20 5 1 2\ntotals: 1000 300 200 10 20 5 1 2\n";

    #[test]
    fn parses_totals_with_trailing_zeros_left_out() {
        let c = parse_profile(PROFILE).unwrap();
        assert_eq!((c.ir, c.dr, c.dw), (1000.0, 300.0, 200.0));
        assert_eq!((c.l1_misses(), c.ll_misses()), (35.0, 3.0));
        assert_eq!(c.dlmw, 0.0);
    }

    #[test]
    fn parses_bus_events_as_locked_instructions() {
        let with_bus = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Ge\n\
            totals: 1000 300 200 10 20 5 1 2 0 7\n";
        let c = parse_profile(with_bus).unwrap();
        assert_eq!((c.ge, c.dlmr, c.dlmw), (7.0, 2.0, 0.0));
        // No locked instruction: callgrind leaves the trailing zero out.
        let no_locks = "events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Ge\ntotals: 1000 300 200 10 20 5 1 2 3\n";
        assert_eq!(parse_profile(no_locks).unwrap().ge, 0.0);
        // Bus events do not enter the cycle estimate.
        let without_bus = parse_profile(PROFILE).unwrap();
        assert_eq!(without_bus.ge, 0.0);
        assert_eq!(c.estimated_cycles(), without_bus.estimated_cycles());
    }

    #[test]
    fn estimated_cycles_weigh_misses() {
        let c = parse_profile(PROFILE).unwrap();
        // 1500 accesses: 1465 L1 hits, 32 LL hits, 3 LL misses.
        assert_eq!(c.estimated_cycles(), 1465.0 + 5.0 * 32.0 + 35.0 * 3.0);
    }

    #[test]
    fn a_profile_without_totals_is_an_error() {
        assert!(parse_profile("events: Ir\n").is_err());
        assert!(parse_profile("totals: 1 x\nevents: Ir\n").is_err());
    }

    #[test]
    fn per_op_subtracts_the_harness() {
        let run = Counts { ir: 1100.0, d1mr: 30.0, ge: 300.0, ..Counts::default() };
        let harness = Counts { ir: 100.0, d1mr: 10.0, ge: 100.0, ..Counts::default() };
        let own = run.per_op_minus(&harness, 100);
        assert_eq!((own.ir, own.d1mr, own.ge), (10.0, 0.2, 2.0));
    }
}
