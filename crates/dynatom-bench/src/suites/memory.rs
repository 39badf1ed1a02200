//! Suite `memory`: bytes per distinct string beyond its characters, after interning every
//! distinct string of a corpus once, for every interner; allocator slop (what
//! `malloc_usable_size` adds on top of the requests) is reported separately, like
//! Firefox's about:memory; memory an interner maps from the OS itself (dynatom's slabs on
//! Linux) is added to its requested bytes, from its own report. A third figure, *held*,
//! adds the slop and glibc's chunk header for every live block to the overhead: what the
//! process really holds per string, whichever way an interner gets its memory. The handles
//! themselves live in a vector allocated before the measurement, so they are not counted
//! (their size is shown). A fourth figure, *resident*, is what the kernel sees: the
//! `RssAnon` delta of the fresh child over the intern loop, each reading after
//! `malloc_trim(0)`, per string beyond its characters, with the handles' vector made
//! resident before the first reading so it stays out of the delta (see `resident.rs`).

use super::{ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count::counting;
use crate::peers::{self, GlobalInterner, GlobalVisitor, LocalInterner, LocalVisitor};
use crate::report::{cell, combine, fmt_num, fmt_ratio, pairwise_target, Report, Table};
use crate::resident::{per_atom_beyond_chars, prefault_spare_capacity, resident_anon_bytes, PackedTexts};

pub const SUITE: SuiteDef = SuiteDef {
    name: "memory",
    about: "bytes per distinct string, every interner",
    reps_full: 3,
    reps_quick: 2,
    jobs,
    child,
    report,
};

fn all_peers() -> Vec<&'static str> {
    peers::all_global().into_iter().chain(peers::LOCAL.iter().copied()).collect()
}

fn jobs(ctx: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for corpus in ctx.corpora() {
        for peer in all_peers() {
            v.push(Job::new(peer, &corpus, "-"));
        }
    }
    v
}

/// What glibc's malloc spends per live block beyond its usable size: the chunk's size
/// word (x86-64; the next chunk's `prev_size` field lies inside the usable bytes).
const MALLOC_CHUNK_HEADER: f64 = 8.0;

struct Run<'a> {
    distinct: &'a [&'a str],
}

impl Run<'_> {
    /// `mapped` is what the interner mapped from the OS meanwhile, outside the counting
    /// allocator's view: counted as requested bytes with no slop.
    fn figures(&self, out: &mut ChildOutput, snap: crate::alloc_count::Snapshot, mapped: usize, handle_size: usize) {
        let n = self.distinct.len() as f64;
        let chars = self.chars();
        let overhead = ((snap.live_bytes as f64 + mapped as f64) - chars as f64) / n;
        let slop = snap.live_slop as f64 / n;
        out.fig("overhead_per_string", overhead);
        out.fig("slop_per_string", slop);
        out.fig("held_per_string", overhead + slop + MALLOC_CHUNK_HEADER * snap.live_blocks as f64 / n);
        out.fig("allocs_per_string", snap.alloc_calls as f64 / n);
        out.fig("handle_bytes", handle_size as f64);
    }

    fn chars(&self) -> usize {
        self.distinct.iter().map(|s| s.len()).sum()
    }

    /// The resident figure from the readings around the loop; a missing reading (not
    /// Linux) leaves the figure out, so its cell reads "—".
    fn resident(&self, out: &mut ChildOutput, before: Option<usize>, after: Option<usize>) {
        if let Some(per_string) = per_atom_beyond_chars(before, after, self.distinct.len(), self.chars()) {
            out.fig("resident_per_string", per_string);
        }
    }

    fn check<'s>(&self, out: &mut ChildOutput, texts: impl Iterator<Item = &'s str>) {
        if let Some(i) = texts.zip(self.distinct).position(|(a, b)| a != *b) {
            out.fail(format!("string {i} does not round-trip"));
        }
    }
}

impl GlobalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<G: GlobalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let mut handles = Vec::with_capacity(self.distinct.len());
        prefault_spare_capacity(&mut handles);
        let resident_before = resident_anon_bytes();
        let (g, snap) = counting(|| {
            let g = G::create();
            for s in self.distinct {
                handles.push(g.intern(s));
            }
            g
        });
        let resident_after = resident_anon_bytes();
        self.resident(&mut out, resident_before, resident_after);
        // The child process is fresh: whatever the interner mapped, it mapped in the window
        // (asking before it would make dynatom's global table outside the count).
        let mapped = g.mapped_bytes();
        self.figures(&mut out, snap, mapped, std::mem::size_of::<G::Handle>());
        self.check(&mut out, handles.iter().map(|h| g.resolve(h)));
        drop(handles);
        out
    }
}

impl LocalVisitor for Run<'_> {
    type Out = ChildOutput;
    fn visit<L: LocalInterner>(self) -> ChildOutput {
        let mut out = ChildOutput::default();
        let mut syms = Vec::with_capacity(self.distinct.len());
        prefault_spare_capacity(&mut syms);
        let resident_before = resident_anon_bytes();
        let (table, snap) = counting(|| {
            let mut t = L::create();
            for s in self.distinct {
                syms.push(t.intern(s));
            }
            t
        });
        let resident_after = resident_anon_bytes();
        self.resident(&mut out, resident_before, resident_after);
        let mapped = table.mapped_bytes();
        self.figures(&mut out, snap, mapped, std::mem::size_of::<L::Symbol>());
        self.check(&mut out, syms.iter().map(|s| table.resolve(s)));
        drop(syms);
        out
    }
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    // The corpus's own allocations are freed before any reading (see `resident.rs`).
    let packed = PackedTexts::new(ctx.load_corpus(&job.corpus).distinct.iter().map(String::as_str));
    let distinct = packed.strs();
    let run = Run { distinct: &distinct };
    if peers::all_global().contains(&job.peer.as_str()) {
        peers::visit_any_global(&job.peer, run)
    } else {
        peers::visit_local(&job.peer, run)
    }
    .unwrap_or_else(|| panic!("unknown peer {}", job.peer))
}

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    rep.begin_suite(
        "memory",
        "Memory per distinct string",
        "Every distinct string of the corpus interned once into a fresh interner. *overhead* = \
         (live requested bytes − the strings' own bytes) ÷ distinct strings, where dynatom's \
         slabs (32 KiB blocks of atoms it maps from the kernel itself, which the counting \
         allocator cannot see) count whole, free room included; *slop* = what glibc's \
         `malloc_usable_size` adds on top of the requests, per string (a slab has none: its \
         blocks' rounding to 8 bytes is in the overhead); *held* = overhead + slop + glibc's \
         8-byte chunk header per live malloc block, per string: the bytes the process really \
         holds beyond the characters, however the interner gets its memory (the targets read \
         *overhead*); *resident* = the growth of the process's resident anonymous memory \
         (`RssAnon` of /proc/self/status, each reading after `malloc_trim(0)`) over the intern \
         loop, less the strings' own bytes, per string: what the kernel sees, the same measure for \
         every peer (whole 4 KiB pages, so small corpora read coarser; \"—\" where the OS has no \
         `RssAnon`); handles are stored in a vector allocated (and, for *resident*, touched) \
         beforehand and not counted (their size is its own column). dynatom's atoms of ≤7 bytes \
         live inside the handle, so short-string corpora can show less than zero.",
    );
    let reference = peers::GLOBAL[0];
    let mut t = Table::new(&[
        "corpus",
        "peer",
        "overhead B/string",
        "vs dynatom",
        "slop B/string",
        "held B/string",
        "vs dynatom",
        "resident B/string",
        "vs dynatom",
        "allocations/string",
        "handle B",
    ]);
    for corpus in ctx.corpora() {
        let reference_job = Job::new(reference, &corpus, "-");
        // Ratio of bytes beyond the characters; meaningless when dynatom's is ≤ 0.
        let vs_reference = |job: &Job, figure: &str| match r.median(&reference_job, figure) {
            Some(d) if d > 0.0 => fmt_ratio(r.median(job, figure), Some(d)),
            _ => "—".into(),
        };
        for peer in all_peers() {
            let job = Job::new(peer, &corpus, "-");
            t.row(vec![
                corpus.clone(),
                peer.to_string(),
                cell(r, &job, "overhead_per_string"),
                vs_reference(&job, "overhead_per_string"),
                cell(r, &job, "slop_per_string"),
                cell(r, &job, "held_per_string"),
                vs_reference(&job, "held_per_string"),
                cell(r, &job, "resident_per_string"),
                vs_reference(&job, "resident_per_string"),
                cell(r, &job, "allocs_per_string"),
                cell(r, &job, "handle_bytes"),
            ]);
        }
        let bars: Vec<(String, f64)> = all_peers()
            .iter()
            .filter_map(|p| r.median(&Job::new(p, &corpus, "-"), "overhead_per_string").map(|v| (p.to_string(), v)))
            .collect();
        let file = format!("memory-{corpus}.svg");
        let title = format!("Bytes per distinct string beyond its characters — {corpus}");
        match crate::charts::bars(&ctx.out_dir.join(&file), &title, "bytes per string (lower is better)", &bars) {
            Ok(()) => rep.chart(&file, &title),
            Err(e) => eprintln!("chart {file}: {e}"),
        }
    }
    rep.table(&t);

    let mut parts = Vec::new();
    let mut met = Some(true);
    for corpus in ctx.corpora() {
        let d = r.median(&Job::new(reference, &corpus, "-"), "overhead_per_string");
        let best = peers::all_global()[1..]
            .iter()
            .filter_map(|p| r.median(&Job::new(p, &corpus, "-"), "overhead_per_string").map(|v| (v, *p)))
            .min_by(|a, b| a.0.total_cmp(&b.0));
        match (d, best) {
            (Some(d), Some((b, name))) => {
                combine(&mut met, Some(d <= 24.0 && d < b));
                parts.push(format!("{corpus} {} B (best global peer {name} {} B)", fmt_num(Some(d)), fmt_num(Some(b))));
            }
            _ => {
                combine(&mut met, None);
                parts.push(format!("{corpus} not measured"));
            }
        }
    }
    rep.target(
        "atoms: overhead ≤24 B per distinct string and below every global peer, every corpus",
        parts.join("; "),
        met,
    );
    interner_target(r, ctx, rep);
    resident_target(r, ctx, rep);
}

/// The atom table's resident-memory target: dynatom's global table holds no more resident
/// bytes per atom than internment's never-freeing `Intern`, on every corpus.
fn resident_target(r: &Results, ctx: &Ctx, rep: &mut Report) {
    const BAR: &str = "internment Intern";
    pairwise_target(
        rep,
        &format!("atoms: resident bytes per distinct string ≤ {BAR}'s, every corpus"),
        &ctx.corpora(),
        "B",
        |corpus| {
            let median = |peer: &str| r.median(&Job::new(peer, corpus, "-"), "resident_per_string");
            (median(peers::all_global()[0]), median(BAR))
        },
        |ours, bar| ours <= bar,
    );
}

/// The symbol interner's memory target: `Interner` keeps ≤12 B per distinct string beyond the characters, and no more
/// than string-interner's `BufferBackend` (the leanest peer), on every corpus.
fn interner_target(r: &Results, ctx: &Ctx, rep: &mut Report) {
    const OURS: &str = "dynatom Interner";
    const LEANEST_PEER: &str = "string-interner Buffer";
    pairwise_target(
        rep,
        &format!("{OURS}: overhead ≤12 B per distinct string and no more than {LEANEST_PEER}, every corpus"),
        &ctx.corpora(),
        "B",
        |corpus| {
            let median = |peer: &str| r.median(&Job::new(peer, corpus, "-"), "overhead_per_string");
            (median(OURS), median(LEANEST_PEER))
        },
        |ours, peer| ours <= 12.0 && ours <= peer,
    );
}
