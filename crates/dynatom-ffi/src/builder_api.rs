//! `dt_builder_*`: building a string piece by piece, finished without a copy.

use dynatom_core::ByteStrBuilder;

use crate::guard::{guarded, status};
use crate::handles::{str_ref, str_to_c};
use crate::objects::{self, FreedShells, Opaque};
use crate::pointers::{bytes, Out};
use crate::{dt_status, dt_str};

/// A string under construction: appends go straight into the block that
/// `dt_builder_finish` hands over, so finishing copies nothing.
///
/// Thread safety: one thread at a time; it may move between threads between calls.
pub struct dt_builder {
    _opaque: [u8; 0],
}

/// The kind's name: Rust only ever holds a pointer to a `dt_builder` (no value of this type
/// is made), and what it points at is read through the `dt_builder_*` functions.
impl std::fmt::Debug for dt_builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dt_builder")
    }
}

impl Opaque for dt_builder {
    const MAGIC: u64 = u64::from_le_bytes(*b"dt_build");
    type Inner = ByteStrBuilder;
    fn freed() -> &'static FreedShells<ByteStrBuilder> {
        static FREED: FreedShells<ByteStrBuilder> = FreedShells::new();
        &FREED
    }
}

/// A new, empty builder with room for `capacity` bytes, in `*out`. `DT_ERR_TOO_LONG` past
/// `DT_MAX_LEN`, `DT_ERR_ALLOC` if the room cannot be allocated.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_builder_new(capacity: usize, out: *mut *mut dt_builder) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let builder = ByteStrBuilder::try_with_capacity(capacity)?;
        out.write(objects::new::<dt_builder>(builder)?);
        Ok(())
    })
}

/// Appends the `len` bytes at `data`. On error (`DT_ERR_TOO_LONG`, `DT_ERR_ALLOC`) the
/// builder is unchanged.
///
/// Thread safety: one thread at a time per builder.
#[no_mangle]
pub extern "C" fn dt_builder_append_bytes(b: *mut dt_builder, data: *const u8, len: usize) -> dt_status {
    status(|| {
        let builder = objects::get_mut(b)?;
        builder.try_push_bytes(bytes(data, len)?)?;
        Ok(())
    })
}

/// Appends the bytes of `*s` (which stays valid).
///
/// Thread safety: one thread at a time per builder.
#[no_mangle]
pub extern "C" fn dt_builder_append_str(b: *mut dt_builder, s: *const dt_str) -> dt_status {
    status(|| {
        let builder = objects::get_mut(b)?;
        builder.try_push_bytes(str_ref(s)?.as_bytes())?;
        Ok(())
    })
}

/// Bytes appended so far; 0 for NULL or an invalid builder.
///
/// Thread safety: one thread at a time per builder.
#[no_mangle]
pub extern "C" fn dt_builder_len(b: *const dt_builder) -> usize {
    guarded(|| objects::get(b).map_or(0, ByteStrBuilder::len))
}

/// Turns the builder into a string in `*out`, without copying the bytes. Consumes `b`:
/// it is freed even when the call fails (`DT_ERR_NULL` for a NULL `out`, `DT_ERR_ALLOC`),
/// except when `b` itself is NULL, not a builder or already freed (`DT_ERR_RELEASED`:
/// see "Freed objects" at the top of the header).
///
/// Thread safety: one thread, with no other call on this builder running.
#[no_mangle]
pub extern "C" fn dt_builder_finish(b: *mut dt_builder, out: *mut dt_str) -> dt_status {
    status(|| {
        let builder = objects::free(b)?;
        let out = Out::new(out)?;
        out.write(str_to_c(builder.try_finish()?));
        Ok(())
    })
}

/// Frees a builder without finishing it. A second free of the same pointer (or a free
/// after `dt_builder_finish`) is `DT_ERR_RELEASED`, until the memory is reused (see
/// "Freed objects" at the top of the header).
///
/// Thread safety: one thread, with no other call on this builder running.
#[no_mangle]
pub extern "C" fn dt_builder_free(b: *mut dt_builder) -> dt_status {
    status(|| objects::free(b).map(drop))
}
