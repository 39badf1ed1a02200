//! The crate's architecture, checked from its sources: the module import graph built
//! from every `crate::...`, `super::...` and `$crate::...` path under `src/` (comments and
//! string literals left out), at the granularity of top-level modules, with the raw
//! layer's files (`repr::heap`, `repr::str_word`, ...) as nodes of their own.
//!
//! * The raw layer `repr/` is a leaf: it refers to nothing above it, only to the leaf
//!   utilities in [`BELOW_REPR`].
//! * The top-level modules form no import circle: each can be read knowing only what it
//!   imports. Nor do files, but for the circles [`ALLOWED_FILE_CIRCLES`] lists with why.
//! * Atomics and locks come from `sync/` (so that loom sees them), but in the files
//!   [`STD_SYNC_OUTSIDE_SYNC`] lists with why.
//!
//! `scripts/import-graph` prints the same graph as Graphviz dot (the ignored test
//! `print_import_graph_as_dot`); docs/architecture.md shows it, and
//! `the_drawing_in_the_docs_is_current` keeps that drawing true.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// What `repr/` may refer to besides itself: modules that import nothing of the crate's
/// but each other (checked by `the_leaf_utilities_are_leaves`).
const BELOW_REPR: [&str; 2] = ["sync", "error"];

type Graph = BTreeMap<String, BTreeSet<String>>;

fn src_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"))
}

/// Every `.rs` file under `dir`, as the module path its file stands for
/// (`repr/mod.rs` is `["repr"]`, `atom/table/reclaim.rs` is `["atom", "table", "reclaim"]`, `lib.rs` is
/// `[]`), with its text.
fn source_files(dir: &Path, found: &mut Vec<(Vec<String>, String)>) {
    for entry in fs::read_dir(dir).unwrap_or_else(|e| panic!("reading {}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            source_files(&path, found);
        } else if path.extension().is_some_and(|ext| ext == "rs") {
            let relative = path.strip_prefix(src_dir()).expect("under src/").with_extension("");
            let mut module: Vec<String> = relative.iter().map(|part| part.to_string_lossy().into_owned()).collect();
            if matches!(module.last().map(String::as_str), Some("mod" | "lib")) {
                module.pop();
            }
            found.push((module, fs::read_to_string(&path).expect("readable source")));
        }
    }
}

/// The code of a file with comments removed and string and char literals blanked, so
/// that only real paths remain.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_is_ident(&chars, i) {
            // A raw string: r"...", r#"..."#.
            let mut j = i + 1;
            let mut hashes = 0;
            while chars.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if chars.get(j) != Some(&'"') {
                out.push(c);
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= chars.len() {
                    break;
                }
                if chars[j] == '"' && (0..hashes).all(|k| chars.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            out.push_str("\"\"");
            i = j;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (chars.get(i + 2) == Some(&'\'') || next == Some('\\')) {
            // A char literal ('x', '\n', '\u{..}'); a lifetime has no closing quote.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

fn prev_is_ident(chars: &[char], i: usize) -> bool {
    i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '_')
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The paths a file's code names, each resolved to an absolute module path
/// (`["repr", "heap", "Block"]`), with `{a, b}` groups expanded. `super` and `self` are
/// resolved against the module the path is written in, inline `mod name { ... }` blocks
/// included.
fn paths_in(file_module: &[String], code: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut found = Vec::new();
    // The inline modules open at this point, with the brace depth each was opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0usize;
    let mut pending_mod: Option<String> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '{' {
            depth += 1;
            if let Some(name) = pending_mod.take() {
                inline.push((name, depth));
            }
            i += 1;
            continue;
        }
        if c == '}' {
            if inline.last().is_some_and(|(_, at)| *at == depth) {
                inline.pop();
            }
            depth = depth.saturating_sub(1);
            i += 1;
            continue;
        }
        if c == ';' {
            pending_mod = None;
        }
        if !is_ident_char(c) || prev_is_ident(&chars, i) {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && is_ident_char(chars[i]) {
            i += 1;
        }
        let word: String = chars[start..i].iter().collect();
        if word == "mod" {
            let rest: String = chars[i..].iter().take(80).collect();
            let name: String = rest.trim_start().chars().take_while(|c| is_ident_char(*c)).collect();
            if !name.is_empty() {
                pending_mod = Some(name);
            }
            continue;
        }
        let after_path_start = matches!(start.checked_sub(2).map(|k| (chars[k], chars[k + 1])), Some((':', ':')));
        if after_path_start || !matches!(word.as_str(), "crate" | "super" | "self") {
            continue;
        }
        if chars.get(i) != Some(&':') || chars.get(i + 1) != Some(&':') {
            continue;
        }
        let mut here: Vec<String> = file_module.to_vec();
        here.extend(inline.iter().map(|(name, _)| name.clone()));
        let base: Vec<String> = match word.as_str() {
            "crate" => Vec::new(),
            "self" => here.clone(),
            _ => here[..here.len().saturating_sub(1)].to_vec(),
        };
        let (tails, end) = path_tail(&chars, i + 2);
        i = end;
        for tail in tails {
            // `super::super::x`: the tail may climb further.
            let mut path = base.clone();
            for segment in tail {
                if segment == "super" {
                    path.pop();
                } else {
                    path.push(segment);
                }
            }
            found.push(path);
        }
    }
    found
}

/// The segments after a `crate::` (from `at`): one path, or one per member of a
/// `{a, b::c}` group (groups nest). Returns them with the index where the path ends.
fn path_tail(chars: &[char], mut at: usize) -> (Vec<Vec<String>>, usize) {
    let mut prefix = Vec::new();
    loop {
        while chars.get(at).is_some_and(|c| c.is_whitespace()) {
            at += 1;
        }
        if chars.get(at) == Some(&'{') {
            let mut members = Vec::new();
            at += 1;
            loop {
                while chars.get(at).is_some_and(|c| c.is_whitespace() || *c == ',') {
                    at += 1;
                }
                match chars.get(at) {
                    None => return (members, at),
                    Some('}') => return (members, at + 1),
                    _ => {}
                }
                let (tails, end) = path_tail(chars, at);
                if end == at {
                    at += 1;
                    continue;
                }
                for tail in tails {
                    let mut path = prefix.clone();
                    path.extend(tail);
                    members.push(path);
                }
                at = end;
            }
        }
        let start = at;
        while chars.get(at).is_some_and(|c| is_ident_char(*c)) {
            at += 1;
        }
        if start == at {
            return (vec![prefix], at);
        }
        prefix.push(chars[start..at].iter().collect());
        if chars.get(at) == Some(&':') && chars.get(at + 1) == Some(&':') {
            at += 2;
        } else {
            return (vec![prefix], at);
        }
    }
}

/// The node a module path belongs to: its top-level module, except in `repr/`, whose
/// files are nodes of their own (`repr::heap`).
fn node_of(path: &[String]) -> Option<String> {
    let first = path.first()?;
    match (first.as_str(), path.get(1)) {
        ("repr", Some(file)) if file.chars().next().is_some_and(|c| c.is_ascii_lowercase()) => {
            Some(format!("repr::{file}"))
        }
        _ => Some(first.clone()),
    }
}

/// The crate root's re-exports (`pub use crate::str::Str;` makes `crate::Str` mean
/// `str`), read from `lib.rs`.
fn root_reexports(lib_code: &str) -> BTreeMap<String, Vec<String>> {
    let mut names = BTreeMap::new();
    for statement in lib_code.split(';') {
        let statement = statement.trim();
        let Some(rest) = statement.strip_prefix("pub use ") else { continue };
        let chars: Vec<char> = rest.chars().collect();
        let Some(after_crate) = rest.strip_prefix("crate::") else { continue };
        let offset = chars.len() - after_crate.chars().count();
        for path in path_tail(&chars, offset).0 {
            if let Some(name) = path.last() {
                names.insert(name.clone(), path.clone());
            }
        }
    }
    names
}

/// `path` with a root re-export (`Str::from`) replaced by where it is defined
/// (`str::Str::from`).
fn resolve_reexport(path: Vec<String>, reexports: &BTreeMap<String, Vec<String>>) -> Vec<String> {
    match path.first().and_then(|first| reexports.get(first)) {
        Some(full) => full.iter().chain(&path[1..]).cloned().collect(),
        None => path,
    }
}

/// The import graph: node → the nodes its code names (itself left out).
fn import_graph() -> Graph {
    let mut files = Vec::new();
    source_files(src_dir(), &mut files);
    assert!(files.len() > 20, "found only {} files under {}", files.len(), src_dir().display());
    let lib = files.iter().find(|(module, _)| module.is_empty()).expect("src/lib.rs");
    let reexports = root_reexports(&code_only(&lib.1));
    let mut graph = Graph::new();
    for (module, text) in &files {
        let Some(from) = node_of(module) else { continue }; // lib.rs: the crate's table of contents
        let targets = graph.entry(from.clone()).or_default();
        for path in paths_in(module, &code_only(text)) {
            let path = resolve_reexport(path, &reexports);
            if let Some(to) = node_of(&path)
                && to != from
            {
                targets.insert(to);
            }
        }
    }
    // Names that are not modules (a `crate::str_format!` macro, ...) are no nodes.
    let nodes: BTreeSet<String> = graph.keys().cloned().collect();
    for targets in graph.values_mut() {
        targets.retain(|to| nodes.contains(to));
    }
    graph
}

/// The graph with `repr`'s files merged into one `repr` node.
fn top_level(graph: &Graph) -> Graph {
    let top = |node: &str| node.split("::").next().expect("a name").to_owned();
    let mut merged = Graph::new();
    for (from, targets) in graph {
        let entry = merged.entry(top(from)).or_default();
        entry.extend(targets.iter().map(|to| top(to)).filter(|to| *to != top(from)));
    }
    merged
}

/// One import circle, as the list of its nodes (first repeated at the end), if any.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit(
        node: &str,
        graph: &Graph,
        marks: &mut BTreeMap<String, Mark>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match marks.get(node) {
            Some(Mark::Done) => return None,
            Some(Mark::Open) => {
                let at = stack.iter().position(|n| n == node).expect("an open node is on the stack");
                let mut cycle = stack[at..].to_vec();
                cycle.push(node.to_owned());
                return Some(cycle);
            }
            None => {}
        }
        marks.insert(node.to_owned(), Mark::Open);
        stack.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, marks, stack) {
                return Some(cycle);
            }
        }
        stack.pop();
        marks.insert(node.to_owned(), Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    graph.keys().find_map(|node| visit(node, graph, &mut marks, &mut Vec::new()))
}

/// The nodes reachable from `from` by one edge or more.
fn reachable(graph: &Graph, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo: Vec<&str> = vec![from];
    while let Some(node) = todo.pop() {
        for next in graph.get(node).into_iter().flatten() {
            if seen.insert(next.clone()) {
                todo.push(next);
            }
        }
    }
    seen
}

fn allowed_below_repr(node: &str) -> bool {
    node.starts_with("repr") || BELOW_REPR.contains(&node)
}

#[test]
fn the_raw_layer_refers_to_nothing_above_it() {
    let graph = import_graph();
    let repr_nodes: Vec<_> = graph.keys().filter(|node| node.starts_with("repr")).collect();
    assert!(repr_nodes.len() > 5, "found only {repr_nodes:?}: the graph builder lost repr/");
    let upward: Vec<String> = graph
        .iter()
        .filter(|(from, _)| from.starts_with("repr"))
        .flat_map(|(from, targets)| {
            targets.iter().filter(|to| !allowed_below_repr(to)).map(move |to| format!("{from} -> {to}"))
        })
        .collect();
    assert!(upward.is_empty(), "repr/ must be a leaf, but it refers up: {upward:#?}");
}

#[test]
fn the_leaf_utilities_are_leaves() {
    let graph = top_level(&import_graph());
    for utility in BELOW_REPR {
        let targets = graph.get(utility).unwrap_or_else(|| panic!("no module {utility}"));
        let above: Vec<_> = targets.iter().filter(|to| !BELOW_REPR.contains(&to.as_str())).collect();
        assert!(above.is_empty(), "{utility} sits below repr/ but refers to {above:?}");
    }
}

#[test]
fn the_top_level_modules_form_no_circle() {
    let graph = top_level(&import_graph());
    for family in ["atom", "str", "builder", "small_map", "interner", "repr"] {
        assert!(graph.contains_key(family), "no module {family} among {:?}", graph.keys());
    }
    if let Some(cycle) = find_cycle(&graph) {
        let reaches = |from: &str, to: &str| reachable(&graph, from).contains(to);
        let tangled: Vec<_> = graph.keys().filter(|node| reaches(node, node)).collect();
        panic!(
            "an import circle among the top-level modules: {}\n(all modules on some circle: {tangled:?})",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_graph_builder_sees_paths_and_not_their_mentions() {
    let module = |path: &str| path.split("::").map(str::to_owned).collect::<Vec<_>>();
    let code = code_only(
        "use crate::a::B;\n// crate::comment::X\nlet s = \"crate::string::Y\";\n\
         use super::{c, d::E};\nmod tests { use super::super::f::G; }\nfn h<'a>(x: &'a u8) { crate::i(); }",
    );
    let found = paths_in(&module("repr::heap"), &code);
    let joined: Vec<String> = found.iter().map(|path| path.join("::")).collect();
    assert_eq!(joined, ["a::B", "repr::c", "repr::d::E", "repr::f::G", "i"]);
    let reexports = root_reexports("pub use crate::str::Str;");
    assert_eq!(resolve_reexport(module("Str::from"), &reexports), module("str::Str::from"));
    let cyclic: Graph = [("a", "b"), ("b", "c"), ("c", "a")]
        .into_iter()
        .map(|(from, to)| (from.to_owned(), BTreeSet::from([to.to_owned()])))
        .collect();
    assert_eq!(find_cycle(&cyclic).map(|cycle| cycle.len()), Some(4));
    let mut acyclic = cyclic.clone();
    acyclic.insert("c".to_owned(), BTreeSet::new());
    assert_eq!(find_cycle(&acyclic), None);
}

/// The folder that holds every inherent method of each public type: a reader finds a
/// type's whole API in one place, and the layering above holds by folder.
const HOMES: [(&str, &str); 20] = [
    ("Str", "str"),
    ("BuildAtomHasher", "atom"),
    ("AtomHasher", "atom"),
    ("ByteStr", "str"),
    ("Atom", "atom"),
    ("ByteAtom", "atom"),
    ("AtomTable", "atom"),
    ("MemoryReport", "memory_report"),
    ("StrBuilder", "builder"),
    ("ByteStrBuilder", "builder"),
    ("Pieces", "builder"),
    ("Piece", "builder"),
    ("PartialWrite", "builder"),
    ("SmallMap", "small_map"),
    ("AtomMap", "small_map"),
    ("Hint", "small_map"),
    ("Interner", "interner"),
    ("SyncInterner", "interner"),
    ("Symbol", "interner"),
    ("Resolver", "interner"),
];

/// The type an inherent `impl` block is for (`impl<K, V> SmallMap<K, V> {` gives
/// `SmallMap`); `None` for trait impls and other lines.
fn inherent_impl_of(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("impl")?;
    let rest = if rest.starts_with('<') {
        let mut depth = 0;
        let end = rest.char_indices().find_map(|(at, c)| {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(at)
        })?;
        &rest[end + 1..]
    } else {
        rest
    };
    let rest = rest.strip_prefix(' ')?;
    if rest.contains(" for ") || !rest.trim_end().ends_with('{') {
        return None;
    }
    let name_end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
    Some(&rest[..name_end])
}

#[test]
fn each_public_type_keeps_its_methods_in_its_folder() {
    let mut files = Vec::new();
    source_files(src_dir(), &mut files);
    let mut strays = Vec::new();
    let mut seen = BTreeSet::new();
    for (module, text) in &files {
        for line in code_only(text).lines() {
            let Some(ty) = inherent_impl_of(line) else { continue };
            let Some((_, home)) = HOMES.iter().find(|(name, _)| *name == ty) else { continue };
            seen.insert(ty.to_owned());
            if module.first().map(String::as_str) != Some(*home) {
                strays.push(format!("impl {ty} in {} (its home is {home}/)", module.join("::")));
            }
        }
    }
    assert!(strays.is_empty(), "inherent methods outside their type's folder:\n{}", strays.join("\n"));
    for ty in ["Str", "ByteStr", "Atom", "ByteAtom", "AtomTable", "StrBuilder", "SmallMap", "Interner"] {
        assert!(seen.contains(ty), "found no inherent impl of {ty}: the scan is broken");
    }
    assert_eq!(inherent_impl_of("impl<K: HintKey, V> SmallMap<K, V> {"), Some("SmallMap"));
    assert_eq!(inherent_impl_of("impl From<&str> for Str {"), None);
}

/// One name, one file: no two source files share a name (`mod.rs` and `lib.rs` aside), so a
/// name in a backtrace, a search or a review points at one place.
#[test]
fn no_two_source_files_share_a_name() {
    let mut files = Vec::new();
    source_files(src_dir(), &mut files);
    let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (module, _) in &files {
        if let Some(name) = module.last() {
            by_name.entry(name.clone()).or_default().push(module.join("::"));
        }
    }
    let shared: Vec<_> = by_name.iter().filter(|(_, modules)| modules.len() > 1).collect();
    assert!(shared.is_empty(), "source files sharing a name: {shared:?}");
}

/// The graph as Graphviz dot, `repr/`'s files grouped in a box.
fn dot(graph: &Graph) -> String {
    let mut out = String::from("digraph dynatom {\n    rankdir=BT;\n    node [shape=box, fontname=monospace];\n");
    let repr: Vec<_> = graph.keys().filter(|node| node.starts_with("repr::")).collect();
    if !repr.is_empty() {
        out.push_str("    subgraph cluster_repr { label=\"repr/\";\n");
        for node in repr {
            out.push_str(&format!("        \"{node}\";\n"));
        }
        out.push_str("    }\n");
    }
    for (from, targets) in graph {
        for to in targets {
            out.push_str(&format!("    \"{from}\" -> \"{to}\";\n"));
        }
    }
    out.push('}');
    out
}

/// docs/architecture.md shows the top-level graph; it must be the graph of this tree.
/// (The packaged crate has no docs/ folder: nothing to compare there.)
#[test]
fn the_drawing_in_the_docs_is_current() {
    let path = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/architecture.md"));
    let Ok(doc) = fs::read_to_string(path) else {
        eprintln!("no {}: nothing to compare", path.display());
        return;
    };
    let drawing = dot(&top_level(&import_graph()));
    assert!(
        doc.contains(&drawing),
        "docs/architecture.md does not show the current import graph: paste the output of \
         `scripts/import-graph --top-level` into it:\n{drawing}"
    );
}

/// Prints the graph as Graphviz dot: `scripts/import-graph` runs this.
#[test]
#[ignore = "prints the graph; run by scripts/import-graph"]
fn print_import_graph_as_dot() {
    let graph = import_graph();
    let merge_repr = std::env::var_os("IMPORT_GRAPH_TOP_LEVEL").is_some();
    println!("{}", dot(&if merge_repr { top_level(&graph) } else { graph }));
}

/// The import graph between files: each file's module path (`atom::table::shared`) → the
/// files its code names. A path names the file of its longest prefix that is a file's
/// module (`crate::atom::table::TableShared` names `atom/table/mod.rs`, which re-exports it).
fn file_graph() -> Graph {
    let mut files = Vec::new();
    source_files(src_dir(), &mut files);
    let lib = files.iter().find(|(module, _)| module.is_empty()).expect("src/lib.rs");
    let reexports = root_reexports(&code_only(&lib.1));
    let modules: BTreeSet<Vec<String>> = files.iter().map(|(module, _)| module.clone()).collect();
    let file_of = |path: &[String]| -> Option<String> {
        (1..=path.len()).rev().map(|len| &path[..len]).find(|prefix| modules.contains(*prefix)).map(|m| m.join("::"))
    };
    let mut graph = Graph::new();
    for (module, text) in &files {
        if module.is_empty() {
            continue; // lib.rs: the crate's table of contents
        }
        let from = module.join("::");
        let targets = graph.entry(from.clone()).or_default();
        for path in paths_in(module, &without_test_modules(&code_only(text))) {
            if let Some(to) = file_of(&resolve_reexport(path, &reexports))
                && to != from
            {
                targets.insert(to);
            }
        }
    }
    graph
}

/// `code` without its test-only modules (`#[cfg(test)]` or `#[cfg(all(test, ...))]` on a
/// `mod`): tests may reach anywhere in the crate.
fn without_test_modules(code: &str) -> String {
    let lines: Vec<&str> = code.lines().collect();
    let mut kept = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let attr = lines[i].trim_start();
        let is_test_attr = attr.starts_with("#[cfg(test)]") || attr.starts_with("#[cfg(all(test");
        let next_is_mod = lines.get(i + 1).is_some_and(|next| {
            let next = next.trim_start();
            next.starts_with("mod ") || next.starts_with("pub(crate) mod ") || next.starts_with("pub mod ")
        });
        if is_test_attr && next_is_mod && lines[i + 1].contains('{') {
            let mut depth = 0i64;
            let mut j = i + 1;
            loop {
                depth += lines[j].matches('{').count() as i64 - lines[j].matches('}').count() as i64;
                j += 1;
                if depth <= 0 || j >= lines.len() {
                    break;
                }
            }
            i = j;
            continue;
        }
        kept.push(lines[i]);
        i += 1;
    }
    kept.join("\n")
}

/// The strongly connected groups of more than one node: every import circle's files.
fn circles(graph: &Graph) -> Vec<BTreeSet<String>> {
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for node in graph.keys() {
        if groups.iter().any(|group| group.contains(node)) {
            continue;
        }
        let forward = reachable(graph, node);
        if !forward.contains(node) {
            continue;
        }
        let group: BTreeSet<String> =
            forward.into_iter().filter(|other| reachable(graph, other).contains(node.as_str())).collect();
        groups.push(group);
    }
    groups
}

/// Circles between files that stay, each with why: the files of one circle are read
/// together.
const ALLOWED_FILE_CIRCLES: &[(&[&str], &str)] = &[
    (
        &["small_map::entry", "small_map::iter", "small_map::map"],
        "`SmallMap`'s entry and iterator types are its API, in files of their own for size: the map \
         returns them, and they work on the map's representation",
    ),
    (
        &["repr::atom_word", "repr::declared", "repr::late_sets"],
        "one representation in three files for size: a declared atom word is a key, not a pointer, so the \
     word finds its text in the registries of declared sets (the compiled-in index in `declared`, the \
     run-time one in `late_sets`), and a declared word is made with the inline word's encoding",
    ),
];

#[test]
fn no_two_files_form_a_circle_unless_listed() {
    let graph = file_graph();
    assert!(graph.len() > 60, "found only {} files", graph.len());
    let found = circles(&graph);
    let allowed: Vec<BTreeSet<String>> =
        ALLOWED_FILE_CIRCLES.iter().map(|(files, _)| files.iter().map(|file| (*file).to_owned()).collect()).collect();
    let unlisted: Vec<_> = found.iter().filter(|circle| !allowed.contains(circle)).collect();
    assert!(
        unlisted.is_empty(),
        "import circles between files (break them, or list each in ALLOWED_FILE_CIRCLES with why): {unlisted:#?}"
    );
    let gone: Vec<_> = allowed.iter().filter(|circle| !found.contains(circle)).collect();
    assert!(gone.is_empty(), "listed circles that no longer exist (take them off the list): {gone:#?}");
}

/// The files outside `sync/` that may name `std::sync`'s atomics or locks, each with why:
/// everything else takes them from `crate::sync`, so that a loom build model-checks them.
/// (`std::sync::Arc` in conversions is a user's type, not a structure of ours: not counted.)
const STD_SYNC_OUTSIDE_SYNC: &[(&str, &str)] = &[
    ("atom/mod.rs", "`static_atom!` expands in the user's crate, which cannot name `crate::sync`: a `OnceLock` cell"),
    ("atom/static_set.rs", "a `StaticSet` is a `const`-built static; loom's `OnceLock` cannot be made in a const"),
    ("atom/table/mod.rs", "the global table and the process seed are statics (loom builds use `lazy_static`)"),
    ("atom/table/reclaim.rs", "a test-only lock that serialises the tests that pin for long"),
    ("repr/block_cache.rs", "the fork hold names the std guard type; a test-only serialising lock"),
    ("repr/declared.rs", "statics (the compiled-in sets' index, the prefix filter): loom's cannot be made in a const"),
    ("repr/heap.rs", "the unused-atom hook is a static `OnceLock`, set once"),
    (
        "repr/late_sets.rs",
        "the run-time sets' registry is statics read with plain loads: loom's cannot be made in a const",
    ),
    ("repr/slab.rs", "the count of kernel mappings is a static: loom's atomics cannot be made in a const"),
    ("hash.rs", "the process seeds are statics: loom's atomics cannot be made in a const"),
];

/// Whether `code` names one of std's atomics or locks (`std::sync::X` for any `X` but `Arc`,
/// or a `use std::sync::{...}` group naming one).
fn names_std_sync(code: &str) -> bool {
    let flat: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut rest = flat.as_str();
    while let Some(at) = rest.find("std::sync::").or_else(|| rest.find("core::sync::")) {
        let after = &rest[at..];
        let tail = &after[after.find("sync::").expect("found above") + "sync::".len()..];
        let group: &str = if let Some(inner) = tail.strip_prefix('{') {
            &inner[..inner.find('}').unwrap_or(inner.len())]
        } else {
            tail.split(|c: char| !(c.is_alphanumeric() || c == '_')).next().unwrap_or("")
        };
        if group.split(',').map(str::trim).any(|name| !name.is_empty() && name != "Arc" && !name.starts_with("Arc ")) {
            return true;
        }
        rest = &after["std::sync::".len().min(after.len())..];
    }
    false
}

#[test]
fn atomics_and_locks_come_from_sync_unless_listed() {
    let mut files = Vec::new();
    source_files(src_dir(), &mut files);
    let mut using: BTreeSet<String> = BTreeSet::new();
    for (module, text) in &files {
        let name = module.join("::");
        if module.first().map(String::as_str) == Some("sync") || name.ends_with("_tests") || module.is_empty() {
            continue;
        }
        if names_std_sync(&without_test_modules(&code_only(text))) {
            let is_folder = files.iter().any(|(other, _)| other.len() > module.len() && other.starts_with(module));
            let path = module.join("/");
            using.insert(if is_folder { format!("{path}/mod.rs") } else { format!("{path}.rs") });
        }
    }
    let listed: BTreeSet<String> = STD_SYNC_OUTSIDE_SYNC.iter().map(|(file, _)| (*file).to_owned()).collect();
    let unlisted: Vec<_> = using.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "files naming std's atomics or locks outside sync/ (take them from crate::sync, or list each with why): {unlisted:?}"
    );
    let stale: Vec<_> = listed.difference(&using).collect();
    assert!(
        stale.is_empty(),
        "listed files that no longer name std's atomics or locks (take them off the list): {stale:?}"
    );
}

#[test]
fn the_std_sync_detector_sees_primitives_and_not_arc() {
    assert!(names_std_sync("use std::sync::OnceLock;"));
    assert!(names_std_sync("use std::sync::atomic::{AtomicU64, Ordering};"));
    assert!(names_std_sync("static X: std::sync::Mutex<()> = std::sync::Mutex::new(());"));
    assert!(names_std_sync("use std::sync::{Arc, Mutex};"));
    assert!(!names_std_sync("use std::sync::Arc;"));
    assert!(!names_std_sync("impl From<std::sync::Arc<str>> for Str {}"));
}

/// The maps hash a text as its atom would be hashed without making it: that rule lives in
/// `atom/` (`atom/key_hash.rs`), so `small_map/` names no raw representation itself.
#[test]
fn the_maps_reach_the_atom_word_only_through_atom() {
    let graph = top_level(&import_graph());
    let targets = graph.get("small_map").expect("a small_map module");
    assert!(targets.contains("atom"), "small_map does not use atom? {targets:?}");
    assert!(!targets.contains("repr"), "small_map/ imports repr/ directly: {targets:?}");
}

/// The interners share nothing with the atoms but their report's type, which lives in a
/// leaf (`memory_report.rs`): `interner/` imports only leaf modules.
#[test]
fn the_interners_import_only_leaves() {
    const LEAVES: [&str; 5] = ["sync", "error", "counters", "hash", "memory_report"];
    let graph = top_level(&import_graph());
    let targets = graph.get("interner").expect("an interner module");
    let above: Vec<_> = targets.iter().filter(|to| !LEAVES.contains(&to.as_str())).collect();
    assert!(above.is_empty(), "interner/ imports {above:?}, which are no leaves");
    for leaf in LEAVES {
        let reaches: Vec<_> = reachable(&graph, leaf).into_iter().filter(|to| !LEAVES.contains(&to.as_str())).collect();
        assert!(reaches.is_empty(), "{leaf} is no leaf: it reaches {reaches:?}");
    }
}
