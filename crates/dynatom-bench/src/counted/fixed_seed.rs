//! The counted children's binary: this benchmark built again with
//! `RUSTFLAGS="--cfg dynatom_fixed_seed"`, into a target folder of its own.
//!
//! dynatom's process-wide seeds (the global table's and `AtomTable::new()` tables', the
//! word seed of inline atoms and `SmallMap` keys) decide which keys share a bucket, a slot
//! tag or a hint, so the rows that use them count the same run to run only under fixed
//! seeds. dynatom offers no call that fixes them (any dependency could have made it, for
//! every table of a program); only a build with that `--cfg` reads them from
//! `DYNATOM_FIXED_SEED`. A `--cfg` cannot be given to one dependency from its dependent's
//! manifest or build script, and a workspace-wide `rustflags` would also reach the C
//! library and the tests, so the parent builds this binary itself, with the cargo that
//! runs it, and gives every child the variable. The first run compiles the benchmark and
//! its peers a second time (a few minutes); later runs find it up to date.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable a `--cfg dynatom_fixed_seed` build of dynatom reads its seeds from.
pub const SEED_ENV: &str = "DYNATOM_FIXED_SEED";

/// The `--cfg` that lets dynatom read [`SEED_ENV`].
const CFG: &str = "dynatom_fixed_seed";

fn workspace() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().and_then(Path::parent).unwrap_or(manifest).to_path_buf()
}

/// Whether this binary was built with the `--cfg` (then it can be its own child).
pub fn built_with_fixed_seeds() -> bool {
    cfg!(dynatom_fixed_seed)
}

/// The binary the counted children run: this one if it was built with the `--cfg`,
/// else the benchmark built with it under `<workspace>/target/fixed-seed` (built now if
/// it is missing or stale).
pub fn child_exe() -> Result<PathBuf, String> {
    if built_with_fixed_seeds() {
        return std::env::current_exe().map_err(|e| format!("current_exe: {e}"));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let target_dir = workspace().join("target").join("fixed-seed");
    eprintln!("building the counted children: {cargo} build --release -p dynatom-bench with --cfg {CFG} ...");
    let mut command = Command::new(&cargo);
    command
        .args(["build", "--release", "-p", "dynatom-bench", "--message-format=json-render-diagnostics"])
        .current_dir(workspace())
        .env("CARGO_TARGET_DIR", &target_dir);
    // Cargo reads `CARGO_ENCODED_RUSTFLAGS` before `RUSTFLAGS`: add the cfg to whichever
    // the user's flags are in, keeping them.
    match std::env::var("CARGO_ENCODED_RUSTFLAGS") {
        Ok(flags) if !flags.is_empty() => command.env("CARGO_ENCODED_RUSTFLAGS", format!("{flags}\x1f--cfg\x1f{CFG}")),
        _ => {
            let flags = std::env::var("RUSTFLAGS").unwrap_or_default();
            command.env_remove("CARGO_ENCODED_RUSTFLAGS").env("RUSTFLAGS", format!("{flags} --cfg {CFG}").trim())
        }
    };
    let output = command.output().map_err(|e| format!("{cargo}: {e}"))?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let last = stderr.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("").trim().to_string();
        return Err(format!("building the benchmark with --cfg {CFG} failed: {last}"));
    }
    executable_from_messages(&String::from_utf8_lossy(&output.stdout))
        .ok_or_else(|| format!("cargo built dynatom-bench with --cfg {CFG} but named no executable"))
}

/// The executable among the `compiler-artifact` messages of the `dynatom-bench` binary.
fn executable_from_messages(stdout: &str) -> Option<PathBuf> {
    stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "dynatom-bench")
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_executable_is_read_from_cargos_messages() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"dynatom"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"dynatom-bench"},"executable":"/t/fixed-seed/release/dynatom-bench"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
        );
        assert_eq!(executable_from_messages(messages), Some(PathBuf::from("/t/fixed-seed/release/dynatom-bench")));
        assert_eq!(executable_from_messages(r#"{"reason":"build-finished","success":true}"#), None);
    }
}
