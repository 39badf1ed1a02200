//! A global allocator for tests that refuses, on demand and on the calling thread only,
//! every request of at least a given size (`mod failing_alloc;` installs it in a test
//! binary).

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::Once;

thread_local! {
    /// Requests of at least this many bytes fail on this thread (`usize::MAX`: none).
    static FAIL_FROM: Cell<usize> = const { Cell::new(usize::MAX) };
}

struct FailingAllocator;

// SAFETY: forwards to `System`, or returns null (a valid answer for any request).
unsafe impl GlobalAlloc for FailingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if layout.size() >= FAIL_FROM.with(Cell::get) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded from the caller.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: every non-null pointer handed out came from `System` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size >= FAIL_FROM.with(Cell::get) {
            return std::ptr::null_mut();
        }
        // SAFETY: forwarded from the caller; `ptr` came from `System`.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: FailingAllocator = FailingAllocator;

/// Runs `f` with every request of `from` bytes or more failing on this thread.
///
/// A panic turns failures off on its thread before the panic hook runs: the default
/// hook allocates (a backtrace's debug information can take megabytes) while holding
/// the lock that the out-of-memory handler would wait for.
pub(crate) fn failing_from<T>(from: usize, f: impl FnOnce() -> T) -> T {
    static HOOK: Once = Once::new();
    HOOK.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            FAIL_FROM.with(|limit| limit.set(usize::MAX));
            default(info);
        }));
    });
    FAIL_FROM.with(|limit| limit.set(from));
    let result = f();
    FAIL_FROM.with(|limit| limit.set(usize::MAX));
    result
}
