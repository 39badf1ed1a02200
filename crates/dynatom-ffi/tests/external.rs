//! `dt_str_from_external` and `dt_str_from_external_utf8` called as C calls them: the
//! caller's bytes are the string's, `release(ctx)` runs exactly once (at once for short
//! strings, after the last handle otherwise, on any thread), and never on an error.

use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};

use dynatom_ffi::{
    dt_atom, dt_atom_bytes, dt_atom_release, dt_release_fn, dt_status, dt_str, dt_str_bytes, dt_str_clone,
    dt_str_from_bytes, dt_str_from_external, dt_str_from_external_utf8, dt_str_release, dt_str_slice, dt_table_global,
    dt_table_intern_bytes, dt_table_intern_str, DT_MAX_LEN,
};

const LONG: &[u8] = b"bytes the C program owns, longer than fifteen";

/// Counts `release` calls in the `AtomicUsize` that `ctx` points at.
unsafe extern "C" fn count(ctx: *mut c_void) {
    // SAFETY: every test passes a pointer to an `AtomicUsize` that outlives its strings.
    unsafe { &*ctx.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
}

/// Counts, then calls back into the library: makes a string and an atom and gives both back.
unsafe extern "C" fn count_and_reenter(ctx: *mut c_void) {
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_bytes(LONG.as_ptr(), LONG.len(), &mut s), dt_status::DT_OK);
    let mut atom = dt_atom::default();
    assert_eq!(dt_table_intern_str(dt_table_global(), &s, &mut atom), dt_status::DT_OK);
    assert_eq!(dt_atom_release(&mut atom), dt_status::DT_OK);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    // SAFETY: as in `count`.
    unsafe { count(ctx) };
}

const COUNT: dt_release_fn = Some(count);

fn ctx(calls: &AtomicUsize) -> *mut c_void {
    std::ptr::from_ref(calls).cast_mut().cast()
}

fn bytes_of(s: &dt_str) -> (*const u8, usize) {
    let (mut data, mut len) = (std::ptr::null(), 0);
    assert_eq!(dt_str_bytes(s, &mut data, &mut len), dt_status::DT_OK);
    (data, len)
}

#[test]
fn a_long_string_reads_the_callers_bytes_and_releases_after_its_last_handle() {
    let calls = AtomicUsize::new(0);
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_external(LONG.as_ptr(), LONG.len(), COUNT, ctx(&calls), &mut s), dt_status::DT_OK);
    assert_eq!(bytes_of(&s), (LONG.as_ptr(), LONG.len()));
    let (mut copy, mut part) = (dt_str::default(), dt_str::default());
    assert_eq!(dt_str_clone(&s, &mut copy), dt_status::DT_OK);
    assert_eq!(dt_str_slice(&s, 1, 40, &mut part), dt_status::DT_OK);
    assert_eq!(bytes_of(&part).0, LONG[1..].as_ptr());
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_ERR_RELEASED);
    assert_eq!(dt_str_release(&mut copy), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 0, "a slice still holds the bytes");
    assert_eq!(dt_str_release(&mut part), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    assert_eq!(dt_str_release(&mut part), dt_status::DT_ERR_RELEASED);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn the_last_release_may_come_from_another_thread() {
    static CALLS: AtomicUsize = AtomicUsize::new(0);
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_external(LONG.as_ptr(), LONG.len(), COUNT, ctx(&CALLS), &mut s), dt_status::DT_OK);
    let mut copy = dt_str::default();
    assert_eq!(dt_str_clone(&s, &mut copy), dt_status::DT_OK);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    std::thread::spawn(move || assert_eq!(dt_str_release(&mut copy), dt_status::DT_OK)).join().unwrap();
    assert_eq!(CALLS.load(Ordering::SeqCst), 1);
}

#[test]
fn short_strings_are_copied_and_released_at_once() {
    let calls = AtomicUsize::new(0);
    let short = b"fifteen bytes!!";
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_external(short.as_ptr(), short.len(), COUNT, ctx(&calls), &mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let (data, len) = bytes_of(&s);
    assert_ne!(data, short.as_ptr());
    // SAFETY: `dt_str_bytes` lends `len` bytes while `s` stays put and is not released.
    assert_eq!(unsafe { std::slice::from_raw_parts(data, len) }, short);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(dt_str_from_external(std::ptr::null(), 0, COUNT, ctx(&calls), &mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 2, "the empty string is a short one");
    assert_eq!(bytes_of(&s).1, 0);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
}

#[test]
fn errors_are_statuses_and_never_release() {
    let calls = AtomicUsize::new(0);
    let untouched = dt_str { w0: 1, w1: 2 };
    let mut s = untouched;
    let c = ctx(&calls);
    for from in [dt_str_from_external, dt_str_from_external_utf8] {
        assert_eq!(from(std::ptr::null(), 16, COUNT, c, &mut s), dt_status::DT_ERR_NULL);
        assert_eq!(from(LONG.as_ptr(), LONG.len(), COUNT, c, std::ptr::null_mut()), dt_status::DT_ERR_NULL);
        // A dummy pointer: the length is refused before anything reads through it.
        assert_eq!(from(std::ptr::dangling(), DT_MAX_LEN + 1, COUNT, c, &mut s), dt_status::DT_ERR_TOO_LONG);
        assert_eq!(from(std::ptr::dangling(), usize::MAX, COUNT, c, &mut s), dt_status::DT_ERR_TOO_LONG);
    }
    let not_text = b"a long run of bytes that is not text: \xff";
    assert_eq!(dt_str_from_external_utf8(not_text.as_ptr(), not_text.len(), COUNT, c, &mut s), dt_status::DT_ERR_UTF8);
    assert_eq!(dt_str_from_external_utf8(b"\xc3".as_ptr(), 1, COUNT, c, &mut s), dt_status::DT_ERR_UTF8);
    assert_eq!(s, untouched);
    assert_eq!(calls.load(Ordering::SeqCst), 0);

    let text = "texte déjà connu, plus long que quinze octets";
    assert_eq!(dt_str_from_external_utf8(text.as_ptr(), text.len(), COUNT, c, &mut s), dt_status::DT_OK);
    assert_eq!(bytes_of(&s).0, text.as_ptr());
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
}

#[test]
fn a_null_release_is_for_memory_that_outlives_the_program() {
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_external(LONG.as_ptr(), LONG.len(), None, std::ptr::null_mut(), &mut s), dt_status::DT_OK);
    assert_eq!(bytes_of(&s).0, LONG.as_ptr());
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
}

#[test]
fn a_release_may_call_back_into_the_library() {
    let calls = AtomicUsize::new(0);
    let mut s = dt_str::default();
    let reenter: dt_release_fn = Some(count_and_reenter);
    assert_eq!(dt_str_from_external(LONG.as_ptr(), LONG.len(), reenter, ctx(&calls), &mut s), dt_status::DT_OK);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let short = b"short";
    assert_eq!(dt_str_from_external(short.as_ptr(), short.len(), reenter, ctx(&calls), &mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 2);
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
}

#[test]
fn interning_copies_the_bytes_and_keeps_no_owner() {
    let calls = AtomicUsize::new(0);
    let text = b"an external string interned into the global table";
    let mut s = dt_str::default();
    assert_eq!(dt_str_from_external(text.as_ptr(), text.len(), COUNT, ctx(&calls), &mut s), dt_status::DT_OK);
    let mut atom = dt_atom::default();
    assert_eq!(dt_table_intern_str(dt_table_global(), &s, &mut atom), dt_status::DT_OK);
    let (mut data, mut len) = (std::ptr::null(), 0);
    assert_eq!(dt_atom_bytes(&atom, &mut data, &mut len), dt_status::DT_OK);
    assert_ne!(data, text.as_ptr());
    assert_eq!(len, text.len());
    assert_eq!(dt_str_release(&mut s), dt_status::DT_OK);
    assert_eq!(calls.load(Ordering::SeqCst), 1, "the atom keeps its own copy");
    let mut again = dt_atom::default();
    assert_eq!(dt_table_intern_bytes(dt_table_global(), text.as_ptr(), text.len(), &mut again), dt_status::DT_OK);
    assert_eq!(again, atom);
    assert_eq!(dt_atom_release(&mut again), dt_status::DT_OK);
    assert_eq!(dt_atom_release(&mut atom), dt_status::DT_OK);
}
