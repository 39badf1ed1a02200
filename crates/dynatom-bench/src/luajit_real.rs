//! The article's cache workload in real LuaJIT (Debian's `luajit`): the script
//! `lua/luajit_cache.lua` makes each value as a Lua string, a `string.buffer` or a dynatom
//! str (through `crates/dynatom-ffi/lua/dynatom.lua`), times each creation with
//! `clock_gettime` through the FFI and prints the latencies and the process's peak RSS;
//! `lua/header_keys.lua` times table lookups keyed by header names or by their atoms;
//! `lua/wrap_values.lua` makes values that arrive in FFI buffers into strings, by
//! `ffi.string` copies or by `dynatom.wrap`.

use std::path::{Path, PathBuf};
use std::process::Command;

const CACHE_SCRIPT: &str = include_str!("../lua/luajit_cache.lua");
const HEADER_SCRIPT: &str = include_str!("../lua/header_keys.lua");
const WRAP_SCRIPT: &str = include_str!("../lua/wrap_values.lua");

/// The environment variable through which the parent hands the built library to the
/// children (and the module finds it: `dynatom.lua` reads `DYNATOM_LIB`).
pub const LIB_ENV: &str = "DYNATOM_LIB";

/// Where `require "dynatom"` finds the module: the source tree's copy.
fn module_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../dynatom-ffi/lua")
}

/// Whether a `luajit` binary answers.
pub fn available() -> bool {
    Command::new("luajit").arg("-v").output().map(|o| o.status.success()).unwrap_or(false)
}

/// Installs Debian's `luajit` when it is missing and we may (root, apt-get present), so
/// the report's first command needs no set-up. Failure is not fatal: the suites then
/// report the LuaJIT rows as unavailable.
pub fn ensure_installed() {
    if available() {
        return;
    }
    let is_root = Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0")).unwrap_or(false);
    if !is_root || Command::new("apt-get").arg("--version").output().is_err() {
        eprintln!("luajit not found (install Debian's `luajit`): the LuaJIT rows will be empty");
        return;
    }
    eprintln!("installing luajit with apt-get ...");
    let quiet = |args: &[&str]| {
        Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").output().map(|o| o.status.success())
    };
    let ok = quiet(&["update", "-qq"]).unwrap_or(false) && quiet(&["install", "-y", "-qq", "luajit"]).unwrap_or(false);
    if !ok || !available() {
        eprintln!("could not install luajit: the LuaJIT rows will be empty");
    }
}

/// Builds the C library (`cargo build --release -p dynatom-ffi`, with the cargo that runs
/// us, else `cargo` from the path) and returns the shared library's path, read from
/// cargo's JSON messages so a custom target directory works too.
pub fn build_library() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let workspace = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    eprintln!("building the C library: {cargo} build --release -p dynatom-ffi ...");
    let output = Command::new(&cargo)
        .args(["build", "--release", "-p", "dynatom-ffi", "--message-format=json-render-diagnostics"])
        .current_dir(&workspace)
        .output()
        .map_err(|e| format!("{cargo}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
        return Err(format!("`cargo build --release -p dynatom-ffi` failed: {last}"));
    }
    shared_library_from_messages(&String::from_utf8_lossy(&output.stdout))
        .ok_or_else(|| "cargo built dynatom-ffi but named no libdynatom_ffi.so".to_string())
}

/// The `.so` among the `compiler-artifact` messages of the `dynatom-ffi` package.
fn shared_library_from_messages(stdout: &str) -> Option<PathBuf> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact")
        .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(PathBuf::from))
        .find(|p| p.file_name().is_some_and(|n| n == "libdynatom_ffi.so"))
}

/// Which object the cache workload makes for each value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// A Lua string, `base .. tail`: interned by LuaJIT at creation.
    Native,
    /// LuaJIT's `string.buffer` holding the value.
    Buffer,
    /// A dynatom str through the LuaJIT module.
    Dynatom,
    /// The same, after `dynatom.retain_freed_memory(256 MiB)` (glibc keeps freed blocks).
    DynatomRetain,
}

impl Variant {
    fn arg(self) -> &'static str {
        match self {
            Variant::Native => "native",
            Variant::Buffer => "buffer",
            Variant::Dynatom => "dynatom",
            Variant::DynatomRetain => "dynatom-retain",
        }
    }
}

/// One run of the cache workload.
pub struct CacheRun {
    /// Each creation's wall-clock latency in µs.
    pub latencies_us: Vec<f64>,
    /// Each creation's thread-CPU time in µs (user + system: page faults count,
    /// preemption by other processes does not).
    pub cpu_us: Vec<f64>,
    /// The luajit process's VmHWM at the end, in KiB.
    pub peak_rss_kib: f64,
    /// Minor page faults during the creations until the cache first filled (nothing had
    /// been freed yet), and during the whole timed loop.
    pub faults_until_full: f64,
    pub faults_total: f64,
}

/// Writes a script to a temporary file, runs luajit on it with `args`, returns stdout.
fn run_script(name: &str, text: &str, args: &[String], lib: Option<&Path>) -> Result<String, String> {
    let script = std::env::temp_dir().join(format!("dynatom-{name}-{}.lua", std::process::id()));
    std::fs::write(&script, text).map_err(|e| format!("writing {}: {e}", script.display()))?;
    let mut cmd = Command::new("luajit");
    cmd.arg(&script).args(args);
    if let Some(lib) = lib {
        cmd.env(LIB_ENV, lib).env("LUA_PATH", format!("{}/?.lua;;", module_dir().display()));
    }
    let output = cmd.output();
    let _ = std::fs::remove_file(&script);
    let output = output.map_err(|e| format!("luajit: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!("luajit failed: {}", stderr.lines().next().unwrap_or("").trim()));
    }
    Ok(String::from_utf8_lossy(&output.stdout).into_owned())
}

/// "WALL_NS CPU_NS" → (wall µs, CPU µs).
fn timing_line(line: &str) -> Option<(f64, f64)> {
    let (wall, cpu) = line.trim().split_once(' ')?;
    Some((wall.parse::<f64>().ok()? / 1000.0, cpu.parse::<f64>().ok()? / 1000.0))
}

fn field(text: &str, name: &str) -> Option<f64> {
    text.lines().find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

/// Runs the cache workload: `count` values of `size` bytes into a cache of `capacity`
/// entries that evicts `evict` when full. `lib` is the built library (needed by
/// [`Variant::Dynatom`] only).
pub fn run_cache(
    variant: Variant,
    size: usize,
    (count, capacity, evict): (usize, usize, usize),
    similar: bool,
    lib: Option<&Path>,
) -> Result<CacheRun, String> {
    if matches!(variant, Variant::Dynatom | Variant::DynatomRetain) && lib.is_none() {
        return Err("library not built".into());
    }
    let mut args: Vec<String> = vec![variant.arg().into()];
    args.extend([size, count, capacity, evict].map(|n| n.to_string()));
    args.push(if similar { "similar" } else { "random" }.into());
    let text = run_script("cache-workload", CACHE_SCRIPT, &args, lib)?;
    let checksum = field(&text, "checksum").ok_or("no checksum from luajit")?;
    if checksum != (size * count) as f64 {
        return Err(format!("luajit made {checksum} bytes of values, expected {}", size * count));
    }
    let peak_rss_kib = field(&text, "peak_rss_kib").ok_or("no peak RSS from luajit")?;
    let faults_until_full = field(&text, "faults_until_full").ok_or("no fault count from luajit")?;
    let faults_total = field(&text, "faults_total").ok_or("no fault count from luajit")?;
    let (latencies_us, cpu_us): (Vec<f64>, Vec<f64>) = text.lines().filter_map(timing_line).unzip();
    if latencies_us.len() != count {
        return Err(format!("luajit timed {} creations, expected {count}", latencies_us.len()));
    }
    Ok(CacheRun { latencies_us, cpu_us, peak_rss_kib, faults_until_full, faults_total })
}

/// The native-strings cache workload, latencies only (the lazy-vs-eager suite's row).
pub fn run(size: usize, count: usize, capacity: usize, evict: usize, similar: bool) -> Result<Vec<f64>, String> {
    run_cache(Variant::Native, size, (count, capacity, evict), similar, None).map(|r| r.latencies_us)
}

/// The header-keyed table: ns per lookup over `lookups` lookups, for one of the script's
/// variants (`native`, `dynatom`, `native-bytes`, `dynatom-bytes`: see its header).
pub fn run_headers(variant: &str, lookups: usize, lib: Option<&Path>) -> Result<f64, String> {
    if variant.starts_with("dynatom") && lib.is_none() {
        return Err("library not built".into());
    }
    let args = vec![variant.to_string(), lookups.to_string()];
    let text = run_script("header-keys", HEADER_SCRIPT, &args, lib)?;
    field(&text, "ns_per_lookup").ok_or_else(|| "no ns_per_lookup from luajit".into())
}

/// One run of the wrapped-values workload.
pub struct WrapRun {
    /// Thread CPU ns per value: the buffer, its bytes and (but for `buffer-only`) the string.
    pub ns_per_value: f64,
    /// The luajit process's VmHWM at the end, in KiB.
    pub peak_rss_kib: f64,
}

/// Runs the wrapped-values workload one way (`ffi-string`, `wrap` or `buffer-only`):
/// `count` values of `size` bytes, the last `keep` kept alive.
pub fn run_wrap(way: &str, size: usize, count: usize, keep: usize, lib: Option<&Path>) -> Result<WrapRun, String> {
    if way == "wrap" && lib.is_none() {
        return Err("library not built".into());
    }
    let args: Vec<String> = vec![way.into(), size.to_string(), count.to_string(), keep.to_string()];
    let text = run_script("wrap-values", WRAP_SCRIPT, &args, lib)?;
    let checksum = field(&text, "checksum").ok_or("no checksum from luajit")?;
    if checksum != (size * keep.min(count)) as f64 {
        return Err(format!("luajit kept {checksum} bytes of values, expected {}", size * keep.min(count)));
    }
    Ok(WrapRun {
        ns_per_value: field(&text, "ns_per_value").ok_or("no ns_per_value from luajit")?,
        peak_rss_kib: field(&text, "peak_rss_kib").ok_or("no peak RSS from luajit")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_library_is_found_among_cargo_messages() {
        let msgs = r#"{"reason":"compiler-artifact","filenames":["/t/libdynatom_ffi.a","/t/libdynatom_ffi.so"]}
{"reason":"build-finished","success":true}"#;
        assert_eq!(shared_library_from_messages(msgs), Some(PathBuf::from("/t/libdynatom_ffi.so")));
        assert_eq!(shared_library_from_messages(r#"{"reason":"build-finished"}"#), None);
    }

    #[test]
    fn fields_parse_by_name() {
        let text = "checksum 192000\npeak_rss_kib 2984\n120\n";
        assert_eq!(field(text, "checksum"), Some(192000.0));
        assert_eq!(field(text, "peak_rss_kib"), Some(2984.0));
        assert_eq!(field(text, "nothing"), None);
        assert_eq!(timing_line("1500 2500"), Some((1.5, 2.5)));
        assert_eq!(timing_line("checksum 192000"), None);
    }
}
