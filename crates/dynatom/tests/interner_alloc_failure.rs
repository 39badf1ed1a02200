//! Allocation failure through every `try_` path of the interners: the error says so,
//! nothing is added and nothing is lost, and the same call succeeds once memory is back.
//!
//! This binary's global allocator (`failing_alloc`) refuses, on demand and on the
//! calling thread only, every request of at least a given size. Each round picks a size, so that failures
//! land on different allocations: the hash table, the index vectors, text chunks,
//! blocks of their own for long strings, the `SyncInterner`'s column segments and shard
//! table generations.

use std::collections::HashMap;
use std::panic::{AssertUnwindSafe, catch_unwind};

use dynatom::interner::{InternerError, Symbol};
use dynatom::{Interner, SyncInterner};

mod failing_alloc;
use failing_alloc::failing_from;

/// Where each round's failures start: from every allocation to long strings' blocks only.
const THRESHOLDS: [usize; 8] = [1, 100, 300, 1200, 5000, 20_000, 70_000, 300_000];

/// The `k`th text of a round: mostly short, some past the inline limit (255 bytes), some
/// long enough for a block of their own, and every fifth one a text interned before.
fn text(round: usize, k: usize) -> String {
    if k % 5 == 4 && k > 10 {
        return text(round.saturating_sub(1), k / 2);
    }
    let len = match k % 23 {
        0 => 300,
        7 => 9_000,
        13 => 40_000,
        _ => k % 31,
    };
    let mut s = format!("{round}:{k}:");
    while s.len() < len {
        s.push(char::from(b'a' + (s.len() % 26) as u8));
    }
    s
}

/// What every interner under test offers; the model checks it after each call.
trait Under {
    fn try_intern(&mut self, s: &str) -> Result<Symbol, InternerError>;
    fn get(&self, s: &str) -> Option<Symbol>;
    fn resolve(&self, sym: Symbol) -> String;
    fn len(&self) -> usize;
}

/// `Under` through the interner's own methods of the same names.
macro_rules! under {
    ($interner:ty) => {
        impl Under for $interner {
            fn try_intern(&mut self, s: &str) -> Result<Symbol, InternerError> {
                <$interner>::try_intern(self, s)
            }
            fn get(&self, s: &str) -> Option<Symbol> {
                <$interner>::get(self, s)
            }
            fn resolve(&self, sym: Symbol) -> String {
                <$interner>::resolve(self, sym).to_owned()
            }
            fn len(&self) -> usize {
                <$interner>::len(self)
            }
        }
    };
}

under!(Interner);
under!(SyncInterner);

/// Interns every round's texts with failures on, checking each outcome against a model;
/// a text that failed is interned again with failures off. Returns the failures seen.
fn run_rounds(under: &mut impl Under) -> usize {
    let mut model: HashMap<String, Symbol> = HashMap::new();
    let mut failures = 0;
    for (round, &from) in THRESHOLDS.iter().enumerate() {
        for k in 0..400 {
            let text = text(round, k);
            let len_before = under.len();
            match failing_from(from, || under.try_intern(&text)) {
                Ok(sym) => {
                    let expected = *model.entry(text.clone()).or_insert(sym);
                    assert_eq!(sym, expected, "{text:?} changed symbol");
                }
                Err(InternerError::OutOfMemory { bytes }) => {
                    failures += 1;
                    assert!(bytes > 0);
                    assert!(!model.contains_key(&text), "a present text needs no memory: {text:?}");
                    assert_eq!(under.len(), len_before, "nothing added");
                    assert_eq!(under.get(&text), None);
                    let sym = under.try_intern(&text).expect("the same call succeeds with memory back");
                    assert_eq!(sym.to_usize(), len_before, "the failed call took no symbol");
                    model.insert(text.clone(), sym);
                }
                Err(other) => panic!("unexpected error {other:?} for {text:?}"),
            }
        }
        // Nothing was lost: every text resolves and is found.
        assert_eq!(under.len(), model.len());
        for (text, &sym) in &model {
            assert_eq!(under.resolve(sym), *text);
            assert_eq!(under.get(text), Some(sym));
        }
    }
    failures
}

#[test]
fn the_failing_allocator_fails() {
    assert!(failing_from(10, || Vec::<u8>::new().try_reserve_exact(10)).is_err());
    assert!(failing_from(10, || Vec::<u8>::new().try_reserve_exact(9)).is_ok());
}

#[test]
fn interner_try_intern_reports_allocation_failure_and_loses_nothing() {
    let failures = run_rounds(&mut Interner::with_seed(3));
    assert!(failures > 20, "{failures} failures");
}

#[test]
fn sync_interner_try_intern_reports_allocation_failure_and_loses_nothing() {
    let failures = run_rounds(&mut SyncInterner::with_seed(3).with_shards(4).unwrap());
    assert!(failures > 20, "{failures} failures");
}

#[test]
fn try_intern_static_reports_allocation_failure_and_loses_nothing() {
    let mut local = Interner::with_seed(5);
    let sync = SyncInterner::with_seed(5).with_shards(1).unwrap();
    // Nothing allocated yet: the first entry needs the table, the index and a segment.
    assert!(matches!(failing_from(1, || local.try_intern_static("while")), Err(InternerError::OutOfMemory { .. })));
    assert!(matches!(failing_from(1, || sync.try_intern_static("while")), Err(InternerError::OutOfMemory { .. })));
    assert_eq!((local.len(), sync.len()), (0, 0));
    assert_eq!((local.get("while"), sync.get("while")), (None, None));
    let (a, b) = (local.try_intern_static("while").unwrap(), sync.try_intern_static("while").unwrap());
    assert_eq!((a.to_usize(), b.to_usize()), (0, 0));
    // Present: found without allocating, even with every allocation failing.
    assert_eq!(failing_from(1, || local.try_intern_static("while")), Ok(a));
    assert_eq!(failing_from(1, || sync.try_intern_static("while")), Ok(b));
    assert_eq!(failing_from(1, || local.try_intern("while")), Ok(a));
    assert_eq!(failing_from(1, || sync.try_intern("while")), Ok(b));
}

#[test]
fn intern_panics_with_the_reason_and_keeps_the_interner_usable() {
    let mut local = Interner::with_seed(9);
    local.intern("kept");
    let long = "x".repeat(100_000);
    let payload = catch_unwind(AssertUnwindSafe(|| failing_from(50_000, || local.intern(&long)))).unwrap_err();
    let message = payload.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("could not allocate"), "{message}");
    assert_eq!(local.len(), 1);
    assert_eq!(local.get("kept").map(Symbol::to_usize), Some(0));
    assert_eq!(local.intern(&long).to_usize(), 1);
}

#[test]
fn try_with_capacity_reports_allocation_failure() {
    let err = failing_from(1000, || Interner::try_with_capacity(100_000)).unwrap_err();
    assert_eq!(err, InternerError::AllocFailed { strings: 100_000 });
    assert!(Interner::try_with_capacity(100_000).is_ok());
}
