//! Counted interning: the `intern-local` suite's interners (fill, intern hits, get,
//! resolve), the `intern-sync` suite's shared interners on one thread (fill, get on the
//! live table), and the `intern-global` suite's global tables plus a private `AtomTable`
//! (first-time intern = miss, re-intern = hit), over the suites' corpora. dynatom's
//! tables get fixed seeds here so their counts repeat exactly.

use super::recorder::{Recorder, HARNESS};
use crate::corpus::{self, Scale};
use crate::peers::{self, GlobalInterner, GlobalVisitor, LocalInterner, LocalVisitor};
use std::hint::black_box;

pub const LOCAL_SUITE: &str = "intern-local";
pub const SYNC_SUITE: &str = "intern-sync";
pub const GLOBAL_SUITE: &str = "intern-global";
/// The global phase that asks whether each held text is interned, making no handle.
pub const LOOK_OP: &str = "look, no handle";
pub const SYNC_PEERS: [&str; 2] = ["dynatom SyncInterner", "lasso ThreadedRodeo"];

pub const SEED: u64 = 0x05EE_D0C0_D7ED;

pub fn corpora(quick: bool) -> Vec<&'static str> {
    if quick {
        vec!["identifiers"]
    } else {
        // The two corpora of the interner targets; the others' counts would double the
        // counted layer's time for no target (the timed suites keep all five).
        vec!["identifiers", "keys"]
    }
}

/// A corpus as the children read it: its distinct strings and the sample of its token
/// stream that the lookups count (indices into `distinct`).
pub struct Input {
    pub distinct: Vec<String>,
    pub sample: Vec<u32>,
}

/// Writes corpus `name` (full scale, or quick with `--quick`) for the children: the
/// parent builds it natively once, since generating the token stream under callgrind
/// would take longer than counting every peer. Format: a line `DISTINCT SAMPLE`, the
/// distinct strings one a line, then the sample's indices one a line.
pub fn write_input(name: &str, quick: bool, path: &std::path::Path) -> Result<(), String> {
    let c = corpus::load(name, if quick { Scale::Quick } else { Scale::Full }, None)?;
    let sample = &c.tokens[..sample_len(quick).min(c.tokens.len())];
    let mut text = format!("{} {}\n", c.distinct.len(), sample.len());
    for s in &c.distinct {
        if s.contains('\n') {
            return Err(format!("corpus {name} has a string with a newline"));
        }
        text.push_str(s);
        text.push('\n');
    }
    for t in sample {
        text.push_str(&t.to_string());
        text.push('\n');
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

pub fn read_input(path: &str) -> Result<Input, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let bad = || format!("{path}: not a counted-layer input");
    let head = lines.next().ok_or_else(bad)?;
    let (d, s) = head.split_once(' ').ok_or_else(bad)?;
    let (d, s): (usize, usize) = (d.parse().map_err(|_| bad())?, s.parse().map_err(|_| bad())?);
    let distinct: Vec<String> = lines.by_ref().take(d).map(str::to_string).collect();
    let sample: Vec<u32> = lines.take(s).map(|l| l.parse::<u32>().map_err(|_| bad())).collect::<Result<_, _>>()?;
    if distinct.len() != d || sample.len() != s || sample.iter().any(|&i| i as usize >= d) {
        return Err(bad());
    }
    Ok(Input { distinct, sample })
}

/// Tokens counted per lookup phase (the first ones of the corpus's stream; the table
/// holds every distinct string by then).
fn sample_len(quick: bool) -> usize {
    if quick {
        20_000
    } else {
        200_000
    }
}

/// `Interner::with_seed`: the wall-clock suite's `Interner::new()` with a fixed seed.
struct SeededInterner(dynatom::Interner);

impl LocalInterner for SeededInterner {
    type Symbol = dynatom::Symbol;
    const NAME: &'static str = "dynatom Interner";
    fn create() -> Self {
        SeededInterner(dynatom::Interner::with_seed(SEED))
    }
    fn intern(&mut self, s: &str) -> dynatom::Symbol {
        self.0.intern(s)
    }
    fn get(&self, s: &str) -> Option<dynatom::Symbol> {
        self.0.get(s)
    }
    fn resolve<'a>(&'a self, sym: &'a dynatom::Symbol) -> &'a str {
        self.0.resolve(*sym)
    }
}

/// `AtomTable::with_seed`, for both the local and the global suite.
struct SeededTable(dynatom::AtomTable);

impl LocalInterner for SeededTable {
    type Symbol = dynatom::Atom;
    const NAME: &'static str = "dynatom AtomTable";
    fn create() -> Self {
        SeededTable(dynatom::AtomTable::with_seed(SEED))
    }
    fn intern(&mut self, s: &str) -> dynatom::Atom {
        self.0.intern(s)
    }
    fn get(&self, s: &str) -> Option<dynatom::Atom> {
        self.0.lookup(s)
    }
    fn resolve<'a>(&'a self, sym: &'a dynatom::Atom) -> &'a str {
        sym.as_str()
    }
}

impl GlobalInterner for SeededTable {
    type Handle = dynatom::Atom;
    const NAME: &'static str = "dynatom AtomTable";
    fn create() -> Self {
        SeededTable(dynatom::AtomTable::with_seed(SEED))
    }
    fn intern(&self, s: &str) -> dynatom::Atom {
        self.0.intern(s)
    }
    fn resolve<'a>(&'a self, h: &'a dynatom::Atom) -> &'a str {
        h.as_str()
    }
    const LOOKS: bool = true;
    fn look(&self, s: &str) -> bool {
        self.0.contains_text(s)
    }
}

/// `Atom`s of a private table with a fixed seed, for counting operations on atoms (eq,
/// hash): the same type as the global table's, whose seed is random per process.
pub struct SeededAtoms(dynatom::AtomTable);

impl GlobalInterner for SeededAtoms {
    type Handle = dynatom::Atom;
    const NAME: &'static str = "dynatom Atom";
    fn create() -> Self {
        SeededAtoms(dynatom::AtomTable::with_seed(SEED))
    }
    fn intern(&self, s: &str) -> dynatom::Atom {
        self.0.intern(s)
    }
    fn resolve<'a>(&'a self, h: &'a dynatom::Atom) -> &'a str {
        h.as_str()
    }
    const LOOKS: bool = true;
    fn look(&self, s: &str) -> bool {
        self.0.contains_text(s)
    }
}

/// The harness: an "interner" that reads nothing, with the same loops and inputs.
pub struct NullInterner;

impl LocalInterner for NullInterner {
    type Symbol = u32;
    const NAME: &'static str = HARNESS;
    fn create() -> Self {
        NullInterner
    }
    fn intern(&mut self, _: &str) -> u32 {
        0
    }
    fn get(&self, _: &str) -> Option<u32> {
        Some(0)
    }
    fn resolve<'a>(&'a self, _: &'a u32) -> &'a str {
        ""
    }
}

impl GlobalInterner for NullInterner {
    type Handle = u32;
    const NAME: &'static str = HARNESS;
    fn create() -> Self {
        NullInterner
    }
    fn intern(&self, _: &str) -> u32 {
        0
    }
    fn resolve<'a>(&'a self, _: &'a u32) -> &'a str {
        ""
    }
    const LOOKS: bool = true;
    fn look(&self, _: &str) -> bool {
        true
    }
}

/// The `intern-local` peers, dynatom's two first.
pub fn local_peers() -> Vec<&'static str> {
    peers::LOCAL.to_vec()
}

struct LocalRun<'a> {
    rec: &'a mut Recorder,
    corpus: &'a str,
    distinct: Vec<&'a str>,
    sample: Vec<&'a str>,
}

impl LocalVisitor for LocalRun<'_> {
    type Out = Result<(), String>;
    fn visit<L: LocalInterner>(self) -> Result<(), String> {
        let LocalRun { rec, corpus, distinct, sample } = self;
        let checked = L::NAME != HARNESS;
        let mut table = L::create();
        let mut syms = Vec::with_capacity(distinct.len());
        rec.once("fill", corpus, L::NAME, distinct.len() as u64, || {
            for s in &distinct {
                syms.push(table.intern(black_box(s)));
            }
        });
        rec.once("intern hits", corpus, L::NAME, sample.len() as u64, || {
            for s in &sample {
                black_box(table.intern(black_box(s)));
            }
        });
        rec.once("get", corpus, L::NAME, sample.len() as u64, || {
            for s in &sample {
                black_box(table.get(black_box(s)));
            }
        });
        let found: Vec<Option<L::Symbol>> = sample.iter().map(|s| table.get(s)).collect();
        if checked && found.iter().any(Option::is_none) {
            return Err(format!("{}: a present string was not found", L::NAME));
        }
        let found: Vec<L::Symbol> = found.into_iter().flatten().collect();
        rec.once("resolve", corpus, L::NAME, found.len() as u64, || {
            for sym in &found {
                black_box(table.resolve(black_box(sym)));
            }
        });
        if checked && found.iter().zip(&sample).any(|(sym, s)| table.resolve(sym) != *s) {
            return Err(format!("{}: a symbol resolved to the wrong text", L::NAME));
        }
        if checked && distinct.iter().zip(&syms).any(|(s, sym)| table.get(s).as_ref() != Some(sym)) {
            return Err(format!("{}: a lookup disagreed with the fill's symbol", L::NAME));
        }
        Ok(())
    }
}

pub fn local_child(rec: &mut Recorder, peer: &str, corpus_name: &str, input: &Input) -> Result<(), String> {
    let sample = input.sample.iter().map(|&i| input.distinct[i as usize].as_str()).collect();
    let distinct = input.distinct.iter().map(String::as_str).collect();
    let run = LocalRun { rec, corpus: corpus_name, distinct, sample };
    match peer {
        HARNESS => run.visit::<NullInterner>(),
        "dynatom Interner" => run.visit::<SeededInterner>(),
        "dynatom AtomTable" => run.visit::<SeededTable>(),
        other => peers::visit_local(other, run).ok_or_else(|| format!("unknown interner {other}"))?,
    }
}

/// The shared interners on one thread: fill, then `get` of present strings on the live
/// (not frozen) table.
pub fn sync_child(rec: &mut Recorder, peer: &str, corpus_name: &str, input: &Input) -> Result<(), String> {
    let sample: &[&str] = &input.sample.iter().map(|&i| input.distinct[i as usize].as_str()).collect::<Vec<_>>();
    let distinct: Vec<&str> = input.distinct.iter().map(String::as_str).collect();
    match peer {
        "dynatom SyncInterner" => {
            let t = dynatom::SyncInterner::with_seed(SEED);
            shared_phases(rec, peer, corpus_name, &distinct, sample, |s| t.intern(s), |s| t.get(s))
        }
        "lasso ThreadedRodeo" => {
            let t: lasso::ThreadedRodeo = lasso::ThreadedRodeo::new();
            shared_phases(rec, peer, corpus_name, &distinct, sample, |s| t.get_or_intern(s), |s| t.get(s))
        }
        HARNESS => shared_phases(rec, peer, corpus_name, &distinct, sample, |_| 0u32, |_| Some(0u32)),
        other => Err(format!("unknown shared interner {other}")),
    }
}

fn shared_phases<S: PartialEq>(
    rec: &mut Recorder,
    peer: &str,
    corpus: &str,
    distinct: &[&str],
    sample: &[&str],
    intern: impl Fn(&str) -> S,
    get: impl Fn(&str) -> Option<S>,
) -> Result<(), String> {
    let mut syms = Vec::with_capacity(distinct.len());
    rec.once("fill", corpus, peer, distinct.len() as u64, || {
        for s in distinct {
            syms.push(intern(black_box(s)));
        }
    });
    rec.once("get (live table)", corpus, peer, sample.len() as u64, || {
        for s in sample {
            black_box(get(black_box(s)));
        }
    });
    if peer != HARNESS && distinct.iter().zip(&syms).any(|(s, sym)| get(s).as_ref() != Some(sym)) {
        return Err(format!("{peer}: a lookup disagreed with the fill's symbol"));
    }
    Ok(())
}

/// The `intern-global` peers plus a private `AtomTable`.
pub fn global_peers() -> Vec<&'static str> {
    let mut v = peers::GLOBAL.to_vec();
    v.insert(1, "dynatom AtomTable");
    v
}

/// The corpus whose first distinct strings the global tables intern.
pub const GLOBAL_CORPUS: &str = "identifiers";

/// Strings interned per global phase: the identifiers corpus's first distinct ones.
fn global_len(quick: bool) -> usize {
    if quick {
        2_000
    } else {
        20_000
    }
}

struct GlobalRun<'a> {
    rec: &'a mut Recorder,
    texts: Vec<&'a str>,
}

impl GlobalVisitor for GlobalRun<'_> {
    type Out = Result<(), String>;
    fn visit<G: GlobalInterner>(self) -> Result<(), String> {
        let GlobalRun { rec, texts } = self;
        let table = G::create();
        // Handles stay alive, so reference-counted tables keep every string.
        let mut handles = Vec::with_capacity(texts.len());
        rec.once("intern miss", GLOBAL_CORPUS, G::NAME, texts.len() as u64, || {
            for s in &texts {
                handles.push(table.intern(black_box(s)));
            }
        });
        rec.once("intern hit", GLOBAL_CORPUS, G::NAME, texts.len() as u64, || {
            for s in &texts {
                black_box(table.intern(black_box(s)));
            }
        });
        if G::LOOKS {
            let mut seen = 0;
            rec.once(LOOK_OP, GLOBAL_CORPUS, G::NAME, texts.len() as u64, || {
                for s in &texts {
                    seen += usize::from(black_box(table.look(black_box(s))));
                }
            });
            if seen != texts.len() {
                return Err(format!("{}: {seen} of {} held texts looked up as interned", G::NAME, texts.len()));
            }
        }
        if G::NAME != HARNESS
            && (handles.iter().zip(&texts).any(|(h, s)| table.resolve(h) != *s)
                || texts.iter().zip(&handles).any(|(s, h)| table.intern(s) != *h))
        {
            return Err(format!("{}: interning does not round-trip", G::NAME));
        }
        Ok(())
    }
}

pub fn global_child(rec: &mut Recorder, peer: &str, quick: bool, input: &Input) -> Result<(), String> {
    let texts = input.distinct.iter().take(global_len(quick)).map(String::as_str).collect();
    let run = GlobalRun { rec, texts };
    match peer {
        HARNESS => run.visit::<NullInterner>(),
        "dynatom AtomTable" => run.visit::<SeededTable>(),
        other => peers::visit_global(other, run).ok_or_else(|| format!("unknown global interner {other}"))?,
    }
}
