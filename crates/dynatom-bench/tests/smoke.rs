//! Smoke test of the report pipeline (parent → children → markdown, JSON, charts) on the
//! two cheapest suites. No timing assertions: only that the run completes and writes
//! what it promises, and that bad arguments are refused.

use std::path::{Path, PathBuf};
use std::process::Command;

fn bench() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dynatom-bench"))
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("dynatom-bench-smoke-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `suite` quick, once, into `dir` and `json`; checks that it succeeded, that every
/// peer's answers passed, and that its section and targets are in the report. Returns the
/// report and the figures.
fn run_quick_suite(suite: &str, dir: &Path, json: &Path) -> (String, Vec<serde_json::Value>) {
    let out = bench()
        .args(["--quick", "--reps", "1", "--only", suite, "--out"])
        .arg(dir)
        .arg("--json")
        .arg(json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{suite}: {}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(!md.contains("| wrong ✗"), "{md}");
    assert!(md.contains(&format!("(`{suite}`)")), "{md}");
    assert!(md.contains("- Target:"), "{md}");
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    (md, figures["figures"].as_array().unwrap().clone())
}

#[test]
fn quick_single_suite_writes_report_json_and_chart() {
    let dir = scratch("report");
    let json = dir.join("figures.json");
    let out = bench()
        .args(["--quick", "--reps", "1", "--only", "atom-to-string", "--out"])
        .arg(&dir)
        .arg("--json")
        .arg(&json)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(md.contains("| length (bytes) |"), "{md}");
    assert!(md.contains("vs dynatom"));
    assert!(md.contains("atom-to-string.svg"));
    assert!(dir.join("atom-to-string.svg").exists());
    let figures: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert!(!figures["figures"].as_array().unwrap().is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("Str::from(&atom)"), "progress goes to stderr");
    // The report opens with its summary; the terminal gets the summary and the report's
    // path, not the whole report.
    let summary = md.find("## Summary").expect("a summary");
    assert!(summary < md.find("## Run").unwrap() && summary < md.find("## Targets").unwrap(), "{md}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("targets:") && stdout.contains("report.md"), "{stdout}");
    assert!(!stdout.contains("| length (bytes) |"), "the terminal got the whole report: {stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn substrings_suite_checks_answers() {
    let dir = scratch("substrings");
    let out = bench().args(["--quick", "--reps", "1", "--only", "substrings", "--out"]).arg(&dir).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
    assert!(!md.contains("| wrong ✗"), "{md}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_are_refused() {
    for args in
        [&["--only", "no-such-suite"][..], &["--corpus", "/no/such/file"], &["--bogus"], &["--check", "/no/such/file"]]
    {
        let out = bench().args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn build_and_small_map_suites_run_and_check_answers() {
    let dir = scratch("build-small-map");
    let json = dir.join("figures.json");
    for suite in ["build", "small-map"] {
        let (md, figures) = run_quick_suite(suite, &dir, &json);
        assert!(md.contains("vs dynatom"), "{md}");
        assert!(figures.iter().any(|f| f["suite"] == suite), "{suite}");
    }
    assert!(dir.join("small-map-lookup.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn churn_and_fill_latency_suites_run_and_check_answers() {
    let dir = scratch("churn-fill");
    let json = dir.join("figures.json");
    for (suite, figures) in
        [("churn", &["churn_ns", "held_ns", "churn_over_held"][..]), ("fill-latency", &["p50_ns", "p999_ns", "max_ns"])]
    {
        let out = bench()
            .args(["--quick", "--reps", "1", "--only", suite, "--out"])
            .arg(&dir)
            .arg("--json")
            .arg(&json)
            .output()
            .unwrap();
        assert!(out.status.success(), "{suite}: {}", String::from_utf8_lossy(&out.stderr));
        let md = std::fs::read_to_string(dir.join("report.md")).unwrap();
        assert!(!md.contains("| wrong ✗"), "{md}");
        assert!(md.contains(&format!("(`{suite}`)")), "{md}");
        assert!(md.contains("| internment Intern |"), "{md}");
        assert!(md.contains("- Target:"), "{md}");
        let all: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let all = all["figures"].as_array().unwrap();
        for figure in figures {
            let dynatom = all
                .iter()
                .find(|f| f["suite"] == suite && f["peer"] == "dynatom Atom" && f["figure"] == *figure)
                .unwrap_or_else(|| panic!("{suite}: no {figure} for dynatom"));
            assert!(dynatom["median"].as_f64().is_some_and(|v| v > 0.0), "{suite} {figure}: {dynatom}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_and_table_sweep_suites_report_resident_bytes() {
    let dir = scratch("resident");
    let json = dir.join("figures.json");
    for (suite, figures) in [
        ("memory", &["overhead_per_string", "resident_per_string"][..]),
        ("table-sweep", &["ns_per_intern", "resident_per_atom"]),
    ] {
        let (md, all) = run_quick_suite(suite, &dir, &json);
        assert!(md.contains("resident"), "{md}");
        for figure in figures {
            // RssAnon is Linux's: elsewhere the resident cells read "—".
            if figure.starts_with("resident") && !cfg!(target_os = "linux") {
                continue;
            }
            let dynatom = all
                .iter()
                .find(|f| f["suite"] == suite && f["peer"] == "dynatom Atom" && f["figure"] == *figure)
                .unwrap_or_else(|| panic!("{suite}: no {figure} for dynatom"));
            assert!(dynatom["median"].as_f64().is_some_and(f64::is_finite), "{suite} {figure}: {dynatom}");
        }
    }
    assert!(dir.join("table-sweep-ns.svg").exists());
    assert!(dir.join("table-sweep-resident.svg").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn owned_buffers_suite_checks_parts_and_reports_its_figures() {
    let dir = scratch("owned-buffers");
    let json = dir.join("figures.json");
    let (md, all) = run_quick_suite("owned-buffers", &dir, &json);
    assert!(md.contains("| String per line |"), "{md}");
    let figure = |peer: &str, name: &str| {
        all.iter()
            .find(|f| f["suite"] == "owned-buffers" && f["peer"] == peer && f["figure"] == name)
            .and_then(|f| f["median"].as_f64())
            .unwrap_or_else(|| panic!("no {name} for {peer}"))
    };
    let mut wanted = vec![
        ("dynatom ByteAtom + slice_ref", "ns_per_request"),
        ("dynatom ByteAtom + slice_ref", "allocs_per_request"),
        ("Bytes slices", "buffers_held"),
        ("dynatom ByteStr::from_owner(mmap)", "ms_total"),
    ];
    // RssAnon and RssFile are Linux's: elsewhere those cells read "—".
    if cfg!(target_os = "linux") {
        wanted.extend([("String copies", "resident_kept_bytes"), ("String per line", "anon_growth_mib")]);
    }
    for (peer, name) in wanted {
        assert!(figure(peer, name).is_finite(), "{peer} {name}");
    }
    // Every kept `Bytes` slice holds a buffer of its own; a kept dynatom value holds none.
    assert!(figure("Bytes slices", "buffers_held") > 0.0);
    assert_eq!(figure("dynatom ByteAtom + slice_ref", "buffers_held"), 0.0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn help_lists_every_suite() {
    let out = bench().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stderr);
    for suite in
        ["intern-global", "churn", "fill-latency", "memory", "table-sweep", "small-map", "owned-buffers", "counted"]
    {
        assert!(text.contains(&format!("  {suite} ")), "{suite} missing from:\n{text}");
    }
}
