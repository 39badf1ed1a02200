//! A small, bounded cache of freed large blocks, so the next block of the same size
//! class reuses them instead of going back to malloc.
//!
//! Why: glibc serves allocations from its mmap threshold up (128 KiB at first, up to
//! 32 MiB once it adapts) with pages of their own and returns them to the kernel on
//! `free`, or trims the top of the heap, so a program that keeps creating and dropping
//! 1 MiB strings pays 256 fresh page faults (and the zeroing behind them) for every one;
//! below the threshold, trimming does the same to a batch of freed 64 KiB strings. (One
//! run of the LuaJIT cache workload at 64 KiB: caching from 32 KiB took the creations'
//! page faults from 19,817 to 15,443, the number 800 live values need anyway.)
//! Large texts come in size classes ([`capacity_class`](super::heap)), so a freed block
//! fits the next text of its class exactly, and keeping a few of them costs nothing but
//! the memory they hold, which is bounded ([`DEFAULT_BLOCK_CACHE_LIMIT`], [`set_block_cache_limit`])
//! and can be handed back at any time ([`trim_block_cache`]).
//!
//! Blocks held here stay reachable through a static, so leak checkers see them as
//! reachable memory, not leaks. Under loom the cache is off: loom checks that every
//! allocation of a model is freed by its end.

use std::alloc::Layout;
use std::ptr::NonNull;

use crate::sync::raw_alloc;

/// Allocations of at least this many bytes are cached when freed: where `repr::heap`'s
/// block sizes start coming in classes (it takes this bound), so a freed block fits the
/// next text of its class.
pub(super) const CACHED_FROM: usize = 32 * 1024;

/// Blocks of at least this many bytes come from malloc with pages of their own, none
/// present yet (glibc's initial mmap threshold), so they are always populated. Smaller
/// cached-size blocks come from malloc's heap, often from memory it recycled whose pages
/// are there already: populating those would be a system call for nothing (one run of the
/// `build` suite's naive loop, which makes a new 32–100 KiB string per byte appended, read
/// 402 and 558 ms against 299 and 313 ms unpopulated), so they are populated only when
/// they reach past every such block seen before (see `extends_the_heap`).
#[cfg(all(target_os = "linux", not(loom)))]
const ALWAYS_POPULATE_FROM: usize = 128 * 1024;

/// The most bytes of freed large blocks dynatom keeps for reuse unless
/// [`set_block_cache_limit`] says otherwise: none, the cache is off.
///
/// Why off: the cache pays where large blocks of one size class die and are made again
/// (the LuaJIT module turns it on for its cache workload). A growing `StrBuilder` takes
/// its next class from the cache, but taking a cached block means copying what was built
/// so far, where glibc's `realloc` usually grows a lone builder in place: building a 1 MB
/// text took 1.22× of `String`'s time with 64 MiB cached, 0.80× with the cache off. Turn it on where your
/// program's large strings die and are made again in the same sizes.
///
/// ```
/// assert_eq!(dynatom::DEFAULT_BLOCK_CACHE_LIMIT, 0);
/// ```
pub const DEFAULT_BLOCK_CACHE_LIMIT: usize = 0;

/// Allocates `layout`, taking a cached block of exactly that layout when there is one.
///
/// # Safety
/// As for [`std::alloc::alloc`]: `layout` has a non-zero size.
#[inline]
pub(super) unsafe fn alloc(layout: Layout) -> *mut u8 {
    #[cfg(not(loom))]
    if layout.size() >= CACHED_FROM
        && let Some(block) = cache::take(layout)
    {
        return block.as_ptr();
    }
    // SAFETY: forwarded from the caller.
    let block = unsafe { raw_alloc::alloc(layout) };
    #[cfg(all(target_os = "linux", not(loom)))]
    if layout.size() >= CACHED_FROM
        && !block.is_null()
        && (layout.size() >= ALWAYS_POPULATE_FROM || extends_the_heap(block, layout.size()))
    {
        crate::sync::pages::populate(block, layout.size());
    }
    block
}

/// A cached block of exactly `layout`, if the cache holds one; never asks malloc. The
/// growable builder takes its larger class from here before it reallocates.
#[inline]
pub(super) fn take_cached(layout: Layout) -> Option<NonNull<u8>> {
    #[cfg(not(loom))]
    if layout.size() >= CACHED_FROM {
        return cache::take(layout);
    }
    let _ = layout;
    None
}

/// Whether a heap block (below [`ALWAYS_POPULATE_FROM`]) ends past every one seen before:
/// malloc's heap grows upwards, so such a block is most likely memory the heap has just
/// taken from the system, whose pages are all still to be faulted in. A wrong guess only
/// costs speed: a populated page that was present, or a fresh one faulted on first touch.
#[cfg(all(target_os = "linux", not(loom)))]
fn extends_the_heap(block: *mut u8, size: usize) -> bool {
    use crate::sync::{AtomicUsize, Ordering};
    /// The highest end address of such a block so far.
    static HIGH_WATER: AtomicUsize = AtomicUsize::new(0);
    let end = block as usize + size;
    // Relaxed: a hint about addresses, publishing nothing; racing threads at worst both
    // populate or both skip.
    end > HIGH_WATER.load(Ordering::Relaxed) && end > HIGH_WATER.fetch_max(end, Ordering::Relaxed)
}

/// Frees `ptr`, or keeps it for the next allocation of the same layout while the cache
/// has room.
///
/// # Safety
/// As for [`std::alloc::dealloc`]: `ptr` was allocated (by [`alloc`] or `raw_alloc`)
/// with `layout` and is not used again by the caller.
#[inline]
pub(super) unsafe fn dealloc(ptr: *mut u8, layout: Layout) {
    #[cfg(not(loom))]
    if layout.size() >= CACHED_FROM
        && let Some(block) = NonNull::new(ptr)
    {
        // SAFETY: forwarded from the caller: the block is ours to keep.
        if unsafe { cache::keep(block, layout) } {
            return;
        }
    }
    // SAFETY: forwarded from the caller.
    unsafe { raw_alloc::dealloc(ptr, layout) }
}

/// Frees every large block that dynatom keeps for reuse and returns how many bytes that
/// handed back to the allocator.
///
/// Once turned on with [`set_block_cache_limit`], dynatom keeps up to that many bytes of
/// freed blocks of 32 KiB and more, so that a program that keeps creating and dropping large strings reuses
/// their memory instead of faulting in fresh pages each time. Call this when a burst of
/// large strings is over and the memory is better returned, e.g. before a long idle
/// period. Safe to call at any time, from any thread.
///
/// ```
/// let previous = dynatom::set_block_cache_limit(64 << 20);
/// let body = dynatom::Str::from("x".repeat(1 << 20).as_str());
/// drop(body); // its block is now kept for the next 1 MiB string
/// dynatom::trim_block_cache();
/// assert_eq!(dynatom::block_cache_bytes(), 0);
/// dynatom::set_block_cache_limit(previous);
/// ```
pub fn trim_block_cache() -> usize {
    #[cfg(not(loom))]
    return cache::trim_to(0);
    #[cfg(loom)]
    0
}

/// Sets the most bytes of freed large blocks dynatom keeps for reuse (0, off, unless set;
/// see [`DEFAULT_BLOCK_CACHE_LIMIT`] for why), frees whatever is over the new limit, and returns the previous
/// limit. Process-wide, like the allocator it stands in front of.
///
/// ```
/// let previous = dynatom::set_block_cache_limit(0);
/// drop(dynatom::Str::from("x".repeat(1 << 20).as_str()));
/// assert_eq!(dynatom::block_cache_bytes(), 0, "nothing is kept with the cache off");
/// dynatom::set_block_cache_limit(previous);
/// ```
pub fn set_block_cache_limit(bytes: usize) -> usize {
    #[cfg(not(loom))]
    return cache::set_limit(bytes);
    #[cfg(loom)]
    {
        let _ = bytes;
        0
    }
}

/// How many bytes of freed large blocks dynatom holds for reuse right now (never more
/// than the limit of [`set_block_cache_limit`]). This memory belongs to the process but
/// to no string; [`trim_block_cache`] frees it.
///
/// ```
/// assert!(dynatom::block_cache_bytes() <= dynatom::DEFAULT_BLOCK_CACHE_LIMIT);
/// ```
pub fn block_cache_bytes() -> usize {
    #[cfg(not(loom))]
    return cache::bytes();
    #[cfg(loom)]
    0
}

#[cfg(not(loom))]
pub(crate) mod cache {
    use std::alloc::Layout;
    use std::ptr::NonNull;

    use super::DEFAULT_BLOCK_CACHE_LIMIT;
    use crate::sync::{Mutex, lock, raw_alloc};

    /// A freed block, owned by the cache.
    struct CachedBlock(NonNull<u8>);

    // SAFETY: a cached block is memory nobody else refers to; it moves between threads
    // only under the cache's lock, and whoever takes it out owns it alone.
    unsafe impl Send for CachedBlock {}

    /// The freed blocks of one layout, most recently freed last (its pages are the most
    /// likely to still be in cache).
    struct SameLayout {
        layout: Layout,
        blocks: Vec<CachedBlock>,
    }

    struct Cache {
        /// One stack per layout seen; large texts come in few size classes, so a linear
        /// search is short.
        stacks: Vec<SameLayout>,
        bytes: usize,
        limit: usize,
    }

    static CACHE: Mutex<Cache> = Mutex::new(Cache { stacks: Vec::new(), bytes: 0, limit: DEFAULT_BLOCK_CACHE_LIMIT });

    /// The cache's lock, held by the thread that forks across `fork()` (see
    /// `table::shared`'s fork handlers): a child then finds it unlocked.
    pub(crate) struct ForkHold(#[allow(dead_code)] std::sync::MutexGuard<'static, Cache>);

    pub(crate) fn hold_for_fork() -> ForkHold {
        ForkHold(lock(&CACHE))
    }

    pub(super) fn take(layout: Layout) -> Option<NonNull<u8>> {
        let mut cache = lock(&CACHE);
        let stack = cache.stacks.iter_mut().find(|s| s.layout == layout)?;
        let block = stack.blocks.pop()?;
        cache.bytes -= layout.size();
        Some(block.0)
    }

    /// Keeps `block` if there is room and returns whether it did.
    ///
    /// # Safety
    /// `block` was allocated through `raw_alloc` with `layout`, and the caller gives it up.
    pub(super) unsafe fn keep(block: NonNull<u8>, layout: Layout) -> bool {
        let mut cache = lock(&CACHE);
        if cache.bytes + layout.size() > cache.limit {
            return false;
        }
        let index = match cache.stacks.iter().position(|s| s.layout == layout) {
            Some(index) => index,
            None => {
                if cache.stacks.try_reserve(1).is_err() {
                    return false;
                }
                cache.stacks.push(SameLayout { layout, blocks: Vec::new() });
                cache.stacks.len() - 1
            }
        };
        let blocks = &mut cache.stacks[index].blocks;
        // Running out of memory for the list only means this block is freed instead.
        if blocks.try_reserve(1).is_err() {
            return false;
        }
        blocks.push(CachedBlock(block));
        cache.bytes += layout.size();
        true
    }

    /// Frees cached blocks until at most `target` bytes remain; returns the bytes freed.
    pub(super) fn trim_to(target: usize) -> usize {
        let mut freed = Vec::new();
        {
            let mut cache = lock(&CACHE);
            let mut bytes = cache.bytes;
            for stack in &mut cache.stacks {
                while bytes > target {
                    let Some(block) = stack.blocks.pop() else { break };
                    bytes -= stack.layout.size();
                    freed.push((block, stack.layout));
                }
            }
            cache.bytes = bytes;
        }
        // Freed outside the lock: returning pages to the kernel is the slow part.
        let mut total = 0;
        for (block, layout) in freed {
            total += layout.size();
            // SAFETY: the block was allocated with `layout` (`keep`'s contract) and has
            // just left the cache, so nothing else refers to it.
            unsafe { raw_alloc::dealloc(block.0.as_ptr(), layout) };
        }
        total
    }

    pub(super) fn set_limit(limit: usize) -> usize {
        let previous = std::mem::replace(&mut lock(&CACHE).limit, limit);
        trim_to(limit);
        previous
    }

    pub(super) fn bytes() -> usize {
        lock(&CACHE).bytes
    }

    /// How many blocks of `layout` the cache holds.
    #[cfg(test)]
    pub(super) fn count(layout: Layout) -> usize {
        lock(&CACHE).stacks.iter().find(|s| s.layout == layout).map_or(0, |s| s.blocks.len())
    }
}

/// What tests above this layer (the builders') watch the cache through.
#[cfg(all(test, not(loom)))]
pub(crate) mod test_view {
    use super::{CACHED_FROM, cache};

    /// The cache is process-wide: tests that set its limit or trim it take turns through
    /// this lock, so that one's trim or limit does not land between another's free and
    /// allocation. (Other tests only allocate and free through it, which respects every
    /// limit.)
    pub(crate) static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// The smallest text whose freed block the cache keeps.
    pub(crate) const CACHED_FROM_LEN: usize = CACHED_FROM;

    /// The room a block keeps for a text of `len` bytes (its size class).
    pub(crate) fn capacity_class(len: usize) -> usize {
        super::super::heap::capacity_class(len)
    }

    /// How many freed blocks with room for `capacity` bytes the cache holds.
    pub(crate) fn blocks_with_room_for(capacity: usize) -> usize {
        cache::count(super::super::heap::block_layout(capacity).expect("a valid length"))
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    use super::test_view::SERIAL;

    /// A layout of a size no other test allocates, so nobody else takes or adds its blocks.
    fn unusual_layout(extra: usize) -> Layout {
        Layout::from_size_align(CACHED_FROM * 37 + 8 * extra + 8, 8).unwrap()
    }

    fn allocate(layout: Layout) -> *mut u8 {
        // SAFETY: every layout here has a non-zero size.
        let block = unsafe { alloc(layout) };
        assert!(!block.is_null());
        block
    }

    fn free(block: *mut u8, layout: Layout) {
        // SAFETY: the tests free each block once, with the layout it was allocated with.
        unsafe { dealloc(block, layout) };
    }

    #[test]
    fn a_freed_large_block_is_reused_for_the_same_layout_only() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let layout = unusual_layout(1);
        // Other tests' blocks may fill the default limit: leave room for ours.
        let previous = set_block_cache_limit(usize::MAX);
        let first = allocate(layout);
        assert_eq!(cache::count(layout), 0);
        free(first, layout);
        assert_eq!(cache::count(layout), 1, "kept for reuse");
        let other = unusual_layout(2);
        let elsewhere = allocate(other);
        assert_ne!(elsewhere, first, "another layout does not take it");
        assert_eq!(cache::count(layout), 1);
        let second = allocate(layout);
        assert_eq!(second, first, "the cached block came back");
        assert_eq!(cache::count(layout), 0);
        free(second, layout);
        free(elsewhere, other);
        trim_block_cache();
        assert_eq!(cache::count(layout) + cache::count(other), 0);
        set_block_cache_limit(previous);
    }

    #[test]
    fn small_blocks_are_never_cached() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        for size in [1, 4096, CACHED_FROM - 8] {
            let layout = Layout::from_size_align(size, 8).unwrap();
            free(allocate(layout), layout);
            assert_eq!(cache::count(layout), 0, "{size} bytes");
        }
        let layout = Layout::from_size_align(CACHED_FROM, 8).unwrap();
        free(allocate(layout), layout);
        assert!(cache::count(layout) <= 1, "from the threshold on, blocks may be kept");
    }

    #[test]
    fn the_cache_never_holds_more_than_its_limit_and_trim_empties_it() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let layout = unusual_layout(3);
        let limit = 3 * layout.size();
        let previous = set_block_cache_limit(limit);
        let blocks: Vec<*mut u8> = (0..5).map(|_| allocate(layout)).collect();
        for block in blocks {
            free(block, layout);
            assert!(block_cache_bytes() <= limit, "{} > {limit}", block_cache_bytes());
        }
        assert!(cache::count(layout) <= 3);
        assert!(cache::count(layout) >= 1, "some were kept");
        // Other tests may free large blocks meanwhile, so the totals are lower bounds.
        let ours = cache::count(layout) * layout.size();
        assert!(trim_block_cache() >= ours, "trim reports what it freed");
        assert_eq!(cache::count(layout), 0);
        assert_eq!(set_block_cache_limit(previous), limit);
    }

    #[test]
    fn lowering_the_limit_frees_what_is_over_it() {
        let _turn = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
        let original = set_block_cache_limit(usize::MAX);
        let layout = unusual_layout(4);
        let blocks: Vec<*mut u8> = (0..4).map(|_| allocate(layout)).collect();
        for block in blocks {
            free(block, layout);
        }
        assert_eq!(cache::count(layout), 4);
        let previous = set_block_cache_limit(layout.size());
        assert!(block_cache_bytes() <= layout.size());
        assert!(cache::count(layout) <= 1);
        set_block_cache_limit(0);
        assert_eq!(block_cache_bytes(), 0, "a zero limit keeps nothing");
        free(allocate(layout), layout);
        assert_eq!(cache::count(layout), 0, "nor takes anything new");
        assert_eq!(set_block_cache_limit(previous), 0);
        set_block_cache_limit(original);
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn only_a_heap_block_past_every_earlier_one_counts_as_fresh() {
        // Addresses are only compared, never used; these lie above any real heap block, so
        // the rest of this process merely skips populating (a speed hint, nothing more).
        let size = 64 * 1024;
        let top = (usize::MAX - 4 * size) as *mut u8;
        assert!(extends_the_heap(top, size), "past everything seen: fresh");
        assert!(!extends_the_heap(top, size), "the same block again: not fresh");
        assert!(!extends_the_heap(top.wrapping_sub(size), size), "below the high-water mark");
        assert!(extends_the_heap(top.wrapping_add(size), size), "further up: fresh again");
    }
}
