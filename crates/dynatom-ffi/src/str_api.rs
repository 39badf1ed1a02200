//! `dt_str_*`: byte strings from C.

use std::ffi::{c_int, c_void};

use dynatom_core::{ByteStr, FromOwnerError, Str};

use crate::external::{dt_release_fn, External};
use crate::guard::{guarded, status};
use crate::handles::{release_str, str_ref, str_to_c};
use crate::pointers::{array, bytes, Out};
use crate::{dt_status, dt_str};

/// Copies `len` bytes at `data` into a new string in `*out` (one allocation past 15
/// bytes, no hashing). Any bytes are fine, NUL included. `DT_ERR_NULL` for a NULL
/// `out`, or `data` with `len > 0`; `DT_ERR_TOO_LONG` past `DT_MAX_LEN`; `DT_ERR_ALLOC`.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_from_bytes(data: *const u8, len: usize, out: *mut dt_str) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let s = ByteStr::try_copy_from_slice(bytes(data, len)?)?;
        out.write(str_to_c(s));
        Ok(())
    })
}

/// A new string in `*out` over the `len` bytes at `data`, which the caller already owns
/// and the library does NOT copy (past 15 bytes): one allocation for a small control
/// block, no hashing. Any bytes are fine; `dt_str_from_external_utf8` checks for text.
///
/// The caller's promise: the bytes stay readable and unchanged until `release(ctx)` is
/// called (with a NULL `release`: for the rest of the process, e.g. static data).
///
/// - On `DT_OK`, `release(ctx)` (unless NULL) is called exactly once: when the last
///   handle of the string (clones and slices included) is released, on whichever thread
///   that is. Strings of up to 15 bytes are copied into the handle instead, and
///   `release(ctx)` is called before this function returns; NULL `data` with `len == 0`
///   is such a string (the empty one).
/// - On any error, `release` is NOT called: the caller still owns the memory and `*out`
///   is untouched. `DT_ERR_NULL` for a NULL `out`, or NULL `data` with `len > 0`;
///   `DT_ERR_TOO_LONG` past `DT_MAX_LEN` (checked before any byte is read);
///   `DT_ERR_ALLOC` if the control block cannot be allocated.
/// - `release` must not unwind; it may call any `dt_` function (the library holds no
///   lock while it runs). Releasing a handle twice is `DT_ERR_RELEASED`, as for every
///   string, and does not call `release` again.
/// - `dt_str_bytes` of a longer string returns `data` itself; interning it
///   (`dt_table_intern_str`) copies the bytes into the table, so an atom never keeps the
///   caller's memory.
///
/// Thread safety: any thread; `release` may run on any thread.
#[no_mangle]
pub extern "C" fn dt_str_from_external(
    data: *const u8,
    len: usize,
    release: dt_release_fn,
    ctx: *mut c_void,
    out: *mut dt_str,
) -> dt_status {
    status(|| from_external(data, len, release, ctx, out, ByteStr::try_from_owner))
}

/// `dt_str_from_external` for text: the same string, ownership and `release` rules, but
/// the bytes must be UTF-8 (checked once, here): `DT_ERR_UTF8` otherwise, and `release`
/// is not called (the caller still owns the memory).
///
/// Thread safety: any thread; `release` may run on any thread.
#[no_mangle]
pub extern "C" fn dt_str_from_external_utf8(
    data: *const u8,
    len: usize,
    release: dt_release_fn,
    ctx: *mut c_void,
    out: *mut dt_str,
) -> dt_status {
    status(|| from_external(data, len, release, ctx, out, |owner| Str::try_from_owner(owner).map(Str::into_byte_str)))
}

/// The two `dt_str_from_external*` functions, which differ only in how `make` checks the
/// bytes. Each runs it inside its own `status(||`, as every entry point does.
fn from_external(
    data: *const u8,
    len: usize,
    release: dt_release_fn,
    ctx: *mut c_void,
    out: *mut dt_str,
    make: impl FnOnce(External) -> Result<ByteStr, FromOwnerError<External>>,
) -> Result<(), dt_status> {
    let out = Out::new(out)?;
    let owner = External::new(data, len, release, ctx)?;
    out.write(str_to_c(make(owner).map_err(refused)?));
    Ok(())
}

/// A refused owner goes back to C without its `release` call.
fn refused(err: FromOwnerError<External>) -> dt_status {
    let (owner, reason) = err.into_parts();
    owner.disown();
    reason.into()
}

/// The empty string, in `*out` (allocates nothing; releasing it is allowed and does
/// nothing). `DT_ERR_NULL` for a NULL `out`.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_empty(out: *mut dt_str) -> dt_status {
    status(|| {
        Out::new(out)?.write(str_to_c(ByteStr::new()));
        Ok(())
    })
}

/// A new reference to the string in `*s`, in `*out` (O(1): a count, or a copy of the
/// inline words). `DT_ERR_NULL`, `DT_ERR_INVALID_HANDLE`, `DT_ERR_RELEASED` as for every
/// handle argument.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_clone(s: *const dt_str, out: *mut dt_str) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let copy = str_ref(s)?.clone();
        out.write(str_to_c(copy));
        Ok(())
    })
}

/// Gives back the reference held by `*s` and overwrites it with the released marker; a
/// second release of the same variable is `DT_ERR_RELEASED`, a never-initialised (all
/// zero) one `DT_ERR_INVALID_HANDLE`. (A *copy* of a released handle cannot be detected.)
///
/// Thread safety: any thread, but not while another thread uses this same variable.
#[no_mangle]
pub extern "C" fn dt_str_release(s: *mut dt_str) -> dt_status {
    status(|| release_str(s))
}

/// The bytes of `*s`: `*data` (not NUL-terminated) and `*len`. Strings of up to 15 bytes
/// are stored in the handle, so `*data` may point INTO `*s`: it is valid while `*s` stays
/// where it is and is not released; longer strings' bytes live as long as any reference.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_bytes(s: *const dt_str, data: *mut *const u8, len: *mut usize) -> dt_status {
    status(|| {
        let (data, len) = (Out::new(data)?, Out::new(len)?);
        let s = str_ref(s)?;
        let (ptr, n) = (s.as_ptr(), s.len());
        data.write(ptr);
        len.write(n);
        Ok(())
    })
}

/// The length of `*s` in bytes; 0 for NULL or an invalid or released handle.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_len(s: *const dt_str) -> usize {
    guarded(|| str_ref(s).map_or(0, ByteStr::len))
}

/// The bytes `[start, end)` of `*s` as a new string in `*out`, in O(1) (long strings
/// share the block; up to 15 bytes are copied into the handle). `DT_ERR_RANGE` unless
/// `start <= end <= len`. `out` may be `s` itself (the old reference is then NOT released).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_slice(s: *const dt_str, start: usize, end: usize, out: *mut dt_str) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let part = str_ref(s)?.get_slice(start..end).ok_or(dt_status::DT_ERR_RANGE)?;
        out.write(str_to_c(part));
        Ok(())
    })
}

/// The `count` strings at `parts` joined into one new string in `*out` (one allocation).
/// `parts` may be NULL when `count` is 0 (the result is empty). `DT_ERR_TOO_LONG` if the
/// total passes `DT_MAX_LEN`; any invalid element fails the whole call.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_concat(parts: *const dt_str, count: usize, out: *mut dt_str) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let parts = array(parts, count)?;
        let mut slices: Vec<&[u8]> = Vec::new();
        slices.try_reserve_exact(parts.len()).map_err(|_| dt_status::DT_ERR_ALLOC)?;
        for part in parts {
            slices.push(str_ref(part)?.as_bytes());
        }
        out.write(str_to_c(ByteStr::try_concat(&slices)?));
        Ok(())
    })
}

/// 1 if `*a` and `*b` hold the same bytes, else 0 (also 0 if either is NULL, invalid or
/// released).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_equal(a: *const dt_str, b: *const dt_str) -> c_int {
    guarded(|| match (str_ref(a), str_ref(b)) {
        (Ok(a), Ok(b)) => c_int::from(a.as_bytes() == b.as_bytes()),
        _ => 0,
    })
}

/// 1 if the bytes of `*s` are valid UTF-8, else 0 (also 0 for an invalid handle).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_str_is_utf8(s: *const dt_str) -> c_int {
    guarded(|| str_ref(s).map_or(0, |s| c_int::from(s.is_utf8())))
}
