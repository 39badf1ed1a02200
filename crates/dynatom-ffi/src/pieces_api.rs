//! `dt_pieces_*`: a list of string pieces written with `writev`, never joined unless asked.

use std::ffi::c_int;

use dynatom_core::{ByteStr, PartialWrite, Pieces};

use crate::guard::{guarded, status};
use crate::handles::{atom_ref, str_ref, str_to_c};
use crate::objects::{self, FreedShells, Opaque};
use crate::pointers::{bytes, out_optional, set_errno, with_fd, Out};
use crate::{dt_atom, dt_status, dt_str};

/// A list of pieces (each a string reference or a copy of some bytes), written to a file
/// descriptor with `writev` or joined into one string.
///
/// Thread safety: one thread at a time; it may move between threads between calls.
pub struct dt_pieces {
    _opaque: [u8; 0],
}

/// The kind's name: Rust only ever holds a pointer to a `dt_pieces` (no value of this type
/// is made), and what it points at is read through the `dt_pieces_*` functions.
impl std::fmt::Debug for dt_pieces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dt_pieces")
    }
}

impl Opaque for dt_pieces {
    const MAGIC: u64 = u64::from_le_bytes(*b"dt_piece");
    type Inner = Pieces;
    fn freed() -> &'static FreedShells<Pieces> {
        static FREED: FreedShells<Pieces> = FreedShells::new();
        &FREED
    }
}

/// `EIO`: a writer that accepted nothing without an OS error.
const EIO: i32 = 5;

/// A new, empty piece list in `*out`.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_pieces_new(out: *mut *mut dt_pieces) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        out.write(objects::new::<dt_pieces>(Pieces::new())?);
        Ok(())
    })
}

/// Appends `*s` as a piece: a new reference, no copy (`*s` stays the caller's).
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_append_str(p: *mut dt_pieces, s: *const dt_str) -> dt_status {
    status(|| {
        let pieces = objects::get_mut(p)?;
        pieces.push(str_ref(s)?.clone());
        Ok(())
    })
}

/// Appends the atom's bytes as a piece: a new reference, no copy.
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_append_atom(p: *mut dt_pieces, a: *const dt_atom) -> dt_status {
    status(|| {
        let pieces = objects::get_mut(p)?;
        pieces.push(atom_ref(a)?.clone());
        Ok(())
    })
}

/// Appends a copy of the `len` bytes at `data` as a piece. (Empty pieces, here and in
/// the other `dt_pieces_append_*` functions, are not kept: `dt_pieces_count` does not change.)
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_append_bytes(p: *mut dt_pieces, data: *const u8, len: usize) -> dt_status {
    status(|| {
        let pieces = objects::get_mut(p)?;
        pieces.push(ByteStr::try_copy_from_slice(bytes(data, len)?)?);
        Ok(())
    })
}

/// Total bytes in the pieces; 0 for NULL or an invalid list.
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_len(p: *const dt_pieces) -> usize {
    guarded(|| objects::get(p).map_or(0, Pieces::len))
}

/// Number of pieces; 0 for NULL or an invalid list.
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_count(p: *const dt_pieces) -> usize {
    guarded(|| objects::get(p).map_or(0, Pieces::piece_count))
}

/// Writes every piece to `fd` with `writev` (up to 1024 pieces a call), resuming partial
/// writes and retrying `EINTR`; the joined string is never made. `*written` (may be NULL)
/// receives the bytes written. `DT_ERR_IO` on a write error: `*written` then says how
/// many bytes got through and `errno` is the write's error (e.g. `EPIPE` for a pipe
/// whose reader has gone, with SIGPIPE ignored; `EBADF` for a closed or negative fd).
/// The fd stays open and blocking mode is not changed.
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_writev(p: *const dt_pieces, fd: c_int, written: *mut usize) -> dt_status {
    status(|| {
        let pieces = objects::get(p)?;
        match with_fd(fd, |file| pieces.write_to(file)).and_then(|result| result) {
            Ok(n) => {
                out_optional(written, n);
                Ok(())
            }
            Err(err) => {
                let partial = PartialWrite::of(&err);
                let n = partial.map_or(0, PartialWrite::written);
                let errno = partial.and_then(|p| p.error().raw_os_error()).or(err.raw_os_error()).unwrap_or(EIO);
                drop(err);
                out_optional(written, n);
                set_errno(errno);
                Err(dt_status::DT_ERR_IO)
            }
        }
    })
}

/// The pieces joined into one new string in `*out` (one allocation, one copy).
///
/// Thread safety: one thread at a time per piece list.
#[no_mangle]
pub extern "C" fn dt_pieces_to_str(p: *const dt_pieces, out: *mut dt_str) -> dt_status {
    status(|| {
        let (pieces, out) = (objects::get(p)?, Out::new(out)?);
        out.write(str_to_c(pieces.try_to_byte_str()?));
        Ok(())
    })
}

/// Frees a piece list and its references. A second free of the same pointer is
/// `DT_ERR_RELEASED`, until the memory is reused (see "Freed objects" at the top of the
/// header).
///
/// Thread safety: one thread, with no other call on this list running.
#[no_mangle]
pub extern "C" fn dt_pieces_free(p: *mut dt_pieces) -> dt_status {
    status(|| objects::free(p).map(drop))
}
