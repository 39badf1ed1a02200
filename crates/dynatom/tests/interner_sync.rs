//! `SyncInterner` under concurrent inserts: every text gets exactly one symbol.

use std::collections::HashMap;
use std::sync::Barrier;

use dynatom::interner::{Resolver, Symbol, SyncInterner};

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn types_are_send_sync() {
    assert_send_sync::<SyncInterner>();
    assert_send_sync::<Resolver>();
    assert_send_sync::<dynatom::interner::Interner>();
}

#[test]
fn concurrent_inserts_give_one_symbol_per_text() {
    const THREADS: usize = 8;
    const N: usize = 20_000;
    for shards in [1, 4, 64] {
        let interner = SyncInterner::new().with_shards(shards).unwrap();
        let barrier = Barrier::new(THREADS);
        let results: Vec<Vec<(usize, Symbol)>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (interner, barrier) = (&interner, &barrier);
                    s.spawn(move || {
                        barrier.wait();
                        // Every thread walks the same keys from a different start, so
                        // most texts are raced by several threads.
                        (0..N)
                            .map(|k| {
                                let key = (k + t * N / THREADS) % N;
                                let text = format!("key-{key}-{}", "y".repeat(key % 23));
                                let sym = interner.intern(&text);
                                assert_eq!(interner.resolve(sym), text);
                                assert_eq!(interner.get(&text), Some(sym));
                                (key, sym)
                            })
                            .collect()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut by_key: HashMap<usize, Symbol> = HashMap::new();
        for (key, sym) in results.into_iter().flatten() {
            assert_eq!(*by_key.entry(key).or_insert(sym), sym, "key {key} got two symbols");
        }
        assert_eq!(interner.len(), N);
        // Symbols are exactly 0..N, one per key.
        let mut idx: Vec<usize> = by_key.values().map(|s| s.to_usize()).collect();
        idx.sort_unstable();
        assert!(idx.iter().copied().eq(0..N));
        let r = interner.freeze();
        for (key, sym) in &by_key {
            assert!(r.resolve(*sym).starts_with(&format!("key-{key}-")));
        }
    }
}

#[test]
fn readers_run_during_inserts() {
    let interner = SyncInterner::new();
    let pre: Vec<Symbol> = (0..1000).map(|n| interner.intern(format!("pre{n}"))).collect();
    std::thread::scope(|s| {
        for t in 0..3 {
            let interner = &interner;
            s.spawn(move || {
                for n in 0..30_000 {
                    interner.intern(format!("w{t}-{n}"));
                }
            });
        }
        for _ in 0..3 {
            let (interner, pre) = (&interner, &pre);
            s.spawn(move || {
                for round in 0..20 {
                    for (n, &sym) in pre.iter().enumerate() {
                        let text = format!("pre{n}");
                        assert_eq!(interner.get(&text), Some(sym), "round {round}");
                        assert_eq!(interner.resolve(sym), text);
                    }
                }
            });
        }
    });
    assert_eq!(interner.len(), 1000 + 90_000);
}

#[test]
fn thawing_keeps_symbols_shards_and_limits() {
    use dynatom::interner::Limits;
    let interner = SyncInterner::deterministic()
        .with_shards(2)
        .unwrap()
        .with_limits(Limits { max_symbols: 3, ..Limits::default() });
    let a = interner.intern("alpha");
    let b = interner.intern("long text ".repeat(100));
    let frozen = interner.freeze();
    assert_eq!(frozen.memory_report().strings, 2);
    let thawed = frozen.into_interner();
    assert_eq!((thawed.get("alpha"), thawed.get("long text ".repeat(100))), (Some(a), Some(b)));
    assert!(format!("{thawed:?}").contains("shards: 2"), "{thawed:?}");
    assert_eq!(thawed.intern("gamma").to_usize(), 2);
    assert!(thawed.try_intern("delta").is_err(), "the symbol limit came back with the thaw");
}

#[test]
fn frozen_lookups_write_no_counter() {
    let interner = SyncInterner::new();
    interner.intern("present");
    let frozen = interner.freeze();
    for _ in 0..10 {
        assert!(frozen.get("present").is_some());
        assert!(frozen.get("absent").is_none());
    }
    let report = frozen.memory_report();
    assert_eq!((report.lookups, report.hits, report.misses, report.inserts), (0, 0, 0, 0));
}

#[test]
fn with_shards_on_a_non_empty_interner_is_an_error_that_gives_it_back() {
    let names = SyncInterner::deterministic().with_shards(2).unwrap();
    let syms: Vec<_> = (0..100).map(|i| names.intern(format!("name{i}"))).collect();
    let err = names.with_shards(8).unwrap_err();
    assert_eq!(err.error(), dynatom::interner::InternerError::NotEmpty { len: 100 });
    assert_eq!(err.to_string(), "the shard count of an interner holding 100 strings cannot change");
    let names = err.into_interner();
    assert_eq!(names.len(), 100);
    for (i, &sym) in syms.iter().enumerate() {
        assert_eq!(names.resolve(sym), format!("name{i}"));
        assert_eq!(names.get(format!("name{i}")), Some(sym));
    }
    // Emptied, the interner takes a new shard count.
    let mut names = names;
    names.clear();
    let names = names.with_shards(8).unwrap();
    assert_eq!(names.intern("again").to_usize(), 0);
}
