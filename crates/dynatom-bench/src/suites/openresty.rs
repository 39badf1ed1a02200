//! Suite `openresty`: the LuaJIT module inside nginx with lua-nginx-module, under wrk
//! load. `scripts/openresty-tests --one PATH SECONDS` starts nginx with the module loaded
//! in `init_by_lua`, serves the cache handler of `crates/dynatom-ffi/lua/examples/openresty`
//! (a per-worker cache keyed by atoms, of values built from wrapped FFI buffers; or the
//! same handler on Lua strings), runs wrk against one path, and prints one line; each
//! repetition is a fresh nginx, the two handlers interleaved.

use super::{ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::report::{cell, combine, fmt_ratio, Report, Table};
use std::path::PathBuf;
use std::process::Command;

pub const SUITE: SuiteDef = SuiteDef {
    name: "openresty",
    about: "the LuaJIT module in nginx + lua-nginx-module under wrk: requests/s and latency",
    reps_full: 5,
    reps_quick: 1,
    jobs,
    child,
    report,
};

/// (job name, path served, what it is).
const HANDLERS: &[(&str, &str, &str)] = &[
    ("dynatom", "/atoms", "atoms as cache keys, wrapped and built values"),
    ("Lua strings", "/strings", "Lua strings as keys, `ffi.string` copies, `..` concatenation"),
];

/// The figures of wrk_check.lua's result line, in its order after the handler's path.
const FIGURES: &[&str] = &["checked", "bad", "p50_us", "p90_us", "p99_us", "requests", "seconds"];

fn seconds(scale: Scale) -> u32 {
    match scale {
        Scale::Full => 5,
        Scale::Quick => 1,
    }
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let s = seconds(ctx.scale).to_string();
    HANDLERS.iter().map(|(name, path, _)| Job::new(name, path, &s)).collect()
}

fn script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scripts/openresty-tests")
}

/// The figures of the script's `handler PATH checked N bad B ...` line.
fn parse_line(stdout: &str) -> Option<Vec<(&'static str, f64)>> {
    let line = stdout.lines().find(|l| l.starts_with("handler "))?;
    let words: Vec<&str> = line.split_whitespace().collect();
    FIGURES
        .iter()
        .map(|name| {
            let at = words.iter().position(|w| w == name)?;
            Some((*name, words.get(at + 1)?.parse().ok()?))
        })
        .collect()
}

fn child(job: &Job, _: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    let run = Command::new(script()).args(["--one", &job.corpus, &job.param]).output();
    let run = match run {
        Ok(run) => run,
        Err(e) => {
            out.fail(format!("scripts/openresty-tests: {e}"));
            return out;
        }
    };
    let stdout = String::from_utf8_lossy(&run.stdout);
    let stderr = String::from_utf8_lossy(&run.stderr);
    match parse_line(&stdout) {
        None if stderr.contains("SKIPPED") => out.fail(stderr.trim().to_string()),
        None => out.fail(format!("no result line: {}", stderr.lines().last().unwrap_or("").trim())),
        Some(figures) => {
            for (name, value) in figures {
                out.fig(name, value);
            }
            if let (Some(requests), Some(seconds)) = (out.figures.get("requests"), out.figures.get("seconds")) {
                out.fig("requests_per_s", requests / seconds);
            }
            if !run.status.success() {
                out.fail(format!("the handler failed its checks: {}", stderr.trim()));
            }
        }
    }
    out
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "openresty",
        "OpenResty: the module inside nginx under load",
        &format!(
            "Debian's nginx with lua-nginx-module (2 workers) loads the module in `init_by_lua`; a \
             handler keeps, per worker, a cache of 1,000 entries (started over when full) for keys \
             `item-0` … `item-4999`, each value made from bytes that arrive in an FFI buffer. The dynatom \
             handler keys the cache by atoms, wraps the buffer (`dynatom.wrap`, no copy) and builds the \
             body with a builder; the other is the same handler on Lua strings (`ffi.string`, `..`). \
             Both hand the body to `ngx.print` as a Lua string, so the dynatom handler converts its \
             cached body on every response. wrk (2 threads, 16 connections, {} s a repetition, on the \
             same cores as nginx) requests random keys and checks every body. Median of repetitions, \
             each a fresh nginx, handlers interleaved. Ratio = dynatom ÷ Lua strings on requests/s \
             (above 1: dynatom serves more).",
            seconds(ctx.scale)
        ),
    );
    if let Some(why) = HANDLERS.iter().find_map(|(name, path, _)| {
        r.error(&Job::new(name, path, &seconds(ctx.scale).to_string())).filter(|e| e.contains("SKIPPED"))
    }) {
        rep.para(&format!("Unavailable: {why}"));
    }
    let s = seconds(ctx.scale).to_string();
    let mut t = Table::new(&["handler", "requests/s", "p50 µs", "p90 µs", "p99 µs", "responses checked", "wrong"]);
    for (name, path, what) in HANDLERS {
        let job = Job::new(name, path, &s);
        t.row(vec![
            format!("{name} ({what})"),
            cell(r, &job, "requests_per_s"),
            cell(r, &job, "p50_us"),
            cell(r, &job, "p90_us"),
            cell(r, &job, "p99_us"),
            cell(r, &job, "checked"),
            cell(r, &job, "bad"),
        ]);
    }
    rep.table(&t);
    let ours = Job::new(HANDLERS[0].0, HANDLERS[0].1, &s);
    let lua = Job::new(HANDLERS[1].0, HANDLERS[1].1, &s);
    rep.para(&format!(
        "dynatom ÷ Lua strings, requests/s: {}",
        fmt_ratio(r.median(&ours, "requests_per_s"), r.median(&lua, "requests_per_s"))
    ));
    let mut correct = Some(true);
    for job in [&ours, &lua] {
        let runs = r.runs.get(job).map(Vec::as_slice).unwrap_or_default();
        let verdict = match r.error(job) {
            _ if runs.is_empty() => None,
            Some(e) if e.contains("SKIPPED") => None,
            Some(_) => Some(false),
            None => Some(runs.iter().all(|o| o.figures.get("bad") == Some(&0.0))),
        };
        combine(&mut correct, verdict);
    }
    rep.target(
        "every response correct, no error in error.log, workers alive, in both handlers",
        format!("{} responses checked (dynatom, median of repetitions)", cell(r, &ours, "checked")),
        correct,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_result_line_parses() {
        let line =
            "handler /atoms checked 27439 bad 0 p50_us 936 p90_us 6556 p99_us 16231 requests 27439 seconds 3.071\n";
        let figures = parse_line(line).unwrap();
        assert_eq!(figures[0], ("checked", 27439.0));
        assert_eq!(figures[6], ("seconds", 3.071));
        assert!(parse_line("SKIPPED: nginx").is_none());
        assert!(parse_line("handler /atoms checked 1 bad").is_none(), "a cut line is no result");
    }
}
