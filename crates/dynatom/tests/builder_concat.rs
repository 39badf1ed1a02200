//! `Str::concat`, `Str::join`, `ByteStr::concat` and `ByteStr::join` with pieces whose `AsRef` answers
//! differently each time it is asked: the result is exactly the text the copy pass read
//! (one answer per piece), on the inline path and the heap path alike, and nothing
//! panics.

use std::cell::Cell;

use dynatom::{ByteStr, Str};
use proptest::prelude::*;

/// A piece whose `n`-th `as_ref` answers `answers[n]` (the last one from then on).
struct Fickle {
    answers: Vec<String>,
    calls: Cell<usize>,
}

impl Fickle {
    fn new(answers: &[&str]) -> Fickle {
        Fickle { answers: answers.iter().map(|&a| a.to_owned()).collect(), calls: Cell::new(0) }
    }

    fn answer(&self) -> &str {
        let n = self.calls.get();
        self.calls.set(n + 1);
        &self.answers[n.min(self.answers.len() - 1)]
    }
}

impl AsRef<str> for Fickle {
    fn as_ref(&self) -> &str {
        self.answer()
    }
}

impl AsRef<[u8]> for Fickle {
    fn as_ref(&self) -> &[u8] {
        self.answer().as_bytes()
    }
}

/// The pieces, each answering `first` when measured and `second` when copied.
fn fickle(pairs: &[(&str, &str)]) -> Vec<Fickle> {
    pairs.iter().map(|&(first, second)| Fickle::new(&[first, second])).collect()
}

/// What the copy pass reads: every piece's second answer.
fn copied(pairs: &[(&str, &str)]) -> String {
    pairs.iter().map(|&(_, second)| second).collect()
}

/// Measured and copied texts of every combination of the two paths: inline results
/// that grow past inline or shrink, heap results that grow, shrink to inline or keep
/// their length with other text.
const CASES: &[&[(&str, &str)]] = &[
    &[("a", "b"), ("c", "d")],
    &[("ab", "a"), ("cd", "")],
    &[("a", "a text much longer than the one measured"), ("b", "b")],
    &[("short", "short"), ("", "and then a long tail nobody measured")],
    &[("a text long enough for the heap", "tiny"), ("!", "!")],
    &[("a text long enough for the heap", "a text long enough for the heap, and more"), ("x", "y")],
    &[("a text long enough for the heap", "the same length, other bytes!!!"), ("é", "e!")],
    &[("héllo wörld, measured first", ""), ("", "")],
];

#[test]
fn concat_returns_the_text_it_copied() {
    for &pairs in CASES {
        let expected = copied(pairs);
        let pieces = fickle(pairs);
        let result = Str::concat(&pieces);
        assert_eq!(result, expected.as_str(), "{pairs:?}");
        assert_eq!(result.is_inline(), expected.len() <= Str::INLINE_CAPACITY);
        assert!(pieces.iter().all(|piece| piece.calls.get() == 2), "each piece is asked twice");
        assert_eq!(Str::try_concat(&fickle(pairs)).unwrap(), expected.as_str(), "{pairs:?}");
    }
}

#[test]
fn byte_concat_returns_the_bytes_it_copied() {
    for &pairs in CASES {
        let expected = copied(pairs);
        let result = ByteStr::concat(&fickle(pairs));
        assert_eq!(result, expected.as_bytes(), "{pairs:?}");
        assert_eq!(result.is_inline(), expected.len() <= ByteStr::INLINE_CAPACITY);
        assert_eq!(ByteStr::try_concat(&fickle(pairs)).unwrap(), expected.as_bytes(), "{pairs:?}");
    }
}

#[test]
fn join_returns_the_text_it_copied() {
    for &pairs in CASES {
        let seconds: Vec<&str> = pairs.iter().map(|&(_, second)| second).collect();
        for separator in ["", ", ", "a long separator between the pieces"] {
            let expected = seconds.join(separator);
            assert_eq!(Str::join(&fickle(pairs), separator), expected.as_str(), "{pairs:?} {separator:?}");
            assert_eq!(Str::try_join(&fickle(pairs), separator).unwrap(), expected.as_str());
            let bytes = ByteStr::join(&fickle(pairs), separator.as_bytes());
            assert_eq!(bytes, expected.as_bytes(), "{pairs:?} {separator:?}");
            assert_eq!(ByteStr::try_join(&fickle(pairs), separator.as_bytes()).unwrap(), expected.as_bytes());
        }
    }
}

/// An iterator whose clones share one counter of how many walks began, and whose second
/// walk yields other items than the first: `walks_twice[walk]` per walk.
#[derive(Clone)]
struct FickleWalk<'a> {
    walks: &'a Cell<usize>,
    items: Option<std::slice::Iter<'a, &'a str>>,
    walks_twice: [&'a [&'a str]; 2],
}

impl<'a> Iterator for FickleWalk<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.items.is_none() {
            let walk = self.walks.get();
            self.walks.set(walk + 1);
            self.items = Some(self.walks_twice[walk.min(1)].iter());
        }
        self.items.as_mut().and_then(Iterator::next).copied()
    }
}

#[test]
fn join_returns_what_the_second_walk_yields() {
    let few: &[&str] = &["a", "b"];
    let many: &[&str] = &["more", "items", "than", "were", "measured", "at", "first"];
    for (first, second) in [(few, many), (many, few), (few, &["c"][..]), (many, &[][..])] {
        let walks = Cell::new(0);
        let items = FickleWalk { walks: &walks, items: None, walks_twice: [first, second] };
        assert_eq!(Str::join(items, "/"), second.join("/"));
        assert_eq!(walks.get(), 2);
    }
}

proptest! {
    #[test]
    fn any_fickle_pieces_give_the_copied_text(
        pairs in prop::collection::vec((".{0,20}", ".{0,20}"), 0..8),
        separator in ".{0,3}",
    ) {
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let expected = copied(&pairs);
        let text = Str::concat(&fickle(&pairs));
        prop_assert_eq!(text.as_str(), expected.as_str());
        let bytes = ByteStr::concat(&fickle(&pairs));
        prop_assert_eq!(bytes.as_bytes(), expected.as_bytes());
        let seconds: Vec<&str> = pairs.iter().map(|&(_, second)| second).collect();
        let joined = Str::join(&fickle(&pairs), &separator);
        prop_assert_eq!(joined.as_str(), seconds.join(&separator));
        let joined_bytes = ByteStr::join(&fickle(&pairs), separator.as_bytes());
        let expected_joined = seconds.join(&separator);
        prop_assert_eq!(joined_bytes.as_bytes(), expected_joined.as_bytes());
    }
}
