//! Property tests: `StrBuilder`, `str_format!`, `Str::concat`/`join`, `Pieces` and the
//! `_str` access methods behave exactly like their `String`/`str` models.

mod common;
mod realloc_log;
use common::ChunkedWriter;

use std::fmt::Write as _;

use dynatom::{Pieces, Str, StrBuilder, str_format};
use proptest::prelude::*;

#[global_allocator]
static ALLOCATOR: realloc_log::LoggingAllocator = realloc_log::LoggingAllocator;

/// Texts of every size class: inline, just past inline, long, non-ASCII.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,15}",
        ".{16,40}",
        "[a-zé€ ,\n]{0,200}",
        (0usize..3000).prop_map(|len| "ab€ ".chars().cycle().take(len).collect()),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Str(String),
    Char(char),
    Display(i64),
    Format(String, u32),
    Truncate(usize),
    Clear,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => text().prop_map(Op::Str),
        3 => any::<char>().prop_map(Op::Char),
        2 => any::<i64>().prop_map(Op::Display),
        2 => (".{0,20}", any::<u32>()).prop_map(|(s, n)| Op::Format(s, n)),
        1 => any::<usize>().prop_map(Op::Truncate),
        1 => Just(Op::Clear),
    ]
}

/// Cuts `model` at the char boundary at or below `at % (len + 1)`, like the builder call.
fn boundary(model: &str, at: usize) -> usize {
    let mut at = at % (model.len() + 1);
    while !model.is_char_boundary(at) {
        at -= 1;
    }
    at
}

proptest! {
    #[test]
    fn builder_matches_string(ops in prop::collection::vec(op(), 0..40), capacity in 0usize..300) {
        let mut model = String::new();
        let mut b = if capacity.is_multiple_of(2) { StrBuilder::new() } else { StrBuilder::with_capacity(capacity) };
        for op in ops {
            match op {
                Op::Str(s) => { b.push_str(&s); model.push_str(&s); }
                Op::Char(c) => { b.push(c); model.push(c); }
                Op::Display(n) => { b.push_display(n); write!(model, "{n}").unwrap(); }
                Op::Format(s, n) => {
                    write!(b, "[{s:>5}|{n:08x}]").unwrap();
                    write!(model, "[{s:>5}|{n:08x}]").unwrap();
                }
                Op::Truncate(at) => { let at = boundary(&model, at); b.truncate(at); model.truncate(at); }
                Op::Clear => { b.clear(); model.clear(); }
            }
            prop_assert_eq!(b.as_str(), model.as_str());
            prop_assert_eq!(b.len(), model.len());
            prop_assert!(b.capacity() >= b.len());
        }
        let trimmed = StrBuilder::with_capacity(b.len()).capacity() != b.capacity();
        let sees_blocks = realloc_log::sees_string_blocks();
        let before = b.as_str().as_ptr();
        let start = realloc_log::calls();
        let s = b.finish();
        let end = realloc_log::calls();
        prop_assert_eq!(s.as_str(), model.as_str());
        prop_assert_eq!(s.is_inline(), model.len() <= 15);
        if model.len() > 15 {
            let checked = realloc_log::check_finish(before, s.as_ptr(), trimmed, (start, end), sees_blocks);
            prop_assert!(checked.is_ok(), "finish copied the bytes: {:?}", checked);
        }
    }

    #[test]
    fn str_format_matches_format(a in text(), n in any::<i64>(), f in any::<f64>(), width in 0usize..40) {
        let ours = str_format!("{a}:{n}:{f:?}:{a:>width$}");
        let theirs = format!("{a}:{n}:{f:?}:{a:>width$}");
        prop_assert_eq!(ours.as_str(), theirs.as_str());
        prop_assert_eq!(ours.is_inline(), theirs.len() <= 15);
        prop_assert_eq!(str_format!("{n}"), n.to_string());
    }

    #[test]
    fn concat_and_join_match_std(parts in prop::collection::vec(text(), 0..12), sep in ".{0,4}") {
        let concat = Str::concat(&parts);
        prop_assert_eq!(concat.as_str(), parts.concat());
        prop_assert_eq!(concat.is_inline(), concat.len() <= 15);
        let joined = Str::join(&parts, &sep);
        prop_assert_eq!(joined.as_str(), parts.join(&sep));
        let joined_iter = Str::join(parts.iter().map(String::as_str), &sep);
        prop_assert_eq!(joined_iter.as_str(), parts.join(&sep));
        prop_assert_eq!(Str::try_concat(&parts).unwrap(), concat);
        prop_assert_eq!(Str::try_join(&parts, &sep).unwrap(), joined);
    }

    #[test]
    fn pieces_match_concat(parts in prop::collection::vec(text(), 0..30), chunk in 1usize..64) {
        let pieces: Pieces = parts.iter().map(|p| Str::from(p.as_str())).collect();
        let model = parts.concat();
        prop_assert_eq!(pieces.len(), model.len());
        prop_assert_eq!(pieces.piece_count(), parts.iter().filter(|p| !p.is_empty()).count());
        prop_assert_eq!(pieces.to_text(), model.as_str());
        prop_assert_eq!(pieces.to_string(), model.clone());
        let mut out = ChunkedWriter::new(chunk, None);
        prop_assert_eq!(pieces.write_to(&mut out).unwrap(), model.len());
        prop_assert_eq!(out.out, model.as_bytes());
    }

    #[test]
    fn slice_ref_of_str_methods_matches_str(s in text(), c in prop_oneof![Just(','), Just(' '), Just('€'), any::<char>()], sep in prop_oneof![Just(String::new()), Just(", ".to_owned()), ".{1,3}"]) {
        let parent = Str::from(s.as_str());
        let shared = |part: &str| parent.slice_ref(part);
        check_pieces(&parent, &s, parent.split(c).map(shared), s.split(c))?;
        check_pieces(&parent, &s, parent.split(sep.as_str()).map(shared), s.split(sep.as_str()))?;
        check_pieces(&parent, &s, parent.split(&sep).map(shared), s.split(&sep))?;
        check_pieces(&parent, &s, parent.split([',', 'é']).map(shared), s.split([',', 'é']))?;
        check_pieces(&parent, &s, parent.split(char::is_whitespace).map(shared), s.split(char::is_whitespace))?;
        check_pieces(&parent, &s, parent.split_whitespace().map(shared), s.split_whitespace())?;
        check_pieces(&parent, &s, parent.lines().map(shared), s.lines())?;
        check_pieces(&parent, &s, parent.split(c).rev().map(shared), s.split(c).rev())?;
        check_pieces(&parent, &s, [shared(parent.trim())].into_iter(), [s.trim()].into_iter())?;
        check_pieces(&parent, &s, [shared(parent.trim_start())].into_iter(), [s.trim_start()].into_iter())?;
        check_pieces(&parent, &s, [shared(parent.trim_end())].into_iter(), [s.trim_end()].into_iter())?;
        match (parent.split_once(c), s.split_once(c)) {
            (Some((a, b)), Some((x, y))) => check_pieces(&parent, &s, [shared(a), shared(b)].into_iter(), [x, y].into_iter())?,
            (None, None) => {}
            (ours, theirs) => prop_assert!(false, "split_once: {:?} vs {:?}", ours, theirs),
        }
        let prefix = &s[..boundary(&s, s.len() / 3)];
        prop_assert_eq!(parent.strip_prefix(prefix).map(shared).unwrap(), s.strip_prefix(prefix).unwrap());
        prop_assert_eq!(parent.strip_suffix(&sep).map(shared).map(String::from), s.strip_suffix(sep.as_str()).map(String::from));
        for (i, byte) in s.bytes().enumerate() {
            prop_assert_eq!(parent.byte_at(i), Some(byte));
            prop_assert_eq!(parent.char_at(i), s.get(i..).and_then(|rest| rest.chars().next()));
        }
        prop_assert_eq!(parent.byte_at(s.len()), None);
    }

    #[test]
    fn slice_ref_of_any_range_shares(s in text(), a in 0usize..200, b in 0usize..200) {
        let parent = Str::from(s.as_str());
        let (x, y) = (boundary(&s, a), boundary(&s, b));
        let (start, end) = (x.min(y), x.max(y));
        let part = &parent.as_str()[start..end];
        check_pieces(&parent, &s, [parent.slice_ref(part)].into_iter(), [&s[start..end]].into_iter())?;
        // An empty part from anywhere is the empty string (the non-empty case panics:
        // see `slice_ref_refuses_a_foreign_part`).
        prop_assert_eq!(parent.slice_ref(&s[start..start]), "");
    }

    #[test]
    fn static_parents_split_too(pick in 0usize..3) {
        let text: &'static str = ["a,b,c", "a long static text, with commas, in it", ""][pick];
        let parent = Str::from_static(text);
        check_pieces(&parent, text, parent.split(',').map(|part| parent.slice_ref(part)), text.split(','))?;
        check_pieces(&parent, text, parent.split(", ").map(|part| parent.slice_ref(part)), text.split(", "))?;
    }
}

/// Each piece equals the `str` model's, and a heap-sized piece shares the parent's bytes.
fn check_pieces<'a>(
    parent: &Str,
    model_parent: &str,
    ours: impl Iterator<Item = Str>,
    theirs: impl Iterator<Item = &'a str>,
) -> Result<(), TestCaseError> {
    let ours: Vec<Str> = ours.collect();
    let theirs: Vec<&str> = theirs.collect();
    prop_assert_eq!(ours.len(), theirs.len());
    for (piece, model) in ours.iter().zip(&theirs) {
        prop_assert_eq!(piece.as_str(), *model);
        prop_assert_eq!(piece.is_inline(), model.len() <= 15);
        if model.len() > 15 {
            let offset = model.as_ptr() as usize - model_parent.as_ptr() as usize;
            prop_assert_eq!(piece.as_ptr(), parent.as_str()[offset..].as_ptr(), "piece copied instead of shared");
        }
    }
    Ok(())
}

#[test]
#[should_panic(expected = "Str::slice_ref: the 5-byte part does not lie within this 21-byte string")]
fn slice_ref_refuses_a_foreign_part() {
    let parent = Str::from("hello, shared buffers");
    let elsewhere = String::from("hello");
    let _ = parent.slice_ref(&elsewhere);
}
