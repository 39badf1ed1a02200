//! The cache of freed large blocks (`dynatom::trim_block_cache` and friends): process-wide
//! knobs for programs that create and drop many strings of 32 KiB and more.

use crate::guard::guarded;

/// Sets the most bytes of freed blocks of 32 KiB and more that the library keeps for
/// reuse (0, off, unless set: see `DEFAULT_BLOCK_CACHE_LIMIT` in the Rust docs), frees whatever is over the new limit,
/// and returns the previous limit. Reused blocks spare the page faults of fresh memory.
///
/// Thread safety: any thread; process-wide.
#[no_mangle]
pub extern "C" fn dt_block_cache_set_limit(bytes: usize) -> usize {
    guarded(|| dynatom_core::set_block_cache_limit(bytes))
}

/// Frees every block the cache holds and returns how many bytes that handed back to the
/// allocator (e.g. after a burst of large strings, before a long idle period).
///
/// Thread safety: any thread.
// The closure is the shape tests/boundary.rs checks every entry point for.
#[allow(clippy::redundant_closure)]
#[no_mangle]
pub extern "C" fn dt_block_cache_trim() -> usize {
    guarded(|| dynatom_core::trim_block_cache())
}

/// How many bytes of freed blocks the cache holds now (memory of the process that belongs
/// to no string).
///
/// Thread safety: any thread.
// The closure is the shape tests/boundary.rs checks every entry point for.
#[allow(clippy::redundant_closure)]
#[no_mangle]
pub extern "C" fn dt_block_cache_bytes() -> usize {
    guarded(|| dynatom_core::block_cache_bytes())
}
