//! C memory as the owner of a string (`dt_str_from_external`): [`External`] holds C's
//! `data`, `len`, `release` and `ctx`, lends the bytes to the string's control block, and
//! calls `release(ctx)` when the block drops it. This module alone reads the bytes, calls
//! the callback, and declares the owner `Send + Sync` on the C caller's word.
//!
//! The owner is dropped exactly once by the core crate (by the last handle, or at once
//! for a string short enough to be copied into its handle). The entry points that refuse
//! C's memory call [`External::disown`] instead, so that `release` is never called on an
//! error: the caller still owns the memory.

use std::ffi::c_void;

use crate::{dt_status, DT_MAX_LEN};

/// The function `dt_str_from_external` calls, once, when the library is done with C's
/// memory: `release(ctx)`, from whichever thread releases the string's last handle (or
/// from the creating call itself for strings of up to 15 bytes, which are copied). It
/// must not unwind (a C++ exception or a `longjmp` out of it is undefined behaviour); it
/// may call any `dt_` function, the library holding no lock while it runs. NULL: the
/// memory outlives every use (a literal, static data) and nothing is called.
pub type dt_release_fn = Option<unsafe extern "C" fn(ctx: *mut c_void)>;

/// C's bytes and the call that gives them back.
pub(crate) struct External {
    data: *const u8,
    len: usize,
    release: dt_release_fn,
    ctx: *mut c_void,
}

// SAFETY: this is the contract the header states for `dt_str_from_external`, which the C
// caller accepts: the `len` bytes at `data` are readable and do not change from the call
// until `release(ctx)` is called (or, with a NULL `release`, for the rest of the process),
// so any thread may read them; and `release` may be called, once, from any thread, with
// `ctx` (which this type never dereferences). Nothing here is mutated after `new`.
unsafe impl Send for External {}
// SAFETY: as for `Send`: shared access only ever reads the immutable bytes.
unsafe impl Sync for External {}

impl External {
    /// Checks C's arguments before anything reads the bytes: `data` NULL with a non-zero
    /// `len` is `DT_ERR_NULL`, `len` past `DT_MAX_LEN` is `DT_ERR_TOO_LONG`. NULL `data`
    /// with `len == 0` is the empty string. On an error nothing owns the memory (and
    /// nothing will call `release`).
    pub(crate) fn new(
        data: *const u8,
        len: usize,
        release: dt_release_fn,
        ctx: *mut c_void,
    ) -> Result<External, dt_status> {
        if len > 0 && data.is_null() {
            return Err(dt_status::DT_ERR_NULL);
        }
        if len > DT_MAX_LEN {
            return Err(dt_status::DT_ERR_TOO_LONG);
        }
        Ok(External { data, len, release, ctx })
    }

    /// Gives the memory back to C without calling `release` (a refused string).
    pub(crate) fn disown(mut self) {
        self.release = None;
    }
}

impl AsRef<[u8]> for External {
    fn as_ref(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: `data` is non-NULL and `len` at most DT_MAX_LEN (checked in `new`, far
        // below isize::MAX); by the contract above the bytes stay readable and unchanged
        // while this owner lives (it calls `release` only when dropped), and `u8` needs no
        // alignment.
        unsafe { std::slice::from_raw_parts(self.data, self.len) }
    }
}

impl Drop for External {
    fn drop(&mut self) {
        if let Some(release) = self.release.take() {
            // SAFETY: C's callback, called once (`take` leaves `None` behind) with the
            // `ctx` it was given, as the header promises. It is `extern "C"`: an unwind out
            // of it aborts instead of crossing into Rust frames.
            unsafe { release(self.ctx) }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    unsafe extern "C" fn count(ctx: *mut c_void) {
        // SAFETY: the tests pass a pointer to a live `AtomicUsize`.
        unsafe { &*ctx.cast::<AtomicUsize>() }.fetch_add(1, Ordering::SeqCst);
    }

    fn ctx(calls: &AtomicUsize) -> *mut c_void {
        std::ptr::from_ref(calls).cast_mut().cast()
    }

    #[test]
    fn arguments_are_checked_before_any_read() {
        let calls = AtomicUsize::new(0);
        let bad = std::ptr::dangling::<u8>();
        assert!(matches!(External::new(std::ptr::null(), 1, Some(count), ctx(&calls)), Err(dt_status::DT_ERR_NULL)));
        assert!(matches!(
            External::new(bad, DT_MAX_LEN + 1, Some(count), ctx(&calls)),
            Err(dt_status::DT_ERR_TOO_LONG)
        ));
        let empty = External::new(std::ptr::null(), 0, Some(count), ctx(&calls)).unwrap();
        assert_eq!(empty.as_ref(), b"");
        drop(empty);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn drop_releases_once_and_disown_never() {
        let calls = AtomicUsize::new(0);
        let bytes = *b"C memory";
        let owner = External::new(bytes.as_ptr(), bytes.len(), Some(count), ctx(&calls)).unwrap();
        assert_eq!(owner.as_ref().as_ptr(), bytes.as_ptr());
        drop(owner);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        External::new(bytes.as_ptr(), bytes.len(), Some(count), ctx(&calls)).unwrap().disown();
        assert_eq!(calls.load(Ordering::SeqCst), 1);
        drop(External::new(bytes.as_ptr(), bytes.len(), None, std::ptr::null_mut()).unwrap());
    }
}
