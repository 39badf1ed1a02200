//! Suite `lazy-vs-eager`: the OpenResty cache workload. Values arrive one by one and go
//! into a cache that holds at most 800 and evicts the oldest 300 when full. We time
//! only the creation of each value's string object, the way the article timed
//! `lj_str_new`: LuaJIT's eager interning (our model), dynatom's `Str` (never
//! interned), `Str` interned on insert, and a plain `String` copy as the floor.

use super::{quantile, time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::charts::{self, LineChart, Series};
use crate::corpus::{Rng, Scale};
use crate::peers::{self, CacheModel, CacheModelVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use std::collections::VecDeque;
use std::hint::black_box;

pub const SUITE: SuiteDef = SuiteDef {
    name: "lazy-vs-eager",
    about: "the OpenResty cache workload: lazy Str vs eager interning",
    reps_full: 3,
    reps_quick: 2,
    jobs,
    child,
    report,
};

/// The one model that is not an in-process adapter: the same workload run by Debian's
/// `luajit` in its own process.
const LUAJIT_BINARY: &str = "LuaJIT 2.1 (luajit binary)";

/// The in-process models (`dynatom Str` first) with real LuaJIT beside our model of it.
fn models() -> Vec<&'static str> {
    let mut v = peers::CACHE_MODELS.to_vec();
    let model = v.iter().position(|m| *m == peers::cache_models::LuaJitModel::NAME).map_or(v.len(), |i| i + 1);
    v.insert(model, LUAJIT_BINARY);
    v
}
const WORKLOADS: &[(&str, usize)] =
    &[("similar", 1 << 20), ("random", 1 << 20), ("similar", 64 << 10), ("random", 64 << 10)];

fn size_label(size: usize) -> String {
    if size >= 1 << 20 {
        format!("{} MiB", size >> 20)
    } else {
        format!("{} KiB", size >> 10)
    }
}

fn jobs(_: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for (kind, size) in WORKLOADS {
        for m in models() {
            v.push(Job::new(m, kind, &size.to_string()));
        }
    }
    v
}

/// (values, cache capacity, evicted when full)
fn shape(scale: Scale) -> (usize, usize, usize) {
    match scale {
        Scale::Full => (3000, 800, 300),
        Scale::Quick => (600, 160, 60),
    }
}

/// Produces the values like the article's load generator: "similar" mutates one more
/// byte of a shared buffer per value; "random" takes a random window of a random pool
/// (stamped with the value's number so every value is distinct).
struct Values {
    similar: bool,
    buf: Vec<u8>,
    pool: Vec<u8>,
    rng: Rng,
}

impl Values {
    fn new(similar: bool, size: usize) -> Values {
        let mut rng = Rng::new(0xCAC4E);
        let mut buf = vec![0u8; size];
        rng.fill_alnum(&mut buf);
        let mut pool = Vec::new();
        if !similar {
            pool = vec![0u8; size * 2];
            rng.fill_alnum(&mut pool);
        }
        Values { similar, buf, pool, rng }
    }

    fn next(&mut self, j: usize) -> &str {
        let size = self.buf.len();
        if self.similar {
            self.buf[j % size] = b'a' + (j % 26) as u8;
        } else {
            let off = self.rng.below(size);
            self.buf.copy_from_slice(&self.pool[off..off + size]);
            let stamp = format!("{j:08}");
            self.buf[..8].copy_from_slice(stamp.as_bytes());
        }
        std::str::from_utf8(&self.buf).expect("ascii")
    }
}

/// Runs the cache workload; returns per-creation latency in µs.
fn workload<C: CacheModel>(
    c: &mut C,
    values: &mut Values,
    shape: (usize, usize, usize),
    out: &mut ChildOutput,
) -> Vec<f64> {
    let (n, cap, evict) = shape;
    let mut cache: VecDeque<C::Obj> = VecDeque::with_capacity(cap + 1);
    let mut lat = Vec::with_capacity(n);
    let mut steps = Vec::new();
    for j in 0..n {
        if cache.len() >= cap {
            for _ in 0..evict {
                let o = cache.pop_front().expect("full cache");
                c.evict(o);
            }
        }
        let s = values.next(j);
        let ((obj, step), ns) = time_ns(|| c.create_timing_step(black_box(s)));
        lat.push(ns / 1000.0);
        steps.extend(step.map(|ns| ns / 1000.0));
        if c.text(&obj) != s.as_bytes() {
            out.fail(format!("value {j} does not round-trip"));
        }
        c.cached(&obj);
        cache.push_back(obj);
    }
    while let Some(o) = cache.pop_front() {
        c.evict(o);
    }
    if !steps.is_empty() {
        out.fig("step_mean_us", steps.iter().sum::<f64>() / steps.len() as f64);
    }
    lat
}

/// One in-process model on one workload.
struct Run<'a> {
    similar: bool,
    size: usize,
    shape: (usize, usize, usize),
    out: &'a mut ChildOutput,
}

impl CacheModelVisitor for Run<'_> {
    type Out = Vec<f64>;
    fn visit<C: CacheModel>(self) -> Vec<f64> {
        let Run { similar, size, shape, out } = self;
        let mut model = C::default();
        let lat = workload(&mut model, &mut Values::new(similar, size), shape, out);
        for (name, v) in model.counters() {
            out.fig(name, v);
        }
        if C::HASHES_CONTENT {
            // The reference for "adds at most one full-content hash pass": rapidhash
            // over the same values (a fresh pass over the same sequence), each just copied
            // into a new string as the model's intern step finds it, not the generator's
            // buffer, which stays in cache from value to value.
            let mut values = Values::new(similar, size);
            let mut hash = Vec::with_capacity(shape.0);
            for j in 0..shape.0 {
                let copy = values.next(j).to_owned();
                let (_, ns) = time_ns(|| black_box(rapidhash::rapidhash(black_box(copy.as_bytes()))));
                hash.push(ns / 1000.0);
            }
            out.fig("hash_mean_us", hash.iter().sum::<f64>() / hash.len() as f64);
        }
        lat
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    let size: usize = job.param.parse().expect("size");
    let similar = job.corpus == "similar";
    let shape = shape(ctx.scale);
    let lat = if job.peer == LUAJIT_BINARY {
        // Real LuaJIT, with its own value generator of the same shape (a shared body and a
        // distinct 16-byte tail for "similar"; random 4 KiB blocks for "random").
        match crate::luajit_real::run(size, shape.0, shape.1, shape.2, similar) {
            Ok(lat) => lat,
            Err(why) => {
                out.fail(why);
                return out;
            }
        }
    } else {
        let run = Run { similar, size, shape, out: &mut out };
        peers::visit_cache_model(&job.peer, run).unwrap_or_else(|| panic!("unknown model {}", job.peer))
    };
    let mut sorted = lat.clone();
    sorted.sort_by(f64::total_cmp);
    out.fig("mean_us", lat.iter().sum::<f64>() / lat.len() as f64);
    out.fig("p50_us", quantile(&sorted, 0.5));
    out.fig("p99_us", quantile(&sorted, 0.99));
    out.fig("max_us", *sorted.last().unwrap_or(&f64::NAN));
    out.samples.insert("latency_us".into(), lat);
    out
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let (n, cap, evict) = shape(ctx.scale);
    rep.begin_suite(
        "lazy-vs-eager",
        "Lazy vs eager interning: a cache of HTTP bodies",
        &format!(
            "The OpenResty cache workload: {n} values put one by one into a cache of {cap} that evicts \
             {evict} when full; \"similar\" values differ from the previous one in one more byte, \
             \"random\" ones are random. Time to create each value's string object, in µs (mean, \
             99th percentile, max over all creations of a repetition; median of repetitions). \
             \"LuaJIT 2.1 model\" is our model of LuaJIT 2.1's `lj_str_new` (see \
             `src/luajit_model.rs`); \"LuaJIT 2.1 (luajit binary)\" runs the same workload in \
             Debian's `luajit` (`lua/luajit_cache.lua`, variant `native`, timed with `clock_gettime` through the \
             FFI; its values are made by its own generator of the same shape, and interning \
             happens inside the `..` that creates each value). Ratios against `dynatom Str`. What \
             interning adds is timed on its own: the intern step of each `Str` + intern creation (its \
             mean), beside one rapidhash pass over the same values, each just copied into a new string; \
             the difference of the two models' \
             creation means moves by more than a hash pass from run to run with the allocator's page \
             faults, so it is shown but not judged."
        ),
    );
    let mut t = Table::new(&["workload", "model", "mean µs", "vs dynatom Str", "p99 µs", "max µs"]);
    let mut met_copy = Some(true);
    let mut met_hash = Some(true);
    let (mut copy_parts, mut hash_parts) = (Vec::new(), Vec::new());
    let models = models();
    let interned_model = peers::cache_models::InternOnInsert::NAME;
    for (kind, size) in WORKLOADS {
        let wl = format!("{} {kind}", size_label(*size));
        let job = |m: &str| Job::new(m, kind, &size.to_string());
        let str_mean = r.median(&job(models[0]), "mean_us");
        for m in &models {
            let j = job(m);
            t.row(vec![
                wl.clone(),
                m.to_string(),
                cell(r, &j, "mean_us"),
                fmt_ratio(r.median(&j, "mean_us"), str_mean),
                cell(r, &j, "p99_us"),
                cell(r, &j, "max_us"),
            ]);
        }
        let hash = r.median(&job(interned_model), "hash_mean_us");
        let step = r.median(&job(interned_model), "step_mean_us");
        for (what, v) in [("(its intern step alone)", step), ("(rapidhash pass over the value)", hash)] {
            t.row(vec![wl.clone(), what.into(), fmt_num(v), fmt_ratio(v, str_mean), "".into(), "".into()]);
        }

        let copy = r.median(&job(peers::cache_models::StringCopy::NAME), "mean_us");
        let interned = r.median(&job(interned_model), "mean_us");
        match (str_mean, copy) {
            (Some(s), Some(c)) => {
                combine(&mut met_copy, Some(s <= 1.1 * c));
                copy_parts.push(format!("{wl} {:.2}×", s / c));
            }
            _ => combine(&mut met_copy, None),
        }
        match (step, hash) {
            (Some(step), Some(h)) => {
                combine(&mut met_hash, Some(step <= h));
                let means = match (str_mean, interned) {
                    (Some(s), Some(i)) => format!("; creation means {:+.1} µs over `Str`", i - s),
                    _ => String::new(),
                };
                hash_parts.push(format!(
                    "{wl}: intern step {} µs vs one hash pass {} µs ({:.2}×{means})",
                    fmt_num(Some(step)),
                    fmt_num(Some(h)),
                    step / h
                ));
            }
            _ => combine(&mut met_hash, None),
        }

        let series: Vec<Series> = models
            .iter()
            .map(|m| Series { name: m.to_string(), points: charts::cdf_points(r.pooled(&job(m), "latency_us")) })
            .filter(|s| !s.points.is_empty())
            .collect();
        let file = format!("lazy-vs-eager-{}-{kind}.svg", size_label(*size).replace(' ', ""));
        let title = format!("Creation latency, {wl} values (CDF)");
        let spec = LineChart {
            title: &title,
            x_desc: "µs per creation (log)",
            y_desc: "fraction of creations ≤ x",
            log_x: true,
            log_y: false,
        };
        match charts::lines(&ctx.out_dir.join(&file), &spec, &series) {
            Ok(()) => rep.chart(&file, &title),
            Err(e) => eprintln!("chart {file}: {e}"),
        }
    }
    rep.table(&t);
    let rehash: Vec<String> = WORKLOADS
        .iter()
        .map(|(k, s)| {
            let j = Job::new("LuaJIT 2.1 model", k, &s.to_string());
            format!(
                "{} {k}: {} chain switches to the dense hash, {} resizes",
                size_label(*s),
                fmt_num(r.median(&j, "chain_rehashes")),
                fmt_num(r.median(&j, "resizes"))
            )
        })
        .collect();
    rep.para(&format!("LuaJIT model events per repetition: {}.", rehash.join("; ")));
    rep.target("creating a `Str` ≤1.1× a `String` copy (mean)", copy_parts.join("; "), met_copy);
    rep.target("interning on insert adds ≤ one full-content hash pass (mean)", hash_parts.join("; "), met_hash);
}
