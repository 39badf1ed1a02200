//! Suite `count-identifiers`: a user's program. It counts how often each identifier occurs
//! in real Rust sources, written the way the README leads a user to write it, four ways:
//! std's `HashMap<String, u32>` with the default hasher (`get_mut`, then `insert` on a miss:
//! the baseline), `AtomMap::entry`, `Atom::from` + `HashMap<Atom, u32, BuildAtomHasher>`,
//! and `Interner` symbols indexing a `Vec<u32>`. A fifth cell only tokenizes, the floor
//! every way shares.
//!
//! The sources are those of the registry packages the workspace's `Cargo.lock` names, as
//! cargo unpacked them (`$CARGO_HOME/registry/src`), so every machine that built the
//! workspace reads the same files whatever else its registry holds; without them, the
//! workspace's own sources. Files are taken in a fixed pseudo-random order of their
//! `package-version/path` names until a byte budget is reached, and read once per child,
//! before the clock starts.

use super::{ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::corpus::Scale;
use crate::report::{cell, fmt_num, Report, Table};
use dynatom::{Atom, AtomMap, BuildAtomHasher, Interner};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const SUITE: SuiteDef = SuiteDef {
    name: "count-identifiers",
    about: "a user's program: counting the identifiers of real Rust sources",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const CORPUS: &str = "rust-sources";

const STRING_MAP: &str = "HashMap<String, u32> get_mut";
const ATOM_MAP: &str = "AtomMap entry";
const ATOM_HASH_MAP: &str = "Atom::from + HashMap<Atom, u32, BuildAtomHasher>";
const INTERNER: &str = "Interner + Vec<u32>";
const TOKENIZE_ONLY: &str = "tokenize only";

/// Every cell, the baseline first.
const WAYS: &[&str] = &[STRING_MAP, ATOM_MAP, ATOM_HASH_MAP, INTERNER, TOKENIZE_ONLY];

/// Source bytes read at full scale (`--quick`: a tenth), and the largest file taken: one
/// generated table must not outweigh the code around it.
const FULL_BYTES: usize = 16 << 20;
const LARGEST_FILE: u64 = 512 << 10;

fn jobs(_: &Ctx) -> Vec<Job> {
    WAYS.iter().map(|w| Job::new(w, CORPUS, "-")).collect()
}

/// The identifiers of Rust (or C-like) text: maximal runs of ASCII letters, digits and
/// `_` that do not start with a digit (a run that does is a number, skipped whole).
pub struct Identifiers<'a> {
    text: &'a str,
    at: usize,
}

pub fn identifiers(text: &str) -> Identifiers<'_> {
    Identifiers { text, at: 0 }
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

impl<'a> Iterator for Identifiers<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let bytes = self.text.as_bytes();
        loop {
            while self.at < bytes.len() && !is_word_byte(bytes[self.at]) {
                self.at += 1;
            }
            if self.at == bytes.len() {
                return None;
            }
            let start = self.at;
            while self.at < bytes.len() && is_word_byte(bytes[self.at]) {
                self.at += 1;
            }
            if !bytes[start].is_ascii_digit() {
                // Both ends sit next to ASCII bytes (or the text's ends): char boundaries.
                return Some(&self.text[start..self.at]);
            }
        }
    }
}

/// The text read, and from how many files.
pub struct Sources {
    pub text: String,
    pub files: usize,
}

/// `$CARGO_HOME/registry/src/*` (`~/.cargo` by default): one folder per registry index.
fn registry_source_dirs() -> Vec<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")));
    let Some(src) = cargo_home.map(|c| c.join("registry").join("src")) else { return Vec::new() };
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(src)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

fn workspace_root() -> &'static Path {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().and_then(Path::parent).unwrap_or(manifest)
}

/// `name-version` of every registry package in a `Cargo.lock`.
fn locked_registry_packages(lock: &str) -> Vec<String> {
    let mut packages = Vec::new();
    for block in lock.split("[[package]]").skip(1) {
        let field =
            |key: &str| block.lines().find_map(|l| l.strip_prefix(key)?.trim().strip_prefix("= \"")?.strip_suffix('"'));
        if let (Some(name), Some(version), Some(source)) = (field("name "), field("version "), field("source ")) {
            if source.starts_with("registry+") || source.starts_with("sparse+") {
                packages.push(format!("{name}-{version}"));
            }
        }
    }
    packages
}

/// Every `.rs` file under `dir`, with its name relative to `base`.
fn rust_files(dir: &Path, base: &Path, out: &mut Vec<(String, PathBuf)>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else { continue };
        if kind.is_dir() {
            rust_files(&path, base, out);
        } else if kind.is_file() && path.extension().is_some_and(|e| e == "rs") {
            let name = path.strip_prefix(base).unwrap_or(&path).to_string_lossy().into_owned();
            out.push((name, path));
        }
    }
}

/// FNV-1a, to order files by a hash of their names: a spread over every package that
/// depends on nothing but the names.
fn name_hash(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// The candidate files, named `package-version/path` (or by their path in the workspace),
/// and where they came from.
fn candidate_files() -> (Vec<(String, PathBuf)>, String) {
    let lock = std::fs::read_to_string(workspace_root().join("Cargo.lock")).unwrap_or_default();
    let packages = locked_registry_packages(&lock);
    let registries = registry_source_dirs();
    let mut files = Vec::new();
    let mut found = 0;
    for package in &packages {
        if let Some(dir) = registries.iter().map(|d| d.join(package)).find(|d| d.is_dir()) {
            found += 1;
            rust_files(&dir, dir.parent().unwrap_or(&dir), &mut files);
        }
    }
    if !files.is_empty() {
        let origin = format!(
            "the sources of {found} of the {} registry packages in the workspace's Cargo.lock (cargo's registry/src)",
            packages.len()
        );
        return (files, origin);
    }
    let root = workspace_root();
    rust_files(&root.join("crates"), root, &mut files);
    (files, "the workspace's own crates/ (no registry sources found)".to_string())
}

/// Reads the selection: files in name-hash order, each at most [`LARGEST_FILE`], until
/// the scale's byte budget is reached.
pub fn load_sources(scale: Scale) -> Sources {
    let budget = scale.div(FULL_BYTES);
    let (mut candidates, _) = candidate_files();
    candidates.sort_by_cached_key(|(name, _)| (name_hash(name), name.clone()));
    let mut text = String::with_capacity(budget + LARGEST_FILE as usize);
    let mut files = 0;
    for (_, path) in candidates {
        if text.len() >= budget {
            break;
        }
        if std::fs::metadata(&path).map_or(true, |m| m.len() > LARGEST_FILE) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        text.push_str(&String::from_utf8_lossy(&bytes));
        text.push('\n');
        files += 1;
    }
    Sources { text, files }
}

/// What a count came to: distinct identifiers, all of them, and the sum of the squared
/// counts (equal only when every identifier got its own count right, near enough).
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    distinct: usize,
    total: u64,
    squares: u64,
}

impl Tally {
    fn of<'a>(counts: impl IntoIterator<Item = &'a u32>) -> Tally {
        let mut t = Tally::default();
        for &n in counts {
            t.distinct += 1;
            t.total += u64::from(n);
            t.squares += u64::from(n) * u64::from(n);
        }
        t
    }
}

/// The baseline, as a user writes it with std alone.
fn count_with_string_map(text: &str) -> HashMap<String, u32> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    for token in identifiers(text) {
        match counts.get_mut(token) {
            Some(n) => *n += 1,
            None => {
                counts.insert(token.to_string(), 1);
            }
        }
    }
    counts
}

/// The README's `AtomMap` counting example.
fn count_with_atom_map(text: &str) -> AtomMap<u32> {
    let mut counts = AtomMap::new();
    for token in identifiers(text) {
        *counts.entry(token).or_insert(0) += 1;
    }
    counts
}

fn count_with_atom_hash_map(text: &str) -> HashMap<Atom, u32, BuildAtomHasher> {
    let mut counts: HashMap<Atom, u32, BuildAtomHasher> = HashMap::default();
    for token in identifiers(text) {
        *counts.entry(Atom::from(token)).or_insert(0) += 1;
    }
    counts
}

fn count_with_interner(text: &str) -> (Interner, Vec<u32>) {
    let mut interner = Interner::new();
    let mut counts: Vec<u32> = Vec::new();
    for token in identifiers(text) {
        let index = interner.intern(token).to_usize();
        if index == counts.len() {
            counts.push(0);
        }
        counts[index] += 1;
    }
    (interner, counts)
}

/// Times `count`, takes the tally of what it built (untimed), then times dropping it.
fn timed<M>(out: &mut ChildOutput, count: impl FnOnce() -> M, tally: impl FnOnce(&M) -> Tally) -> Tally {
    let started = Instant::now();
    let counts = count();
    let count_ns = started.elapsed().as_nanos() as f64;
    let t = tally(&counts);
    let started = Instant::now();
    drop(counts);
    let drop_ns = started.elapsed().as_nanos() as f64;
    out.fig("count_ms", count_ns / 1e6);
    out.fig("drop_ms", drop_ns / 1e6);
    out.fig("program_ms", (count_ns + drop_ns) / 1e6);
    t
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let sources = load_sources(ctx.scale);
    let text = sources.text.as_str();
    let mut out = ChildOutput::default();
    let tally = match job.peer.as_str() {
        STRING_MAP => timed(&mut out, || count_with_string_map(text), |m| Tally::of(m.values())),
        ATOM_MAP => timed(&mut out, || count_with_atom_map(text), |m| Tally::of(m.values())),
        ATOM_HASH_MAP => timed(&mut out, || count_with_atom_hash_map(text), |m| Tally::of(m.values())),
        INTERNER => timed(
            &mut out,
            || count_with_interner(text),
            |(interner, counts)| {
                let t = Tally::of(counts);
                if interner.len() != t.distinct {
                    Tally::default() // a symbol without its count: fails the check below
                } else {
                    t
                }
            },
        ),
        TOKENIZE_ONLY => {
            let tokens =
                timed(&mut out, || identifiers(text).count(), |n| Tally { total: *n as u64, ..Tally::default() });
            out.fig("tokens", tokens.total as f64);
            return out;
        }
        other => panic!("unknown way {other}"),
    };
    // The answer every way must give, counted untimed with borrowed keys.
    let mut reference: HashMap<&str, u32> = HashMap::new();
    for token in identifiers(text) {
        *reference.entry(token).or_insert(0) += 1;
    }
    let expected = Tally::of(reference.values());
    if tally != expected {
        out.fail(format!("counted {tally:?}, expected {expected:?}"));
    }
    out.fig("tokens", expected.total as f64);
    out.fig("distinct", expected.distinct as f64);
    out.fig("source_bytes", text.len() as f64);
    out.fig("files", sources.files as f64);
    out
}

/// Speed against the baseline: the baseline's time ÷ this way's (above 1: faster).
fn speed_vs_baseline(r: &Results, way: &str, figure: &str) -> Option<f64> {
    let base = r.median(&Job::new(STRING_MAP, CORPUS, "-"), figure)?;
    let this = r.median(&Job::new(way, CORPUS, "-"), figure)?;
    (this > 0.0).then(|| base / this)
}

fn fmt_speed(v: Option<f64>) -> String {
    v.map_or("—".into(), |x| format!("{x:.2}×"))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let baseline = Job::new(STRING_MAP, CORPUS, "-");
    let median = |figure: &str| r.median(&baseline, figure);
    let sources = describe_sources(ctx.scale);
    rep.begin_suite(
        SUITE.name,
        "A user's program: counting identifiers",
        &format!(
            "A program a user writes from the README: split real Rust sources into identifiers (runs of \
             ASCII letters, digits and `_` not starting with a digit) and count each one's occurrences. \
             Sources: {sources}; {} files, {} bytes, read before the clock starts. {} tokens, {} distinct. \
             The baseline is std's `HashMap<String, u32>` with its default hasher, `get_mut` then \
             `insert` on a miss; `AtomMap` uses `*counts.entry(token).or_insert(0) += 1`; the atom \
             `HashMap` keys `Atom::from(token)` with `BuildAtomHasher`; the `Interner` indexes a \
             `Vec<u32>` by symbol. `tokenize only` runs the same tokenizer and counts nothing: the floor \
             of every way. Times are medians of repetitions, each in a fresh process (the global atom \
             table starts empty), cells interleaved. Speed = the baseline's time ÷ this way's (above \
             1: faster than the std program); the program is the count plus dropping the map.",
            fmt_num(median("files")),
            fmt_num(median("source_bytes")),
            fmt_num(median("tokens")),
            fmt_num(median("distinct")),
        ),
    );
    let mut t = Table::new(&[
        "program",
        "count ms",
        "drop ms",
        "program ms",
        "ns/token",
        "speed vs HashMap<String, _> (program)",
        "(count only)",
    ]);
    let tokens = median("tokens");
    for way in WAYS {
        let job = Job::new(way, CORPUS, "-");
        let per_token = r.median(&job, "program_ms").zip(tokens).map(|(ms, n)| ms * 1e6 / n);
        t.row(vec![
            way.to_string(),
            cell(r, &job, "count_ms"),
            cell(r, &job, "drop_ms"),
            cell(r, &job, "program_ms"),
            fmt_num(per_token),
            fmt_speed(speed_vs_baseline(r, way, "program_ms")),
            fmt_speed(speed_vs_baseline(r, way, "count_ms")),
        ]);
    }
    rep.table(&t);
    let atom_map = speed_vs_baseline(r, ATOM_MAP, "program_ms");
    let atom_hash_map = speed_vs_baseline(r, ATOM_HASH_MAP, "program_ms");
    let best = atom_map.into_iter().chain(atom_hash_map).max_by(f64::total_cmp);
    rep.target(
        "counting identifiers through AtomMap or Atom+HashMap ≥1.2× faster than HashMap<String,_>",
        format!("AtomMap {}, Atom + HashMap {}", fmt_speed(atom_map), fmt_speed(atom_hash_map)),
        best.map(|b| b >= 1.2),
    );
}

/// The sources' origin, for the report (the parent looks again; no child says it).
fn describe_sources(scale: Scale) -> String {
    let (_, origin) = candidate_files();
    format!("{origin}, up to {} MiB", scale.div(FULL_BYTES) as f64 / (1 << 20) as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_skip_numbers_and_punctuation() {
        let text = "fn main() { let x_1 = 0x1F + 42u8; _y }";
        assert_eq!(identifiers(text).collect::<Vec<_>>(), ["fn", "main", "let", "x_1", "_y"]);
        assert_eq!(identifiers("").count(), 0);
        assert_eq!(identifiers("é ab9").collect::<Vec<_>>(), ["ab9"]);
    }

    #[test]
    fn lock_file_packages_from_registries_only() {
        let lock = "version = 4\n\n[[package]]\nname = \"anyhow\"\nversion = \"1.0.0\"\n\
            source = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n\
            [[package]]\nname = \"dynatom\"\nversion = \"0.1.0\"\n";
        assert_eq!(locked_registry_packages(lock), ["anyhow-1.0.0"]);
    }

    #[test]
    fn every_way_counts_the_same() {
        let text = "let a = b; let b = a + c; fn c() { a }";
        let expected = Tally::of(count_with_string_map(text).values());
        // let ×2, a ×3, b ×2, c ×2, fn ×1.
        assert_eq!(expected, Tally { distinct: 5, total: 10, squares: 4 + 9 + 4 + 4 + 1 });
        assert_eq!(Tally::of(count_with_atom_map(text).values()), expected);
        assert_eq!(Tally::of(count_with_atom_hash_map(text).values()), expected);
        assert_eq!(Tally::of(&count_with_interner(text).1), expected);
    }

    #[test]
    fn the_source_selection_repeats() {
        let a = load_sources(Scale::Quick);
        let b = load_sources(Scale::Quick);
        assert!(a.files > 0 && !a.text.is_empty());
        assert_eq!((a.files, a.text.len()), (b.files, b.text.len()));
    }
}
