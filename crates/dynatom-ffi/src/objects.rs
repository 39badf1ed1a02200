//! The opaque objects (`dt_table`, `dt_builder`, `dt_pieces`, `dt_interner`): each one a
//! *shell*, a state word in front of the Rust value, that is never given back to the
//! allocator.
//!
//! ```text
//! C's dt_table *  ──►  +--------------+-------------+---------------------------+
//!                      | state: u64   | next: ptr   | value: the Rust object    |
//!                      +--------------+-------------+---------------------------+
//! ```
//!
//! The state is the kind's magic (`b"dt_table"` as a little-endian u64, and so on)
//! while the object is live, so a pointer to another kind of object is
//! `DT_ERR_INVALID_HANDLE` instead of a misread. Freeing moves the value out, sets the
//! state to `b"dt_freed"` and files the shell, still allocated, on its kind's queue of
//! freed shells. A second free or a use after free therefore reads memory that is still
//! this library's and gets `DT_ERR_RELEASED`: nothing here ever reads or frees memory
//! that went back to the allocator (which a marker written just before `dealloc` could
//! not promise: the optimiser drops that dead store, and the allocator reuses the word).
//!
//! A freed shell is reused for a new object of the same kind only once
//! [`QUARANTINE`] newer freed shells queue behind it (first in, first out), so a
//! double free right after a free-then-new still reports `DT_ERR_RELEASED`. After
//! reuse a stale pointer names the new object: that is a dangling pointer, which the
//! header documents as undetected.
//!
//! Cost: `get`/`get_mut` read one word, as a magic check does; `new`/`free` take the
//! kind's queue lock (they are rare next to the calls on an object). Memory: per kind,
//! the most shells ever live at once plus at most [`QUARANTINE`], each the size of the
//! value plus two words.

use std::alloc::{alloc, Layout};
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::dt_status;

/// A C-visible opaque type and the Rust value behind it.
pub(crate) trait Opaque: Sized {
    /// This kind's magic word.
    const MAGIC: u64;
    /// What the object holds.
    type Inner: 'static;
    /// This kind's queue of freed shells (one `static` per kind).
    fn freed() -> &'static FreedShells<Self::Inner>;
}

/// The state of a shell whose value was moved out by [`free`].
const FREED: u64 = u64::from_le_bytes(*b"dt_freed");

/// How many freed shells of a kind wait, first in first out, before the oldest is reused.
pub(crate) const QUARANTINE: usize = crate::DT_FREE_QUARANTINE;

/// The memory behind an opaque pointer, for the life of the process.
#[repr(C)]
pub(crate) struct Shell<T> {
    /// The kind's magic while live, [`FREED`] after. First, so that any kind's shell
    /// can be checked through a pointer to another kind.
    state: AtomicU64,
    /// The next freed shell in the kind's queue; only touched under that queue's lock.
    next: AtomicPtr<Shell<T>>,
    /// Initialised exactly while `state` is the kind's magic.
    value: UnsafeCell<MaybeUninit<T>>,
}

// SAFETY: a shell's value is reached only through `get` (shared, for a call) and
// `get_mut` (exclusive: the header makes the caller use a builder, pieces or interner
// from one thread at a time, and `get_mut` is never used on the shared tables), so
// sharing a shell between threads shares a `T` as `T: Sync + Send` allows.
unsafe impl<T: Send + Sync> Sync for Shell<T> {}

impl<T> Shell<T> {
    /// A live shell holding `value`: a new object's, or one in a `static` (the global
    /// table).
    pub(crate) const fn live<H: Opaque<Inner = T>>(value: T) -> Shell<T> {
        Shell {
            state: AtomicU64::new(H::MAGIC),
            next: AtomicPtr::new(null_mut()),
            value: UnsafeCell::new(MaybeUninit::new(value)),
        }
    }

    /// C's pointer to a `static` object; such an object must never reach [`free`].
    pub(crate) fn static_ptr<H: Opaque<Inner = T>>(&'static self) -> *mut H {
        std::ptr::from_ref(self).cast_mut().cast()
    }
}

/// A kind's freed shells, oldest first, linked through their `next` words.
pub(crate) struct FreedShells<T> {
    queue: Mutex<Queue<T>>,
}

struct Queue<T> {
    head: *mut Shell<T>,
    tail: *mut Shell<T>,
    len: usize,
}

// SAFETY: the queue's pointers name shells that hold no value (their state is FREED)
// and are never deallocated; they are followed only under the queue's mutex.
unsafe impl<T> Send for Queue<T> {}

impl<T> FreedShells<T> {
    /// An empty queue, for a kind's `static`.
    pub(crate) const fn new() -> FreedShells<T> {
        FreedShells { queue: Mutex::new(Queue { head: null_mut(), tail: null_mut(), len: 0 }) }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Queue<T>> {
        // Nothing under this lock can panic (pointer moves only), so a poisoned lock
        // still guards a consistent queue.
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Files a shell whose value was moved out.
    fn push(&self, shell: *mut Shell<T>) {
        let mut queue = self.lock();
        if queue.tail.is_null() {
            queue.head = shell;
        } else {
            // SAFETY: shells are never deallocated, and the tail is a freed shell whose
            // `next` only this lock's holder touches.
            unsafe { &*queue.tail }.next.store(shell, Ordering::Relaxed);
        }
        // SAFETY: `shell` is live memory of this library (never deallocated).
        unsafe { &*shell }.next.store(null_mut(), Ordering::Relaxed);
        queue.tail = shell;
        queue.len += 1;
    }

    /// The oldest freed shell, once more than [`QUARANTINE`] wait.
    fn pop_reusable(&self) -> Option<*mut Shell<T>> {
        let mut queue = self.lock();
        if queue.len <= QUARANTINE {
            return None;
        }
        let shell = queue.head;
        // SAFETY: `len > 0`, so `head` is a filed shell; shells are never deallocated.
        queue.head = unsafe { &*shell }.next.load(Ordering::Relaxed);
        if queue.head.is_null() {
            queue.tail = null_mut();
        }
        queue.len -= 1;
        Some(shell)
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.lock().len
    }
}

/// Moves `value` into a new object (a reused shell of the kind or a fresh one).
/// Allocation failure is `DT_ERR_ALLOC`.
pub(crate) fn new<H: Opaque>(value: H::Inner) -> Result<*mut H, dt_status> {
    let shell = match H::freed().pop_reusable() {
        Some(shell) => {
            // SAFETY: a freed shell taken off the queue: no value, no other owner, and
            // every pointer C still holds to it reads FREED until the store below.
            unsafe { (*shell).value.get().write(MaybeUninit::new(value)) };
            // SAFETY: as above; the shell is never deallocated.
            unsafe { &*shell }.state.store(H::MAGIC, Ordering::Release);
            shell
        }
        None => {
            let layout = Layout::new::<Shell<H::Inner>>();
            // SAFETY: `Shell` holds a u64, so the layout's size is non-zero.
            let shell = unsafe { alloc(layout) }.cast::<Shell<H::Inner>>();
            if shell.is_null() {
                return Err(dt_status::DT_ERR_ALLOC);
            }
            // SAFETY: a fresh allocation of `Shell<H::Inner>`'s layout.
            unsafe { shell.write(Shell::live::<H>(value)) };
            shell
        }
    };
    Ok(shell.cast())
}

/// Checks C's pointer and returns the live object's shell.
fn checked<H: Opaque>(object: *const H) -> Result<*mut Shell<H::Inner>, dt_status> {
    if object.is_null() {
        return Err(dt_status::DT_ERR_NULL);
    }
    let object = object.cast::<Shell<H::Inner>>().cast_mut();
    if !object.is_aligned() {
        return Err(dt_status::DT_ERR_INVALID_HANDLE);
    }
    // SAFETY: non-NULL and aligned; by the header's rule the pointer came from this
    // library, whose objects are shells (of some kind, live or freed, never
    // deallocated) that all start with the state word, an AtomicU64.
    let state = unsafe { &*object.cast::<AtomicU64>() }.load(Ordering::Acquire);
    match state {
        s if s == H::MAGIC => Ok(object),
        FREED => Err(dt_status::DT_ERR_RELEASED),
        _ => Err(dt_status::DT_ERR_INVALID_HANDLE),
    }
}

/// Borrows the value behind C's pointer for the call.
pub(crate) fn get<'a, H: Opaque>(object: *const H) -> Result<&'a H::Inner, dt_status> {
    let object = checked(object)?;
    // SAFETY: `checked` found this kind's magic, so the value is initialised; shared
    // access only, as the header allows for this call (a free must not race it).
    Ok(unsafe { (*(*object).value.get()).assume_init_ref() })
}

/// Borrows the value behind C's pointer mutably for the call.
pub(crate) fn get_mut<'a, H: Opaque>(object: *mut H) -> Result<&'a mut H::Inner, dt_status> {
    let object = checked(object)?;
    // SAFETY: a live value (magic checked); the header makes the caller use such an
    // object from one thread at a time, so nothing else borrows it now. Never called
    // for the static global table.
    Ok(unsafe { (*(*object).value.get()).assume_init_mut() })
}

/// Frees the object behind C's pointer and hands its value back; its shell joins the
/// kind's queue of freed shells.
pub(crate) fn free<H: Opaque>(object: *mut H) -> Result<H::Inner, dt_status> {
    let shell = checked(object)?;
    // SAFETY: `checked` read this kind's state through the same pointer: a shell,
    // never deallocated.
    let state = &unsafe { &*shell }.state;
    // Only the caller that turns MAGIC into FREED moves the value out, so two frees
    // that race anyway cannot both take it.
    if state.compare_exchange(H::MAGIC, FREED, Ordering::AcqRel, Ordering::Acquire).is_err() {
        return Err(dt_status::DT_ERR_RELEASED);
    }
    // SAFETY: this call won the state change: the value is initialised and nothing else
    // may read it now (later checks see FREED). It is moved out exactly once. Statics
    // never get here: their owners check first.
    let value = unsafe { (*(*shell).value.get()).assume_init_read() };
    H::freed().push(shell);
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Thing;
    impl Opaque for Thing {
        const MAGIC: u64 = u64::from_le_bytes(*b"dt_thing");
        type Inner = Vec<u8>;
        fn freed() -> &'static FreedShells<Vec<u8>> {
            static FREED: FreedShells<Vec<u8>> = FreedShells::new();
            &FREED
        }
    }
    struct Other;
    impl Opaque for Other {
        const MAGIC: u64 = u64::from_le_bytes(*b"dt_other");
        type Inner = Vec<u8>;
        fn freed() -> &'static FreedShells<Vec<u8>> {
            static FREED: FreedShells<Vec<u8>> = FreedShells::new();
            &FREED
        }
    }

    #[test]
    fn objects_round_trip_and_reject_the_wrong_kind() {
        let thing = new::<Thing>(vec![1, 2]).unwrap();
        get_mut(thing).unwrap().push(3);
        assert_eq!(get(thing).unwrap(), &[1, 2, 3]);
        assert_eq!(get(thing.cast::<Other>()).err(), Some(dt_status::DT_ERR_INVALID_HANDLE));
        assert_eq!(free(thing.cast::<Other>()).err(), Some(dt_status::DT_ERR_INVALID_HANDLE));
        assert_eq!(get::<Thing>(std::ptr::null()).err(), Some(dt_status::DT_ERR_NULL));
        assert_eq!(free(thing).unwrap(), vec![1, 2, 3]);
    }

    #[test]
    fn a_freed_object_reports_released_until_its_shell_is_reused() {
        let first = new::<Other>(vec![7]).unwrap();
        assert_eq!(free(first).unwrap(), vec![7]);
        assert_eq!(free(first).err(), Some(dt_status::DT_ERR_RELEASED));
        assert_eq!(get(first).err(), Some(dt_status::DT_ERR_RELEASED));
        assert_eq!(get_mut(first).err(), Some(dt_status::DT_ERR_RELEASED));
        // Another QUARANTINE objects made and freed: `first` stays freed all along.
        let mut later = Vec::new();
        for i in 0..QUARANTINE {
            let object = new::<Other>(vec![i as u8]).unwrap();
            assert_ne!(object, first, "a quarantined shell was reused");
            later.push(object);
        }
        for object in later {
            free(object).unwrap();
        }
        assert_eq!(free(first).err(), Some(dt_status::DT_ERR_RELEASED));
        // Now the oldest shell, `first`, is the one reused: the queue is first in, first out.
        let reused = new::<Other>(vec![9]).unwrap();
        assert_eq!(reused, first);
        assert_eq!(Other::freed().len(), QUARANTINE);
        assert_eq!(free(reused).unwrap(), vec![9]);
    }

    /// The header promises that what a freed object keeps is at most 512 bytes.
    #[test]
    fn every_kinds_shell_is_at_most_512_bytes() {
        use std::mem::size_of;
        let sizes = [
            size_of::<Shell<crate::table_api::TableRef>>(),
            size_of::<Shell<dynatom_core::ByteStrBuilder>>(),
            size_of::<Shell<dynatom_core::Pieces>>(),
            size_of::<Shell<dynatom_core::interner::Interner>>(),
        ];
        assert!(sizes.iter().all(|&size| size <= 512), "{sizes:?}");
    }

    #[test]
    fn statics_are_found_by_their_magic() {
        static STATIC: Shell<Vec<u8>> = Shell::live::<Thing>(Vec::new());
        assert!(get(STATIC.static_ptr::<Thing>()).unwrap().is_empty());
    }
}
