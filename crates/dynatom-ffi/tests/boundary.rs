//! Every `extern "C"` entry point is exported under its own name, declared in the
//! header, and runs its whole body inside the panic boundary: the body is one call of
//! `status(|| ...)` or `guarded(|| ...)`. A new function that forgets any of this fails here.

use std::collections::BTreeSet;
use std::path::Path;

const MARKER: &str = "pub extern \"C\" fn ";

/// Every `.rs` file under `dir`, in its subdirectories too (`src/bin/`).
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            files.push(path);
        }
    }
    files
}

/// The entry points defined in src/, checking each one's shape on the way.
fn entry_points() -> BTreeSet<String> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut names = BTreeSet::new();
    for path in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut rest = text.as_str();
        while let Some(at) = rest.find(MARKER) {
            let before = rest[..at].trim_end();
            let item = &rest[at..];
            let name = item[MARKER.len()..].split('(').next().unwrap().to_owned();
            assert!(before.ends_with("#[no_mangle]"), "{name} in {} is not #[no_mangle]", path.display());
            let open = item.find('{').expect("a function body");
            let body = item[open + 1..].trim_start();
            assert!(
                body.starts_with("status(||") || body.starts_with("guarded(||"),
                "{name} in {} does not run its body through status(|| or guarded(||",
                path.display()
            );
            names.insert(name);
            rest = &item[open..];
        }
    }
    names
}

/// The functions the checked-in header declares (outside its comments).
fn header_functions() -> BTreeSet<String> {
    let header = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/dynatom.h");
    let text = std::fs::read_to_string(header).unwrap();
    let mut names = BTreeSet::new();
    for line in text.lines().map(str::trim_start).filter(|l| !l.starts_with('*') && !l.starts_with('/')) {
        for (at, _) in line.match_indices("dt_") {
            let ident: String = line[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if line[at + ident.len()..].starts_with('(') {
                names.insert(ident);
            }
        }
    }
    names
}

#[test]
fn every_entry_point_is_guarded_exported_and_declared() {
    let defined = entry_points();
    // The contract's 50 functions plus the ones this crate adds.
    assert!(defined.len() >= 50, "only {} entry points found", defined.len());
    assert_eq!(defined, header_functions());
}

/// The crate documentation's "Safety model": every pointer cast lives in `handles`,
/// `pointers` and `objects`, a static set's kept-or-freed copy in `set_copy`, the owner of
/// C memory read without a copy (its bytes, its `release` call, its `Send + Sync`) in
/// `external`, the failing test allocator in `test_hooks`, and the `*_api` modules contain
/// no `unsafe` at all. A file outside these six that gains `unsafe` code (a block, `unsafe fn` or `unsafe impl`;
/// comments do not count) fails here.
#[test]
fn unsafe_code_lives_only_in_the_documented_modules() {
    const DOCUMENTED: [&str; 6] =
        ["external.rs", "handles.rs", "objects.rs", "pointers.rs", "set_copy.rs", "test_hooks.rs"];
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut with_unsafe = BTreeSet::new();
    for path in rust_files(&src) {
        let text = std::fs::read_to_string(&path).unwrap();
        let code = text.lines().filter(|line| !line.trim_start().starts_with("//"));
        if code.map(|line| line.split(" // ").next().unwrap_or(line)).any(|line| {
            ["unsafe {", "unsafe fn", "unsafe impl", "unsafe trait", "unsafe extern"].iter().any(|p| line.contains(p))
        }) {
            with_unsafe.insert(path.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    assert_eq!(with_unsafe, DOCUMENTED.map(String::from).into_iter().collect(), "files of src/ with unsafe code");
}
