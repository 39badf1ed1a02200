//! Captures what the report's header needs and cannot learn at run time: the compiler
//! that built the benchmark and the versions of the peer crates it was built against.

use std::path::Path;
use std::process::Command;

/// Crates whose versions the report names (the peers plus dynatom itself).
const REPORTED_CRATES: &[&str] = &[
    "dynatom",
    "ustr",
    "string_cache",
    "internment",
    "lasso",
    "string-interner",
    "symbol_table",
    "compact_str",
    "smol_str",
    "arcstr",
    "hipstr",
    "bytes",
    "rapidhash",
    "hashbrown",
    "foldhash",
    "indexmap",
];

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let version = Command::new(&rustc)
        .arg("-V")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| "unknown rustc".to_string());
    println!("cargo:rustc-env=BENCH_RUSTC_VERSION={version}");

    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    println!("cargo:rerun-if-changed={}", lock.display());
    println!("cargo:rerun-if-changed=build.rs");
    let text = std::fs::read_to_string(&lock).unwrap_or_default();
    println!("cargo:rustc-env=BENCH_PEER_VERSIONS={}", peer_versions(&text));
}

/// `name version;name version;...` for every reported crate found in Cargo.lock.
/// Cargo.lock lists `name = "..."` immediately followed by `version = "..."`.
fn peer_versions(lock: &str) -> String {
    let mut found = Vec::new();
    let mut name: Option<&str> = None;
    for line in lock.lines() {
        if let Some(n) = quoted_value(line, "name") {
            name = Some(n);
        } else if let (Some(n), Some(v)) = (name, quoted_value(line, "version")) {
            if REPORTED_CRATES.contains(&n) {
                found.push(format!("{n} {v}"));
            }
            name = None;
        }
    }
    found.sort();
    found.dedup();
    found.join(";")
}

fn quoted_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = line.strip_prefix(key)?.trim_start().strip_prefix('=')?.trim();
    rest.strip_prefix('"')?.strip_suffix('"')
}
