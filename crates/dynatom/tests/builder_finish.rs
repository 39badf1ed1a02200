//! `StrBuilder::finish` and `str_format!` hand the builder's own buffer over: no copy.
//!
//! The builder writes into an allocation laid out as a `Str` heap block and finishes by
//! trimming it to size with `realloc`, unless it already has that size. Whether `realloc`
//! moves the block is the allocator's business (glibc shrinks in place; ASan's and
//! valgrind's allocators always move), so these tests log the allocator's calls and
//! check what the library promises with any allocator: an untrimmed buffer stays where
//! it is, and a trimmed one is moved by `realloc` alone, with no allocation and no copy.

mod realloc_log;

use dynatom::{Atom, ByteStr, ByteStrBuilder, Str, StrBuilder, StrError, str_format};

#[global_allocator]
static ALLOCATOR: realloc_log::LoggingAllocator = realloc_log::LoggingAllocator;

/// Finishes `b`, checking that `finish` made no copy (see `realloc_log::check_finish`).
fn finish_without_copy(b: StrBuilder) -> Str {
    let trimmed = StrBuilder::with_capacity(b.len()).capacity() != b.capacity();
    let sees_blocks = realloc_log::sees_string_blocks();
    let before = b.as_str().as_ptr();
    let start = realloc_log::calls();
    let s = b.finish();
    let end = realloc_log::calls();
    if let Err(why) = realloc_log::check_finish(before, s.as_ptr(), trimmed, (start, end), sees_blocks) {
        panic!("{} bytes: {why}", s.len());
    }
    s
}

/// [`finish_without_copy`] for a byte builder.
fn finish_bytes_without_copy(b: ByteStrBuilder) -> ByteStr {
    let trimmed = ByteStrBuilder::with_capacity(b.len()).capacity() != b.capacity();
    let sees_blocks = realloc_log::sees_string_blocks();
    let before = b.as_bytes().as_ptr();
    let start = realloc_log::calls();
    let s = b.finish();
    let end = realloc_log::calls();
    if let Err(why) = realloc_log::check_finish(before, s.as_ptr(), trimmed, (start, end), sees_blocks) {
        panic!("{} bytes: {why}", s.len());
    }
    s
}

#[test]
fn heap_results_keep_the_builders_buffer() {
    let mut untrimmed = 0;
    for len in (16..600).chain([1000, 4095, 4096, 65_536, 200_000, 1 << 20]) {
        let mut b = StrBuilder::new();
        while b.len() < len {
            b.push(if b.len().is_multiple_of(7) { 'é' } else { 'a' });
        }
        untrimmed += usize::from(StrBuilder::with_capacity(b.len()).capacity() == b.capacity());
        let expected = b.as_str().to_owned();
        let s = finish_without_copy(b);
        assert_eq!(s, expected);
        assert!(!s.is_inline());
    }
    assert!(untrimmed >= 4, "the lengths include full buffers, which finish keeps as they are");
}

#[test]
fn exact_capacity_needs_no_trim() {
    let text = "exactly as long as reserved, not one byte more";
    let mut b = StrBuilder::with_capacity(text.len());
    b.push_str(text);
    assert_eq!(b.capacity(), text.len());
    let before = b.as_str().as_ptr();
    let s = finish_without_copy(b);
    assert_eq!(s.as_ptr(), before, "a full buffer is the string as it is, with any allocator");
    assert_eq!(s, text);
}

#[test]
fn str_format_makes_no_intermediate() {
    // The macro's result is a finished builder; the pointer check is on the builder
    // path itself, which the macro uses unchanged.
    let n = 123_456_789u64;
    let s = str_format!("{n:>40}|{}", "tail");
    assert_eq!(s, format!("{n:>40}|{}", "tail"));
    let literal = str_format!("a literal format string, longer than fifteen bytes");
    assert!(!literal.is_inline(), "literal-only formats point at the static text");
}

#[test]
fn small_results_are_inline_and_free_the_buffer() {
    for len in 0..=15 {
        let mut b = StrBuilder::with_capacity(100);
        b.push_str(&"x".repeat(len));
        let s = b.finish();
        assert!(s.is_inline());
        assert_eq!(s.len(), len);
    }
}

#[test]
fn finished_strings_behave_like_any_other() {
    let mut b = StrBuilder::new();
    b.push_str("a builder result that gets interned later");
    let s = b.finish();
    let atom = s.intern();
    assert_eq!(atom.as_ptr(), s.as_ptr(), "interning adopts the builder's block");
    assert_eq!(Atom::from("a builder result that gets interned later"), atom);
    let clone = s.clone();
    drop(s);
    assert_eq!(clone.slice(2..9), "builder");
}

#[test]
fn appends_accept_every_kind() {
    let mut b = StrBuilder::new();
    let s = Str::from("str ");
    let atom = Atom::from("atom ");
    let string = String::from("string ");
    b.push_str("&str ");
    b.push_str(&s);
    b.push_str(&atom);
    b.push_str(&string);
    b.push('c');
    b.push_display(' ');
    b.push_display(4.5);
    b.extend(["!", "?"]);
    b.extend("xy".chars());
    assert_eq!(b.finish(), "&str str atom string c 4.5!?xy");
}

#[test]
fn capacity_overflow_is_an_error_not_a_panic() {
    let mut b = StrBuilder::new();
    assert!(matches!(b.try_reserve(Str::MAX_LEN + 1), Err(StrError::TooLong { .. })));
    assert!(matches!(b.try_reserve(usize::MAX), Err(StrError::TooLong { .. })));
    assert!(matches!(StrBuilder::try_with_capacity(usize::MAX), Err(StrError::TooLong { .. })));
    b.push_str("still usable");
    assert_eq!(b.finish(), "still usable");
}

#[test]
fn a_failing_display_leaves_the_builder_as_it_was() {
    use std::fmt;
    struct HalfThenFail;
    impl fmt::Display for HalfThenFail {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("half")?;
            Err(fmt::Error)
        }
    }
    let mut b = StrBuilder::new();
    b.push_str("kept");
    assert_eq!(b.try_push_display(HalfThenFail), Err(dynatom::BuildError::Format));
    assert_eq!(b.as_str(), "kept");
    assert!(dynatom::try_str_format!("{}", HalfThenFail).is_err());
}

#[test]
fn byte_builders_keep_their_buffer_too() {
    for len in (16..300).chain([4096, 200_000, 1 << 20]) {
        let mut b = ByteStrBuilder::new();
        while b.len() < len {
            b.push_byte((b.len() % 251) as u8 | 0x80);
        }
        let expected = b.as_bytes().to_vec();
        let s = finish_bytes_without_copy(b);
        assert_eq!(s, expected);
    }
    let mut b = ByteStrBuilder::with_capacity(100);
    b.push_bytes(&[0xff; 100]);
    let before = b.as_bytes().as_ptr();
    assert_eq!(finish_bytes_without_copy(b).as_ptr(), before);
}
