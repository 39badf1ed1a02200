//! The article's cache workload in real LuaJIT (Debian's `luajit`), beside the Rust model
//! of its interning: the script `lua/cache_workload.lua` times each value creation with
//! `clock_gettime` through the FFI and prints the latencies.

use std::path::PathBuf;
use std::process::Command;

const SCRIPT: &str = include_str!("../lua/cache_workload.lua");

/// Whether a `luajit` binary answers.
pub fn available() -> bool {
    Command::new("luajit").arg("-v").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Installs Debian's `luajit` when it is missing and we may (root, apt-get present), so
/// the report's first command needs no set-up. Failure is not fatal: the suite then
/// reports the LuaJIT row as unavailable.
pub fn ensure_installed() {
    if available() {
        return;
    }
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if !is_root || Command::new("apt-get").arg("--version").output().is_err() {
        eprintln!("luajit not found (install Debian's `luajit`): the LuaJIT row will be empty");
        return;
    }
    eprintln!("installing luajit with apt-get ...");
    let quiet = |args: &[&str]| {
        Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").output().map(|o| o.status.success())
    };
    let ok = quiet(&["update", "-qq"]).unwrap_or(false) && quiet(&["install", "-y", "-qq", "luajit"]).unwrap_or(false);
    if !ok || !available() {
        eprintln!("could not install luajit: the LuaJIT row will be empty");
    }
}

/// Runs the workload: `count` values of `size` bytes into a cache of `capacity` entries
/// that evicts `evict` when full. Returns each creation's latency in µs.
pub fn run(size: usize, count: usize, capacity: usize, evict: usize, similar: bool) -> Result<Vec<f64>, String> {
    let script: PathBuf = std::env::temp_dir().join(format!("dynatom-cache-workload-{}.lua", std::process::id()));
    std::fs::write(&script, SCRIPT).map_err(|e| format!("writing {}: {e}", script.display()))?;
    let output = Command::new("luajit")
        .arg(&script)
        .args([size, count, capacity, evict].map(|n| n.to_string()))
        .arg(if similar { "similar" } else { "random" })
        .output();
    let _ = std::fs::remove_file(&script);
    let output = output.map_err(|e| format!("luajit: {e}"))?;
    if !output.status.success() {
        return Err(format!("luajit failed: {}", String::from_utf8_lossy(&output.stderr)));
    }
    let text = String::from_utf8_lossy(&output.stdout);
    let mut lines = text.lines();
    let checksum: usize = lines.next().and_then(|l| l.trim().parse().ok()).ok_or("no checksum from luajit")?;
    if checksum != size * count {
        return Err(format!("luajit made {checksum} bytes of values, expected {}", size * count));
    }
    let latencies: Vec<f64> = lines.filter_map(|l| l.trim().parse::<f64>().ok()).map(|ns| ns / 1000.0).collect();
    if latencies.len() != count {
        return Err(format!("luajit timed {} creations, expected {count}", latencies.len()));
    }
    Ok(latencies)
}
