//! Every bad input gets a clear error and loses nothing: invalid UTF-8, lengths over the
//! limit, allocation failure through every `try_` path, slices out of range or off a
//! char boundary, foreign and stale symbols, interner limits. (RELIABILITY.md tabulates
//! the outcomes.)
//!
//! Allocation failure comes from this binary's global allocator, which refuses, on
//! demand and on the calling thread only, every request of at least a given size.

use std::panic::{AssertUnwindSafe, catch_unwind};

use dynatom::interner::{InternerError, Limits, Symbol};
use dynatom::{
    AtomTable, BuildError, ByteStr, Interner, Pieces, Str, StrBuilder, StrError, SyncInterner, str_format,
    try_str_format,
};

mod failing_alloc;

/// A request this large fails inside `failing`.
const HUGE: usize = 1 << 20;

/// Runs `f` with every request of `HUGE` bytes or more failing on this thread.
///
/// Freed blocks of 32 KiB and more are kept for reuse (`dynatom::set_block_cache_limit`),
/// and a cached block would serve a request without asking the allocator at all; so the
/// cache is switched off for this whole test binary (every test here goes through this
/// function, so none refills it).
fn failing<T>(f: impl FnOnce() -> T) -> T {
    dynatom::set_block_cache_limit(0);
    failing_alloc::failing_from(HUGE, f)
}

/// With `glibc-slop`, strings' blocks come from glibc directly, past this allocator.
fn blocks_can_fail() -> bool {
    if cfg!(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop")) {
        eprintln!("skipped: with glibc-slop, heap blocks bypass the global allocator");
        return false;
    }
    true
}

fn is_alloc_failure(err: &StrError) -> bool {
    matches!(err, StrError::AllocFailed { size } if *size >= HUGE)
}

#[test]
fn the_failing_allocator_fails() {
    assert!(failing(|| Vec::<u8>::new().try_reserve_exact(HUGE)).is_err());
    assert!(Vec::<u8>::new().try_reserve_exact(HUGE).is_ok());
}

#[test]
fn allocation_failure_in_str_constructors_is_an_error() {
    if !blocks_can_fail() {
        return;
    }
    let text = "x".repeat(HUGE);
    let err = failing(|| Str::try_from_str(&text)).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    assert!(err.to_string().starts_with("allocation of ") && err.to_string().ends_with(" bytes failed"));
    let err = failing(|| Str::from_utf8_slice(text.as_bytes())).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    let err = failing(|| Str::try_concat(&[text.as_str(), "!"])).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    let err = failing(|| Str::try_join([text.as_str(), "b"], ", ")).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    let err = failing(|| try_str_format!("{text}{}", 1)).unwrap_err();
    assert!(matches!(&err, BuildError::Str(e) if is_alloc_failure(e)), "{err:?}");
    let err = failing(|| Str::try_from_fmt(format_args!("{text}"))).unwrap_err();
    assert!(matches!(&err, BuildError::Str(e) if is_alloc_failure(e)), "{err:?}");
    let pieces: Pieces = [Str::from(text.as_str()), Str::from("tail")].into_iter().collect();
    let err = failing(|| pieces.try_to_text()).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    // Nothing lost: the inputs are intact and the same calls now succeed.
    assert_eq!(pieces.len(), HUGE + 4);
    assert_eq!(Str::try_from_str(&text).unwrap().len(), HUGE);
    assert_eq!(pieces.try_to_text().unwrap().len(), HUGE + 4);
}

#[test]
fn allocation_failure_in_the_builder_keeps_what_was_built() {
    if !blocks_can_fail() {
        return;
    }
    let err = failing(|| StrBuilder::try_with_capacity(HUGE)).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");

    let mut builder = StrBuilder::new();
    builder.push_str("kept: the text built so far, longer than inline");
    let before = builder.as_str().to_owned();
    let big = "y".repeat(HUGE);
    failing(|| {
        assert!(is_alloc_failure(&builder.try_reserve(HUGE).unwrap_err()));
        assert!(is_alloc_failure(&builder.try_push_str(&big).unwrap_err()));
        let err = builder.try_push_display(&big).unwrap_err();
        assert!(matches!(&err, BuildError::Str(e) if is_alloc_failure(e)), "{err:?}");
        let err = builder.try_push_fmt(format_args!("{big}")).unwrap_err();
        assert!(matches!(&err, BuildError::Str(e) if is_alloc_failure(e)), "{err:?}");
    });
    assert_eq!(builder.as_str(), before, "a failed push leaves the builder as it was");
    builder.try_push('!').unwrap();
    assert_eq!(builder.try_finish().unwrap(), format!("{before}!").as_str());
}

#[test]
fn allocation_failure_while_interning_leaves_the_table_as_it_was() {
    if !blocks_can_fail() {
        return;
    }
    let table = AtomTable::with_seed(11);
    let kept = table.intern("an atom that was there before");
    let text = "z".repeat(HUGE);
    let err = failing(|| table.try_intern(&text)).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    // A slice is not a whole block, so interning it must copy.
    let source = Str::from(format!("{text}{text}"));
    let slice = source.slice(1..HUGE + 1);
    let err = failing(|| slice.try_intern_in(&table)).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    let err = failing(|| slice.try_intern()).unwrap_err();
    assert!(is_alloc_failure(&err), "{err:?}");
    assert_eq!(table.len(), 1);
    assert!(table.lookup(&text).is_none());
    assert_eq!(table.lookup("an atom that was there before"), Some(kept));
    assert_eq!(slice.len(), HUGE, "the handle is intact");
    assert_eq!(table.try_intern(&text).unwrap().len(), HUGE);
}

#[test]
fn lengths_over_the_limit_are_errors_before_any_allocation() {
    let over = Str::MAX_LEN + 1;
    assert_eq!(StrBuilder::try_with_capacity(over).unwrap_err(), StrError::TooLong { len: over });
    let mut builder = StrBuilder::new();
    builder.push_str("kept");
    assert!(matches!(builder.try_reserve(usize::MAX), Err(StrError::TooLong { .. })));
    assert_eq!(builder.as_str(), "kept");
    // 4,097 copies of a 1 MiB separator: past 4 GiB, found by measuring, not allocating.
    let separator = "s".repeat(1 << 20);
    let err = Str::try_join(std::iter::repeat_n("", 4098), &separator).unwrap_err();
    assert!(matches!(err, StrError::TooLong { len } if len > Str::MAX_LEN), "{err:?}");
    assert!(err.to_string().contains("exceeds the maximum of 4294967295 bytes"), "{err}");
    let panic = catch_unwind(|| Str::join(std::iter::repeat_n("", 4098), &separator)).unwrap_err();
    assert!(panic_text(&panic).contains("exceeds the maximum"), "{}", panic_text(&panic));
    let err = ByteStr::try_join(std::iter::repeat_n(&b""[..], 4098), separator.as_bytes()).unwrap_err();
    assert!(matches!(err, StrError::TooLong { len } if len > ByteStr::MAX_LEN), "{err:?}");
}

#[test]
fn invalid_utf8_is_an_error_and_the_bytes_come_back() {
    let bytes = vec![b'o', b'k', 0xC3, 0x28, b'!'];
    let err = Str::from_utf8(bytes.clone()).unwrap_err();
    assert_eq!(err.utf8_error().valid_up_to(), 2);
    assert_eq!(err.into_bytes(), bytes, "nothing lost");
    let err = Str::from_utf8_slice(&bytes).unwrap_err();
    assert!(matches!(err, StrError::InvalidUtf8(e) if e.valid_up_to() == 2));
    assert_eq!(
        Str::from_utf8_slice(&[0xFF]).unwrap_err().to_string(),
        "invalid UTF-8: invalid utf-8 sequence of 1 bytes from index 0"
    );
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn slice_panic(s: &Str, start: usize, end: usize) -> String {
    let payload = catch_unwind(AssertUnwindSafe(|| s.slice(start..end))).unwrap_err();
    panic_text(&payload)
}

#[test]
fn bad_slices_are_none_or_a_panic_that_names_the_range() {
    for s in [Str::from("héllo"), Str::from("héllo, a string long enough for the heap")] {
        let len = s.len();
        assert!(s.get_slice(0..len + 1).is_none());
        let (start, end) = (3, 2); // a reversed range, as a computed one might be
        assert!(s.get_slice(start..end).is_none());
        assert!(s.get_slice(2..4).is_none(), "inside 'é'");
        assert!(s.get_slice(0..=usize::MAX).is_none());
        assert_eq!(s.get_slice(1..3).unwrap(), "é");

        let message = slice_panic(&s, 0, len + 1);
        assert_eq!(message, format!("Str::slice: range 0..{} of a {len}-byte string is out of bounds", len + 1));
        let message = slice_panic(&s, 3, 2);
        assert_eq!(message, format!("Str::slice: range 3..2 of a {len}-byte string starts after it ends"));
        let message = slice_panic(&s, 2, 4);
        assert_eq!(
            message,
            format!(
                "Str::slice: range 2..4 of a {len}-byte string is not on a char boundary (byte 2 is inside a character)"
            )
        );
        let message = slice_panic(&s, 1, 2);
        assert_eq!(
            message,
            format!(
                "Str::slice: range 1..2 of a {len}-byte string is not on a char boundary (byte 2 is inside a character)"
            )
        );
        assert_eq!(s.byte_at(len), None);
        assert_eq!(s.char_at(2), None);
    }
}

#[test]
fn foreign_and_stale_symbols_resolve_to_none_or_panic_clearly() {
    let mut ours = Interner::new();
    let mut theirs = Interner::new();
    let a = ours.intern("a");
    ours.intern("b");
    let foreign = theirs.intern("x");
    let from_the_future = Symbol::from_usize(5).unwrap();
    // Symbols carry no interner identity: in range, a foreign symbol names this
    // interner's text of that index (documented); out of range it is `None`.
    assert_eq!(ours.try_resolve(foreign), Some("a"));
    assert_eq!(theirs.try_resolve(Symbol::from_usize(1).unwrap()), None);
    assert_eq!(ours.try_resolve(from_the_future), None);
    let payload = catch_unwind(AssertUnwindSafe(|| ours.resolve(from_the_future).len())).unwrap_err();
    assert_eq!(panic_text(&payload), "symbol index 5 out of range (len 2)");
    let sync = SyncInterner::new();
    sync.intern("only");
    assert_eq!(sync.try_resolve(from_the_future), None);
    let frozen = sync.freeze();
    assert_eq!(frozen.try_resolve(from_the_future), None);
    assert_eq!(ours.resolve(a), "a");
    assert_eq!(Symbol::from_usize(Symbol::MAX_COUNT), None, "no symbol past the 32-bit space");
}

#[test]
fn interner_limits_are_errors_and_change_nothing() {
    let limits = Limits { max_symbols: 2, max_bytes: usize::MAX };
    let mut interner = Interner::new().with_limits(limits);
    let sync = SyncInterner::new().with_limits(limits);
    for text in ["one", "two"] {
        interner.try_intern(text).unwrap();
        sync.try_intern(text).unwrap();
    }
    let err = interner.try_intern("three").unwrap_err();
    assert_eq!(err, InternerError::SymbolsExhausted { max: 2 });
    assert_eq!(err.to_string(), "interner symbol space exhausted (2 symbols)");
    assert_eq!(sync.try_intern("three").unwrap_err(), InternerError::SymbolsExhausted { max: 2 });
    assert_eq!(interner.try_intern("two").map(Symbol::to_usize), Ok(1), "present texts still resolve");
    assert_eq!((interner.len(), sync.len()), (2, 2));
    assert!(interner.get("three").is_none() && sync.get("three").is_none());
    let payload = catch_unwind(AssertUnwindSafe(|| interner.intern("three"))).unwrap_err();
    assert!(panic_text(&payload).contains("symbol space exhausted"), "{}", panic_text(&payload));

    let limits = Limits { max_symbols: usize::MAX, max_bytes: 1 << 16 };
    let mut interner = Interner::new().with_limits(limits);
    let err = interner.try_intern("m".repeat(1 << 17)).unwrap_err();
    assert!(matches!(err, InternerError::MemoryLimit { needed, limit: 65536 } if needed > 65536), "{err:?}");
    assert!(err.to_string().starts_with("interner memory limit exceeded"));
    assert_eq!(interner.len(), 0);
    assert_eq!(interner.try_intern("small").map(Symbol::to_usize), Ok(0));
    drop(str_format!("{}", 1));
}
