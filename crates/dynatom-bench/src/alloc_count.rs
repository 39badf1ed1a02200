//! A counting global allocator: live requested bytes, live blocks, allocation calls, and
//! allocator slop (`malloc_usable_size` minus the request), the way Firefox's about:memory
//! splits "what was asked for" from "what malloc really handed out".
//!
//! Counting is off unless a measurement turns it on, so the timing suites pay one
//! relaxed load per allocation and never contend on the shared counters.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, AtomicU64, Ordering::Relaxed};

pub struct CountingAlloc;

static ENABLED: AtomicBool = AtomicBool::new(false);
static LIVE_BYTES: AtomicIsize = AtomicIsize::new(0);
static LIVE_SLOP: AtomicIsize = AtomicIsize::new(0);
static LIVE_BLOCKS: AtomicIsize = AtomicIsize::new(0);
static ALLOC_CALLS: AtomicU64 = AtomicU64::new(0);

extern "C" {
    /// glibc: the usable size of a block from malloc/realloc/posix_memalign.
    fn malloc_usable_size(ptr: *mut u8) -> usize;
}

fn slop_of(ptr: *mut u8, requested: usize) -> isize {
    // SAFETY: `ptr` is a live block that System (glibc malloc) handed out.
    let usable = unsafe { malloc_usable_size(ptr) };
    usable as isize - requested as isize
}

fn on_alloc(ptr: *mut u8, size: usize) {
    if ptr.is_null() || !ENABLED.load(Relaxed) {
        return;
    }
    ALLOC_CALLS.fetch_add(1, Relaxed);
    LIVE_BLOCKS.fetch_add(1, Relaxed);
    LIVE_BYTES.fetch_add(size as isize, Relaxed);
    LIVE_SLOP.fetch_add(slop_of(ptr, size), Relaxed);
}

fn on_free(ptr: *mut u8, size: usize) {
    if !ENABLED.load(Relaxed) {
        return;
    }
    LIVE_BLOCKS.fetch_sub(1, Relaxed);
    LIVE_BYTES.fetch_sub(size as isize, Relaxed);
    LIVE_SLOP.fetch_sub(slop_of(ptr, size), Relaxed);
}

// SAFETY: every call is forwarded unchanged to `System`; the bookkeeping only reads
// the blocks' sizes.
unsafe impl GlobalAlloc for CountingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { System.alloc(layout) };
        on_alloc(ptr, layout.size());
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded with the caller's guarantees.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        on_alloc(ptr, layout.size());
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        on_free(ptr, layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        on_free(ptr, layout.size());
        // SAFETY: forwarded with the caller's guarantees.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if new.is_null() {
            // The old block is still live: count it back.
            on_alloc(ptr, layout.size());
        } else {
            on_alloc(new, new_size);
        }
        new
    }
}

/// A reading of the counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct Snapshot {
    pub live_bytes: isize,
    pub live_slop: isize,
    /// Blocks allocated and not yet freed (a `realloc` keeps its one).
    pub live_blocks: isize,
    pub alloc_calls: u64,
}

impl Snapshot {
    pub fn now() -> Snapshot {
        Snapshot {
            live_bytes: LIVE_BYTES.load(Relaxed),
            live_slop: LIVE_SLOP.load(Relaxed),
            live_blocks: LIVE_BLOCKS.load(Relaxed),
            alloc_calls: ALLOC_CALLS.load(Relaxed),
        }
    }

    /// What happened between `self` (earlier) and `later`.
    pub fn delta(&self, later: &Snapshot) -> Snapshot {
        Snapshot {
            live_bytes: later.live_bytes - self.live_bytes,
            live_slop: later.live_slop - self.live_slop,
            live_blocks: later.live_blocks - self.live_blocks,
            alloc_calls: later.alloc_calls - self.alloc_calls,
        }
    }
}

/// Counts every allocation made while `f` runs (on any thread) and returns the delta.
/// Blocks freed during `f` that were allocated before it subtract from live bytes, so
/// measure from a quiet state.
pub fn counting<R>(f: impl FnOnce() -> R) -> (R, Snapshot) {
    ENABLED.store(true, Relaxed);
    let before = Snapshot::now();
    let out = f();
    let after = Snapshot::now();
    ENABLED.store(false, Relaxed);
    (out, before.delta(&after))
}
