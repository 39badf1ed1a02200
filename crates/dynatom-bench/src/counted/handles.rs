//! Counted handle operations: `Atom` eq / hash against the global interners' handles,
//! `Str::from(&atom)` against copying into a `String` (the `atom-to-string` suite), `Str`
//! from / clone / slice against the `handles` suite's string types, and `StrBuilder`
//! appends against `String::push_str` (the `build` suite).

use super::recorder::{Recorder, HARNESS};
use crate::corpus::Rng;
use crate::peers::{self, AtomToOwned, AtomToOwnedVisitor, GlobalInterner, GlobalVisitor, HandleVisitor, StringHandle};
use std::hash::BuildHasher;
use std::hint::black_box;

pub const ATOM_SUITE: &str = "atom";
pub const STR_SUITE: &str = "str";
pub const BUILD_SUITE: &str = "build";
pub const BUILDERS: [&str; 2] = ["StrBuilder", "String::push_str"];
pub const TO_STR_WAYS: &[&str] = peers::TO_OWNED;
/// The operation of the `TO_STR_WAYS` rows: an atom's text handed out as an owned string.
pub const TO_OWNED_OP: &str = "to owned string";

/// Distinct values per counted run (as the wall-clock `handles` suite).
const BATCH: usize = 256;

fn texts(len: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng::new(seed);
    (0..BATCH)
        .map(|_| {
            let mut v = vec![0u8; len];
            rng.fill_alnum(&mut v);
            String::from_utf8(v).expect("ascii")
        })
        .collect()
}

pub fn str_lengths(quick: bool) -> Vec<usize> {
    if quick {
        vec![5, 64]
    } else {
        vec![5, 15, 16, 64, 1024]
    }
}

pub fn to_str_lengths(quick: bool) -> Vec<usize> {
    if quick {
        vec![3, 64]
    } else {
        vec![3, 15, 16, 63, 64, 100, 101]
    }
}

/// The handles' eq and hash: the global interners' handles (dynatom's `Atom` first) of
/// 16-byte texts; half the compared pairs are equal.
pub fn atom_peers() -> Vec<&'static str> {
    peers::GLOBAL.to_vec()
}

struct AtomRun<'a> {
    rec: &'a mut Recorder,
}

impl GlobalVisitor for AtomRun<'_> {
    type Out = Result<(), String>;
    fn visit<G: GlobalInterner>(self) -> Result<(), String> {
        let rec = self.rec;
        let table = G::create();
        let texts = texts(16, 0xA7);
        let handles: Vec<G::Handle> = texts.iter().map(|t| table.intern(t)).collect();
        let others: Vec<G::Handle> =
            (0..BATCH).map(|i| handles[if i % 2 == 0 { i } else { (i + 1) % BATCH }].clone()).collect();
        let hasher = foldhash::fast::FixedState::with_seed(0x5EED);
        rec.warm("eq", "16 B", G::NAME, BATCH as u64, || {
            for (a, b) in handles.iter().zip(&others) {
                black_box(black_box(a) == black_box(b));
            }
        });
        rec.warm("hash", "16 B", G::NAME, BATCH as u64, || {
            for h in &handles {
                black_box(hasher.hash_one(black_box(h)));
            }
        });
        let equal = handles.iter().zip(&others).filter(|(a, b)| a == b).count();
        if G::NAME != HARNESS && equal != BATCH / 2 {
            return Err(format!("{}: {equal} of {BATCH} pairs compare equal, expected half", G::NAME));
        }
        Ok(())
    }
}

/// Eq and hash of the global interners' handles; the harness compares and hashes `u32`s.
pub fn atom_child(rec: &mut Recorder, peer: &str) -> Result<(), String> {
    let run = AtomRun { rec };
    match peer {
        HARNESS => run.visit::<super::interners::NullInterner>(),
        "dynatom Atom" => run.visit::<super::interners::SeededAtoms>(),
        other => peers::visit_global(other, run).ok_or_else(|| format!("unknown handle {other}"))?,
    }
}

/// The harness "way": hands the atom's address back, so the loop passes the same pointer
/// through `black_box` as before this was an adapter, and the harness counts stay put.
struct NoCopy;

impl AtomToOwned for NoCopy {
    type Owned = *const dynatom::Atom;
    const NAME: &'static str = HARNESS;
    #[inline]
    fn to_owned(atom: &dynatom::Atom) -> *const dynatom::Atom {
        atom
    }
    fn text(_: &*const dynatom::Atom) -> &str {
        ""
    }
}

struct ToStrRun<'a> {
    rec: &'a mut Recorder,
    quick: bool,
}

impl AtomToOwnedVisitor for ToStrRun<'_> {
    type Out = Result<(), String>;
    fn visit<A: AtomToOwned>(self) -> Result<(), String> {
        for len in to_str_lengths(self.quick) {
            let text: String = (0..len).map(|i| (b'a' + (i * 7 % 26) as u8) as char).collect();
            let atom = dynatom::Atom::from(text.as_str());
            if A::NAME != HARNESS && A::text(&A::to_owned(&atom)) != text {
                return Err(format!("{} at {len} bytes does not round-trip", A::NAME));
            }
            self.rec.warm(TO_OWNED_OP, &format!("{len} B"), A::NAME, BATCH as u64, || {
                for _ in 0..BATCH {
                    black_box(A::to_owned(black_box(&atom)));
                }
            });
        }
        Ok(())
    }
}

/// `Str::from(&atom)` against a copy into a `String`, at the `atom-to-string` suite's lengths.
pub fn to_str_child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let run = ToStrRun { rec, quick };
    match peer {
        HARNESS => run.visit::<NoCopy>(),
        other => peers::visit_to_owned(other, run).ok_or_else(|| format!("unknown way {other}"))?,
    }
}

/// The harness "handle": owns nothing, reads nothing.
#[derive(Clone, PartialEq, Eq, Hash)]
struct NullHandle;

impl StringHandle for NullHandle {
    type Slice = ();
    const NAME: &'static str = HARNESS;
    fn from_str(_: &str) -> Self {
        NullHandle
    }
    fn text(&self) -> &str {
        ""
    }
    fn slice(&self, _: std::ops::Range<usize>) {}
    fn slice_text(_: &()) -> &str {
        ""
    }
}

struct StrRun<'a> {
    rec: &'a mut Recorder,
    quick: bool,
}

impl HandleVisitor for StrRun<'_> {
    type Out = Result<(), String>;
    fn visit<H: StringHandle>(self) -> Result<(), String> {
        let rec = self.rec;
        for len in str_lengths(self.quick) {
            let texts = texts(len, 0x4A);
            let handles: Vec<H> = texts.iter().map(|t| H::from_str(t)).collect();
            if H::NAME != HARNESS
                && handles
                    .iter()
                    .zip(&texts)
                    .any(|(h, t)| h.text() != t || H::slice_text(&h.slice(1..len - 1)) != &t[1..len - 1])
            {
                return Err(format!("{}: from or slice gives the wrong text at {len} bytes", H::NAME));
            }
            let param = format!("{len} B");
            let n = BATCH as u64;
            rec.warm("from", &param, H::NAME, n, || {
                for t in &texts {
                    black_box(H::from_str(black_box(t)));
                }
            });
            rec.warm("clone", &param, H::NAME, n, || {
                for h in &handles {
                    black_box(black_box(h).clone());
                }
            });
            rec.warm("slice", &param, H::NAME, n, || {
                for h in &handles {
                    black_box(black_box(h).slice(1..len - 1));
                }
            });
        }
        Ok(())
    }
}

pub fn str_peers() -> Vec<&'static str> {
    peers::HANDLES.to_vec()
}

pub fn str_child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let run = StrRun { rec, quick };
    match peer {
        HARNESS => run.visit::<NullHandle>(),
        other => peers::visit_handle(other, run).ok_or_else(|| format!("unknown handle {other}"))?,
    }
}

/// The two pieces of the `build` suite.
pub const PIECES: [(&str, &str); 2] = [("a", "a"), ("10-byte", "0123456789")];

fn appends(quick: bool) -> usize {
    if quick {
        1_000
    } else {
        10_000
    }
}

/// Appends to a builder made just before (growth included); the finished string is
/// checked after the count.
pub fn build_child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let n = appends(quick);
    for (name, piece) in PIECES {
        let expected = piece.repeat(n);
        match peer {
            "StrBuilder" => {
                let mut b = dynatom::StrBuilder::new();
                rec.once("append", name, peer, n as u64, || {
                    for _ in 0..n {
                        b.push_str(black_box(piece));
                    }
                });
                if b.finish().as_str() != expected {
                    return Err(format!("StrBuilder: wrong text after {n} appends of {name:?}"));
                }
            }
            "String::push_str" => {
                let mut s = String::new();
                rec.once("append", name, peer, n as u64, || {
                    for _ in 0..n {
                        s.push_str(black_box(piece));
                    }
                });
                if s != expected {
                    return Err(format!("String: wrong text after {n} appends of {name:?}"));
                }
            }
            HARNESS => rec.once("append", name, peer, n as u64, || {
                for _ in 0..n {
                    black_box(black_box(piece));
                }
            }),
            other => return Err(format!("unknown builder {other}")),
        }
    }
    Ok(())
}
