//! Suite `small-map`: `SmallMap` (one-byte hints) against
//! `hashbrown::HashMap` (foldhash), `std::HashMap` (SipHash), linear search in a
//! `Vec<(K, V)>` and `IndexMap` (foldhash).
//!
//! * For 1, 2, 4, 8, 9, 16 and 64 entries, with `Atom` keys (20-byte texts: filed,
//!   cached hash), `Atom` keys of up to 7 bytes (atoms by value) and `Str` keys
//!   (20-byte heap strings; probes are separate handles of equal text, so equality reads
//!   bytes and the probe's hash is cached in its header after first use): hit lookups,
//!   miss lookups, and inserts (building a map from empty and dropping it, per entry).
//! * Bytes per map (`size_of` plus its own heap, counted by the allocator) for `(K, u64)`.
//! * Ruby's `ar_table` counters for a mixed workload (hint hits, false matches,
//!   not-found), counted by a key wrapper whose `==` counts calls, so they need no
//!   `stats` feature.
//!
//! One cell is one map with one key type, all sizes; a child times each operation once
//! (`ns_per_op`: batches until a minimum time has passed) and the report shows medians
//! over child processes. Targets (`Atom` keys): at ≤ 8 entries lookups ≥ 1.5× faster
//! than hashbrown; lookups no slower than linear search at every size; misses at 8
//! entries ≥ 2× faster than linear search; memory per 8-entry map below hashbrown's.

use std::cell::Cell;
use std::hash::{Hash, Hasher};
use std::hint::black_box;

use dynatom::{Atom, HintKey, SmallMap, SmallMapStats, Str};

use super::{ns_per_op, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count;
use crate::charts::{self, LineChart, Series};
use crate::corpus::Scale;
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};

pub const SUITE: SuiteDef = SuiteDef {
    name: "small-map",
    about: "SmallMap against hash maps and linear search",
    reps_full: 5,
    reps_quick: 3,
    jobs,
    child,
    report,
};

/// Map sizes: up to 8 entries (the form with one hint word), 9 (the first of the
/// hashbrown-indexed form) and two larger maps of that form.
const SIZES: [usize; 7] = [1, 2, 4, 8, 9, 16, 64];
use crate::peers::maps::{visit_map, MapPeer, MapVisitor, MAPS};
/// A row that times the lookup loop around a "map" that reads nothing: the part of every
/// lookup figure that is the harness (clock, `black_box` round trips), not the map. No
/// target reads it.
const HARNESS_ONLY: &str = "harness only";
/// Key types: (cell name, description).
const KEYS: [(&str, &str); 3] = [
    ("atom", "`Atom` keys (20-byte texts)"),
    ("atom<=7B", "`Atom` keys of 6 bytes (atoms by value)"),
    ("str", "`Str` keys (20-byte heap strings)"),
];
/// Lookups (or inserted entries) per timed batch: enough that reading the clock once a
/// batch costs nothing next to the batch.
const BATCH_OPS: usize = 256;

fn jobs(_: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for (kind, _) in KEYS {
        v.extend(MAPS.iter().chain([&HARNESS_ONLY]).map(|m| Job::new(m, kind, "-")));
    }
    v.push(Job::new("SmallMap", "mixed", "-"));
    v
}

fn long(i: usize) -> String {
    format!("request.field_{i:06}") // 20 bytes
}

fn short(i: usize) -> String {
    format!("f{i:05}") // 6 bytes: an atom by value
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    if job.corpus == "mixed" {
        mixed_counters(ctx, &mut out);
        return out;
    }
    let min_ns = if ctx.scale == Scale::Quick { 1e6 } else { 6e6 };
    match job.corpus.as_str() {
        "atom" => by_map(&job.peer, &mut out, min_ns, |i| Atom::from(long(i))),
        "atom<=7B" => by_map(&job.peer, &mut out, min_ns, |i| Atom::from(short(i))),
        "str" => by_map(&job.peer, &mut out, min_ns, |i| Str::from(long(i))),
        other => panic!("unknown key type {other}"),
    }
    out
}

fn by_map<K: HintKey + Hash + Clone>(map: &str, out: &mut ChildOutput, min_ns: f64, key: impl Fn(usize) -> K) {
    if map == HARNESS_ONLY {
        return measure_harness(out, min_ns, key);
    }
    visit_map(map, MeasureAll { out, min_ns, key }).unwrap_or_else(|| panic!("unknown map {map}"));
}

/// Every figure of one map at every size (see [`measure_all`]).
struct MeasureAll<'a, F> {
    out: &'a mut ChildOutput,
    min_ns: f64,
    key: F,
}

impl<K: Clone, F: Fn(usize) -> K> MapVisitor<K> for MeasureAll<'_, F> {
    type Out = ();
    fn visit<M: MapPeer<K>>(self) {
        measure_all::<K, M>(self.out, self.min_ns, self.key);
    }
}

/// ns per lookup of `probes` (cycled, in batches) in `map`.
fn lookup_ns<K, T: MapPeer<K>>(map: &T, probes: &[K], min_ns: f64) -> f64 {
    let inner = (BATCH_OPS / probes.len()).max(1);
    ns_per_op(inner * probes.len(), min_ns, || {
        for _ in 0..inner {
            for probe in probes {
                black_box(black_box(map).find(black_box(probe)));
            }
        }
    })
}

/// ns per inserted entry when building (and dropping) maps of `entries`.
fn insert_ns<K, T: MapPeer<K>>(entries: &[(K, u64)], min_ns: f64) -> f64 {
    let inner = (BATCH_OPS / entries.len()).max(1);
    ns_per_op(inner * entries.len(), min_ns, || {
        for _ in 0..inner {
            black_box(T::build(black_box(entries)));
        }
    })
}

/// Bytes per map: its inline size plus everything it allocated, over 256 live copies.
fn bytes_per_map<K, T: MapPeer<K>>(entries: &[(K, u64)]) -> f64 {
    const COPIES: usize = 256;
    let mut maps: Vec<T> = Vec::with_capacity(COPIES);
    let ((), used) = alloc_count::counting(|| maps.extend((0..COPIES).map(|_| T::build(entries))));
    let bytes = (COPIES * std::mem::size_of::<T>()) as f64 + used.live_bytes as f64;
    drop(maps);
    bytes / COPIES as f64
}

/// Probes for a map of `n` entries `key(0..n)`: fresh handles of the present texts, and
/// as many absent texts (at least 8).
fn probes<K>(n: usize, key: impl Fn(usize) -> K) -> (Vec<K>, Vec<K>) {
    ((0..n).map(&key).collect(), (1000..1000 + n.max(8)).map(&key).collect())
}

fn measure_all<K: Clone, T: MapPeer<K>>(out: &mut ChildOutput, min_ns: f64, key: impl Fn(usize) -> K) {
    for n in SIZES {
        let entries: Vec<(K, u64)> = (0..n).map(|i| (key(i), i as u64 + 1)).collect();
        let (hits, misses) = probes(n, &key);
        let map = T::build(&entries);
        if hits.iter().enumerate().any(|(i, k)| map.find(k) != Some(&(i as u64 + 1))) {
            out.fail(format!("{} at {n} entries: a present key was not found", T::NAME));
        }
        if misses.iter().any(|k| map.find(k).is_some()) {
            out.fail(format!("{} at {n} entries: an absent key was found", T::NAME));
        }
        out.fig(&format!("hit_ns_{n}"), lookup_ns(&map, &hits, min_ns));
        out.fig(&format!("miss_ns_{n}"), lookup_ns(&map, &misses, min_ns));
        out.fig(&format!("insert_ns_{n}"), insert_ns::<K, T>(&entries, min_ns));
        out.fig(&format!("bytes_{n}"), bytes_per_map::<K, T>(&entries));
    }
}

/// The "map" of the [`HARNESS_ONLY`] row: every lookup answers `None` without reading
/// the key or the map, so its figures are the cost of [`lookup_ns`]'s loop alone.
struct NoMap;

impl<K> MapPeer<K> for NoMap {
    const NAME: &'static str = HARNESS_ONLY;
    fn build(_: &[(K, u64)]) -> Self {
        NoMap
    }
    #[inline]
    fn find(&self, _: &K) -> Option<&u64> {
        None
    }
}

/// Hit and miss figures of [`NoMap`] with the same probes as [`measure_all`] (no inserts,
/// no bytes: there is no map).
fn measure_harness<K>(out: &mut ChildOutput, min_ns: f64, key: impl Fn(usize) -> K) {
    for n in SIZES {
        let (hits, misses) = probes(n, &key);
        out.fig(&format!("hit_ns_{n}"), lookup_ns(&NoMap, &hits, min_ns));
        out.fig(&format!("miss_ns_{n}"), lookup_ns(&NoMap, &misses, min_ns));
    }
}

thread_local! {
    /// Key comparisons that said "equal" / "different", for [`Counted`].
    static EQ_TRUE: Cell<u64> = const { Cell::new(0) };
    static EQ_FALSE: Cell<u64> = const { Cell::new(0) };
}

/// An `Atom` whose `==` counts its calls: in a `SmallMap`'s small form keys are compared
/// only after a hint matches, so equal calls are hint hits and unequal ones false matches.
#[derive(Clone, Debug)]
struct Counted(Atom);

impl PartialEq for Counted {
    fn eq(&self, other: &Counted) -> bool {
        let equal = self.0 == other.0;
        let counter = if equal { &EQ_TRUE } else { &EQ_FALSE };
        counter.with(|c| c.set(c.get() + 1));
        equal
    }
}

impl Eq for Counted {}

impl HintKey for Counted {
    fn key_hash(&self) -> u64 {
        self.0.hash64()
    }
}

impl Hash for Counted {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.hash(state);
    }
}

/// Ruby-style counters for a mixed workload: 10,000 maps of 0 to 8 entries drawn from a
/// 64-key vocabulary (like object fields / keyword arguments), then lookups of random
/// vocabulary keys in random maps. Deterministic: the same counts on every run.
fn mixed_counters(ctx: &Ctx, out: &mut ChildOutput) {
    let lookups: u64 = if ctx.scale == Scale::Quick { 100_000 } else { 2_000_000 };
    let vocabulary: Vec<Counted> = (0..64).map(|i| Counted(Atom::from(format!("vocabulary_word_{i:02}")))).collect();
    // A fixed xorshift stream: the same workload on every run.
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let maps: Vec<SmallMap<Counted, u64>> = (0..10_000)
        .map(|_| {
            let len = (next() % 9) as usize;
            (0..len).map(|_| (vocabulary[(next() % 64) as usize].clone(), next())).collect()
        })
        .collect();
    let (true_before, false_before) = (EQ_TRUE.with(Cell::get), EQ_FALSE.with(Cell::get));
    let stats_before = SmallMapStats::current_thread();
    let mut not_found = 0u64;
    for _ in 0..lookups {
        let map = &maps[(next() % maps.len() as u64) as usize];
        if map.get(&vocabulary[(next() % 64) as usize]).is_none() {
            not_found += 1;
        }
    }
    let hint_hits = EQ_TRUE.with(Cell::get) - true_before;
    let false_matches = EQ_FALSE.with(Cell::get) - false_before;
    out.fig("lookups", lookups as f64);
    out.fig("hint_hits", hint_hits as f64);
    out.fig("false_matches", false_matches as f64);
    out.fig("not_found", not_found as f64);
    if hint_hits + not_found != lookups {
        out.fail(format!("{hint_hits} hint hits + {not_found} not found ≠ {lookups} lookups"));
    }
    if SmallMapStats::ENABLED {
        // With dynatom's `stats` feature, its own counters must agree.
        let stats = SmallMapStats::current_thread().since(&stats_before);
        out.fig("stats_hint_hits", stats.hint_hits as f64);
        out.fig("stats_false_matches", stats.false_matches as f64);
        out.fig("stats_not_found", stats.not_found as f64);
    }
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "small-map",
        "Small maps with one-byte hash hints",
        "`SmallMap<K, u64>` against `hashbrown::HashMap` (foldhash, its default hasher), `std::HashMap` \
         (SipHash), linear search in a `Vec<(K, u64)>` and `IndexMap` (foldhash). Per operation in ns: \
         hit (a separate handle of a present key), miss (absent keys, at least 8 distinct probes), insert \
         (building a map from empty one entry at a time and dropping it, per entry); bytes per map = \
         `size_of` plus its own heap. Lower is better; ratios = map ÷ `SmallMap`. The last row, \
         *harness only*, times the same lookup loop around a map that reads nothing (every answer \
         `None`): that much of each lookup figure is the loop and its `black_box` round trips, the \
         same for every map; no target reads it.",
    );
    for (kind, desc) in KEYS {
        rep.heading(desc);
        let ours = Job::new(MAPS[0], kind, "-");
        for n in SIZES {
            rep.para(&format!("**{n} {}**", if n == 1 { "entry" } else { "entries" }));
            let mut t = Table::new(&[
                "map",
                "hit ns",
                "vs dynatom",
                "miss ns",
                "vs dynatom",
                "insert ns",
                "vs dynatom",
                "bytes per map",
                "vs dynatom",
            ]);
            for m in MAPS.iter().chain([&HARNESS_ONLY]) {
                let j = Job::new(m, kind, "-");
                let mut row = vec![m.to_string()];
                for f in ["hit_ns", "miss_ns", "insert_ns", "bytes"] {
                    let f = format!("{f}_{n}");
                    row.push(cell(r, &j, &f));
                    row.push(fmt_ratio(r.median(&j, &f), r.median(&ours, &f)));
                }
                t.row(row);
            }
            rep.table(&t);
        }
    }

    let spec = LineChart {
        title: "Atom keys (20 B): ns per hit lookup vs entries",
        x_desc: "entries (log)",
        y_desc: "ns per hit lookup",
        log_x: true,
        log_y: false,
    };
    let series: Vec<Series> = MAPS
        .iter()
        .map(|m| Series {
            name: m.to_string(),
            points: SIZES
                .iter()
                .filter_map(|n| r.median(&Job::new(m, "atom", "-"), &format!("hit_ns_{n}")).map(|v| (*n as f64, v)))
                .collect(),
        })
        .collect();
    let file = "small-map-lookup.svg";
    match charts::lines(&ctx.out_dir.join(file), &spec, &series) {
        Ok(()) => rep.chart(file, spec.title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }

    let mixed = Job::new("SmallMap", "mixed", "-");
    rep.heading("Mixed workload counters (`SmallMap`)");
    rep.para(
        "10,000 maps of 0 to 8 `Atom` keys drawn from a 64-word vocabulary, then random lookups of \
         vocabulary words in random maps. A hint hit is a key comparison after a matching hint that \
         said equal; a false match is one that said different (counted by a key wrapper whose `==` \
         counts calls). Deterministic: the same counts every run.",
    );
    let mut t = Table::new(&["counter", "count", "per lookup"]);
    let lookups = r.median(&mixed, "lookups");
    let mut names = vec![
        ("lookups", "lookups"),
        ("hint_hits", "hint hits"),
        ("false_matches", "hint false matches"),
        ("not_found", "not found"),
    ];
    if SmallMapStats::ENABLED {
        names.extend([
            ("stats_hint_hits", "SmallMapStats hint_hits"),
            ("stats_false_matches", "SmallMapStats false_matches"),
            ("stats_not_found", "SmallMapStats not_found"),
        ]);
    }
    for (f, label) in names {
        let v = r.median(&mixed, f);
        let per = match (v, lookups) {
            (Some(v), Some(l)) if l > 0.0 => format!("{:.4}", v / l),
            _ => "—".into(),
        };
        t.row(vec![label.to_string(), cell(r, &mixed, f), per]);
    }
    rep.table(&t);

    targets(r, rep);
}

/// One lookup target: (what, peer, figures, sizes, minimum `peer ÷ SmallMap`).
type Check = (&'static str, &'static str, &'static [&'static str], &'static [usize], f64);

fn targets(r: &Results, rep: &mut Report) {
    // Atom keys: both kinds (filed and by value).
    let atom_kinds = ["atom", "atom<=7B"];
    let ratio = |kind: &str, peer: &str, f: &str| {
        let ours = r.median(&Job::new(MAPS[0], kind, "-"), f)?;
        let theirs = r.median(&Job::new(peer, kind, "-"), f)?;
        Some(theirs / ours)
    };
    let checks: [Check; 3] = [
        (
            "`Atom` keys, ≤ 8 entries: hit and miss lookups ≥ 1.5× faster than hashbrown",
            "hashbrown+foldhash",
            &["hit_ns", "miss_ns"],
            &[1, 2, 4, 8],
            1.5,
        ),
        (
            "`Atom` keys: hit and miss lookups no slower than linear search at every size",
            "Vec linear",
            &["hit_ns", "miss_ns"],
            &SIZES,
            1.0,
        ),
        ("`Atom` keys: misses at 8 entries ≥ 2× faster than linear search", "Vec linear", &["miss_ns"], &[8], 2.0),
    ];
    for (what, peer, figs, sizes, min) in checks {
        let mut met = Some(true);
        let mut worst: Option<(f64, String)> = None;
        for kind in atom_kinds {
            for n in sizes {
                for f in figs {
                    match ratio(kind, peer, &format!("{f}_{n}")) {
                        Some(x) => {
                            combine(&mut met, Some(x >= min));
                            if worst.as_ref().is_none_or(|(w, _)| x < *w) {
                                worst = Some((x, format!("{kind} {f} at {n}")));
                            }
                        }
                        None => combine(&mut met, None),
                    }
                }
            }
        }
        let figure = match worst {
            Some((x, at)) => format!("worst {peer} ÷ SmallMap = {x:.2}× ({at})"),
            None => "not measured".into(),
        };
        rep.target(what, figure, met);
    }
    let mut met = Some(true);
    let mut parts = Vec::new();
    for (kind, _) in KEYS {
        let ours = r.median(&Job::new(MAPS[0], kind, "-"), "bytes_8");
        let theirs = r.median(&Job::new("hashbrown+foldhash", kind, "-"), "bytes_8");
        match (ours, theirs) {
            (Some(o), Some(h)) => {
                combine(&mut met, Some(o < h));
                parts.push(format!("{kind}: {} B vs {} B", fmt_num(Some(o)), fmt_num(Some(h))));
            }
            _ => combine(&mut met, None),
        }
    }
    rep.target("memory per 8-entry map below hashbrown's", parts.join("; "), met);
}
