//! loom models of the `SyncInterner` (lock-free reads beside locked inserts, lazily
//! allocated column segments and table generations) and of freezing it into a
//! `Resolver`. Run with
//! `RUSTFLAGS="--cfg loom" cargo test --release --test loom_sync_interner`.
//!
//! Under loom the interner has 2 shards, 2-entry first column segments, 4-slot first
//! table generations and 8-byte first chunks (strings over 8 bytes get their own
//! block), so these small models cross every one of those boundaries. loom also checks
//! that every chunk, segment and generation is freed exactly once.
//!
//! With `deterministic()` (the fixed seed), "alpha" hashes to shard 1 and "beta",
//! "gamma", "epsilon" and `LONG` to shard 0.
//!
//! loom's DPOR remembers only the last access to each atomic, so a race between an
//! early load on one thread and a later store on the other can go unexplored when the
//! storing thread loaded the same atomic in between (it does: an insert looks before it
//! writes). loom first runs the main thread until it blocks, so [`race`] runs every
//! model twice, with each side once on the main thread and once spawned.
//!
//! The models are small enough for loom to explore without a preemption bound (all
//! four take well under a second); `LOOM_MAX_PREEMPTIONS` is not needed.
#![cfg(loom)]

use dynatom::interner::{Symbol, SyncInterner};
use loom::sync::Arc;
use loom::thread;

/// Longer than the loom arena's huge-string limit: gets a block of its own.
const LONG: &str = "a text longer than the huge limit of eight";

/// Runs `a` and `b` on two threads over the interner `setup` makes, then `check`s the
/// joined interner and both results; once with `a` spawned, once with `b` spawned.
fn race<A, B>(
    setup: fn() -> SyncInterner,
    a: fn(&SyncInterner) -> A,
    b: fn(&SyncInterner) -> B,
    check: fn(SyncInterner, A, B),
) where
    A: Send + 'static,
    B: Send + 'static,
{
    for a_spawned in [true, false] {
        loom::model(move || {
            let names = Arc::new(setup());
            let other = Arc::clone(&names);
            let (ra, rb) = if a_spawned {
                let h = thread::spawn(move || a(&other));
                let rb = b(&names);
                (h.join().unwrap(), rb)
            } else {
                let h = thread::spawn(move || b(&other));
                let ra = a(&names);
                (ra, h.join().unwrap())
            };
            let names = Arc::try_unwrap(names).unwrap_or_else(|_| panic!("a thread still holds the interner"));
            check(names, ra, rb);
        });
    }
}

fn sym(i: usize) -> Symbol {
    Symbol::from_usize(i).unwrap()
}

/// Two threads interning the same new text get the same symbol, and only one entry
/// is made.
#[test]
fn same_text_same_symbol() {
    race(
        SyncInterner::deterministic,
        |n| n.intern("alpha"),
        |n| n.intern("alpha"),
        |names, a, b| {
            assert_eq!(a, b);
            assert_eq!(a, sym(0));
            assert_eq!(names.len(), 1);
            assert_eq!(names.resolve(a), "alpha");
            assert_eq!(names.memory_report().inserts, 1);
        },
    );
}

/// A reader that learns of a symbol only through the interner itself (`get`, or a
/// guessed index for `try_resolve`) while another thread inserts it sees either
/// nothing or the complete text, never a torn entry. `try_resolve` of a symbol that
/// was handed out but is not yet published waits (it yields under loom).
#[test]
fn lookup_and_resolve_while_interning() {
    race(
        SyncInterner::deterministic,
        |n| n.intern(LONG),
        |n| {
            // At most two looks: loom forbids unbounded spinning.
            for _ in 0..2 {
                if let Some(found) = n.get(LONG) {
                    assert_eq!(n.resolve(found), LONG);
                    return Some(found);
                }
                thread::yield_now();
            }
            match n.try_resolve(sym(0)) {
                None => assert!(n.get(LONG).is_none() || n.len() == 1),
                Some(text) => assert_eq!(text, LONG),
            }
            None
        },
        |names, made, seen| {
            assert_eq!(made, sym(0));
            assert!(seen.is_none_or(|s| s == made));
            assert_eq!(names.get(LONG), Some(made));
            assert_eq!(names.resolve(made), LONG);
        },
    );
}

/// Inserts into different shards (different locks) race to allocate the first column
/// segment; after both are joined, freezing keeps both symbols, and the `Resolver`
/// is read from two threads.
#[test]
fn freeze_after_racing_inserts() {
    race(
        SyncInterner::deterministic,
        |n| n.intern("alpha"),
        |n| n.intern("beta"),
        |names, alpha, beta| {
            assert_ne!(alpha, beta);
            let mut both = [alpha.to_usize(), beta.to_usize()];
            both.sort_unstable();
            assert_eq!(both, [0, 1]);

            let frozen = Arc::new(names.freeze());
            let reader_frozen = Arc::clone(&frozen);
            let reader = thread::spawn(move || {
                assert_eq!(reader_frozen.get("alpha"), Some(alpha));
                assert_eq!(reader_frozen.resolve(beta), "beta");
            });
            assert_eq!(frozen.get("beta"), Some(beta));
            assert_eq!(frozen.resolve(alpha), "alpha");
            assert_eq!(frozen.len(), 2);
            assert_eq!(frozen.iter().count(), 2);
            reader.join().unwrap();
        },
    );
}

/// A lock-free lookup of an existing string while an insert into the same shard grows
/// its table (4 → 8 slots) and opens a block for a long string: the reader finds the
/// old string in the old or the new generation, and the new one complete or not at
/// all. The old generation stays allocated until `&mut` access.
#[test]
fn lookup_during_table_growth() {
    race(
        || {
            let names = SyncInterner::deterministic().with_shards(1).unwrap();
            for s in ["beta", "gamma", "epsilon"] {
                names.intern(s);
            }
            names
        },
        |n| n.intern(LONG),
        |n| {
            assert_eq!(n.get("gamma"), Some(sym(1)));
            if let Some(found) = n.get(LONG) {
                assert_eq!(n.resolve(found), LONG);
            }
        },
        |mut names, long, ()| {
            assert_eq!(long, sym(3));
            let before = names.memory_report().table_bytes;
            names.shrink_to_fit();
            assert!(names.memory_report().table_bytes < before);
            for (i, s) in ["beta", "gamma", "epsilon", LONG].into_iter().enumerate() {
                assert_eq!(names.get(s), Some(sym(i)));
            }
        },
    );
}
