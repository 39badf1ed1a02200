//! Suite `scaling` (opt-in, `scripts/scaling`): the `intern-global` measurement at 1, 2, 4,
//! 8 and 16 threads against every global interner, whatever the machine's core count:
//! thread counts above the available cores still run, marked oversubscribed. Writes
//! `scaling.md` (the machine and the table) and one `scaling-<corpus>.svg` chart per corpus
//! beside the report. A second sweep times hits alone: the `keys` corpus interned into a
//! table that already holds (and keeps alive) every distinct key, the case that shows
//! whether a hit writes to shared cache lines; and looks of the same table (is the text
//! interned? no handle made), by the peers that can ask, for the part of a hit that writes
//! nothing.

use super::{intern_global, prefilled_looks, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::charts::{self, LineChart, Series};
use crate::peers;
use crate::report::{fmt_num, fmt_ratio, Report, Table};

pub const SUITE: SuiteDef = SuiteDef {
    name: "scaling",
    about: "global interners at 1-16 threads (opt-in: scripts/scaling)",
    // Two repetitions keep the sweep (5 corpora × 5 thread counts × 6 interners, up to 16
    // million interns a cell) under 10 minutes on a loaded 2-core machine; `--reps N` for more.
    reps_full: 2,
    reps_quick: 2,
    jobs,
    child,
    report,
};

pub const THREADS: &[usize] = &[1, 2, 4, 8, 16];

/// The corpus of the hits sweep: 100 k distinct keys in a million tokens (each key once,
/// then uniform draws: about ten hits a key).
const HITS_CORPUS: &str = "keys";

/// 16-thread throughput of hits on a pre-filled table ÷ 1-thread throughput, at least.
const HITS_SPEEDUP_NEEDED: f64 = 12.0;

fn param(threads: usize) -> String {
    format!("threads={threads}")
}

fn prefilled(threads: usize) -> String {
    format!("threads={threads},prefilled")
}

fn looks(threads: usize) -> String {
    format!("threads={threads},prefilled,looks")
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for corpus in ctx.corpora() {
        for &t in THREADS {
            for peer in peers::all_global() {
                v.push(Job::new(peer, &corpus, &param(t)));
            }
        }
    }
    for &t in THREADS {
        for peer in peers::all_global() {
            v.push(Job::new(peer, HITS_CORPUS, &prefilled(t)));
        }
        for peer in prefilled_looks::peers_that_look() {
            v.push(Job::new(peer, HITS_CORPUS, &looks(t)));
        }
    }
    v
}

/// `intern-global`'s cell (every thread interns, or looks up, the whole stream from its own
/// offset into a table that starts empty, or that holds every string already; ns per token
/// = wall time ÷ (tokens × threads)).
fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    intern_global::child(job, ctx)
}

/// The machine, from `/proc/cpuinfo`: its CPU model, logical processors and physical
/// cores (the `cpu cores` of each distinct `physical id`), and the cores this process
/// may use.
pub fn machine(cpuinfo: &str, available: usize) -> String {
    let field = |line: &str, key: &str| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == key).then(|| v.trim().to_string())
    };
    let model = cpuinfo.lines().find_map(|l| field(l, "model name")).unwrap_or_else(|| "unknown CPU".into());
    let logical = cpuinfo.lines().filter(|l| field(l, "processor").is_some()).count();
    let mut packages: Vec<(String, usize)> = Vec::new();
    let mut package = String::new();
    for line in cpuinfo.lines() {
        if let Some(id) = field(line, "physical id") {
            package = id;
        } else if let Some(cores) = field(line, "cpu cores").and_then(|c| c.parse().ok()) {
            if !packages.iter().any(|(p, _)| *p == package) {
                packages.push((package.clone(), cores));
            }
        }
    }
    let physical: usize = packages.iter().map(|(_, c)| c).sum();
    let physical = if physical > 0 { format!("{physical} physical cores") } else { "physical cores unknown".into() };
    format!("{model}, {logical} logical processors, {physical}, {available} available to this run")
}

/// ns/token by thread count, one row per corpus and peer, with each peer's ratio to dynatom.
fn thread_table(r: &Results, ctx: &Ctx, corpora: &[String], peers: &[&str], param: fn(usize) -> String) -> Table {
    let mut headers = vec!["corpus".to_string(), "peer".to_string()];
    headers.extend(THREADS.iter().map(|&t| threads_header(t, ctx.cores)));
    let mut table = Table::new(&headers);
    let dynatom = peers::GLOBAL[0];
    for corpus in corpora {
        for &peer in peers {
            let mut row = vec![corpus.clone(), peer.to_string()];
            for &t in THREADS {
                let job = Job::new(peer, corpus, &param(t));
                let ours = r.median(&Job::new(dynatom, corpus, &param(t)), "ns_per_token");
                row.push(match (r.error(&job), r.median(&job, "ns_per_token")) {
                    (Some(_), _) => "wrong ✗".into(),
                    (None, v) if peer == dynatom => format!("**{}**", fmt_num(v)),
                    (None, v) => format!("{} ({})", fmt_num(v), fmt_ratio(v, ours)),
                });
            }
            table.row(row);
        }
    }
    table
}

/// dynatom's hits speed-up from 1 to 16 threads, beside each peer's. Not judged on a machine
/// with fewer than 16 cores, where 16 threads share cores.
fn hits_speedup(r: &Results, cores: usize) -> (String, Option<bool>) {
    let speedup = |peer: &str| {
        let one = r.median(&Job::new(peer, HITS_CORPUS, &prefilled(1)), "ns_per_token")?;
        let sixteen = r.median(&Job::new(peer, HITS_CORPUS, &prefilled(16)), "ns_per_token")?;
        Some(one / sixteen)
    };
    let parts: Vec<String> = peers::all_global()
        .into_iter()
        .map(|peer| match speedup(peer) {
            Some(x) => format!("{peer} {x:.1}×"),
            None => format!("{peer} not measured"),
        })
        .collect();
    let met = speedup(peers::GLOBAL[0]).map(|x| x >= HITS_SPEEDUP_NEEDED);
    judged_on_16_cores(parts.join(", "), met, cores)
}

/// A 16-thread target's verdict, kept only on a machine of 16 cores or more: on fewer, 16
/// threads share cores and the figure shows preemption, not parallel speed.
fn judged_on_16_cores(figure: String, met: Option<bool>, cores: usize) -> (String, Option<bool>) {
    if cores < 16 {
        (format!("{figure}; not judged: {cores} cores, so 16 threads share them"), None)
    } else {
        (figure, met)
    }
}

fn threads_header(t: usize, cores: usize) -> String {
    let threads = if t == 1 { "1 thread".to_string() } else { format!("{t} threads") };
    let oversubscribed = if t > cores { "*" } else { "" };
    format!("{threads}{oversubscribed} ns/token")
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let machine = machine(&cpuinfo, ctx.cores);
    let intro = format!(
        "Machine: **{machine}**. Each global interner interns the whole token stream on 1, 2, 4, 8 and 16 \
         threads at once, every thread from its own offset, into a table that starts empty (a fresh \
         process per repetition, cells interleaved). ns/token = wall time ÷ (tokens × threads), lower is \
         better: it halves as threads double while they scale. Medians of repetitions; ratios are peer ÷ \
         dynatom. * oversubscribed: more threads than the {} cores available, so threads share cores and \
         the figure shows contention and preemption, not parallel speed.",
        ctx.cores
    );
    rep.begin_suite(SUITE.name, "Global interners by thread count", &intro);
    let table = thread_table(r, ctx, &ctx.corpora(), &peers::all_global(), param);
    rep.table(&table);
    let (figure, met) = intern_global::best_peer_ratios(r, ctx, &param(16), 1.5, false);
    let (sixteen_figure, met) = judged_on_16_cores(figure, met, ctx.cores);
    rep.target(
        "16 threads, every corpus: dynatom ≥1.5× faster than the fastest global peer",
        sixteen_figure.clone(),
        met,
    );
    let hits_intro = format!(
        "Hits alone: the `{HITS_CORPUS}` corpus interned into a table that already holds every distinct \
         key (interned and kept alive before the clock starts), so every timed intern finds its string. \
         Same threads, offsets and units as above. Speed-up = 16-thread throughput ÷ 1-thread \
         throughput (the 1-thread ns/token ÷ the 16-thread one); {HITS_SPEEDUP_NEEDED}× or more means hits \
         scale across cores."
    );
    rep.para(&hits_intro);
    let hits = thread_table(r, ctx, &[HITS_CORPUS.to_string()], &peers::all_global(), prefilled);
    rep.table(&hits);
    let (speedup_figure, met) = hits_speedup(r, ctx.cores);
    rep.target(
        &format!("hits on a pre-filled table of keys: 16 threads ≥{HITS_SPEEDUP_NEEDED}× the 1-thread throughput"),
        speedup_figure.clone(),
        met,
    );
    let looks_intro = "Looks of the same pre-filled table: whether each token is interned, asked without \
         making a handle, by the peers that can ask (dynatom's `AtomTable::contains_text`, ustr's \
         `existing_ustr`, lasso's `contains`). A look probes and compares like a hit but makes no handle: \
         dynatom's writes no memory that other threads share (no count raised), so the gap between its hits \
         and its looks as threads are added is what the hits' count writes cost. The peers' looks may take \
         the locks their hits take.";
    rep.para(looks_intro);
    let look_table = thread_table(r, ctx, &[HITS_CORPUS.to_string()], &prefilled_looks::peers_that_look(), looks);
    rep.table(&look_table);
    let markdown = format!(
        "# Global interning by thread count\n\n{intro}\n\n{}\n\n16 threads, fastest peer ÷ dynatom: \
         {sixteen_figure}.\n\n## Hits on a pre-filled table\n\n{hits_intro}\n\n{}\n\nSpeed-up from 1 to 16 \
         threads: {speedup_figure}.\n\n## Looks on a pre-filled table\n\n{looks_intro}\n\n{}\n",
        table.to_markdown(),
        hits.to_markdown(),
        look_table.to_markdown()
    );
    let path = ctx.out_dir.join("scaling.md");
    if let Err(e) = std::fs::write(&path, markdown) {
        eprintln!("{}: {e}", path.display());
    }
    for corpus in ctx.corpora() {
        let title = format!("{corpus}: tokens interned per second, all threads together ({} cores)", ctx.cores);
        throughput_chart(r, ctx, rep, &corpus, param, &format!("scaling-{corpus}.svg"), &title);
    }
    let title = format!("{HITS_CORPUS}, pre-filled table: hits per second, all threads together ({} cores)", ctx.cores);
    let file = format!("scaling-{HITS_CORPUS}-prefilled.svg");
    throughput_chart(r, ctx, rep, HITS_CORPUS, prefilled, &file, &title);
}

/// Million tokens per second (all threads together) against threads, one line per peer.
fn throughput_chart(
    r: &Results,
    ctx: &Ctx,
    rep: &mut Report,
    corpus: &str,
    param: fn(usize) -> String,
    file: &str,
    title: &str,
) {
    let series: Vec<Series> = peers::all_global()
        .into_iter()
        .map(|peer| Series {
            name: peer.to_string(),
            points: THREADS
                .iter()
                .filter_map(|&t| {
                    let ns = r.median(&Job::new(peer, corpus, &param(t)), "ns_per_token")?;
                    Some((t as f64, 1e3 / ns))
                })
                .collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let spec = LineChart {
        title,
        x_desc: "threads",
        y_desc: "million tokens / s (higher is better)",
        log_x: true,
        log_y: false,
    };
    match charts::lines(&ctx.out_dir.join(file), &spec, &series) {
        Ok(()) => rep.chart(file, title),
        Err(e) => eprintln!("chart {file}: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machine_names_model_and_cores() {
        let two_sockets = "processor\t: 0\nmodel name\t: Example CPU\nphysical id\t: 0\ncpu cores\t: 4\n\n\
            processor\t: 1\nmodel name\t: Example CPU\nphysical id\t: 0\ncpu cores\t: 4\n\n\
            processor\t: 2\nmodel name\t: Example CPU\nphysical id\t: 1\ncpu cores\t: 4\n";
        assert_eq!(
            machine(two_sockets, 3),
            "Example CPU, 3 logical processors, 8 physical cores, 3 available to this run"
        );
        assert_eq!(
            machine("", 1),
            "unknown CPU, 0 logical processors, physical cores unknown, 1 available to this run"
        );
    }

    #[test]
    fn oversubscribed_thread_counts_are_marked() {
        assert_eq!(threads_header(1, 2), "1 thread ns/token");
        assert_eq!(threads_header(2, 2), "2 threads ns/token");
        assert_eq!(threads_header(4, 2), "4 threads* ns/token");
    }

    #[test]
    fn every_global_peer_at_every_thread_count() {
        let ctx =
            Ctx { scale: crate::corpus::Scale::Quick, user_corpus: None, cores: 2, out_dir: std::env::temp_dir() };
        let jobs = jobs(&ctx);
        let looking = prefilled_looks::peers_that_look().len();
        assert_eq!(
            jobs.len(),
            (ctx.corpora().len() + 1) * THREADS.len() * peers::all_global().len() + THREADS.len() * looking
        );
        assert!(jobs.iter().any(|j| j.param == "threads=16,prefilled,looks" && j.peer == peers::GLOBAL[0]));
        assert!(jobs.iter().any(|j| j.param == "threads=16" && j.peer == peers::NEVER_FREE[0]));
        assert!(jobs.iter().any(|j| j.param == "threads=16,prefilled" && j.corpus == HITS_CORPUS));
    }
}
