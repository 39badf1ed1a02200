//! A global allocator that forwards to `System` and logs, per thread, how many
//! allocations and reallocations were made and what the last reallocation did: enough to
//! tell a builder buffer moved by the allocator's `realloc` (glibc shrinks in place,
//! ASan's and valgrind's always move) from a copy the library made. A test binary
//! installs it with `#[global_allocator]`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub(crate) struct LoggingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static REALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    static LAST_REALLOCATION: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

fn bump(counter: &'static std::thread::LocalKey<Cell<usize>>) {
    // `try_with`: an allocation during thread teardown is simply not counted.
    let _ = counter.try_with(|count| count.set(count.get() + 1));
}

// SAFETY: every call is forwarded to `System` unchanged; the logging only touches
// thread-locals without destructors, which never allocate.
unsafe impl GlobalAlloc for LoggingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump(&ALLOCATIONS);
        // SAFETY: forwarded from our caller.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump(&ALLOCATIONS);
        // SAFETY: forwarded from our caller.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded from our caller.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded from our caller.
        let moved_to = unsafe { System.realloc(ptr, layout, new_size) };
        bump(&REALLOCATIONS);
        let _ = LAST_REALLOCATION.try_with(|last| last.set((ptr as usize, moved_to as usize)));
        moved_to
    }
}

/// This thread's allocator calls so far.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Calls {
    allocations: usize,
    reallocations: usize,
    /// The last reallocation's old and new block addresses.
    last: (usize, usize),
}

pub(crate) fn calls() -> Calls {
    Calls {
        allocations: ALLOCATIONS.with(Cell::get),
        reallocations: REALLOCATIONS.with(Cell::get),
        last: LAST_REALLOCATION.with(Cell::get),
    }
}

/// Whether the library's string blocks come from this allocator: not with the
/// `glibc-slop` feature on glibc, which sends them to `System` directly.
pub(crate) fn sees_string_blocks() -> bool {
    let before = calls().allocations;
    let s = dynatom::Str::from("a heap string, to see where its block comes from");
    let seen = calls().allocations > before;
    drop(s);
    seen
}

/// Checks what a builder's `finish` did, given the bytes' address before (`before`) and
/// after (`after`) and this thread's allocator calls around it. `finish` never copies
/// the bytes itself: without a trim (`trimmed` false: the builder's capacity was already
/// the size the result needs) the bytes stay where they were, whatever the allocator;
/// with one, `finish` reallocates the block once and the bytes are where that
/// `realloc` put them (at their offset in the block it returned): moved, if at all, by
/// the allocator and not by a copy of the library's.
pub(crate) fn check_finish(
    before: *const u8,
    after: *const u8,
    trimmed: bool,
    around: (Calls, Calls),
    sees_blocks: bool,
) -> Result<(), String> {
    let (start, end) = around;
    let (before, after) = (before as usize, after as usize);
    if !trimmed {
        return if before == after { Ok(()) } else { Err("finish moved bytes it had no need to trim".into()) };
    }
    if !sees_blocks {
        // The blocks bypass this allocator: only the contents (checked by the caller)
        // can be told.
        return Ok(());
    }
    if end.reallocations != start.reallocations + 1 {
        return Err(format!("finish reallocated {} times, not once", end.reallocations - start.reallocations));
    }
    let (old_block, new_block) = end.last;
    let offset = before.wrapping_sub(old_block);
    if offset == 0 || offset > 64 || after.wrapping_sub(new_block) != offset {
        return Err(format!(
            "the bytes moved from {before:#x} to {after:#x}, but the realloc moved {old_block:#x} to {new_block:#x}"
        ));
    }
    Ok(())
}
