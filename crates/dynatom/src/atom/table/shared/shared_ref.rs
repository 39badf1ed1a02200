//! The counted handle every `AtomTable` holds to its [`TableShared`], and the list of the
//! live tables other than the global one, which that handle keeps (a static set
//! registered at run time is checked against each).

#[cfg(not(loom))]
use std::ptr::NonNull;

#[cfg(not(loom))]
use crate::error::StrError;
#[cfg(not(loom))]
use crate::sync::{AtomicUsize, Mutex, Ordering, lock};

#[cfg(not(loom))]
use super::TableKind;
use super::TableShared;

/// The tables other than the global one that are alive (their `TableShared`'s addresses):
/// a set registered at run time is checked against each. A table is listed by
/// [`SharedRef::try_new`] and unlisted by the drop of its last handle, under this lock.
#[cfg(not(loom))]
pub(super) static LIVE_TABLES: Mutex<Vec<usize>> = Mutex::new(Vec::new());

/// A counted handle to a [`TableShared`]: what `Arc<TableShared>` would be, but made
/// fallibly, so that running out of memory for a new table is an error (`Arc` has no
/// stable fallible constructor). Under loom it is loom's `Arc`, which the models track.
#[cfg(not(loom))]
pub(crate) struct SharedRef {
    ptr: NonNull<Counted>,
}

#[cfg(not(loom))]
struct Counted {
    count: AtomicUsize,
    table: TableShared,
}

// SAFETY: a shared reference to a `TableShared`, which is `Sync` and `Send` (its shards
// are behind locks and atomics); the count is atomic, as `Arc`'s.
#[cfg(not(loom))]
unsafe impl Send for SharedRef {}
// SAFETY: as above.
#[cfg(not(loom))]
unsafe impl Sync for SharedRef {}

#[cfg(not(loom))]
impl SharedRef {
    /// `table` behind a new handle, or the allocation failure.
    pub(crate) fn try_new(table: TableShared) -> Result<SharedRef, StrError> {
        let layout = std::alloc::Layout::new::<Counted>();
        // SAFETY: `Counted` is not zero-sized.
        let Some(ptr) = NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<Counted>()) else {
            return Err(StrError::AllocFailed { size: layout.size() });
        };
        let listed = table.kind != TableKind::Global;
        // SAFETY: a fresh allocation with `Counted`'s layout.
        unsafe { ptr.as_ptr().write(Counted { count: AtomicUsize::new(1), table }) };
        let shared = SharedRef { ptr };
        if listed {
            lock(&LIVE_TABLES).push(std::ptr::from_ref::<TableShared>(&*shared).expose_provenance());
        }
        Ok(shared)
    }
}

#[cfg(not(loom))]
impl std::ops::Deref for SharedRef {
    type Target = TableShared;

    fn deref(&self) -> &TableShared {
        // SAFETY: the allocation lives while any handle does; this is one.
        unsafe { &self.ptr.as_ref().table }
    }
}

#[cfg(not(loom))]
impl Clone for SharedRef {
    fn clone(&self) -> SharedRef {
        // SAFETY: as in `deref`.
        let counted = unsafe { self.ptr.as_ref() };
        // Relaxed, and the abort past `isize::MAX`, as `Arc::clone`: a new handle is made
        // from one that already keeps the table alive.
        if counted.count.fetch_add(1, Ordering::Relaxed) > isize::MAX as usize {
            std::process::abort();
        }
        SharedRef { ptr: self.ptr }
    }
}

#[cfg(not(loom))]
impl Drop for SharedRef {
    fn drop(&mut self) {
        // SAFETY: as in `deref`.
        let counted = unsafe { self.ptr.as_ref() };
        // Release, then Acquire before freeing, as `Arc`'s drop: every other handle's uses
        // happen before the table is dropped.
        if counted.count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        crate::sync::fence(Ordering::Acquire);
        if counted.table.kind != TableKind::Global {
            let mut live = lock(&LIVE_TABLES);
            let address = std::ptr::from_ref::<TableShared>(&counted.table).addr();
            if let Some(at) = live.iter().position(|&listed| listed == address) {
                live.swap_remove(at);
            }
            // The last table gone, the list gives its memory back: a program that makes
            // and drops a table ends where it began.
            if live.is_empty() {
                *live = Vec::new();
            }
        }
        // SAFETY: the last handle: nothing else refers to the allocation, made by
        // `try_new` with this layout, dropped and freed once.
        unsafe {
            std::ptr::drop_in_place(self.ptr.as_ptr());
            std::alloc::dealloc(self.ptr.as_ptr().cast(), std::alloc::Layout::new::<Counted>());
        }
    }
}

#[cfg(loom)]
pub(crate) type SharedRef = crate::sync::Arc<TableShared>;
