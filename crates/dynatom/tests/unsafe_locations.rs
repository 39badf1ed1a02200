//! The crate documentation says where `unsafe` lives (the "Safety" section of
//! `src/lib.rs`, a list of files under `src/`). This test keeps that claim true: it
//! fails when a source file outside the list contains `unsafe` code, or when a listed
//! file no longer does (the list would then promise more than the code needs).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// What counts as `unsafe` code (rustfmt always writes one space after `unsafe`).
const UNSAFE_CODE: [&str; 5] = ["unsafe {", "unsafe fn", "unsafe impl", "unsafe trait", "unsafe extern"];

fn src_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
}

/// A line of code without its comment: whole-line comments (doc comments included)
/// are dropped, and a trailing ` // ...` is cut off.
fn code_part(line: &str) -> &str {
    if line.trim_start().starts_with("//") {
        return "";
    }
    line.find(" // ").map_or(line, |at| &line[..at])
}

fn contains_unsafe_code(text: &str) -> bool {
    text.lines().map(code_part).any(|code| UNSAFE_CODE.iter().any(|pattern| code.contains(pattern)))
}

/// Every `.rs` file under `dir`, as a path relative to `src/` with `/` separators.
fn rust_files(dir: &Path, found: &mut Vec<String>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let relative = path.strip_prefix(src_dir()).expect("under src/");
            let parts: Vec<_> = relative.iter().map(|part| part.to_string_lossy()).collect();
            found.push(parts.join("/"));
        }
    }
}

fn files_with_unsafe_code() -> BTreeSet<String> {
    let mut files = Vec::new();
    rust_files(src_dir(), &mut files);
    assert!(files.len() > 20, "found only {files:?} under {}", src_dir().display());
    files
        .into_iter()
        .filter(|file| contains_unsafe_code(&fs::read_to_string(src_dir().join(file)).expect("readable source")))
        .collect()
}

/// The backquoted `.rs` paths in the bullets of the "Safety" section of `src/lib.rs`'s
/// documentation.
fn documented_files() -> BTreeSet<String> {
    let lib = fs::read_to_string(src_dir().join("lib.rs")).expect("src/lib.rs");
    let section: Vec<&str> = lib
        .lines()
        .skip_while(|line| *line != "//! ## Safety")
        .skip(1)
        .take_while(|line| line.starts_with("//!") && !line.starts_with("//! ## "))
        // The list is the section's bullets; the prose above them names other files.
        .skip_while(|line| !line.starts_with("//! * "))
        .collect();
    assert!(!section.is_empty(), "src/lib.rs has no `//! ## Safety` section with a list");
    let files: BTreeSet<String> = section
        .join(" ")
        .split('`')
        .skip(1)
        .step_by(2)
        .filter(|quoted| quoted.ends_with(".rs"))
        .map(str::to_owned)
        .collect();
    assert!(!files.is_empty(), "the Safety section of src/lib.rs names no file");
    files
}

#[test]
fn every_file_with_unsafe_code_is_named_in_the_crate_docs() {
    let documented = documented_files();
    let undocumented: Vec<_> = files_with_unsafe_code().into_iter().filter(|f| !documented.contains(f)).collect();
    assert!(
        undocumented.is_empty(),
        "unsafe code in {undocumented:?}, which the Safety section of src/lib.rs does not name: \
         move it into one of the listed modules, or add the file to the list with what it owns"
    );
}

#[test]
fn every_file_named_in_the_crate_docs_has_unsafe_code() {
    let with_unsafe = files_with_unsafe_code();
    for file in documented_files() {
        assert!(
            src_dir().join(&file).exists(),
            "the Safety section of src/lib.rs names src/{file}, which does not exist"
        );
        assert!(
            with_unsafe.contains(&file),
            "the Safety section of src/lib.rs names src/{file}, which has no unsafe code any more: \
             take it off the list"
        );
    }
}

#[test]
fn the_detector_sees_unsafe_code_and_not_comments_about_it() {
    assert!(contains_unsafe_code("    let x = unsafe { *p };"));
    assert!(contains_unsafe_code("pub(crate) unsafe fn release(ptr: *mut u8) {"));
    assert!(contains_unsafe_code("unsafe impl Send for RawChunk {}"));
    assert!(contains_unsafe_code("        |raw| unsafe { raw.hash() },"));
    assert!(!contains_unsafe_code("    // SAFETY: like `unsafe { ... }` above"));
    assert!(!contains_unsafe_code("/// An `unsafe fn` needs a # Safety section."));
    assert!(!contains_unsafe_code("//! All `unsafe impl`s live in repr/."));
    assert!(!contains_unsafe_code("    let safe = 1; // not unsafe { at all }"));
    assert!(!contains_unsafe_code("fn unsafe_free() {}"));
}
