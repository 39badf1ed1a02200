//! Counted static atoms: the `static-atoms` suite's comparisons counted instead of timed.
//! Each operation has two peers: `dynatom static` (the static way: `match` on static atoms,
//! `SET.get` then `match`, interning a declared text) and `dynatom baseline` (`match` on the
//! text, a hit of a held atom of a same-length undeclared text), over the same inputs.

use super::recorder::{Recorder, HARNESS};
use crate::keywords::{self, kind_of_atom, kind_of_str, kw, Kind};
use dynatom::{Atom, AtomTable, StaticText};
use std::hint::black_box;

pub const SUITE: &str = "static-atoms";
pub const STATIC: &str = "dynatom static";
pub const BASELINE: &str = "dynatom baseline";
pub const PEERS: [&str; 2] = [STATIC, BASELINE];

pub const DISPATCH_ATOM: &str = "dispatch, atom input";
pub const DISPATCH_TEXT: &str = "dispatch, text input";
pub const GLOBAL_INTERN: &str = "global intern, drop";
pub const LOCAL_INTERN: &str = "local `AtomTable::new()` intern, drop";
pub const AS_STR: &str = "`as_str`, set registered at run time";
pub const PERMANENT_HIT: &str = "global intern hit, permanent atom";
pub const PERMANENT_CLONE: &str = "clone, drop, permanent atom";

/// What the two peers do, for the report.
pub const EXPLAINED: &str = "Counted `static-atoms`: *dynatom static* is `match` on the static atoms (atom \
     input), `SET.get(text)` then `match` (text input), and interning one of the 10 declared keywords longer \
     than 7 bytes; *dynatom baseline* is `match` on `atom.as_str()`, `match` on the `&str`, and interning a \
     same-length text declared nowhere whose atom is held (a hit); reading `as_str` of the atoms of a set \
     registered at run time (C's way) against that of held atoms of texts declared nowhere; an intern hit, and \
     a clone and its drop, of atoms made permanent (`Atom::make_permanent`) against the same of counted atoms. \
     Same token stream as the timed suite.";

/// Tokens of the dispatch stream counted.
fn tokens(quick: bool) -> usize {
    if quick {
        20_000
    } else {
        100_000
    }
}

/// Interns per intern phase (over the ten long keywords, or their ten twins).
fn interns(quick: bool) -> usize {
    if quick {
        10_000
    } else {
        50_000
    }
}

/// The input label of every row.
pub fn param(op: &str, quick: bool) -> String {
    if op == DISPATCH_ATOM || op == DISPATCH_TEXT {
        format!("{} tokens, 30% of 50 keywords", tokens(quick))
    } else if op == AS_STR {
        format!("{} reads of 10 atoms of 8–10 bytes", interns(quick))
    } else if op == PERMANENT_CLONE {
        format!("{} clones of 10 atoms of 12 bytes", interns(quick))
    } else if op == PERMANENT_HIT {
        format!("{} interns of 10 texts of 12 bytes", interns(quick))
    } else {
        format!("{} interns of 10 texts of 8–10 bytes", interns(quick))
    }
}

fn dispatch<T>(rec: &mut Recorder, op: &str, peer: &str, quick: bool, items: &[T], kind: impl Fn(&T) -> Kind) {
    rec.warm(op, &param(op, quick), peer, items.len() as u64, || {
        for item in items {
            black_box(kind(black_box(item)));
        }
    });
}

fn intern(rec: &mut Recorder, op: &str, peer: &str, quick: bool, texts: &[String], f: impl Fn(&str) -> Option<Atom>) {
    let n = interns(quick);
    rec.warm(op, &param(op, quick), peer, n as u64, || {
        for i in 0..n {
            drop(black_box(f(black_box(&texts[i % texts.len()]))));
        }
    });
}

fn read(rec: &mut Recorder, op: &str, peer: &str, quick: bool, atoms: &[Atom], f: impl Fn(&Atom) -> usize) {
    let n = interns(quick);
    rec.warm(op, &param(op, quick), peer, n as u64, || {
        for i in 0..n {
            black_box(f(black_box(&atoms[i % atoms.len()])));
        }
    });
}

/// The atoms of a set registered at run time, as a C program registers its header's set:
/// ten texts of 8–10 bytes, each twin of an undeclared text.
fn registered_atoms() -> Result<Vec<Atom>, String> {
    let texts: Vec<StaticText> = (0..10)
        .map(|i| {
            let text: &'static str = Box::leak(format!("run-time {i}").into_boxed_str());
            StaticText::from_str("T", text)
        })
        .collect();
    let texts: &'static [StaticText] = Box::leak(texts.into_boxed_slice());
    AtomTable::register_static_set("counted run-time set", texts).map_err(|err| err.to_string())?;
    let atoms: Vec<Atom> =
        texts.iter().map(|t| Atom::from(std::str::from_utf8(t.bytes()).expect("made from a str"))).collect();
    if !atoms.iter().all(Atom::is_declared) {
        return Err("a registered text did not give its static atom".into());
    }
    Ok(atoms)
}

/// Ten texts of 12 bytes, made atoms and, for `permanent`, made permanent: the permanent
/// rows' inputs. The permanent ones have texts of their own (`prefix`, 7 bytes), so that
/// the baseline's stay counted where the peers run in one process (the tests).
fn permanent_rows_atoms(prefix: &str, permanent: bool) -> Result<(Vec<String>, Vec<Atom>), String> {
    let texts: Vec<String> = (0..10).map(|i| format!("{prefix:.7} {i:>4}")).collect();
    let atoms: Vec<Atom> = texts.iter().map(|t| Atom::from(t.as_str())).collect();
    if permanent && !atoms.iter().all(Atom::make_permanent) {
        return Err("an atom was not made permanent".into());
    }
    if !permanent && atoms.iter().any(Atom::is_permanent) {
        return Err("a baseline atom is permanent".into());
    }
    Ok((texts, atoms))
}

pub fn child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let stream = keywords::Stream::new(tokens(quick));
    let texts = stream.texts();
    let atoms: Vec<Atom> = texts.iter().map(|t| Atom::from(*t)).collect();
    if texts.iter().zip(&atoms).any(|(t, a)| kind_of_atom(a) != kind_of_str(t)) {
        return Err("the two dispatches disagree".into());
    }
    let declared: Vec<String> = keywords::long_keywords().iter().map(|s| s.to_string()).collect();
    let twins = keywords::undeclared_twins();
    let held: Vec<Atom> = twins.iter().map(|t| Atom::from(t.as_str())).collect();
    let local = AtomTable::new();
    let held_local: Vec<Atom> = twins.iter().map(|t| local.intern(t)).collect();
    let registered = registered_atoms()?;
    let as_str_len = |a: &Atom| a.as_str().len();
    let (lasting, lasting_atoms) =
        permanent_rows_atoms(if peer == STATIC { "lasting" } else { "counted" }, peer == STATIC)?;
    let clone_drop = |a: &Atom| {
        drop(black_box(a.clone()));
        0
    };
    match peer {
        STATIC => {
            dispatch(rec, DISPATCH_ATOM, peer, quick, &atoms, kind_of_atom);
            dispatch(rec, DISPATCH_TEXT, peer, quick, &texts, |t| {
                kw::SET.get(t).map_or(Kind::Ident, |a| kind_of_atom(&a))
            });
            intern(rec, GLOBAL_INTERN, peer, quick, &declared, |t| Some(Atom::from(t)));
            intern(rec, LOCAL_INTERN, peer, quick, &declared, |t| Some(local.intern(t)));
            read(rec, AS_STR, peer, quick, &registered, as_str_len);
            intern(rec, PERMANENT_HIT, peer, quick, &lasting, |t| Some(Atom::from(t)));
            read(rec, PERMANENT_CLONE, peer, quick, &lasting_atoms, clone_drop);
        }
        BASELINE => {
            dispatch(rec, DISPATCH_ATOM, peer, quick, &atoms, |a| kind_of_str(a.as_str()));
            dispatch(rec, DISPATCH_TEXT, peer, quick, &texts, |t| kind_of_str(t));
            intern(rec, GLOBAL_INTERN, peer, quick, &twins, |t| Some(Atom::from(t)));
            intern(rec, LOCAL_INTERN, peer, quick, &twins, |t| Some(local.intern(t)));
            read(rec, AS_STR, peer, quick, &held, as_str_len);
            intern(rec, PERMANENT_HIT, peer, quick, &lasting, |t| Some(Atom::from(t)));
            read(rec, PERMANENT_CLONE, peer, quick, &lasting_atoms, clone_drop);
        }
        HARNESS => {
            dispatch(rec, DISPATCH_ATOM, peer, quick, &atoms, |_| Kind::Ident);
            dispatch(rec, DISPATCH_TEXT, peer, quick, &texts, |_| Kind::Ident);
            intern(rec, GLOBAL_INTERN, peer, quick, &declared, |_| None);
            intern(rec, LOCAL_INTERN, peer, quick, &declared, |_| None);
            read(rec, AS_STR, peer, quick, &registered, |_| 0);
            intern(rec, PERMANENT_HIT, peer, quick, &lasting, |_| None);
            read(rec, PERMANENT_CLONE, peer, quick, &lasting_atoms, |_| 0);
        }
        other => return Err(format!("unknown static-atoms peer {other}")),
    }
    if declared.iter().any(|t| !Atom::from(t.as_str()).is_declared() || !local.intern(t).is_declared())
        || held.iter().chain(&held_local).any(Atom::is_declared)
    {
        return Err("a declared text did not give its static atom, or an undeclared one did".into());
    }
    if lasting_atoms.iter().any(|a| a.is_permanent() != (peer == STATIC)) {
        return Err("an atom of the permanent rows changed kind".into());
    }
    drop((held, held_local, lasting_atoms));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every peer's child runs (natively here: only callgrind's counts need valgrind) and
    /// records the same operations with the same inputs, so the harness matches each.
    #[test]
    fn every_peer_records_the_same_operations() {
        // The peers run one after another in this one process (a child each, in the
        // report), so the baseline's counted atoms are made again by every peer: returns
        // from unused, which the global table would soon make permanent.
        AtomTable::global().set_permanent_on_reuse(false);
        let mut seen = Vec::new();
        for peer in PEERS.iter().chain([&HARNESS]) {
            let mut rec = Recorder::new(SUITE);
            child(&mut rec, peer, true).unwrap();
            let ops: Vec<(String, String, u64)> =
                rec.measured.iter().map(|m| (m.op.clone(), m.param.clone(), m.ops)).collect();
            assert_eq!(ops.len(), 7, "{peer}");
            seen.push(ops);
        }
        assert!(seen.windows(2).all(|w| w[0] == w[1]), "{seen:?}");
    }
}
