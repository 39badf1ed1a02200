//! Counted interning of a string over an owner's bytes: an intern hit (then the handle's
//! drop) of a `slice_ref` of one `ByteStr::from_owner` buffer, against the same hit from
//! a `&[u8]` of the same bytes. Interning copies an owner's bytes like any slice's, so the
//! two should cost the same.

use super::recorder::{Recorder, HARNESS};
use dynatom::{ByteAtom, ByteStr};
use std::hint::black_box;

pub const SUITE: &str = "owned-intern";
pub const OP: &str = "intern hit (intern, drop)";
pub const FROM_BYTES: &str = "dynatom ByteAtom::new(&[u8])";
pub const FROM_OWNED: &str = "dynatom owned slice_ref .intern()";
pub const PEERS: [&str; 2] = [FROM_BYTES, FROM_OWNED];

/// Distinct texts, each `LEN` bytes, laid end to end in one owner's buffer.
const TEXTS: usize = 256;
pub const LEN: usize = 64;

/// Passes over the texts per counted phase.
fn repeats(quick: bool) -> usize {
    if quick {
        4
    } else {
        16
    }
}

pub fn param() -> String {
    format!("{LEN} B")
}

/// The texts: `TEXTS` distinct alphanumeric runs of `LEN` bytes, end to end.
fn buffer() -> Vec<u8> {
    let mut v = vec![0u8; TEXTS * LEN];
    crate::corpus::Rng::new(0x0B5E55).fill_alnum(&mut v);
    v
}

pub fn child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let bytes = buffer();
    let owned = ByteStr::from_owner(bytes.clone());
    let slices: Vec<ByteStr> = owned.chunks(LEN).map(|text| owned.slice_ref(text)).collect();
    // Every text interned and held first: the counted interns are hits.
    let held: Vec<ByteAtom> = bytes.chunks(LEN).map(ByteAtom::new).collect();
    let repeats = repeats(quick);
    let ops = (TEXTS * repeats) as u64;
    let param = param();
    match peer {
        FROM_BYTES => rec.warm(OP, &param, peer, ops, || {
            for _ in 0..repeats {
                for text in bytes.chunks(LEN) {
                    drop(black_box(ByteAtom::new(black_box(text))));
                }
            }
        }),
        FROM_OWNED => rec.warm(OP, &param, peer, ops, || {
            for _ in 0..repeats {
                for slice in &slices {
                    drop(black_box(black_box(slice).intern()));
                }
            }
        }),
        HARNESS => rec.warm(OP, &param, peer, ops, || {
            for _ in 0..repeats {
                for (text, slice) in bytes.chunks(LEN).zip(&slices) {
                    black_box((black_box(text), black_box(slice)));
                }
            }
        }),
        other => return Err(format!("unknown way {other}")),
    }
    if slices.iter().zip(&held).any(|(slice, atom)| slice.intern() != *atom) {
        return Err("an owned slice interned to another atom than its bytes".into());
    }
    Ok(())
}
