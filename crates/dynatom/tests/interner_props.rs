//! Property tests: `Interner` and `SyncInterner` against a `HashMap<String, u32>` model.

use std::collections::HashMap;

use dynatom::interner::{Interner, InternerError, Limits, Symbol, SyncInterner};
use proptest::prelude::*;

const STATICS: [&str; 6] = ["fn", "let", "", "while", "x", "a-much-longer-static-keyword"];

#[derive(Clone, Debug)]
enum Op {
    Intern(String),
    Get(String),
    Static(usize),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-c]{0,3}",
        2 => "[a-zA-Z_][a-zA-Z0-9_é]{0,24}",
        1 => "\\PC{0,40}",
        1 => (0usize..3, 1000usize..20_000).prop_map(|(c, n)| ["q", "ß", "z"][c].repeat(n)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => text().prop_map(Op::Intern),
        3 => text().prop_map(Op::Get),
        1 => (0..STATICS.len()).prop_map(Op::Static),
    ]
}

/// Applies `ops` to the model and to `intern`/`get` closures, checking each answer.
fn check(
    model: &mut HashMap<String, u32>,
    ops: &[Op],
    mut intern: impl FnMut(&str, Option<&'static str>) -> Symbol,
    get: impl Fn(&str) -> Option<Symbol>,
) {
    for op in ops {
        match op {
            Op::Intern(s) => {
                let next = model.len() as u32;
                let want = *model.entry(s.clone()).or_insert(next);
                assert_eq!(intern(s, None).to_usize(), want as usize, "intern {s:?}");
            }
            Op::Static(k) => {
                let s = STATICS[*k];
                let next = model.len() as u32;
                let want = *model.entry(s.to_owned()).or_insert(next);
                assert_eq!(intern(s, Some(s)).to_usize(), want as usize, "static {s:?}");
            }
            Op::Get(s) => {
                assert_eq!(get(s).map(|x| x.to_usize() as u32), model.get(s).copied());
            }
        }
    }
}

fn check_contents<'a>(model: &HashMap<String, u32>, len: usize, iter: impl Iterator<Item = (Symbol, &'a str)>) {
    assert_eq!(len, model.len());
    let mut seen = 0;
    for (i, (sym, text)) in iter.enumerate() {
        assert_eq!(sym.to_usize(), i);
        assert_eq!(model.get(text).copied(), Some(i as u32), "text {text:?}");
        seen += 1;
    }
    assert_eq!(seen, model.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn interner_matches_model(ops in prop::collection::vec(op(), 0..300), shrink_at in 0usize..300) {
        let mut i = Interner::deterministic();
        let mut model = HashMap::new();
        // Run in two halves with a shrink_to_fit between, to cover rebuilds.
        let (a, b) = ops.split_at(shrink_at.min(ops.len()));
        for (n, part) in [a, b].into_iter().enumerate() {
            if n == 1 { i.shrink_to_fit(); }
            let cell = std::cell::RefCell::new(&mut i);
            check(&mut model, part, |s, st| {
                let mut i = cell.borrow_mut();
                match st { Some(st) => i.intern_static(st), None => i.intern(s) }
            }, |s| cell.borrow().get(s));
        }
        check_contents(&model, i.len(), i.iter());
        for (text, &sym) in &model {
            prop_assert_eq!(i.resolve(Symbol::from_usize(sym as usize).unwrap()), text.as_str());
            prop_assert_eq!(i.get(text).map(|s| s.to_usize() as u32), Some(sym));
        }
        prop_assert_eq!(i.memory_report().strings, model.len());
    }

    /// Thousands of distinct strings under a random seed: every table doubling up to
    /// 2^9 buckets, full primary buckets (alternate slots, kicks), page and chunk
    /// boundaries, strings on both sides of the 32-byte fast path, re-interns and
    /// lookups in between, and a symbol limit that the fast path must respect.
    #[test]
    fn many_strings_across_doublings_match_model(
        seed in any::<u64>(),
        n in 0usize..4000,
        salt in any::<u32>(),
        cap in prop::option::of(0usize..4000),
    ) {
        let mut i = Interner::with_seed(seed);
        if let Some(cap) = cap {
            i = i.with_limits(Limits { max_symbols: cap, ..Limits::default() });
        }
        let text = |k: usize| {
            // Lengths 0 to 47 (the fast path takes at most 32 bytes), distinct per k.
            let len = (k.wrapping_mul(7) ^ salt as usize) % 48;
            let mut t = format!("{k:x}.{salt:x}");
            while t.len() < len { t.push(char::from(b'a' + (t.len() % 26) as u8)); }
            t
        };
        let mut model: HashMap<String, u32> = HashMap::new();
        for k in 0..n {
            let s = text(k);
            let full = cap.is_some_and(|c| model.len() >= c);
            match i.try_intern(&s) {
                Ok(sym) => {
                    prop_assert!(!full, "{} strings with a cap of {:?}", model.len(), cap);
                    let next = model.len() as u32;
                    prop_assert_eq!(sym.to_usize() as u32, *model.entry(s.clone()).or_insert(next));
                }
                Err(e) => {
                    prop_assert!(full, "{}", e);
                    prop_assert!(matches!(e, InternerError::SymbolsExhausted { .. }), "{}", e);
                    prop_assert_eq!(i.get(&s), None);
                }
            }
            if k % 5 == 4 {
                // A re-intern and a lookup of earlier strings, present or refused.
                let old = text(k / 2);
                let want = model.get(&old).copied();
                prop_assert_eq!(i.get(&old).map(|x| x.to_usize() as u32), want);
                if let Some(want) = want {
                    prop_assert_eq!(i.intern(&old).to_usize() as u32, want);
                }
            }
        }
        check_contents(&model, i.len(), i.iter());
        for (t, &sym) in &model {
            prop_assert_eq!(i.get(t).map(|s| s.to_usize() as u32), Some(sym));
        }
        let r = i.memory_report();
        prop_assert_eq!((r.strings, r.inserts), (model.len(), model.len() as u64));
    }

    #[test]
    fn preallocated_interner_matches_model(ops in prop::collection::vec(op(), 0..200), cap in 0usize..400) {
        let mut i = Interner::with_capacity(cap);
        let mut model = HashMap::new();
        let cell = std::cell::RefCell::new(&mut i);
        check(&mut model, &ops, |s, st| {
            let mut i = cell.borrow_mut();
            match st { Some(st) => i.intern_static(st), None => i.intern(s) }
        }, |s| cell.borrow().get(s));
        check_contents(&model, i.len(), i.iter());
        i.shrink_to_fit();
        check_contents(&model, i.len(), i.iter());
        for (text, &sym) in &model {
            prop_assert_eq!(i.get(text).map(|s| s.to_usize() as u32), Some(sym));
        }
    }

    #[test]
    fn sync_interner_matches_model(
        ops in prop::collection::vec(op(), 0..300),
        more in prop::collection::vec(op(), 0..100),
        shards in 0usize..5,
    ) {
        let i = SyncInterner::deterministic().with_shards(1 << shards).unwrap();
        let mut model = HashMap::new();
        check(&mut model, &ops, |s, st| match st {
            Some(st) => i.intern_static(st),
            None => i.intern(s),
        }, |s| i.get(s));
        check_contents(&model, i.len(), i.iter());
        let r = i.freeze();
        check_contents(&model, r.len(), r.iter());
        for (text, &sym) in &model {
            prop_assert_eq!(r.get(text).map(|s| s.to_usize() as u32), Some(sym));
            prop_assert_eq!(r.get(text).map(|s| r.resolve(s)), Some(text.as_str()));
        }
        // The frozen copy answers further texts (mostly absent) as the model does,
        // then thaws back into an interner that numbers old and new texts like it.
        for op in &more {
            if let Op::Intern(s) | Op::Get(s) = op {
                prop_assert_eq!(r.get(s).map(|s| s.to_usize() as u32), model.get(s).copied());
            }
        }
        let thawed = r.into_interner();
        check_contents(&model, thawed.len(), thawed.iter());
        check(&mut model, &more, |s, st| match st {
            Some(st) => thawed.intern_static(st),
            None => thawed.intern(s),
        }, |s| thawed.get(s));
        check_contents(&model, thawed.len(), thawed.iter());
    }
}

#[test]
fn symbols_are_small_and_ordered() {
    assert_eq!(std::mem::size_of::<Symbol>(), 4);
    assert_eq!(std::mem::size_of::<Option<Symbol>>(), 4);
    let mut i = Interner::new();
    let syms: Vec<Symbol> = (0..100).map(|n| i.intern(format!("s{n}"))).collect();
    assert!(syms.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(Symbol::from_usize(u32::MAX as usize - 1).unwrap().to_usize(), u32::MAX as usize - 1);
    assert!(Symbol::from_usize(u32::MAX as usize).is_none());
    assert!(Symbol::from_usize(usize::MAX).is_none());
}

#[test]
fn chunk_boundaries_and_huge_strings() {
    let mut i = Interner::deterministic();
    let mut all = Vec::new();
    for n in 0..30_000usize {
        let s = match n % 1000 {
            0 => "H".repeat(70_000 + n),
            500 => "m".repeat(16_000 + n % 7),
            _ => format!("ident_{n}_{}", "x".repeat(n % 40)),
        };
        all.push((i.intern(&s), s));
    }
    all.push((i.intern(""), String::new()));
    all.push((i.intern_static("static-after-empty"), "static-after-empty".into()));
    for (sym, s) in &all {
        assert_eq!(i.resolve(*sym), s);
        assert_eq!(i.get(s), Some(*sym));
    }
    i.shrink_to_fit();
    let more = i.intern("after shrink");
    assert_eq!(i.resolve(more), "after shrink");
    for (sym, s) in &all {
        assert_eq!(i.resolve(*sym), s);
    }
}

#[test]
fn with_capacity_then_grow_past_it() {
    for cap in [0, 1, 31, 32, 33, 100, 5_000] {
        let mut i = Interner::with_capacity(cap);
        let words: Vec<String> = (0..cap * 2 + 70).map(|n| format!("w{n}")).collect();
        let syms: Vec<Symbol> = words.iter().map(|w| i.intern(w)).collect();
        for (w, &s) in words.iter().zip(&syms) {
            assert_eq!((i.resolve(s), i.get(w)), (w.as_str(), Some(s)), "cap {cap}");
        }
        i.shrink_to_fit();
        for (w, &s) in words.iter().zip(&syms) {
            assert_eq!((i.resolve(s), i.get(w)), (w.as_str(), Some(s)), "cap {cap} after shrink");
        }
    }
}

#[test]
fn str_conversions() {
    let mut i = Interner::new();
    let long = "a string longer than fifteen bytes";
    let s = i.intern(dynatom::Str::from(long));
    assert_eq!(dynatom::Str::from(i.resolve(s)).as_str(), long);
    assert_eq!(i.get(long), Some(s));
}
