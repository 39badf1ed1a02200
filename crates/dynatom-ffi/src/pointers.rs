//! C's raw pointers that are not handles: `data`/`len` byte buffers, out-parameters,
//! arrays of handles, and file descriptors. Each is checked here (NULL, length,
//! alignment) and turned into a Rust reference in exactly one `unsafe` block.
//!
//! The lifetimes handed back are unbounded: they are used only for the duration of the
//! C call that passed the pointer, which is what the header's rules promise.

use std::fs::File;
use std::mem::ManuallyDrop;
use std::os::fd::{FromRawFd, RawFd};

use crate::{dt_status, DT_MAX_LEN};

/// Borrows C's `data`/`len` pair. `len == 0` accepts any `data`, NULL included.
pub(crate) fn bytes<'a>(data: *const u8, len: usize) -> Result<&'a [u8], dt_status> {
    if len == 0 {
        return Ok(&[]);
    }
    if data.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    if len > DT_MAX_LEN {
        return Err(dt_status::DT_ERR_TOO_LONG);
    }
    // SAFETY: `data` is non-NULL and, by the header's rule for every `data`/`len` pair,
    // points at `len` readable bytes that C does not change during the call; `len` is at
    // most DT_MAX_LEN (4 GiB), far below isize::MAX, and `u8` needs no alignment.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// The checks of both array borrows: `false` for an empty array (NULL accepted), `true`
/// for `count` elements at a non-NULL, aligned address whose byte size fits in `isize`.
fn holds_elements<T>(items: *const T, count: usize) -> Result<bool, dt_status> {
    if count == 0 {
        return Ok(false);
    }
    if items.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    if count > isize::MAX as usize / std::mem::size_of::<T>().max(1) {
        return Err(dt_status::DT_ERR_TOO_LONG);
    }
    if !items.is_aligned() {
        return Err(dt_status::DT_ERR_INVALID_HANDLE);
    }
    Ok(true)
}

/// Borrows C's array of `count` elements (handles, static-set entries). `count == 0`
/// accepts NULL.
pub(crate) fn array<'a, T>(items: *const T, count: usize) -> Result<&'a [T], dt_status> {
    if !holds_elements(items, count)? {
        return Ok(&[]);
    }
    // SAFETY: non-NULL, aligned (checked above), and by the header's rule `count`
    // readable elements; the byte size fits in isize (checked above). `T` here is a
    // plain-words type (a handle, or `dt_static_entry`: pointers, lengths and a word),
    // valid for any initialised bit pattern.
    Ok(unsafe { std::slice::from_raw_parts(items, count) })
}

/// Borrows C's writable array of `count` elements (a buffer the call fills). `count == 0`
/// accepts NULL.
pub(crate) fn array_mut<'a, T: Copy>(items: *mut T, count: usize) -> Result<&'a mut [T], dt_status> {
    if !holds_elements(items.cast_const(), count)? {
        return Ok(&mut []);
    }
    // SAFETY: non-NULL, aligned (checked above), and by the header's rule `count`
    // writable elements that nothing else touches during the call; the byte size fits in
    // isize (checked above). `T` is a plain word (`Copy`, any bit pattern valid), so the
    // slice may be read before it is written.
    Ok(unsafe { std::slice::from_raw_parts_mut(items, count) })
}

/// A checked out-parameter: non-NULL and aligned. It is checked when the call starts
/// (so bad arguments fail before anything happens) but written only at the end, so
/// that it may alias an input handle (`dt_str_slice(&s, 0, 1, &s)`) without a
/// reference to the input being alive while it is written.
pub(crate) struct Out<T>(*mut T);

impl<T> Out<T> {
    /// Checks C's pointer; NULL is `DT_ERR_NULL`.
    pub(crate) fn new(slot: *mut T) -> Result<Out<T>, dt_status> {
        if slot.is_null() {
            return Err(dt_status::DT_ERR_NULL);
        }
        if !slot.is_aligned() {
            return Err(dt_status::DT_ERR_INVALID_HANDLE);
        }
        Ok(Out(slot))
    }

    /// Stores `value` (whatever the slot held before is overwritten, not dropped: C
    /// rarely initialises out-parameters).
    pub(crate) fn write(self, value: T) {
        // SAFETY: non-NULL and aligned (checked in `new`); by the header's rule an
        // out-parameter points at writable memory of its type, and no reference into it
        // is alive here (inputs are borrowed only inside the entry point's earlier steps).
        unsafe { self.0.write(value) }
    }
}

/// Writes `value` to an optional out-parameter (NULL: not wanted).
pub(crate) fn out_optional<T>(slot: *mut T, value: T) {
    if let Ok(slot) = Out::new(slot) {
        slot.write(value);
    }
}

/// Runs `body` with C's file descriptor as a `File` that is never closed here.
/// A negative descriptor is `EBADF` without a system call.
pub(crate) fn with_fd<R>(fd: RawFd, body: impl FnOnce(&mut File) -> R) -> Result<R, std::io::Error> {
    if fd < 0 {
        return Err(std::io::Error::from_raw_os_error(EBADF));
    }
    // SAFETY: `fd` is non-negative; the caller lends it for the call (the header says so)
    // and `ManuallyDrop` keeps Rust from closing it: the `File` never outlives `body`.
    let mut file = ManuallyDrop::new(unsafe { File::from_raw_fd(fd) });
    Ok(body(&mut file))
}

const EBADF: i32 = 9;

/// Leaves `code` in C's `errno`, so that a failed `writev` can be diagnosed after the
/// library's own clean-up (which may call `free`) has run.
pub(crate) fn set_errno(code: i32) {
    #[cfg(target_os = "linux")]
    {
        extern "C" {
            fn __errno_location() -> *mut std::ffi::c_int;
        }
        // SAFETY: `__errno_location` (glibc and musl) returns the calling thread's errno
        // slot, valid and writable for the thread's life.
        unsafe { *__errno_location() = code };
    }
    #[cfg(not(target_os = "linux"))]
    let _ = code;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_checks_null_and_length_before_reading() {
        assert_eq!(bytes(std::ptr::null(), 0), Ok(&[][..]));
        assert_eq!(bytes(std::ptr::null(), 1), Err(dt_status::DT_ERR_NULL));
        let one = [7u8];
        assert_eq!(bytes(one.as_ptr(), DT_MAX_LEN + 1), Err(dt_status::DT_ERR_TOO_LONG));
        assert_eq!(bytes(one.as_ptr(), 1), Ok(&[7u8][..]));
    }

    #[test]
    fn out_rejects_null_and_writes_through() {
        assert_eq!(Out::<u32>::new(std::ptr::null_mut()).err().map(|e| e as u32), Some(1));
        let mut slot = 0u32;
        Out::new(&mut slot).unwrap().write(5);
        assert_eq!(slot, 5);
        out_optional(std::ptr::null_mut::<u32>(), 1);
    }

    #[test]
    fn negative_fd_is_ebadf() {
        let err = with_fd(-1, |_| ()).unwrap_err();
        assert_eq!(err.raw_os_error(), Some(EBADF));
    }
}
