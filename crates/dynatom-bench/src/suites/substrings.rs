//! Suite `substrings`: Ruby's loaded-features index. For every path, every suffix
//! after a `/` becomes a key, with and without the `.rb` extension. Naive keys copy each
//! suffix into a `String`; dynatom keys are `Str` slices of the one path (O(1), any
//! range, no allocation).

use super::{time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count::counting;
use crate::corpus::{Rng, Scale};
use crate::peers::{self, SuffixKeys, SuffixKeysVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::collections::{HashMap, HashSet};

pub const SUITE: SuiteDef = SuiteDef {
    name: "substrings",
    about: "shared substrings: a loaded-features index",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

const WAYS: &[&str] = peers::SUFFIX_KEYS;

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

/// The index: every suffix after a `/` of every path, with and without `.rb`, mapped to
/// the path's number.
fn build_index<S: SuffixKeys>(paths: &[String]) -> (Vec<S::Path>, HashMap<S::Key, u32>) {
    let mut features = Vec::with_capacity(paths.len());
    let mut index: HashMap<S::Key, u32> = HashMap::with_capacity(paths.len() * 16);
    for (i, p) in paths.iter().enumerate() {
        let path = S::path(p);
        for s in suffix_starts(p) {
            index.insert(S::key(&path, s..p.len()), i as u32);
            if p.ends_with(".rb") {
                index.insert(S::key(&path, s..p.len() - 3), i as u32);
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

struct Run<'a> {
    paths: &'a [String],
    expected: HashSet<&'a str>,
}

impl SuffixKeysVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<S: SuffixKeys>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let n = self.paths.len() as f64;
        // Allocation count and time come from separate passes so the counting
        // allocator's bookkeeping never sits inside the timed region.
        let (built, snap) = counting(|| build_index::<S>(self.paths));
        out.fig("allocs_per_path", snap.alloc_calls as f64 / n);
        let keys = &built.1;
        let ok = keys.len() == self.expected.len()
            && keys.iter().all(|(k, i)| {
                let k = S::key_text(k);
                self.expected.contains(k) && self.paths[*i as usize].contains(k)
            });
        if !ok {
            out.fail(format!("index has {} keys, expected {}", keys.len(), self.expected.len()));
        }
        drop(built);
        let (built, ns) = time_ns(|| build_index::<S>(self.paths));
        out.fig("us_per_path", ns / n / 1000.0);
        drop(built);
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let paths = paths(ctx.scale);
    let run = Run { expected: expected_keys(&paths), paths: &paths };
    peers::visit_suffix_keys(&job.peer, run).unwrap_or_else(|| panic!("unknown way {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let n = paths(ctx.scale).len();
    rep.begin_suite(
        "substrings",
        "Shared substrings: a loaded-features index",
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
