//! Symbol-space and memory limits give errors, and leave the interner usable.

use dynatom::interner::{Interner, InternerError, Limits, Symbol, SyncInterner};

#[test]
fn symbol_limit_errors() {
    let limits = Limits { max_symbols: 3, ..Limits::default() };
    let mut i = Interner::new().with_limits(limits);
    let syms: Vec<Symbol> = ["a", "b", "c"].iter().map(|s| i.try_intern(s).unwrap()).collect();
    assert_eq!(i.try_intern("d"), Err(InternerError::SymbolsExhausted { max: 3 }));
    assert_eq!(i.try_intern_static("e"), Err(InternerError::SymbolsExhausted { max: 3 }));
    // Present strings still resolve to their symbols; nothing was added.
    assert_eq!(i.try_intern("b"), Ok(syms[1]));
    assert_eq!(i.len(), 3);
    assert_eq!(i.get("d"), None);
    assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| i.intern("d"))).is_err());
}

#[test]
fn memory_limit_errors() {
    // Enough for the first chunk, table and index, not for a second chunk.
    let limits = Limits { max_bytes: 6000, ..Limits::default() };
    let mut i = Interner::new().with_limits(limits);
    let mut n = 0;
    let err = loop {
        match i.try_intern(format!("identifier-{n:04}")) {
            Ok(sym) => assert_eq!(sym.to_usize(), n),
            Err(e) => break e,
        }
        n += 1;
        assert!(n < 10_000, "limit never hit");
    };
    assert!(matches!(err, InternerError::MemoryLimit { limit: 6000, needed } if needed > 6000), "{err:?}");
    assert!(i.memory_report().total_bytes() <= 6000);
    assert_eq!(i.len(), n);
    assert_eq!(i.resolve(Symbol::from_usize(0).unwrap()), "identifier-0000");
    assert_eq!(i.try_intern("identifier-0000").unwrap().to_usize(), 0);
    // A single string bigger than the limit.
    let mut tiny = Interner::new().with_limits(Limits { max_bytes: 16, ..Limits::default() });
    assert!(matches!(tiny.try_intern("x"), Err(InternerError::MemoryLimit { .. })));
    assert!(tiny.is_empty());
}

#[test]
fn sync_limits_error() {
    let i = SyncInterner::new().with_limits(Limits { max_symbols: 2, ..Limits::default() });
    i.intern("a");
    i.intern("b");
    assert_eq!(i.try_intern("c"), Err(InternerError::SymbolsExhausted { max: 2 }));
    assert_eq!(i.len(), 2);
    let m = SyncInterner::new().with_limits(Limits { max_bytes: 100, ..Limits::default() });
    assert!(matches!(m.try_intern("abc"), Err(InternerError::MemoryLimit { .. })));
    assert!(m.is_empty());
}

#[test]
fn errors_display() {
    let e = InternerError::SymbolsExhausted { max: 3 };
    assert!(e.to_string().contains('3'));
    let e: Box<dyn std::error::Error> = Box::new(InternerError::AllocFailed { strings: 1 });
    assert_eq!(e.to_string(), "interner could not allocate an index for 1 string");
}
