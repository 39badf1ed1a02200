//! `dt_interner`: the 4-byte-symbol [`Interner`] for C compilers and parsers.
//!
//! Symbols are the interner's non-zero `u32`s (0 is never a symbol, so C can use it as
//! "none"). Strings must be UTF-8: the interner hands out text.

use std::num::NonZeroU32;

use dynatom_core::interner::{Interner, Limits, Symbol};

use crate::dt_status;
use crate::guard::{guarded, status};
use crate::objects::{self, FreedShells, Opaque};
use crate::pointers::{bytes, Out};

/// A single-threaded string interner: 4-byte symbols, strings packed in chunks that never
/// move (so `dt_interner_resolve`'s pointer stays valid until the interner is freed).
///
/// Thread safety: one thread at a time for every call, read-only ones included (lookups
/// update statistics counters); it may move between threads between calls.
pub struct dt_interner {
    _opaque: [u8; 0],
}

/// The kind's name: Rust only ever holds a pointer to a `dt_interner` (no value of this type
/// is made), and what it points at is read through the `dt_interner_*` functions.
impl std::fmt::Debug for dt_interner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dt_interner")
    }
}

impl Opaque for dt_interner {
    const MAGIC: u64 = u64::from_le_bytes(*b"dt_inter");
    type Inner = BoxedInterner;
    fn freed() -> &'static FreedShells<BoxedInterner> {
        static FREED: FreedShells<BoxedInterner> = FreedShells::new();
        &FREED
    }
}

/// An interner behind a pointer: a freed `dt_interner` then keeps a shell of a few words
/// (the header's promise is at most 512 bytes), whatever the size of the interner itself,
/// which goes back to the allocator with the free. (A one-element array, because that is
/// the box std makes fallibly: through a `Vec`.)
pub(crate) struct BoxedInterner(Box<[Interner; 1]>);

impl BoxedInterner {
    /// `interner` moved to the heap; `DT_ERR_ALLOC` if that memory is not there.
    fn new(interner: Interner) -> Result<BoxedInterner, dt_status> {
        let mut one = Vec::new();
        one.try_reserve_exact(1).map_err(|_| dt_status::DT_ERR_ALLOC)?;
        one.push(interner);
        let boxed = one.into_boxed_slice().try_into().map_err(|_| dt_status::DT_ERR_ALLOC)?;
        Ok(BoxedInterner(boxed))
    }
}

impl std::ops::Deref for BoxedInterner {
    type Target = Interner;
    fn deref(&self) -> &Interner {
        &self.0[0]
    }
}

impl std::ops::DerefMut for BoxedInterner {
    fn deref_mut(&mut self) -> &mut Interner {
        &mut self.0[0]
    }
}

fn text(data: *const u8, len: usize) -> Result<&'static str, dt_status> {
    std::str::from_utf8(bytes(data, len)?).map_err(|_| dt_status::DT_ERR_UTF8)
}

fn symbol_of(raw: u32) -> Result<Symbol, dt_status> {
    NonZeroU32::new(raw).map(Symbol::from_raw).ok_or(dt_status::DT_ERR_INVALID_SYMBOL)
}

/// Makes an empty interner in `*out` (free it with `dt_interner_free`).
/// `DT_ERR_NULL` if `out` is NULL; `DT_ERR_ALLOC` if the object cannot be allocated.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_interner_new(out: *mut *mut dt_interner) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        out.write(objects::new::<dt_interner>(BoxedInterner::new(Interner::new())?)?);
        Ok(())
    })
}

/// Like `dt_interner_new`, with caps: at most `max_symbols` symbols and `max_bytes` bytes
/// of interner memory; interning past either is `DT_ERR_LIMIT` (0 for either: no cap).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_interner_new_with_limits(
    max_symbols: usize,
    max_bytes: usize,
    out: *mut *mut dt_interner,
) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let defaults = Limits::default();
        let limits = Limits {
            max_symbols: if max_symbols == 0 { defaults.max_symbols } else { max_symbols },
            max_bytes: if max_bytes == 0 { defaults.max_bytes } else { max_bytes },
        };
        out.write(objects::new::<dt_interner>(BoxedInterner::new(Interner::new().with_limits(limits))?)?);
        Ok(())
    })
}

/// Frees an interner and every string it holds; pointers from `dt_interner_resolve`
/// die with it. `DT_ERR_NULL` for NULL, `DT_ERR_INVALID_HANDLE` for another kind of object,
/// `DT_ERR_RELEASED` for a second free, until the memory is reused (see "Freed objects"
/// at the top of the header).
///
/// Thread safety: one thread, with no other call on this interner running.
#[no_mangle]
pub extern "C" fn dt_interner_free(interner: *mut dt_interner) -> dt_status {
    status(|| objects::free(interner).map(drop))
}

/// The symbol of the `len` bytes at `data`, adding a copy if they are new.
/// `DT_ERR_UTF8` if they are not UTF-8, `DT_ERR_TOO_LONG` past `DT_MAX_LEN`,
/// `DT_ERR_LIMIT` past the interner's limits, `DT_ERR_NULL` for a NULL `interner`, `sym`,
/// or `data` with `len > 0`. On error nothing is added.
///
/// Thread safety: one thread at a time per interner.
#[no_mangle]
pub extern "C" fn dt_interner_intern_bytes(
    interner: *mut dt_interner,
    data: *const u8,
    len: usize,
    sym: *mut u32,
) -> dt_status {
    status(|| {
        let (interner, sym) = (objects::get_mut(interner)?, Out::new(sym)?);
        let symbol = interner.try_intern(text(data, len)?)?;
        sym.write(symbol.to_raw().get());
        Ok(())
    })
}

/// The symbol of the bytes if they were interned; never adds. `DT_ERR_NOT_FOUND` if
/// absent, `DT_ERR_UTF8` for bytes that are not UTF-8 (they can never be present).
///
/// Thread safety: one thread at a time per interner.
#[no_mangle]
pub extern "C" fn dt_interner_lookup_bytes(
    interner: *const dt_interner,
    data: *const u8,
    len: usize,
    sym: *mut u32,
) -> dt_status {
    status(|| {
        let (interner, sym) = (objects::get(interner)?, Out::new(sym)?);
        let symbol = interner.get(text(data, len)?).ok_or(dt_status::DT_ERR_NOT_FOUND)?;
        sym.write(symbol.to_raw().get());
        Ok(())
    })
}

/// The text of `sym`: `*data` (not NUL-terminated; valid until the interner is freed)
/// and `*len`. `DT_ERR_INVALID_SYMBOL` for 0 or a symbol this interner did not hand out.
///
/// Thread safety: one thread at a time per interner.
#[no_mangle]
pub extern "C" fn dt_interner_resolve(
    interner: *const dt_interner,
    sym: u32,
    data: *mut *const u8,
    len: *mut usize,
) -> dt_status {
    status(|| {
        let (interner, data, len) = (objects::get(interner)?, Out::new(data)?, Out::new(len)?);
        let text = interner.try_resolve(symbol_of(sym)?).ok_or(dt_status::DT_ERR_INVALID_SYMBOL)?;
        data.write(text.as_ptr());
        len.write(text.len());
        Ok(())
    })
}

/// The number of symbols handed out; 0 for NULL or an invalid interner.
///
/// Thread safety: one thread at a time per interner.
#[no_mangle]
pub extern "C" fn dt_interner_len(interner: *const dt_interner) -> usize {
    guarded(|| objects::get(interner).map_or(0, |interner| interner.len()))
}
