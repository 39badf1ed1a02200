//! Hooks that let the C and LuaJIT test suites reach the two error paths they cannot
//! provoke from outside: allocation failure and a panic inside the library. Compiled
//! only with the `test-hooks` feature: the test suites build that library in their own
//! target directory, and the production library has neither the hooks nor the wrapping
//! allocator.
//!
//! Allocation failure: the test library's global allocator is the system allocator
//! behind one relaxed atomic load. While armed, every request of at least a threshold size
//! fails, so a test can fail one large allocation without failing the small ones that
//! infallible paths (which would abort) make around it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::dt_status;
use crate::guard::{guarded, status};

/// 0: off; otherwise requests of at least this many bytes fail.
static FAIL_FROM_SIZE: AtomicUsize = AtomicUsize::new(0);

struct FailableSystem;

impl FailableSystem {
    fn refuses(&self, size: usize) -> bool {
        // Relaxed: the threshold is a standalone flag that publishes no other data.
        let threshold = FAIL_FROM_SIZE.load(Ordering::Relaxed);
        threshold != 0 && size >= threshold
    }
}

// SAFETY: every request is forwarded unchanged to `System` or refused with NULL, which
// `GlobalAlloc` allows; deallocation always forwards, so blocks go back where they came from.
unsafe impl GlobalAlloc for FailableSystem {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if self.refuses(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller's layout contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if self.refuses(layout.size()) {
            return std::ptr::null_mut();
        }
        // SAFETY: as for `alloc`.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System` through this allocator with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if self.refuses(new_size) {
            return std::ptr::null_mut();
        }
        // SAFETY: `ptr`/`layout` came from `System` through this allocator; the caller
        // guarantees `new_size` is valid for `layout`'s alignment.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: FailableSystem = FailableSystem;

/// TEST HOOK, only in a library built with the `test-hooks` feature (the test suites'
/// `target/test-hooks` build; the production library does not export it). While
/// `min_size` is non-zero, every allocation of at least `min_size` bytes made by the
/// library fails (functions with a fallible path return `DT_ERR_ALLOC`); 0 turns it off. Only for test suites: a program that arms it may abort where the
/// library has no fallible path.
///
/// Thread safety: any thread; it affects all threads at once.
#[no_mangle]
pub extern "C" fn dt_test_fail_allocations(min_size: usize) {
    guarded(|| FAIL_FROM_SIZE.store(min_size, Ordering::Relaxed))
}

/// TEST HOOK, only in a library built with the `test-hooks` feature. Panics inside the
/// library's panic boundary, so a binding can see that a panic comes back as
/// `DT_ERR_PANIC` (always the result). The panic message goes to stderr.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_test_panic() -> dt_status {
    status(|| panic!("dt_test_panic: a panic on purpose, caught at the C boundary"))
}
