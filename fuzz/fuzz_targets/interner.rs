//! `Interner`, `SyncInterner` and the frozen `Resolver` against a `HashMap<String, u32>`
//! (and the symbols' texts in order), with symbol and byte limits: a refused insert must
//! say why and change nothing.

#![no_main]

use std::collections::HashMap;

use arbitrary::Arbitrary;
use dynatom::interner::{InternerError, Limits, Symbol};
use dynatom::{Interner, Str, SyncInterner};
use libfuzzer_sys::fuzz_target;

const STATICS: [&str; 3] = ["static", "a longer static text, over thirty-two bytes long", ""];

#[derive(Arbitrary, Debug)]
enum Key {
    Pool(u8),
    Any(String),
}

impl Key {
    fn text(&self) -> String {
        match self {
            Key::Pool(n) => format!("sym{}", n % 40),
            Key::Any(text) => text.clone(),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Intern(Key),
    TryIntern(Key),
    InternStr(Key),
    InternStatic(u8),
    Get(Key),
    TryResolve(u32),
}

#[derive(Arbitrary, Debug)]
struct Input {
    max_symbols: Option<u8>,
    max_bytes: Option<u16>,
    shards: u8,
    ops: Vec<Op>,
}

#[derive(Default)]
struct Model {
    symbols: HashMap<String, u32>,
    texts: Vec<String>,
}

impl Model {
    fn intern(&mut self, text: &str) -> u32 {
        if let Some(&sym) = self.symbols.get(text) {
            return sym;
        }
        let sym = self.texts.len() as u32;
        self.symbols.insert(text.to_owned(), sym);
        self.texts.push(text.to_owned());
        sym
    }
}

/// The outcome of a fallible intern, checked against the model and the limits.
fn check_try(result: Result<Symbol, InternerError>, model: &mut Model, text: &str, limits: &Limits) {
    match result {
        Ok(sym) => assert_eq!(sym.to_usize() as u32, model.intern(text), "{text:?}"),
        Err(InternerError::SymbolsExhausted { max }) => {
            assert!(!model.symbols.contains_key(text), "a present text is never refused");
            assert_eq!(max, limits.max_symbols);
            assert_eq!(model.texts.len(), max, "refused before the symbol limit");
        }
        Err(InternerError::MemoryLimit { needed, limit }) => {
            assert!(!model.symbols.contains_key(text), "a present text is never refused");
            assert_eq!(limit, limits.max_bytes);
            assert!(needed > limit);
        }
        Err(other) => panic!("unexpected {other:?}"),
    }
}

fn fits(model: &Model, text: &str, limits: &Limits) -> bool {
    model.symbols.contains_key(text) || model.texts.len() < limits.max_symbols
}

fuzz_target!(|input: Input| {
    let limits = Limits {
        max_symbols: input.max_symbols.map_or(Symbol::MAX_COUNT, usize::from),
        max_bytes: input.max_bytes.map_or(usize::MAX, |b| usize::from(b) * 16),
    };
    let mut single = Interner::with_seed(7).with_limits(limits);
    let sync = SyncInterner::with_seed(7)
        .with_shards(usize::from(input.shards % 8) + 1)
        .expect("a new interner is empty")
        .with_limits(limits);
    let (mut model_single, mut model_sync) = (Model::default(), Model::default());
    for op in input.ops {
        match op {
            // The infallible calls panic past a limit: use them only where the model says
            // the text fits (and no byte limit is set).
            Op::Intern(key) | Op::InternStr(key) if limits.max_bytes == usize::MAX => {
                let text = key.text();
                if fits(&model_single, &text, &limits) {
                    let sym = single.intern(Str::from(text.as_str()));
                    assert_eq!(sym.to_usize() as u32, model_single.intern(&text));
                }
                if fits(&model_sync, &text, &limits) {
                    let sym = sync.intern(&text);
                    assert_eq!(sym.to_usize() as u32, model_sync.intern(&text));
                }
            }
            Op::Intern(key) | Op::InternStr(key) | Op::TryIntern(key) => {
                let text = key.text();
                check_try(single.try_intern(&text), &mut model_single, &text, &limits);
                check_try(sync.try_intern(&text), &mut model_sync, &text, &limits);
            }
            Op::InternStatic(k) => {
                let text = STATICS[k as usize % STATICS.len()];
                check_try(single.try_intern_static(text), &mut model_single, text, &limits);
                check_try(sync.try_intern_static(text), &mut model_sync, text, &limits);
            }
            Op::Get(key) => {
                let text = key.text();
                let got = single.get(&text).map(|s| s.to_usize() as u32);
                assert_eq!(got, model_single.symbols.get(&text).copied());
                assert_eq!(single.contains(&text), got.is_some());
                let got = sync.get(&text).map(|s| s.to_usize() as u32);
                assert_eq!(got, model_sync.symbols.get(&text).copied());
            }
            Op::TryResolve(raw) => {
                // Symbols of other interners, or from the future: in range they name
                // some text (symbols carry no interner id), out of range they are `None`.
                let Some(sym) = Symbol::from_usize(raw as usize) else { continue };
                assert_eq!(single.try_resolve(sym), model_single.texts.get(raw as usize).map(String::as_str));
                assert_eq!(sync.try_resolve(sym), model_sync.texts.get(raw as usize).map(String::as_str));
            }
        }
        assert_eq!(single.len(), model_single.texts.len());
        assert_eq!(sync.len(), model_sync.texts.len());
    }
    for (i, text) in model_single.texts.iter().enumerate() {
        let sym = Symbol::from_usize(i).unwrap();
        assert_eq!(single.resolve(sym), text);
        assert_eq!(Str::from(single.resolve(sym)), text.as_str());
    }
    let listed: Vec<&str> = single.iter().map(|(_, text)| text).collect();
    assert_eq!(listed, model_single.texts.iter().map(String::as_str).collect::<Vec<_>>());

    let resolver = sync.freeze();
    assert_eq!(resolver.len(), model_sync.texts.len());
    for (i, text) in model_sync.texts.iter().enumerate() {
        let sym = Symbol::from_usize(i).unwrap();
        assert_eq!(resolver.resolve(sym), text);
        assert_eq!(resolver.get(text), Some(sym));
    }
    assert_eq!(resolver.try_resolve(Symbol::from_usize(model_sync.texts.len()).unwrap()), None);
    let listed: Vec<&str> = resolver.iter().map(|(_, text)| text).collect();
    assert_eq!(listed, model_sync.texts.iter().map(String::as_str).collect::<Vec<_>>());
    let thawed = resolver.into_interner();
    for (i, text) in model_sync.texts.iter().enumerate() {
        assert_eq!(thawed.get(text), Some(Symbol::from_usize(i).unwrap()));
    }
    let fresh = "a text no operation interned, with a \u{1F600}";
    if !model_sync.symbols.contains_key(fresh) {
        check_try(thawed.try_intern(fresh), &mut model_sync, fresh, &limits);
    }
});
