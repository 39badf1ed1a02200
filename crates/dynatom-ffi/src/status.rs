//! [`dt_status`], the result of every fallible call, and its messages.

use std::ffi::c_char;

use dynatom_core::interner::InternerError;
use dynatom_core::StrError;

use crate::guard::guarded;

/// The result of every fallible call. `DT_OK` is 0; every other value is an error whose
/// text `dt_status_message` gives. On an error, nothing was consumed unless the
/// function's documentation says so, and out-parameters are left as they were.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum dt_status {
    /// Success.
    DT_OK = 0,
    /// A required pointer was NULL (or a length was non-zero with a NULL data pointer).
    DT_ERR_NULL = 1,
    /// A length exceeds `DT_MAX_LEN` (or a count exceeds what memory can hold).
    DT_ERR_TOO_LONG = 2,
    /// The allocator could not provide the memory.
    DT_ERR_ALLOC = 3,
    /// A byte range is out of bounds or reversed.
    DT_ERR_RANGE = 4,
    /// The bytes are not UTF-8 where text is required (the interner).
    DT_ERR_UTF8 = 5,
    /// A handle or object is not valid: an all-zero (never initialised) handle, words
    /// without a handle's shape, a misaligned pointer, or an object of another kind. Forged
    /// words with a handle's shape are not detected (see the header's "What is checked").
    DT_ERR_INVALID_HANDLE = 6,
    /// The handle variable passed holds the released marker, or the object was freed (and
    /// its memory not yet reused).
    DT_ERR_RELEASED = 7,
    /// A lookup found nothing.
    DT_ERR_NOT_FOUND = 8,
    /// A read or write failed; `errno` tells why.
    DT_ERR_IO = 9,
    /// A configured limit (symbol count or memory) would be exceeded.
    DT_ERR_LIMIT = 10,
    /// A symbol that the interner did not hand out.
    DT_ERR_INVALID_SYMBOL = 11,
    /// The library panicked (a bug); the call had no effect that can be relied on.
    DT_ERR_PANIC = 12,
}

/// Every status, in numeric order (for tests and bindings that list them).
pub(crate) const ALL: [dt_status; 13] = [
    dt_status::DT_OK,
    dt_status::DT_ERR_NULL,
    dt_status::DT_ERR_TOO_LONG,
    dt_status::DT_ERR_ALLOC,
    dt_status::DT_ERR_RANGE,
    dt_status::DT_ERR_UTF8,
    dt_status::DT_ERR_INVALID_HANDLE,
    dt_status::DT_ERR_RELEASED,
    dt_status::DT_ERR_NOT_FOUND,
    dt_status::DT_ERR_IO,
    dt_status::DT_ERR_LIMIT,
    dt_status::DT_ERR_INVALID_SYMBOL,
    dt_status::DT_ERR_PANIC,
];

/// How C passes a status *into* the library. A C enum may hold any `int`, and an
/// out-of-range value must not become an invalid Rust enum, so `dt_status_message`
/// receives the raw integer; the header still names the parameter's type `dt_status`
/// (cbindgen renames this alias and does not emit it).
pub type dt_status_code = std::ffi::c_int;

const _: () = assert!(std::mem::size_of::<dt_status>() == std::mem::size_of::<dt_status_code>());

impl dt_status {
    fn message(self) -> &'static std::ffi::CStr {
        match self {
            dt_status::DT_OK => c"success",
            dt_status::DT_ERR_NULL => c"a required pointer was NULL",
            dt_status::DT_ERR_TOO_LONG => c"length exceeds the maximum (DT_MAX_LEN bytes)",
            dt_status::DT_ERR_ALLOC => c"memory allocation failed",
            dt_status::DT_ERR_RANGE => c"byte range out of bounds",
            dt_status::DT_ERR_UTF8 => c"bytes are not valid UTF-8",
            dt_status::DT_ERR_INVALID_HANDLE => c"invalid handle or object (uninitialised, corrupt or wrong kind)",
            dt_status::DT_ERR_RELEASED => c"handle or object already released",
            dt_status::DT_ERR_NOT_FOUND => c"not found",
            dt_status::DT_ERR_IO => c"I/O error (see errno)",
            dt_status::DT_ERR_LIMIT => c"a configured limit would be exceeded",
            dt_status::DT_ERR_INVALID_SYMBOL => c"symbol not from this interner",
            dt_status::DT_ERR_PANIC => c"internal error: the library panicked",
        }
    }
}

impl From<StrError> for dt_status {
    fn from(err: StrError) -> dt_status {
        match err {
            StrError::TooLong { .. } => dt_status::DT_ERR_TOO_LONG,
            StrError::AllocFailed { .. } => dt_status::DT_ERR_ALLOC,
            StrError::InvalidUtf8(_) => dt_status::DT_ERR_UTF8,
            // `StrError` is non-exhaustive; a kind added later is still a failure to
            // make the string, and allocation is the only other way that can happen.
            _ => dt_status::DT_ERR_ALLOC,
        }
    }
}

impl From<InternerError> for dt_status {
    fn from(_: InternerError) -> dt_status {
        // Every interner error is a limit: symbol space, memory cap or text space.
        dt_status::DT_ERR_LIMIT
    }
}

/// Static, NUL-terminated English text for a status; never NULL. An integer that is not
/// a status gives "unknown status".
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_status_message(status: dt_status_code) -> *const c_char {
    guarded(|| message_for(status).as_ptr())
}

fn message_for(status: dt_status_code) -> &'static std::ffi::CStr {
    let known = usize::try_from(status).ok().and_then(|index| ALL.get(index));
    known.map_or(c"unknown status", |status| status.message())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_status_at_its_value() {
        for (index, status) in ALL.iter().enumerate() {
            assert_eq!(*status as usize, index);
        }
    }

    #[test]
    fn every_status_has_its_own_message() {
        let texts: std::collections::HashSet<&str> = ALL.iter().map(|s| s.message().to_str().unwrap()).collect();
        assert_eq!(texts.len(), ALL.len());
        assert_eq!(message_for(99), c"unknown status");
        assert_eq!(message_for(-1), c"unknown status");
        assert_eq!(message_for(dt_status::DT_ERR_IO as dt_status_code), c"I/O error (see errno)");
        assert_eq!(dt_status_message(0), message_for(0).as_ptr());
    }
}
