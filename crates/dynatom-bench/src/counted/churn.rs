//! Counted churn: the `churn` suite's keys interned and each handle dropped at
//! once, against the same interns while every key's handle is held, for the global
//! interners. The ratio of the two is the one the churn target bounds at 1.2×
//! for dynatom.

use super::interners::NullInterner;
use super::recorder::{Recorder, HARNESS};
use crate::peers::{self, GlobalInterner, GlobalVisitor};
use std::hint::black_box;

pub const SUITE: &str = "churn";
pub const CHURN_OP: &str = "churn (intern, drop)";
pub const HELD_OP: &str = "held hit (intern, drop)";

pub fn peers() -> Vec<&'static str> {
    peers::all_global()
}

/// Passes over the keys per counted phase.
fn repeats(quick: bool) -> usize {
    if quick {
        5
    } else {
        20
    }
}

/// The counted phases' input label.
pub fn param() -> String {
    format!("{} keys", crate::suites::churn::KEYS)
}

struct Run<'a> {
    rec: &'a mut Recorder,
    repeats: usize,
}

impl GlobalVisitor for Run<'_> {
    type Out = Result<(), String>;
    fn visit<G: GlobalInterner>(self) -> Result<(), String> {
        let Run { rec, repeats } = self;
        let keys = crate::suites::churn::keys();
        let g = G::create();
        let ops = (keys.len() * repeats) as u64;
        let param = param();
        let mut intern_and_drop = || {
            for _ in 0..repeats {
                for k in &keys {
                    drop(black_box(g.intern(black_box(k))));
                }
            }
        };
        rec.warm(CHURN_OP, &param, G::NAME, ops, &mut intern_and_drop);
        let held: Vec<G::Handle> = keys.iter().map(|k| g.intern(k)).collect();
        rec.warm(HELD_OP, &param, G::NAME, ops, &mut intern_and_drop);
        if G::NAME != HARNESS && keys.iter().zip(&held).any(|(k, h)| g.resolve(h) != k) {
            return Err(format!("{}: a held handle does not read back its key", G::NAME));
        }
        Ok(())
    }
}

pub fn child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let run = Run { rec, repeats: repeats(quick) };
    match peer {
        HARNESS => run.visit::<NullInterner>(),
        other => peers::visit_any_global(other, run).ok_or_else(|| format!("unknown global interner {other}"))?,
    }
}
