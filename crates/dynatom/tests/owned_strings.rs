//! Strings over memory the program already owns (`ByteStr::from_owner`,
//! `Str::from_owner`): the owner is dropped exactly once, when the last handle goes (on
//! whichever thread), whatever was done with the handles; a refused owner comes back;
//! the owner is asked for its bytes once; a panicking `Drop` corrupts nothing; interning
//! copies; and, with the `bytes` feature, `Bytes` round trips without copying.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};

use dynatom::{Atom, AtomTable, ByteStr, Str, StrError};

/// An owner that counts its drops (and keeps its bytes in a vector).
#[derive(Debug)]
struct Counted {
    bytes: Vec<u8>,
    drops: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for Counted {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

fn counted(bytes: &[u8]) -> (Counted, Arc<AtomicUsize>) {
    let drops = Arc::new(AtomicUsize::new(0));
    (Counted { bytes: bytes.to_vec(), drops: drops.clone() }, drops)
}

fn drops(count: &AtomicUsize) -> usize {
    count.load(Ordering::SeqCst)
}

/// Whether `inner` lies within `outer`'s memory.
fn within(inner: &[u8], outer: std::ops::Range<usize>) -> bool {
    let at = inner.as_ptr() as usize;
    at >= outer.start && at < outer.end
}

const LONG: &[u8] = b"a request head read into a buffer the program already owns: GET / HTTP/1.1";

#[test]
fn the_owner_goes_with_the_last_clone() {
    let (owner, count) = counted(LONG);
    let at = owner.bytes.as_ptr();
    let s = ByteStr::from_owner(owner);
    assert_eq!(s.as_ptr(), at, "no copy");
    assert_eq!(s, LONG);
    assert!(!s.is_inline() && !s.is_interned());
    let clones: Vec<ByteStr> = (0..10).map(|_| s.clone()).collect();
    assert!(clones.iter().all(|c| c.ptr_eq(&s)));
    drop(s);
    assert_eq!(drops(&count), 0);
    drop(clones);
    assert_eq!(drops(&count), 1);
}

#[test]
fn slices_keep_the_owner_until_they_go() {
    let (owner, count) = counted(LONG);
    let s = ByteStr::from_owner(owner);
    let range = s.as_ptr() as usize..s.as_ptr() as usize + s.len();
    let shared = s.slice(2..40); // a 76-byte owner is below the retention check: shared
    let by_ref = s.slice_ref(&s[10..60]);
    let inline = s.slice_ref(&s[0..15]);
    assert!(within(&shared, range.clone()) && within(&by_ref, range.clone()));
    assert!(inline.is_inline());
    assert_eq!((&shared[..], &by_ref[..]), (&LONG[2..40], &LONG[10..60]));
    drop(s);
    drop(shared);
    assert_eq!(drops(&count), 0, "`by_ref` still holds the owner");
    drop(by_ref);
    assert_eq!(drops(&count), 1);
    assert_eq!(inline, LONG[..15], "an inline copy holds no owner");
}

#[test]
fn a_small_part_of_a_large_owner_is_detached_by_slice_and_shared_by_slice_ref() {
    let mut big = vec![b'.'; 64 * 1024];
    big[1000..1030].copy_from_slice(b"a value kept long after parsed");
    let (owner, count) = counted(&big);
    let s = ByteStr::from_owner(owner);
    let range = s.as_ptr() as usize..s.as_ptr() as usize + s.len();
    let kept = s.slice(1000..1030); // 30 bytes of 64 KiB: copied out
    let parsed = s.slice_ref(&s[1000..1030]); // never copied
    assert!(!within(&kept, range.clone()));
    assert!(within(&parsed, range));
    assert_eq!(kept, parsed);
    drop((s, parsed));
    assert_eq!(drops(&count), 1, "the detached part does not keep the owner");
    assert_eq!(kept, b"a value kept long after parsed"[..]);
}

#[test]
fn short_owners_are_copied_inline_and_dropped_at_once() {
    for len in [0, 1, 7, 15] {
        let (owner, count) = counted(&LONG[..len]);
        let s = ByteStr::from_owner(owner);
        assert!(s.is_inline(), "{len}");
        assert_eq!(drops(&count), 1, "{len}");
        assert_eq!(s, LONG[..len]);
    }
    let (owner, count) = counted(&LONG[..16]);
    let s = Str::from_owner(owner).unwrap();
    assert!(!s.is_inline());
    assert_eq!(drops(&count), 0);
    drop(s);
    assert_eq!(drops(&count), 1);
}

#[test]
fn interning_copies_and_the_atom_outlives_the_owner() {
    let text = b"an interned header name, owned elsewhere: x-dynatom-owned-strings-test";
    let (owner, count) = counted(text);
    let s = Str::from_owner(owner).unwrap();
    let range = s.as_ptr() as usize..s.as_ptr() as usize + s.len();
    let atom = s.intern();
    assert!(!within(atom.as_bytes(), range.clone()), "the table copied the bytes");
    assert_eq!(atom, std::str::from_utf8(text).unwrap());
    assert!(!s.is_interned(), "an owner's string is never the table's atom");
    assert_eq!(s.intern(), atom);
    let table = AtomTable::new();
    let local = s.intern_in(&table);
    assert!(!within(local.as_bytes(), range.clone()));
    let bytes_atom = s.as_byte_str().intern();
    assert!(!within(bytes_atom.as_bytes(), range.clone()));
    // A part of the owner's bytes, interned: copied too.
    let part = s.slice_ref(&s[3..40]);
    let part_atom = part.intern();
    assert!(!within(part_atom.as_bytes(), range));
    drop((s, part));
    assert_eq!(drops(&count), 1, "the atoms do not keep the owner");
    assert_eq!(atom, Atom::lookup(std::str::from_utf8(text).unwrap()).unwrap());
    assert_eq!(local.as_str().as_bytes(), text);
    assert_eq!(Str::from(&atom).as_bytes(), text);
}

#[test]
fn the_last_handle_releases_the_owner_on_another_thread() {
    let (owner, count) = counted(LONG);
    let s = Str::from_owner(owner).unwrap();
    let part = s.slice(5..50);
    drop(s);
    let owner_thread = std::thread::spawn(move || {
        assert_eq!(part, std::str::from_utf8(&LONG[5..50]).unwrap());
        drop(part);
        std::thread::current().id()
    })
    .join()
    .unwrap();
    assert_ne!(owner_thread, std::thread::current().id());
    assert_eq!(drops(&count), 1);
}

#[test]
fn four_threads_racing_clones_and_drops_release_the_owner_once() {
    const ROUNDS: usize = 300;
    const THREADS: usize = 4;
    for _ in 0..ROUNDS {
        let (owner, count) = counted(LONG);
        let s = ByteStr::from_owner(owner);
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = (0..THREADS)
            .map(|i| {
                let mine = s.clone();
                let barrier = barrier.clone();
                std::thread::spawn(move || {
                    barrier.wait();
                    let mut held = Vec::new();
                    for k in 0..64 {
                        held.push(if k % 2 == 0 { mine.clone() } else { mine.slice_ref(&mine[i..40]) });
                        if k % 3 == 0 {
                            held.swap_remove(0);
                        }
                    }
                    assert!(held.iter().all(|h| *h == LONG || *h == LONG[i..40]));
                    // The last handle of the round may be any thread's.
                    drop(held);
                    drop(mine);
                })
            })
            .collect();
        drop(s);
        for handle in handles {
            handle.join().unwrap();
        }
        assert_eq!(drops(&count), 1);
    }
}

#[test]
fn invalid_text_hands_the_owner_back() {
    let (owner, count) = counted(b"a buffer of text that ends badly \xc3");
    let err = Str::from_owner(owner).unwrap_err();
    assert!(matches!(err.reason(), StrError::InvalidUtf8(e) if e.valid_up_to() == 33));
    assert!(format!("{err:?}").contains("Counted"), "Debug names the owner's type: {err:?}");
    assert!(err.to_string().starts_with("invalid UTF-8"));
    assert!(std::error::Error::source(&err).is_some());
    assert_eq!(drops(&count), 0);
    let owner = err.into_owner();
    assert_eq!(owner.bytes, b"a buffer of text that ends badly \xc3");
    // The same bytes as a byte string are fine.
    let s = ByteStr::from_owner(owner);
    assert!(s.to_text().is_err());
    drop(s);
    assert_eq!(drops(&count), 1);

    let err = Str::try_from_owner(vec![0xff; 40]).unwrap_err();
    let as_str_error: StrError = err.into();
    assert!(matches!(as_str_error, StrError::InvalidUtf8(_)));
    // A short owner is checked too.
    assert_eq!(Str::from_owner(vec![0xc3]).unwrap_err().into_owner(), vec![0xc3]);
}

/// An owner over an untouched private mapping longer than `Str::MAX_LEN`: address space,
/// not memory (nothing reads it: the length is checked first).
#[cfg(target_os = "linux")]
struct Huge {
    ptr: *mut libc::c_void,
    len: usize,
}

// SAFETY: the mapping is read-only memory that nothing writes.
#[cfg(target_os = "linux")]
unsafe impl Send for Huge {}
// SAFETY: as for `Send`.
#[cfg(target_os = "linux")]
unsafe impl Sync for Huge {}

#[cfg(target_os = "linux")]
impl Huge {
    fn map(len: usize) -> Option<Huge> {
        // SAFETY: a fresh anonymous read-only mapping, reserved lazily; checked below.
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        (ptr != libc::MAP_FAILED).then_some(Huge { ptr, len })
    }
}

#[cfg(target_os = "linux")]
impl AsRef<[u8]> for Huge {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: the mapping is `len` readable (zero) bytes, alive while `self` is.
        unsafe { std::slice::from_raw_parts(self.ptr.cast::<u8>(), self.len) }
    }
}

#[cfg(target_os = "linux")]
impl Drop for Huge {
    fn drop(&mut self) {
        // SAFETY: our own mapping, unmapped once.
        unsafe { libc::munmap(self.ptr, self.len) };
    }
}

#[test]
#[cfg(target_os = "linux")]
fn an_owner_longer_than_max_len_comes_back() {
    let len = Str::MAX_LEN + 1;
    let Some(huge) = Huge::map(len) else {
        eprintln!("skipped: no {len}-byte mapping here");
        return;
    };
    let err = Str::from_owner(huge).unwrap_err();
    assert_eq!(err.reason(), &StrError::TooLong { len });
    let huge = err.into_owner();
    let err = ByteStr::try_from_owner(huge).unwrap_err();
    assert_eq!(err.reason(), &StrError::TooLong { len });
    let huge = err.into_owner();
    let panic = catch_unwind(AssertUnwindSafe(|| ByteStr::from_owner(huge))).unwrap_err();
    let message = panic.downcast_ref::<String>().expect("a formatted message");
    assert!(message.contains("exceeds the maximum"), "{message}");
}

/// An owner that answers each `as_ref` with other bytes, counting the calls.
struct Fickle {
    answers: [Vec<u8>; 2],
    calls: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for Fickle {
    fn as_ref(&self) -> &[u8] {
        let call = self.calls.fetch_add(1, Ordering::SeqCst);
        &self.answers[call % 2]
    }
}

#[test]
fn an_owner_is_asked_for_its_bytes_once() {
    let calls = Arc::new(AtomicUsize::new(0));
    let first = b"the first answer, which every handle reads".to_vec();
    let fickle = Fickle { answers: [first.clone(), b"a different answer, never seen".to_vec()], calls: calls.clone() };
    let s = Str::from_owner(fickle).unwrap();
    assert_eq!(calls.load(Ordering::SeqCst), 1);
    let clone = s.clone();
    let parts = [s.slice(4..20), s.slice_ref(&s[1..30]), s.get_slice(..).unwrap()];
    let atom = clone.intern();
    assert_eq!(s.as_bytes(), &first[..]);
    assert_eq!(s.len(), first.len());
    assert_eq!(s.hash64(), Str::from(std::str::from_utf8(&first).unwrap()).hash64());
    assert_eq!(atom.as_str().as_bytes(), &first[..]);
    assert_eq!(parts[0].as_bytes(), &first[4..20]);
    assert_eq!(format!("{clone:?}"), format!("{:?}", std::str::from_utf8(&first).unwrap()));
    drop((s, clone, parts));
    assert_eq!(calls.load(Ordering::SeqCst), 1, "never asked again");
}

/// An owner whose `Drop` panics (after counting).
struct PanicsOnDrop {
    bytes: Vec<u8>,
    drops: Arc<AtomicUsize>,
}

impl AsRef<[u8]> for PanicsOnDrop {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for PanicsOnDrop {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        panic!("the owner's drop panics");
    }
}

#[test]
fn a_panicking_owner_drop_unwinds_from_the_last_handle_and_corrupts_nothing() {
    let text = b"an owner whose drop panics, interned and sliced before it goes";
    let drops_count = Arc::new(AtomicUsize::new(0));
    let s = Str::from_owner(PanicsOnDrop { bytes: text.to_vec(), drops: drops_count.clone() }).unwrap();
    let atom = s.intern();
    let clone = s.clone();
    let part = s.slice_ref(&s[3..30]);
    let (bystander, bystander_drops) = counted(LONG);
    let bystander = ByteStr::from_owner(bystander);
    drop(s);
    drop(clone); // not the last handle: no panic
    assert_eq!(drops(&drops_count), 0);
    let panic = catch_unwind(AssertUnwindSafe(move || drop(part))).unwrap_err();
    assert_eq!(panic.downcast_ref::<&str>(), Some(&"the owner's drop panics"));
    assert_eq!(drops(&drops_count), 1, "dropped once, from the last handle");
    // The table and other handles are intact.
    let text = std::str::from_utf8(text).unwrap();
    assert_eq!(atom, text);
    assert_eq!(Atom::lookup(text), Some(atom.clone()));
    assert_eq!(Str::from(text).intern(), atom);
    assert_eq!(bystander, LONG);
    drop(bystander);
    assert_eq!(drops(&bystander_drops), 1);
    // And a short one panics where it is dropped: in the constructor.
    let short = PanicsOnDrop { bytes: b"short".to_vec(), drops: drops_count.clone() };
    assert!(catch_unwind(AssertUnwindSafe(move || ByteStr::from_owner(short))).is_err());
    assert_eq!(drops(&drops_count), 2);
}

#[test]
fn handles_over_owners_cross_the_raw_words() {
    let (owner, count) = counted(LONG);
    let words = ByteStr::from_owner(owner).slice(4..60).into_raw();
    assert!(ByteStr::raw_words_plausible(words));
    // SAFETY: from `into_raw`, taken back once.
    let back = unsafe { ByteStr::from_raw(words) };
    assert_eq!(back, LONG[4..60]);
    drop(back);
    assert_eq!(drops(&count), 1);
}

#[cfg(feature = "bytes")]
mod with_bytes {
    use bytes::Bytes;

    use super::*;

    #[test]
    fn bytes_become_a_byte_str_without_a_copy_and_back() {
        let bytes = Bytes::from(LONG.to_vec());
        let s = ByteStr::from(bytes.clone());
        assert_eq!(s.as_ptr(), bytes.as_ptr());
        let back = Bytes::from(s.clone());
        assert_eq!(back.as_ptr(), bytes.as_ptr());
        assert_eq!(back, bytes);
        let part = back.slice(3..20);
        let again = ByteStr::from(part.clone());
        assert_eq!(again.as_ptr(), part.as_ptr());
        assert_eq!(again, LONG[3..20]);
        // Short ones are inline copies; empty ones are empty.
        assert!(ByteStr::from(Bytes::from_static(b"short")).is_inline());
        assert!(Bytes::from(ByteStr::new()).is_empty());
        assert_eq!(Bytes::from(ByteStr::from(&b"inline"[..])), &b"inline"[..]);
        assert_eq!(Bytes::from(Str::from("text into bytes, not copied")), &b"text into bytes, not copied"[..]);
    }

    #[test]
    fn the_owner_is_dropped_once_across_bytes_and_byte_strs() {
        let (owner, count) = counted(LONG);
        let s = ByteStr::from_owner(owner);
        let bytes = Bytes::from(s.clone());
        let s_again = ByteStr::from(bytes.slice(1..70));
        drop(s);
        let bytes_part = bytes.slice(5..10);
        drop(bytes);
        assert_eq!(drops(&count), 0);
        drop(s_again);
        assert_eq!(drops(&count), 0, "`bytes_part` still holds it");
        assert_eq!(bytes_part, &LONG[5..10]);
        drop(bytes_part);
        assert_eq!(drops(&count), 1);
    }

    #[test]
    fn bytes_released_on_another_thread() {
        let (owner, count) = counted(LONG);
        let bytes = Bytes::from(ByteStr::from_owner(owner));
        std::thread::spawn(move || drop(bytes)).join().unwrap();
        assert_eq!(drops(&count), 1);
    }
}
