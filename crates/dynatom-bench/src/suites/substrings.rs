//! Suite 6 (article 004): Ruby's loaded-features index. For every path, every suffix
//! after a `/` becomes a key, with and without the `.rb` extension. Naive keys copy each
//! suffix into a `String`; dynatom keys are `Str` slices of the one path (O(1), any
//! range, no allocation).

use super::{time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count::counting;
use crate::corpus::{Rng, Scale};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use dynatom::Str;
use std::collections::{HashMap, HashSet};

pub const SUITE: SuiteDef = SuiteDef { name: "substrings", reps_full: 5, reps_quick: 3, jobs, child, report };

const WAYS: &[&str] = &["Str slices (dynatom)", "String copies"];

fn jobs(_: &Ctx) -> Vec<Job> {
    WAYS.iter().map(|w| Job::new(w, "paths", "-")).collect()
}

/// Paths like `/usr/lib/ruby/3.3.0/net/http/response.rb`.
pub fn paths(scale: Scale) -> Vec<String> {
    const DIRS: &[&str] = &[
        "net",
        "http",
        "json",
        "rubygems",
        "bundler",
        "openssl",
        "psych",
        "uri",
        "set",
        "erb",
        "digest",
        "ext",
        "generic",
        "core",
        "util",
        "io",
        "fileutils",
        "optparse",
        "logger",
        "socket",
        "resolv",
        "racc",
        "irb",
    ];
    const FILES: &[&str] = &[
        "response",
        "request",
        "parser",
        "version",
        "common",
        "generator",
        "specification",
        "resolver",
        "helpers",
        "errors",
        "config",
        "constants",
        "exceptions",
        "header",
        "status",
        "client",
        "server",
        "buffer",
    ];
    let mut rng = Rng::new(0x2B);
    let n = match scale {
        Scale::Full => 10_000,
        Scale::Quick => 1_000,
    };
    let mut seen = HashSet::new();
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let root = ["/usr/lib/ruby/3.3.0", "/usr/lib/ruby/gems/3.3.0/gems", "/home/app/vendor/bundle/ruby/3.3.0"]
            [rng.below(3)];
        let mut p = String::from(root);
        for _ in 0..1 + rng.below(4) {
            p.push('/');
            p.push_str(DIRS[rng.below(DIRS.len())]);
        }
        p.push('/');
        p.push_str(FILES[rng.below(FILES.len())]);
        if rng.below(3) == 0 {
            p.push('_');
            p.push_str(&rng.below(100).to_string());
        }
        p.push_str(".rb");
        if seen.insert(p.clone()) {
            out.push(p);
        }
    }
    out
}

/// Start offsets of every suffix that follows a `/`.
fn suffix_starts(p: &str) -> impl Iterator<Item = usize> + '_ {
    p.bytes().enumerate().filter(|&(_, b)| b == b'/').map(|(i, _)| i + 1)
}

fn build_with_copies(paths: &[String]) -> (Vec<String>, HashMap<String, u32>) {
    let mut features = Vec::with_capacity(paths.len());
    let mut index: HashMap<String, u32> = HashMap::with_capacity(paths.len() * 16);
    for (i, p) in paths.iter().enumerate() {
        let path = String::from(p.as_str());
        for s in suffix_starts(&path) {
            let key = &path[s..];
            index.insert(key.to_string(), i as u32);
            if let Some(stem) = key.strip_suffix(".rb") {
                index.insert(stem.to_string(), i as u32);
            }
        }
        features.push(path);
    }
    (features, index)
}

fn build_with_slices(paths: &[String]) -> (Vec<Str>, HashMap<Str, u32>) {
    let mut features = Vec::with_capacity(paths.len());
    let mut index: HashMap<Str, u32> = HashMap::with_capacity(paths.len() * 16);
    for (i, p) in paths.iter().enumerate() {
        let path = Str::from(p.as_str());
        for s in suffix_starts(p) {
            index.insert(path.slice(s..), i as u32);
            if p.ends_with(".rb") {
                index.insert(path.slice(s..p.len() - 3), i as u32);
            }
        }
        features.push(path);
    }
    (features, index)
}

/// The index both ways must agree: same keys, each naming a path that ends with it.
fn expected_keys(paths: &[String]) -> HashSet<&str> {
    let mut set = HashSet::new();
    for p in paths {
        for s in suffix_starts(p) {
            set.insert(&p[s..]);
            if let Some(stem) = p[s..].strip_suffix(".rb") {
                set.insert(stem);
            }
        }
    }
    set
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    let paths = paths(ctx.scale);
    let n = paths.len() as f64;
    let expected = expected_keys(&paths);
    let verify = |out: &mut ChildOutput, keys: Vec<(&str, u32)>| {
        let ok = keys.len() == expected.len()
            && keys.iter().all(|(k, i)| expected.contains(k) && paths[*i as usize].contains(*k));
        if !ok {
            out.fail(format!("index has {} keys, expected {}", keys.len(), expected.len()));
        }
    };
    match job.peer.as_str() {
        "Str slices (dynatom)" => {
            // Allocation count and time come from separate passes so the counting
            // allocator's bookkeeping never sits inside the timed region.
            let (built, snap) = counting(|| build_with_slices(&paths));
            out.fig("allocs_per_path", snap.alloc_calls as f64 / n);
            verify(&mut out, built.1.iter().map(|(k, v)| (k.as_str(), *v)).collect());
            drop(built);
            let (built, ns) = time_ns(|| build_with_slices(&paths));
            out.fig("us_per_path", ns / n / 1000.0);
            drop(built);
        }
        "String copies" => {
            let (built, snap) = counting(|| build_with_copies(&paths));
            out.fig("allocs_per_path", snap.alloc_calls as f64 / n);
            verify(&mut out, built.1.iter().map(|(k, v)| (k.as_str(), *v)).collect());
            drop(built);
            let (built, ns) = time_ns(|| build_with_copies(&paths));
            out.fig("us_per_path", ns / n / 1000.0);
            drop(built);
        }
        other => panic!("unknown way {other}"),
    }
    out
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let n = paths(ctx.scale).len();
    rep.begin_suite(
        "substrings",
        "Shared substrings: a loaded-features index (article 004)",
        &format!(
            "{n} paths like `/usr/lib/ruby/3.3.0/net/http/response.rb`; every suffix after a `/` is a \
             key, with and without `.rb`, mapped to its path in a `HashMap` (pre-sized, so the map's \
             own growth is not counted). Allocations per path (including the path itself and the \
             map's one table) and µs per path. Ratios against the `Str` slices."
        ),
    );
    let ours = Job::new(WAYS[0], "paths", "-");
    let mut t = Table::new(&["keys", "allocations per path", "vs dynatom", "µs per path", "vs dynatom"]);
    for w in WAYS {
        let j = Job::new(w, "paths", "-");
        t.row(vec![
            w.to_string(),
            cell(r, &j, "allocs_per_path"),
            fmt_ratio(r.median(&j, "allocs_per_path"), r.median(&ours, "allocs_per_path")),
            cell(r, &j, "us_per_path"),
            fmt_ratio(r.median(&j, "us_per_path"), r.median(&ours, "us_per_path")),
        ]);
    }
    rep.table(&t);
    let a = r.median(&ours, "allocs_per_path");
    let mut met = Some(true);
    combine(&mut met, a.map(|a| a <= 2.0));
    rep.target("`Str` slices: ≤2 allocations per path", format!("{} allocations per path", fmt_num(a)), met);
}
