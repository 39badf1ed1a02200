//! The panic boundary: every entry point runs its body through [`guarded`] (or
//! [`status`], built on it), so no unwinding ever crosses into C.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::{dt_atom, dt_status, dt_str};

/// What an entry point returns when its body panicked.
pub(crate) trait OnPanic {
    /// The value C receives instead.
    fn on_panic() -> Self;
}

impl OnPanic for dt_status {
    fn on_panic() -> dt_status {
        dt_status::DT_ERR_PANIC
    }
}

impl OnPanic for usize {
    fn on_panic() -> usize {
        0
    }
}

impl OnPanic for u64 {
    fn on_panic() -> u64 {
        0
    }
}

impl OnPanic for std::ffi::c_int {
    fn on_panic() -> std::ffi::c_int {
        0
    }
}

impl OnPanic for () {
    fn on_panic() {}
}

impl<T> OnPanic for *mut T {
    fn on_panic() -> *mut T {
        std::ptr::null_mut()
    }
}

impl OnPanic for *const c_char {
    fn on_panic() -> *const c_char {
        c"internal error: the library panicked".as_ptr()
    }
}

impl OnPanic for dt_str {
    /// The all-zero, never-initialised handle: every later use reports it.
    fn on_panic() -> dt_str {
        dt_str::default()
    }
}

impl OnPanic for dt_atom {
    fn on_panic() -> dt_atom {
        dt_atom::default()
    }
}

/// Runs `body`, turning a panic into `R::on_panic()`.
///
/// `AssertUnwindSafe`: after a panic the caller gets an error and whatever the body was
/// changing is either untouched (handles are written only after the work succeeded) or
/// a dynatom value whose own invariants survive unwinding (its drops ran normally).
pub(crate) fn guarded<R: OnPanic>(body: impl FnOnce() -> R) -> R {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|_| R::on_panic())
}

/// [`guarded`] for the usual shape: a body that fails with a status.
pub(crate) fn status(body: impl FnOnce() -> Result<(), dt_status>) -> dt_status {
    guarded(|| match body() {
        Ok(()) => dt_status::DT_OK,
        Err(err) => err,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_on_panic_value() {
        let quiet = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        assert_eq!(status(|| panic!("boom")), dt_status::DT_ERR_PANIC);
        assert_eq!(guarded::<usize>(|| panic!("boom")), 0);
        assert!(guarded::<*mut u8>(|| panic!("boom")).is_null());
        assert_eq!(guarded::<dt_str>(|| panic!("boom")), dt_str::default());
        std::panic::set_hook(quiet);
        assert_eq!(status(|| Err(dt_status::DT_ERR_RANGE)), dt_status::DT_ERR_RANGE);
        assert_eq!(status(|| Ok(())), dt_status::DT_OK);
        assert_eq!(guarded(|| 7usize), 7);
    }
}
