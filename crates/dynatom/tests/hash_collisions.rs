//! Texts of 8 to 32 bytes that no seed may hash alike.
//!
//! The atom table hashes these lengths as folded multiplies of overlapping 8-byte words
//! (the first and the last up to 16 bytes; the first, the one at 8 and the last two up to
//! 32). Two texts of different lengths then read the same words whenever one is a run of
//! a byte and the other the same run a byte longer, or differs in one byte where a word
//! ends. If the length entered the hash as data (XORed into a word), such texts would only
//! need their words to differ by the XOR of the two lengths, a small value in the low
//! byte, for their hashes to be equal under every seed: "bccccccc", "bcccccccc" and
//! "bccccccczccccccc" did (the process seed, and 1,000 of 1,000 `AtomTable::with_seed`
//! seeds). The families below are exactly those texts: runs of one byte, changed in one
//! or two places by a value below 32 (every difference of two lengths up to 32), at every
//! length of the folded paths. A seed-independent collision shows under every seed, so
//! any collision here fails: a chance one among these texts (up to 603,022 under one
//! seed, hashes of 59 bits as the tables cache them) has odds below one in a million.

use std::collections::HashMap;

#[cfg(feature = "small-map")]
use dynatom::HintKey;
use dynatom::{Atom, AtomTable, Str};

/// The texts that shared one hash under every seed before the fix.
const KNOWN: [&str; 3] = ["bccccccc", "bcccccccc", "bccccccczccccccc"];

/// `AtomTable::with_seed` seeds tried per family (a collision that needs the seed to hold
/// would show under almost none of them).
const SEEDS: u64 = 200;

/// A run of `b'c'` of length `len` with `(at, delta)` applied as XORs.
fn run_with(len: usize, changes: &[(usize, u8)]) -> Vec<u8> {
    let mut text = vec![b'c'; len];
    for &(at, delta) in changes {
        text[at] ^= delta;
    }
    text
}

/// Runs of 8 to 32 bytes, and each with one byte changed by every value below 32: the
/// texts whose overlapping words coincide across lengths when one byte of one word
/// stands in for a length.
fn runs_changed_once() -> Vec<Vec<u8>> {
    let mut texts = Vec::new();
    for len in 8..=32 {
        texts.push(run_with(len, &[]));
        for at in 0..len {
            for delta in 1..32 {
                texts.push(run_with(len, &[(at, delta)]));
            }
        }
    }
    texts.extend(KNOWN.iter().map(|t| t.as_bytes().to_vec()));
    texts.sort();
    texts.dedup();
    texts
}

/// Runs of 8 to 16 bytes with two bytes changed by every pair of values below 32: with
/// one change in each of the two words (as "bccccccczccccccc" has), the head and the tail
/// can each match another length's.
fn runs_changed_twice() -> Vec<Vec<u8>> {
    let mut texts = runs_changed_once();
    texts.retain(|t| t.len() <= 16);
    for len in 8..=16 {
        for first in 0..len {
            for second in first + 1..len {
                for d1 in 1..32 {
                    for d2 in 1..32 {
                        texts.push(run_with(len, &[(first, d1), (second, d2)]));
                    }
                }
            }
        }
    }
    texts.sort();
    texts.dedup();
    texts
}

/// Every text of `texts` that `hash` maps to the value of an earlier one, with that one.
fn collisions(texts: &[Vec<u8>], mut hash: impl FnMut(&[u8]) -> u64) -> Vec<(String, String)> {
    let mut seen: HashMap<u64, usize> = HashMap::with_capacity(texts.len());
    let mut found = Vec::new();
    for (i, text) in texts.iter().enumerate() {
        let j = *seen.entry(hash(text)).or_insert(i);
        if j != i {
            found.push((String::from_utf8_lossy(&texts[j]).into_owned(), String::from_utf8_lossy(text).into_owned()));
        }
    }
    found
}

fn assert_no_collisions(what: &str, texts: &[Vec<u8>], hash: impl FnMut(&[u8]) -> u64) {
    let found = collisions(texts, hash);
    assert!(
        found.is_empty(),
        "{what}: {} of {} texts collide, e.g. {:?}",
        found.len(),
        texts.len(),
        &found[..found.len().min(4)]
    );
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("the families are ASCII")
}

#[test]
fn the_three_known_texts_hash_apart_under_the_process_seed_and_every_table_seed() {
    let texts: Vec<Vec<u8>> = KNOWN.iter().map(|t| t.as_bytes().to_vec()).collect();
    assert_no_collisions("Str::hash64 (process seed)", &texts, |t| Str::from(text(t)).hash64());
    assert_no_collisions("Atom::from (process seed)", &texts, |t| Atom::from(text(t)).hash64());
    for seed in 0..1_000 {
        let table = AtomTable::with_seed(seed);
        assert_no_collisions(&format!("AtomTable::with_seed({seed})"), &texts, |t| table.intern(text(t)).hash64());
    }
}

#[test]
fn runs_changed_in_one_byte_hash_apart_under_the_process_seed_and_200_table_seeds() {
    let texts = runs_changed_once();
    assert_no_collisions("Str::hash64 (process seed)", &texts, |t| Str::from(text(t)).hash64());
    for seed in 0..SEEDS {
        let seed = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let table = AtomTable::with_seed(seed);
        assert_no_collisions(&format!("AtomTable::with_seed({seed:#x})"), &texts, |t| table.intern_bytes(t).hash64());
    }
}

#[test]
fn runs_of_8_to_16_bytes_changed_in_two_bytes_hash_apart() {
    let texts = runs_changed_twice();
    assert_no_collisions("Str::hash64 (process seed)", &texts, |t| Str::from(text(t)).hash64());
    // One table seed besides the process seed: a collision that every seed has shows
    // under any, and the 200-seed test above covers the seeds.
    let table = AtomTable::with_seed(0x5EED);
    assert_no_collisions("AtomTable::with_seed(0x5EED)", &texts, |t| table.intern_bytes(t).hash64());
}

/// `SmallMap` keys of text hash as the global table does (`str`, `[u8]`, `Str`, an
/// `Atom`'s cached hash): the same texts must get different key hashes there too, and
/// atoms of tables with their own seeds carry those tables' hashes as key hashes.
#[cfg(feature = "small-map")]
#[test]
fn small_map_key_hashes_of_those_texts_differ() {
    let texts = runs_changed_twice();
    assert_no_collisions("str key hash", &texts, |t| text(t).key_hash());
    assert_no_collisions("[u8] key hash", &texts, |t| t.key_hash());
    let once = runs_changed_once();
    assert_no_collisions("Str key hash", &once, |t| Str::from(text(t)).key_hash());
    assert_no_collisions("Atom key hash", &once, |t| Atom::from(text(t)).key_hash());
    for seed in 0..SEEDS {
        let table = AtomTable::with_seed(seed ^ 0xA5A5);
        let known: Vec<Vec<u8>> = KNOWN.iter().map(|t| t.as_bytes().to_vec()).collect();
        assert_no_collisions(&format!("Atom key hash, with_seed({seed})"), &known, |t| {
            table.intern(text(t)).key_hash()
        });
    }
    let table = AtomTable::with_seed(3);
    assert_no_collisions("Atom key hash, with_seed(3)", &once, |t| table.intern(text(t)).key_hash());
}
