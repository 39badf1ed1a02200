//! Every former panic behind a signature that promises a `Result` is now an error, and
//! the panics that remain (behind signatures that do not) say what went wrong.

mod valgrind;

use std::sync::OnceLock;

use dynatom::interner::{Interner, InternerError, Limits, Symbol, SyncInterner};
use dynatom::{Atom, AtomTable, Str, StrError};

/// Valgrind cannot shadow the 4 GiB text below; its run skips the tests that need it
/// (they run in every other `cargo test`).
fn under_valgrind() -> bool {
    valgrind::running()
}

/// A `'static` text one byte longer than `Str::MAX_LEN`. It is made of zero bytes
/// from a zeroed allocation, which the OS maps lazily to its shared zero page, so it
/// costs address space and page tables, not 4 GiB of memory.
fn over_long() -> &'static str {
    static TEXT: OnceLock<&'static str> = OnceLock::new();
    TEXT.get_or_init(|| {
        let zeros = vec![0u8; Str::MAX_LEN + 1];
        Box::leak(String::from_utf8(zeros).expect("NUL bytes are UTF-8").into_boxed_str())
    })
}

#[test]
fn parsing_an_atom_reports_over_long_text() {
    assert_eq!("parsed".parse::<Atom>().unwrap(), Atom::from("parsed"));
    assert_eq!("a longer text, parsed into the table".parse::<Atom>().unwrap(), "a longer text, parsed into the table");
    if under_valgrind() {
        return;
    }
    let err = over_long().parse::<Atom>().unwrap_err();
    assert_eq!(err, StrError::TooLong { len: Str::MAX_LEN + 1 });
    assert!(err.to_string().contains("exceeds the maximum"), "{err}");
}

#[test]
fn static_strs_check_their_length_at_construction() {
    const CHECKED: Str = Str::from_static("checked when the program is compiled");
    assert_eq!(CHECKED, "checked when the program is compiled");
    assert_eq!(Str::try_from_static("fits").unwrap(), "fits");
    if under_valgrind() {
        return;
    }
    assert_eq!(Str::try_from_static(over_long()).unwrap_err(), StrError::TooLong { len: Str::MAX_LEN + 1 });
    let panic = std::panic::catch_unwind(|| Str::from_static(over_long())).unwrap_err();
    let message = panic.downcast_ref::<&str>().copied().unwrap_or_default();
    assert!(message.contains("longer than Str::MAX_LEN"), "{message:?}");
}

#[test]
fn try_intern_refuses_over_long_text_before_hashing_it() {
    let table = AtomTable::new();
    let _kept = table.try_intern("fits in the table").unwrap();
    let lookups = table.memory_report().locked_lookups;
    if under_valgrind() {
        return;
    }
    assert_eq!(table.try_intern(over_long()).unwrap_err(), StrError::TooLong { len: Str::MAX_LEN + 1 });
    // Refused before the shard lookup (which hashes first): no lookup was counted.
    assert_eq!(table.memory_report().locked_lookups, lookups);
    assert_eq!(table.len(), 1);
    assert_eq!(AtomTable::global().try_intern(over_long()).unwrap_err(), StrError::TooLong { len: Str::MAX_LEN + 1 });
}

#[test]
fn an_impossible_interner_capacity_is_an_error() {
    let err = Interner::try_with_capacity(usize::MAX).unwrap_err();
    assert!(matches!(err, InternerError::SymbolsExhausted { max } if max < Symbol::MAX_COUNT), "{err:?}");
    assert!(Interner::try_with_capacity(0).unwrap().is_empty());
    let mut fine = Interner::try_with_capacity(1000).unwrap();
    assert_eq!(fine.intern("usable").to_usize(), 0);
}

#[test]
fn an_impossible_interner_capacity_panics_with_a_message_not_an_overflow() {
    let panic = std::panic::catch_unwind(|| Interner::with_capacity(usize::MAX)).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.starts_with("Interner::with_capacity("), "{message:?}");
    assert!(message.contains("symbol space exhausted"), "{message:?}");
}

#[test]
fn a_byte_limit_below_one_chunk_says_why_nothing_fits() {
    for limit in [16, 100, 4000] {
        let mut i = Interner::new().with_limits(Limits { max_bytes: limit, ..Limits::default() });
        let err = i.try_intern("x").unwrap_err();
        assert!(matches!(err, InternerError::MemoryLimit { limit: l, .. } if l == limit), "{err:?}");
        let message = err.to_string();
        assert!(message.contains("admits no copied string"), "{message}");
        assert!(i.is_empty());
        // Static strings need no chunk: a small limit may still admit them.
        let sync = SyncInterner::new().with_limits(Limits { max_bytes: limit, ..Limits::default() });
        assert!(sync.try_intern("x").is_err());
    }
    // A limit of a few chunks admits strings, and its error carries no such note.
    let mut i = Interner::new().with_limits(Limits { max_bytes: 6000, ..Limits::default() });
    let err = (0..10_000).find_map(|n| i.try_intern(format!("identifier-{n:04}")).err()).expect("limit hit");
    assert!(!i.is_empty());
    assert!(!err.to_string().contains("admits no"), "{err}");
}

#[test]
fn messages_count_in_the_singular_and_plural() {
    assert_eq!(InternerError::SymbolsExhausted { max: 1 }.to_string(), "interner symbol space exhausted (1 symbol)");
    assert_eq!(InternerError::SymbolsExhausted { max: 2 }.to_string(), "interner symbol space exhausted (2 symbols)");
    assert_eq!(
        InternerError::AllocFailed { strings: 1 }.to_string(),
        "interner could not allocate an index for 1 string"
    );
    let table = AtomTable::new();
    let one = table.intern("the one atom in this table");
    let report = table.memory_report().to_string();
    assert!(report.contains("(1 atom)"), "{report}");
    let two = table.intern("the second atom in this table");
    assert!(table.memory_report().to_string().contains("(2 atoms)"));
    drop((one, two));

    let mut i = Interner::new();
    i.intern("one string");
    let report = i.memory_report().to_string();
    assert!(report.contains("(1 string,"), "{report}");
    i.intern("two strings");
    assert!(i.memory_report().to_string().contains("(2 strings,"));
}

#[test]
fn atom_from_static_refuses_over_long_text_before_hashing_it() {
    if under_valgrind() {
        return;
    }
    let text = over_long();
    let start = std::time::Instant::now();
    let result = std::panic::catch_unwind(|| dynatom::Atom::from_static(text));
    let elapsed = start.elapsed();
    let message = result.expect_err("an over-long static text is refused");
    let message = message.downcast_ref::<String>().map(String::as_str).unwrap_or("");
    assert!(message.contains(&(Str::MAX_LEN + 1).to_string()), "the panic names the length: {message:?}");
    // Hashing 4 GiB takes seconds; checking the length takes nothing.
    assert!(elapsed < std::time::Duration::from_secs(2), "refused only after {elapsed:?}: hashed first");
    // The table is usable from every thread afterwards.
    std::thread::spawn(|| {
        assert_eq!(dynatom::Atom::from("after an over-long static text"), "after an over-long static text")
    })
    .join()
    .unwrap();
}
