//! Suite `luajit`: the OpenResty cache workload run
//! inside Debian's `luajit` three ways side by side — Lua strings (interned at creation),
//! LuaJIT's `string.buffer`, and dynatom strs through the LuaJIT module — and a table keyed
//! by request-header names, Lua strings against dynatom atoms as keys; and values that
//! arrive in FFI buffers made into strings by `ffi.string` or `dynatom.wrap`.

use super::{quantile, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::charts::{self, LineChart, Series};
use crate::corpus::Scale;
use crate::luajit_real::{self, Variant};
use crate::report::{combine, fmt_num, fmt_ratio, Report, Table};
use std::path::PathBuf;

pub const SUITE: SuiteDef = SuiteDef {
    name: "luajit",
    about: "the cache workload inside LuaJIT, with the dynatom module",
    reps_full: 3,
    reps_quick: 2,
    jobs,
    child,
    report,
};

/// Set by the parent for its children: the built `libdynatom_ffi.so`, or why there is none.
const LIB_PATH_ENV: &str = "DYNATOM_BENCH_LIB";
const LIB_ERROR_ENV: &str = "DYNATOM_BENCH_LIB_ERROR";
const NO_LUAJIT: &str = "luajit not installed";

const NATIVE: &str = "Lua string (`..`)";
const BUFFER: &str = "string.buffer";
const DYNATOM: &str = "dynatom str (module)";
const DYNATOM_RETAIN: &str = "dynatom str, malloc retains freed";
const VARIANTS: &[(&str, Variant)] = &[
    (NATIVE, Variant::Native),
    (BUFFER, Variant::Buffer),
    (DYNATOM, Variant::Dynatom),
    (DYNATOM_RETAIN, Variant::DynatomRetain),
];

const KEYS_NATIVE: &str = "Lua string keys";
const KEYS_DYNATOM: &str = "dynatom atom keys (`a:key()`)";
const KEYS_NATIVE_BYTES: &str = "from bytes: Lua strings (`ffi.string`)";
const KEYS_DYNATOM_BYTES: &str = "from bytes: dynatom keys (`dynatom.key_of`)";
/// The header-keyed table's rows: the row, the script's variant, and the row it is
/// compared with.
const KEY_ROWS: &[(&str, &str, &str)] = &[
    (KEYS_NATIVE, "native", KEYS_NATIVE),
    (KEYS_DYNATOM, "dynatom", KEYS_NATIVE),
    (KEYS_NATIVE_BYTES, "native-bytes", KEYS_NATIVE_BYTES),
    (KEYS_DYNATOM_BYTES, "dynatom-bytes", KEYS_NATIVE_BYTES),
];
const HEADERS: &str = "headers";

const WRAPPED: &str = "wrapped";
const WRAP_FFI_STRING: &str = "`ffi.string` copy";
const WRAP_DYNATOM: &str = "`dynatom.wrap`";
const WRAP_BUFFER_ONLY: &str = "the buffer alone";
/// The wrapped-values rows: the row and the script's way.
const WRAP_ROWS: &[(&str, &str)] =
    &[(WRAP_FFI_STRING, "ffi-string"), (WRAP_DYNATOM, "wrap"), (WRAP_BUFFER_ONLY, "buffer-only")];
/// (value size, values in the timed loop, values kept alive) at full scale; quick runs a
/// tenth of the values.
const WRAP_SHAPES: &[(usize, usize, usize)] = &[(64, 200_000, 1000), (4 << 10, 50_000, 100), (1 << 20, 500, 10)];

fn wrap_count(scale: Scale, count: usize) -> usize {
    match scale {
        Scale::Full => count,
        Scale::Quick => count / 10,
    }
}

const SIZES_FULL: &[usize] = &[64, 4 << 10, 64 << 10, 1 << 20];
const SIZES_QUICK: &[usize] = &[64, 64 << 10];
const MODES: &[&str] = &["similar", "random"];

/// Builds the library once in the parent (when luajit is there to use it) and leaves the
/// path, or the reason it failed, in the environment the children inherit. A library
/// already named by `DYNATOM_BENCH_LIB` is used as it is (to measure a given build).
pub fn prepare() {
    luajit_real::ensure_installed();
    if !luajit_real::available() {
        std::env::set_var(LIB_ERROR_ENV, NO_LUAJIT);
        return;
    }
    if std::env::var_os(LIB_PATH_ENV).is_some_and(|p| PathBuf::from(p).is_file()) {
        return;
    }
    match luajit_real::build_library() {
        Ok(path) => std::env::set_var(LIB_PATH_ENV, path),
        Err(why) => {
            eprintln!("dynatom LuaJIT column unavailable: {why}");
            std::env::set_var(LIB_ERROR_ENV, why);
        }
    }
}

fn library() -> Result<PathBuf, String> {
    match std::env::var_os(LIB_PATH_ENV) {
        Some(p) => Ok(PathBuf::from(p)),
        None => Err(std::env::var(LIB_ERROR_ENV).unwrap_or_else(|_| "library not built".into())),
    }
}

fn sizes(scale: Scale) -> &'static [usize] {
    match scale {
        Scale::Full => SIZES_FULL,
        Scale::Quick => SIZES_QUICK,
    }
}

/// (values, cache capacity, evicted when full): the article's 3,000 / 800 / 300.
fn shape(scale: Scale) -> (usize, usize, usize) {
    match scale {
        Scale::Full => (3000, 800, 300),
        Scale::Quick => (600, 160, 60),
    }
}

fn lookups(scale: Scale) -> usize {
    match scale {
        Scale::Full => 1_000_000,
        Scale::Quick => 100_000,
    }
}

fn size_label(size: usize) -> String {
    match size {
        s if s >= 1 << 20 => format!("{} MiB", s >> 20),
        s if s >= 1 << 10 => format!("{} KiB", s >> 10),
        s => format!("{s} B"),
    }
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for &size in sizes(ctx.scale) {
        for mode in MODES {
            for (name, _) in VARIANTS {
                v.push(Job::new(name, mode, &size.to_string()));
            }
        }
    }
    let n = lookups(ctx.scale).to_string();
    for (row, _, _) in KEY_ROWS {
        v.push(Job::new(row, HEADERS, &n));
    }
    for &(size, _, _) in WRAP_SHAPES {
        for (row, _) in WRAP_ROWS {
            v.push(Job::new(row, WRAPPED, &size.to_string()));
        }
    }
    v
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    if !luajit_real::available() {
        out.fail(NO_LUAJIT.into());
        return out;
    }
    let lib = library().ok();
    if job.corpus == HEADERS {
        let n: usize = job.param.parse().expect("lookups");
        let variant = KEY_ROWS.iter().find(|(row, _, _)| *row == job.peer).map(|(_, v, _)| *v).expect("key row");
        match luajit_real::run_headers(variant, n, lib.as_deref()) {
            Ok(ns) => out.fig("ns_per_lookup", ns),
            Err(why) => out.fail(why),
        }
        return out;
    }
    if job.corpus == WRAPPED {
        let size: usize = job.param.parse().expect("size");
        let way = WRAP_ROWS.iter().find(|(row, _)| *row == job.peer).map(|(_, way)| *way).expect("wrap row");
        let &(_, count, keep) = WRAP_SHAPES.iter().find(|(s, _, _)| *s == size).expect("wrap size");
        match luajit_real::run_wrap(way, size, wrap_count(ctx.scale, count), keep, lib.as_deref()) {
            Ok(run) => {
                out.fig("ns_per_value", run.ns_per_value);
                out.fig("peak_rss_mib", run.peak_rss_kib / 1024.0);
            }
            Err(why) => out.fail(why),
        }
        return out;
    }
    let size: usize = job.param.parse().expect("size");
    let variant = VARIANTS.iter().find(|(n, _)| *n == job.peer).map(|(_, v)| *v).expect("variant");
    let run = match luajit_real::run_cache(variant, size, shape(ctx.scale), job.corpus == "similar", lib.as_deref()) {
        Ok(r) => r,
        Err(why) => {
            out.fail(why);
            return out;
        }
    };
    for (prefix, samples) in [("", &run.latencies_us), ("cpu_", &run.cpu_us)] {
        let mut sorted = samples.clone();
        sorted.sort_by(f64::total_cmp);
        out.fig(&format!("{prefix}mean_us"), samples.iter().sum::<f64>() / samples.len() as f64);
        out.fig(&format!("{prefix}p50_us"), quantile(&sorted, 0.5));
        out.fig(&format!("{prefix}p99_us"), quantile(&sorted, 0.99));
        out.fig(&format!("{prefix}max_us"), *sorted.last().unwrap_or(&f64::NAN));
    }
    // The warm steady state: the last third of the creations, after the cache has filled
    // and evicted and the heap has reached its size (the first ones fault fresh pages in).
    let steady = &run.cpu_us[run.cpu_us.len() * 2 / 3..];
    let mut sorted = steady.to_vec();
    sorted.sort_by(f64::total_cmp);
    out.fig("steady_cpu_mean_us", steady.iter().sum::<f64>() / steady.len().max(1) as f64);
    out.fig("steady_cpu_p99_us", quantile(&sorted, 0.99));
    out.fig("peak_rss_mib", run.peak_rss_kib / 1024.0);
    let (_, capacity, _) = shape(ctx.scale);
    out.fig("faults_until_full", run.faults_until_full / capacity as f64);
    out.fig("faults_per_creation", run.faults_total / run.cpu_us.len().max(1) as f64);
    out.samples.insert("latency_us".into(), run.latencies_us);
    out.samples.insert("cpu_us".into(), run.cpu_us);
    out
}

/// A cell, or the short reason the variant has no figure.
fn cell(r: &Results, job: &Job, figure: &str) -> String {
    match r.error(job) {
        Some(e) if e.contains("library not built") || e.contains("dynatom-ffi") || e.contains(NO_LUAJIT) => {
            "unavailable".into()
        }
        Some(_) => "wrong ✗".into(),
        None => fmt_num(r.median(job, figure)),
    }
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let (n, cap, evict) = shape(ctx.scale);
    rep.begin_suite(
        "luajit",
        "LuaJIT: a cache of HTTP bodies three ways",
        &format!(
            "The OpenResty cache workload inside Debian's `luajit` (`lua/luajit_cache.lua`): {n} values \
             put one by one into a cache of {cap} that evicts {evict} when full; \"similar\" values share \
             one body and differ in a 16-byte tail, \"random\" ones have random bodies (made before the \
             clock starts). Each value is created as a Lua string (`body .. tail`, interned by LuaJIT at \
             creation), as LuaJIT's `string.buffer` (`buffer.new(size):put(body, tail)`, kept as the \
             buffer), or as a dynatom str through `require \"dynatom\"` (`body .. tail` with a str body; \
             `dynatom.concat(body, tail)` for random Lua bodies; the library keeps freed blocks of \
             32 KiB and more for reuse, up to half the live bytes, and the module steps LuaJIT's \
             collector in proportion to them). The last \
             variant also calls `dynatom.retain_freed_memory(256 MiB)` first (glibc then keeps freed blocks \
             for reuse instead of faulting fresh pages in). Each creation is timed with `clock_gettime` \
             through the FFI twice: wall clock (`CLOCK_MONOTONIC`: mean, p50, p99, max) and the thread's \
             CPU time (`CLOCK_THREAD_CPUTIME_ID`: user + system, so page faults count and preemption by \
             the other processes of a shared machine does not; reading it is a system call of about \
             0.5–2 µs, included in every CPU figure). µs per creation over a repetition; median of \
             repetitions, each in a fresh `luajit` process, variants interleaved. Peak RSS is the \
             process's VmHWM at the end. Page faults are the process's minor faults (`getrusage`) over \
             the first {cap} creations (the cache filling: every value is live, nothing has been freed, \
             so its pages are fresh to any allocator, and the kernel finds, zeroes and maps each one) and \
             over all {n}, per creation (random values: the loop also builds each random body, outside \
             the clock, and its pages count here too); a value of `size` bytes spans `size`/4 KiB pages. \
             Ratios are \
             *Lua string ÷ this variant* on CPU time. The \
             targets read CPU time, except at 64 B where the clock's own cost would hide the creation \
             and the wall-clock p50 is used."
        ),
    );
    if !luajit_real::available() {
        rep.para(&format!("LuaJIT section unavailable: {NO_LUAJIT} (apt-get install luajit)."));
    } else if let Err(why) = library() {
        rep.para(&format!("dynatom columns unavailable: {why}."));
    }
    let mut t = Table::new(&[
        "workload",
        "variant",
        "mean µs",
        "p50 µs",
        "p99 µs",
        "max µs",
        "CPU mean µs",
        "CPU p99 µs",
        "peak RSS MiB",
        "page faults per creation (first / all)",
        "native ÷ this (CPU mean)",
        "native ÷ this (CPU p99)",
    ]);
    let job = |v: &str, mode: &str, size: usize| Job::new(v, mode, &size.to_string());
    for &size in sizes(ctx.scale) {
        for mode in MODES {
            let wl = format!("{} {mode}", size_label(size));
            for (name, _) in VARIANTS {
                let j = job(name, mode, size);
                let nat = job(NATIVE, mode, size);
                t.row(vec![
                    wl.clone(),
                    name.to_string(),
                    cell(r, &j, "mean_us"),
                    cell(r, &j, "p50_us"),
                    cell(r, &j, "p99_us"),
                    cell(r, &j, "max_us"),
                    cell(r, &j, "cpu_mean_us"),
                    cell(r, &j, "cpu_p99_us"),
                    cell(r, &j, "peak_rss_mib"),
                    format!("{} / {}", cell(r, &j, "faults_until_full"), cell(r, &j, "faults_per_creation")),
                    fmt_ratio(r.median(&nat, "cpu_mean_us"), r.median(&j, "cpu_mean_us")),
                    fmt_ratio(r.median(&nat, "cpu_p99_us"), r.median(&j, "cpu_p99_us")),
                ]);
            }
            chart(r, ctx, rep, mode, size, &wl);
        }
    }
    rep.table(&t);

    let steady_from = shape(ctx.scale).0 * 2 / 3 + 1;
    rep.para(&format!(
        "Warm steady state: the same runs, CPU time of creations {steady_from}..{n} only (the cache has \
         filled and evicted and the heap has reached its size; before that, every variant also pays \
         for faulting fresh pages in)."
    ));
    let mut st = Table::new(&[
        "workload",
        "variant",
        "steady CPU mean µs",
        "steady CPU p99 µs",
        "native ÷ this (mean)",
        "native ÷ this (p99)",
    ]);
    for &size in sizes(ctx.scale).iter().filter(|s| **s >= 64 << 10) {
        for mode in MODES {
            let wl = format!("{} {mode}", size_label(size));
            let nat = job(NATIVE, mode, size);
            for (name, _) in VARIANTS {
                let j = job(name, mode, size);
                st.row(vec![
                    wl.clone(),
                    name.to_string(),
                    cell(r, &j, "steady_cpu_mean_us"),
                    cell(r, &j, "steady_cpu_p99_us"),
                    fmt_ratio(r.median(&nat, "steady_cpu_mean_us"), r.median(&j, "steady_cpu_mean_us")),
                    fmt_ratio(r.median(&nat, "steady_cpu_p99_us"), r.median(&j, "steady_cpu_p99_us")),
                ]);
            }
        }
    }
    rep.table(&st);

    let n_lookups = lookups(ctx.scale);
    let keys = |p: &str| Job::new(p, HEADERS, &n_lookups.to_string());
    let mut kt = Table::new(&["keys", "ns per lookup", "vs Lua strings (same path)"]);
    let native_ns = r.median(&keys(KEYS_NATIVE), "ns_per_lookup");
    for &(p, _, versus) in KEY_ROWS {
        let ns = r.median(&keys(p), "ns_per_lookup");
        let ratio = match (ns, r.median(&keys(versus), "ns_per_lookup")) {
            (Some(a), Some(b)) if b > 0.0 => format!("{:.2}×", a / b),
            _ => "—".into(),
        };
        kt.row(vec![p.to_string(), cell(r, &keys(p), "ns_per_lookup"), ratio]);
    }
    rep.para(&format!(
        "A table keyed by 40 request-header names (`lua/header_keys.lua`), {n_lookups} lookups from a \
         stream of 4,096 header references: Lua strings as keys against dynatom atoms as keys \
         (`t[atom:key()]`: the small integer id every atom object carries, one per live atom), \
         each key already in hand. The \"from bytes\" rows time what a server does with a header name it \
         has read: from a C buffer and length to the value, through a Lua string made by `ffi.string` (an \
         intern in LuaJIT) or through `dynatom.key_of(ptr, len)` (finds the existing atom, no atom object \
         made; the key is the id registered for that atom's word) into a table filled with `dynatom.put`. The whole loop's thread CPU time after a warm-up \
         run; median of repetitions."
    ));
    rep.table(&kt);
    wrapped_values(r, ctx, rep);
    targets(r, ctx, rep, native_ns);
}

/// The wrapped-values table: per size, ns per value and peak RSS of each way.
fn wrapped_values(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.para(&format!(
        "Values that arrive in FFI buffers (`lua/wrap_values.lua`), as a socket read leaves them: each \
         value gets a fresh `ffi.new` buffer with distinct bytes, then becomes a Lua string by \
         `ffi.string(buffer, size)` (a copy that LuaJIT interns) or a dynatom str by \
         `dynatom.wrap(buffer, size)` (no copy: the buffer stays anchored while the str lives, and is \
         let go by a later wrap after the collector releases the str). The last values stay alive in a \
         ring, as in a cache (1,000 of 64 B, 100 of 4 KiB, 10 of 1 MiB); {} of 64 B, {} of 4 KiB and \
         {} of 1 MiB are timed after the ring has filled once. Thread CPU ns per value for the whole \
         step (buffer, bytes, string); \"the buffer alone\" times the step without a string. Peak RSS \
         is the process's VmHWM. Ratio = `ffi.string` ÷ `dynatom.wrap` (above 1: wrap is faster). \
         Median of repetitions, each a fresh `luajit`.",
        wrap_count(ctx.scale, WRAP_SHAPES[0].1),
        wrap_count(ctx.scale, WRAP_SHAPES[1].1),
        wrap_count(ctx.scale, WRAP_SHAPES[2].1),
    ));
    let mut t = Table::new(&[
        "value size",
        "`ffi.string` ns",
        "`dynatom.wrap` ns",
        "buffer alone ns",
        "ffi.string ÷ wrap",
        "peak RSS MiB (ffi.string / wrap / buffer)",
    ]);
    for &(size, _, _) in WRAP_SHAPES {
        let job = |row: &str| Job::new(row, WRAPPED, &size.to_string());
        let (copy, wrap, alone) = (job(WRAP_FFI_STRING), job(WRAP_DYNATOM), job(WRAP_BUFFER_ONLY));
        t.row(vec![
            size_label(size),
            cell(r, &copy, "ns_per_value"),
            cell(r, &wrap, "ns_per_value"),
            cell(r, &alone, "ns_per_value"),
            fmt_ratio(r.median(&copy, "ns_per_value"), r.median(&wrap, "ns_per_value")),
            format!(
                "{} / {} / {}",
                cell(r, &copy, "peak_rss_mib"),
                cell(r, &wrap, "peak_rss_mib"),
                cell(r, &alone, "peak_rss_mib")
            ),
        ]);
    }
    rep.table(&t);
}

/// The CDF of creation latency of the three variants for one workload.
fn chart(r: &Results, ctx: &Ctx, rep: &mut Report, mode: &str, size: usize, wl: &str) {
    let series: Vec<Series> = VARIANTS
        .iter()
        .map(|(name, _)| Series {
            name: name.to_string(),
            points: charts::cdf_points(r.pooled(&Job::new(name, mode, &size.to_string()), "cpu_us")),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    if series.is_empty() {
        return;
    }
    let file = format!("luajit-{}-{mode}.svg", size_label(size).replace(' ', ""));
    let title = format!("LuaJIT creation time, {wl} values (CDF of thread CPU time)");
    let spec = LineChart {
        title: &title,
        x_desc: "µs of CPU per creation (log)",
        y_desc: "fraction of creations ≤ x",
        log_x: true,
        log_y: false,
    };
    match charts::lines(&ctx.out_dir.join(&file), &spec, &series) {
        Ok(()) => rep.chart(&file, &title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }
}

fn targets(r: &Results, ctx: &Ctx, rep: &mut Report, native_ns: Option<f64>) {
    let get = |v: &str, size: usize, fig: &str| r.median(&Job::new(v, "similar", &size.to_string()), fig);
    let big = [64 << 10, 1 << 20];
    let measured = |size: &usize| sizes(ctx.scale).contains(size);
    let quick_gap = |met: &mut Option<bool>, parts: &mut Vec<String>| {
        if big.iter().any(|s| !measured(s)) {
            combine(met, None);
            parts.push("1 MiB not run (--quick)".into());
        }
    };

    let (mut met, mut parts) = (Some(true), Vec::new());
    for size in big.iter().filter(|s| measured(s)) {
        let p99 = (get(NATIVE, *size, "cpu_p99_us"), get(DYNATOM, *size, "cpu_p99_us"));
        let mean = (get(NATIVE, *size, "cpu_mean_us"), get(DYNATOM, *size, "cpu_mean_us"));
        let retain = (get(DYNATOM_RETAIN, *size, "cpu_p99_us"), get(DYNATOM_RETAIN, *size, "cpu_mean_us"));
        match (p99, mean) {
            ((Some(np), Some(dp)), (Some(nm), Some(dm))) => {
                combine(&mut met, Some(np >= 5.0 * dp && nm >= 3.0 * dm));
                let mut part = format!("{}: p99 {:.1}×, mean {:.1}×", size_label(*size), np / dp, nm / dm);
                if let (Some(rp), Some(rm)) = retain {
                    part += &format!(" (malloc retaining: p99 {:.1}×, mean {:.1}×", np / rp, nm / rm);
                    let steady = |v: &str, f: &str| get(v, *size, f);
                    if let (Some(snp), Some(snm), Some(srp), Some(srm)) = (
                        steady(NATIVE, "steady_cpu_p99_us"),
                        steady(NATIVE, "steady_cpu_mean_us"),
                        steady(DYNATOM_RETAIN, "steady_cpu_p99_us"),
                        steady(DYNATOM_RETAIN, "steady_cpu_mean_us"),
                    ) {
                        part += &format!("; warm steady state: p99 {:.1}×, mean {:.1}×", snp / srp, snm / srm);
                    }
                    part += ")";
                }
                parts.push(part);
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{} not measured", size_label(*size)));
            }
        }
    }
    quick_gap(&mut met, &mut parts);
    rep.target(
        "LuaJIT, 64 KiB and 1 MiB similar values: dynatom ≥5× faster than Lua strings at p99 and ≥3× at the mean \
         (thread CPU time)",
        parts.join("; "),
        met,
    );

    let (mut met, mut parts) = (Some(true), Vec::new());
    for size in big.iter().filter(|s| measured(s)) {
        let mean = (get(BUFFER, *size, "cpu_mean_us"), get(DYNATOM, *size, "cpu_mean_us"));
        let p99 = (get(BUFFER, *size, "cpu_p99_us"), get(DYNATOM, *size, "cpu_p99_us"));
        match (mean, p99) {
            ((Some(bm), Some(dm)), (Some(bp), Some(dp))) => {
                combine(&mut met, Some(dm <= bm && dp <= bp));
                parts.push(format!(
                    "{}: mean {} vs {} µs, p99 {} vs {} µs",
                    size_label(*size),
                    fmt_num(Some(dm)),
                    fmt_num(Some(bm)),
                    fmt_num(Some(dp)),
                    fmt_num(Some(bp))
                ));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{} not measured", size_label(*size)));
            }
        }
    }
    quick_gap(&mut met, &mut parts);
    rep.target(
        "LuaJIT, 64 KiB and 1 MiB similar values: dynatom no slower than `string.buffer` (CPU mean and p99)",
        parts.join("; "),
        met,
    );

    let (mut met, mut parts) = (Some(true), Vec::new());
    for mode in MODES {
        let j = |v: &str| Job::new(v, mode, "64");
        match (r.median(&j(DYNATOM), "p50_us"), r.median(&j(NATIVE), "p50_us")) {
            (Some(d), Some(n)) => {
                combine(&mut met, Some(d <= 2.0 * n));
                parts.push(format!("{mode}: {} vs {} µs ({:.2}×)", fmt_num(Some(d)), fmt_num(Some(n)), d / n));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{mode} not measured"));
            }
        }
    }
    rep.target("LuaJIT, 64 B values: dynatom within 2× of Lua strings (wall-clock p50)", parts.join("; "), met);

    let (mut met, mut parts) = (Some(true), Vec::new());
    for size in big.iter().filter(|s| measured(s)) {
        for mode in MODES {
            let j = |v: &str| Job::new(v, mode, &size.to_string());
            match (r.median(&j(DYNATOM), "peak_rss_mib"), r.median(&j(NATIVE), "peak_rss_mib")) {
                (Some(d), Some(n)) => {
                    combine(&mut met, Some(d <= n));
                    parts.push(format!("{} {mode}: {d:.0} vs {n:.0} MiB", size_label(*size)));
                }
                _ => {
                    combine(&mut met, None);
                    parts.push(format!("{} {mode} not measured", size_label(*size)));
                }
            }
        }
    }
    quick_gap(&mut met, &mut parts);
    rep.target(
        "LuaJIT, 64 KiB and 1 MiB values (where the values, not interpreter and library code, make the RSS): \
         dynatom's peak RSS ≤ Lua strings'",
        parts.join("; "),
        met,
    );

    let dyn_ns = r.median(&Job::new(KEYS_DYNATOM, HEADERS, &lookups(ctx.scale).to_string()), "ns_per_lookup");
    let (met, figure) = match (dyn_ns, native_ns) {
        (Some(d), Some(n)) => {
            (Some(d <= 1.5 * n), format!("{} vs {} ns ({:.2}×)", fmt_num(Some(d)), fmt_num(Some(n)), d / n))
        }
        _ => (None, "not measured".into()),
    };
    rep.target("LuaJIT, header-keyed table: atom keys within 1.5× of Lua string keys", figure, met);
}
