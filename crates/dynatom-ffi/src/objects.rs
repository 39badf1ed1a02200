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
//! process-wide queue lock, held across `fork()` (they are rare next to the calls on an object). Memory: per kind,
//! the most shells ever live at once plus at most [`QUARANTINE`], each the size of the
//! value plus two words.

use std::alloc::{alloc, Layout};
use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, Once, PoisonError};

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
    /// Read and written only under [`QUEUES`].
    queue: UnsafeCell<Queue<T>>,
}

struct Queue<T> {
    head: *mut Shell<T>,
    tail: *mut Shell<T>,
    len: usize,
}

// SAFETY: the queue is reached only under the process-wide `QUEUES` lock; its pointers
// name shells that hold no value (their state is FREED) and are never deallocated.
unsafe impl<T> Sync for FreedShells<T> {}

/// The one lock of every kind's queue. One lock rather than one per kind, so that
/// `fork()` can hold it across the fork (see [`keep_queues_across_fork`]): a queue lock
/// that another thread held when the process forked would stay locked in the child, and
/// its next `new` or `free` would wait forever. Held for a few pointer moves only.
static QUEUES: Mutex<()> = Mutex::new(());

/// A locked kind's queue.
struct QueueGuard<'a, T> {
    queue: &'a mut Queue<T>,
    _lock: MutexGuard<'static, ()>,
}

impl<T> FreedShells<T> {
    /// An empty queue, for a kind's `static`.
    pub(crate) const fn new() -> FreedShells<T> {
        FreedShells { queue: UnsafeCell::new(Queue { head: null_mut(), tail: null_mut(), len: 0 }) }
    }

    fn lock(&self) -> QueueGuard<'_, T> {
        keep_queues_across_fork();
        // Nothing under this lock can panic (pointer moves only), so a poisoned lock
        // still guards consistent queues.
        let lock = QUEUES.lock().unwrap_or_else(PoisonError::into_inner);
        // SAFETY: every access to a queue goes through this function, under `QUEUES`,
        // and the returned guard holds the lock as long as it borrows the queue.
        let queue = unsafe { &mut *self.queue.get() };
        QueueGuard { queue, _lock: lock }
    }

    /// Files a shell whose value was moved out.
    fn push(&self, shell: *mut Shell<T>) {
        let locked = self.lock();
        let queue = locked.queue;
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
        let locked = self.lock();
        let queue = locked.queue;
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
        self.lock().queue.len
    }
}

/// Takes [`QUEUES`], the lock that `fork()` holds across the fork, for another of the
/// library's short critical sections (the release queue's): a lock taken only while this
/// guard is held is never held by another thread at a fork, so a child finds it free.
pub(crate) fn lock_across_fork() -> MutexGuard<'static, ()> {
    keep_queues_across_fork();
    QUEUES.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Has `fork()` take [`QUEUES`] before it forks and release it on both sides after, so
/// that a child of a threaded program can make and free objects. Registered once, on
/// the first queue access (before which no queue lock can be held).
fn keep_queues_across_fork() {
    static REGISTERED: Once = Once::new();
    REGISTERED.call_once(fork::register);
}

#[cfg(unix)]
mod fork {
    use std::cell::RefCell;
    use std::sync::{MutexGuard, PoisonError};

    std::thread_local! {
        static HELD: RefCell<Option<MutexGuard<'static, ()>>> = const { RefCell::new(None) };
    }

    extern "C" fn prepare() {
        let guard = super::QUEUES.lock().unwrap_or_else(PoisonError::into_inner);
        // A fork from a thread whose locals are being destroyed goes unprotected: the
        // guard is dropped, and the lock released, at once.
        let _ = HELD.try_with(|held| *held.borrow_mut() = Some(guard));
    }

    extern "C" fn after() {
        let _ = HELD.try_with(|held| drop(held.borrow_mut().take()));
    }

    pub(super) fn register() {
        type Handler = Option<extern "C" fn()>;
        extern "C" {
            fn pthread_atfork(prepare: Handler, parent: Handler, child: Handler) -> std::ffi::c_int;
        }
        // SAFETY: `pthread_atfork` is the C library's; the handlers are plain functions
        // that do not panic (they lock, ignoring poisoning, and move a guard) or unwind
        // into C.
        let _ = unsafe { pthread_atfork(Some(prepare), Some(after), Some(after)) };
    }
}

#[cfg(not(unix))]
mod fork {
    pub(super) fn register() {}
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
            size_of::<Shell<<crate::dt_table as Opaque>::Inner>>(),
            size_of::<Shell<<crate::dt_builder as Opaque>::Inner>>(),
            size_of::<Shell<<crate::dt_pieces as Opaque>::Inner>>(),
            size_of::<Shell<<crate::dt_interner as Opaque>::Inner>>(),
        ];
        assert!(sizes.iter().all(|&size| size <= 512), "{sizes:?}");
    }

    #[test]
    fn statics_are_found_by_their_magic() {
        static STATIC: Shell<Vec<u8>> = Shell::live::<Thing>(Vec::new());
        assert!(get(STATIC.static_ptr::<Thing>()).unwrap().is_empty());
    }

    /// A queue lock held by another thread when the process forks must not stay locked
    /// in the child: the fork waits for it and the child can make and free objects.
    #[cfg(unix)]
    #[test]
    fn a_child_forked_while_another_thread_holds_the_queue_lock_makes_objects() {
        extern "C" {
            fn fork() -> i32;
            fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
            fn kill(pid: i32, signal: i32) -> i32;
            fn _exit(status: i32) -> !;
        }
        const WNOHANG: i32 = 1;
        const SIGKILL: i32 = 9;
        free(new::<Thing>(vec![1]).unwrap()).unwrap();
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let holder = std::thread::spawn(move || {
            let guard = QUEUES.lock().unwrap_or_else(PoisonError::into_inner);
            locked_tx.send(()).unwrap();
            std::thread::sleep(std::time::Duration::from_millis(200));
            drop(guard);
        });
        locked_rx.recv().unwrap();
        // SAFETY: the child only makes and frees an object (which takes the queue lock
        // and allocates) and leaves with `_exit`, running no destructor of the parent's.
        let pid = unsafe { fork() };
        if pid == 0 {
            let ok = new::<Thing>(vec![2]).and_then(free).is_ok();
            // SAFETY: ends the child at once.
            unsafe { _exit(if ok { 0 } else { 3 }) };
        }
        assert!(pid > 0, "fork failed");
        let mut status = 0;
        let mut waited = 0;
        // SAFETY: `pid` is this process's child; `status` is a valid out-parameter.
        while unsafe { waitpid(pid, &mut status, WNOHANG) } == 0 {
            if waited == 2000 {
                // SAFETY: as above; the child is killed and reaped.
                unsafe {
                    kill(pid, SIGKILL);
                    waitpid(pid, &mut status, 0);
                }
                panic!("the child hung on the queue lock");
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
            waited += 1;
        }
        holder.join().unwrap();
        assert_eq!(status, 0, "the child failed to make or free an object");
    }
}
