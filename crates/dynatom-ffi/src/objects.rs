//! The opaque objects (`dt_table`, `dt_builder`, `dt_pieces`, `dt_interner`): one
//! allocation each, a magic word in front of the Rust value.
//!
//! ```text
//! C's dt_table *  ──►  +------------------+---------------------------+
//!                      | magic: u64       | value: the Rust object    |
//!                      +------------------+---------------------------+
//! ```
//!
//! The magic names the kind (`b"dt_table"` as a little-endian u64, and so on), so a
//! pointer to another kind of object is `DT_ERR_INVALID_HANDLE` instead of a
//! misread. Freeing writes `b"dt_freed"` first; reading a freed object is invalid in C
//! too, so that is only a best effort (the allocator may reuse the word at once).

use std::alloc::{alloc, dealloc, Layout};

use crate::dt_status;

/// A C-visible opaque type and the Rust value behind it.
pub(crate) trait Opaque: Sized {
    /// This kind's magic word.
    const MAGIC: u64;
    /// What the object holds.
    type Inner;
}

const FREED: u64 = u64::from_le_bytes(*b"dt_freed");

/// The allocation behind an opaque pointer.
#[repr(C)]
pub(crate) struct Boxed<T> {
    magic: u64,
    value: T,
}

impl<T> Boxed<T> {
    /// An object that lives in a `static` (the global table).
    pub(crate) const fn new_static<H: Opaque<Inner = T>>(value: T) -> Boxed<T> {
        Boxed { magic: H::MAGIC, value }
    }

    /// C's pointer to a `static` object; such an object must never reach [`free`].
    pub(crate) fn static_ptr<H: Opaque<Inner = T>>(&'static self) -> *mut H {
        std::ptr::from_ref(self).cast_mut().cast()
    }
}

/// Moves `value` into a new object. Allocation failure is `DT_ERR_ALLOC`.
pub(crate) fn new<H: Opaque>(value: H::Inner) -> Result<*mut H, dt_status> {
    let layout = Layout::new::<Boxed<H::Inner>>();
    // SAFETY: `Boxed` holds a u64, so the layout's size is non-zero.
    let object = unsafe { alloc(layout) }.cast::<Boxed<H::Inner>>();
    if object.is_null() {
        return Err(dt_status::DT_ERR_ALLOC);
    }
    // SAFETY: `object` is a fresh allocation of `Boxed<H::Inner>`'s layout.
    unsafe { object.write(Boxed { magic: H::MAGIC, value }) };
    Ok(object.cast())
}

/// Checks C's pointer and returns the object's allocation.
fn checked<H: Opaque>(object: *const H) -> Result<*mut Boxed<H::Inner>, dt_status> {
    if object.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    let object = object.cast::<Boxed<H::Inner>>().cast_mut();
    if !object.is_aligned() {
        return Err(dt_status::DT_ERR_INVALID_HANDLE);
    }
    // SAFETY: non-NULL and aligned; by the header's rule the pointer came from this
    // library, and every object it makes starts with a u64 magic word.
    let magic = unsafe { std::ptr::addr_of!((*object).magic).read() };
    match magic {
        m if m == H::MAGIC => Ok(object),
        FREED => Err(dt_status::DT_ERR_RELEASED),
        _ => Err(dt_status::DT_ERR_INVALID_HANDLE),
    }
}

/// Borrows the value behind C's pointer for the call.
pub(crate) fn get<'a, H: Opaque>(object: *const H) -> Result<&'a H::Inner, dt_status> {
    let object = checked(object)?;
    // SAFETY: `checked` found this kind's magic, so this is a live `Boxed<H::Inner>`;
    // shared access only, as the header allows for this call.
    Ok(unsafe { &(*object).value })
}

/// Borrows the value behind C's pointer mutably for the call.
pub(crate) fn get_mut<'a, H: Opaque>(object: *mut H) -> Result<&'a mut H::Inner, dt_status> {
    let object = checked(object)?;
    // SAFETY: a live `Boxed<H::Inner>` (magic checked); the header makes the caller use
    // such an object from one thread at a time, so nothing else borrows it now. Never
    // called for the static global table.
    Ok(unsafe { &mut (*object).value })
}

/// Frees the object behind C's pointer and hands its value back.
pub(crate) fn free<H: Opaque>(object: *mut H) -> Result<H::Inner, dt_status> {
    let object = checked(object)?;
    // SAFETY: a live `Boxed<H::Inner>` allocated by `new` (statics never get here: their
    // owners check first). The value is moved out, the magic overwritten, then the
    // allocation freed with the layout it was made with.
    let value = unsafe {
        let value = std::ptr::addr_of!((*object).value).read();
        std::ptr::addr_of_mut!((*object).magic).write(FREED);
        dealloc(object.cast(), Layout::new::<Boxed<H::Inner>>());
        value
    };
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Thing;
    impl Opaque for Thing {
        const MAGIC: u64 = u64::from_le_bytes(*b"dt_thing");
        type Inner = Vec<u8>;
    }
    struct Other;
    impl Opaque for Other {
        const MAGIC: u64 = u64::from_le_bytes(*b"dt_other");
        type Inner = Vec<u8>;
    }

    #[test]
    fn objects_round_trip_and_reject_the_wrong_kind() {
        let thing = new::<Thing>(vec![1, 2]).unwrap();
        get_mut(thing).unwrap().push(3);
        assert_eq!(get(thing).unwrap(), &[1, 2, 3]);
        assert_eq!(get(thing.cast::<Other>()).err(), Some(dt_status::DT_ERR_INVALID_HANDLE));
        assert_eq!(get::<Thing>(std::ptr::null()).err(), Some(dt_status::DT_ERR_NULL));
        assert_eq!(free(thing).unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn statics_are_found_by_their_magic() {
        static STATIC: Boxed<Vec<u8>> = Boxed::new_static::<Thing>(Vec::new());
        assert!(get(STATIC.static_ptr::<Thing>()).unwrap().is_empty());
    }
}
