//! Where a table's slot arrays come from, and where they go when freed: memory that stays
//! slot-shaped while the table lives.
//!
//! A freed slot array's memory is only ever reused as slot arrays of the same table, or
//! handed back to the kernel while its mapping stays (so it reads zeros). So a reader
//! still probing an array after it was freed (none does today: every reader is pinned,
//! and arrays are freed only after the readers that saw them unpin) reads nothing but
//! zeros and slot words of its own table's entries; the slot array's reader protocol can
//! rely on that, as the slab's does on blocks keeping their shape.
//!
//! ```text
//! array word:  | base address (64-aligned)                | allocator | log2 capacity |
//!                 bits 6..63                                   bit 5      bits 0..4
//! ```
//!
//! The capacity travels in the word that names the array, so a probe reads no header (a
//! header could be another array's slot by the time a late reader reads it).
//!
//! * **Small arrays** (8 to 512 slots, 64 B to 4 KiB) are carved from the pages of one
//!   region per table, mapped at its first array. A page is 64 granules of 64 bytes; an
//!   array takes a run of them as long as itself, aligned to its length, so arrays of
//!   every size share a page (one size per page would leave a page per size mostly
//!   empty in a small table whose shards sit at different sizes). A page whose arrays
//!   are all free is handed back (`MADV_DONTNEED`). A word per page says which of its
//!   granules are in use: the first [`INLINE_PAGES`] pages' words live in the pool
//!   itself, the others' in the region's first [`META_PAGES`] pages beside the list of
//!   idle large arrays, touched only when a table's small arrays outgrow those pages or
//!   a large one goes idle (so a small table maps no metadata page).
//! * **Large arrays** (1,024 slots, 8 KiB, and more) are mappings of their own. A freed
//!   one is handed back and kept, idle, for the next array of its capacity.
//! * **The global allocator** serves what the kernel refuses (a full region, a mapping
//!   refused), every array elsewhere than on Linux and under loom, and sets without a
//!   pool (the set's own tests). Such an array is flagged in its word: it is not
//!   slot-shaped after it is freed.
//!
//! The pool's lock is taken only by a writer holding a shard's lock (which is how arrays
//! are made and freed), or by the table's drop; so a fork, which holds every shard's
//! lock, never finds it held.

use std::alloc::Layout;
use std::ptr::{self, NonNull};

use crate::sync::{AtomicPtr, Mutex, Ordering, lock, pages, raw_alloc};

/// Every array's alignment: the low bits of its word carry its capacity and source.
pub(super) const ALIGN: usize = 64;
const LOG_CAPACITY: usize = 0b1_1111;
const FROM_ALLOCATOR: usize = 0b10_0000;
const _: () = assert!(ALIGN > (LOG_CAPACITY | FROM_ALLOCATOR));

/// The most slots an array may have: its log2 must fit in [`LOG_CAPACITY`].
pub(super) const MAX_CAPACITY: usize = 1 << LOG_CAPACITY;

const SLOT: usize = std::mem::size_of::<AtomicPtr<u8>>();
const PAGE: usize = pages::PAGE;

/// The largest array carved from the region's pages; larger ones are mappings of their own.
const SMALL_MAX: usize = PAGE;
/// The region's unit: the smallest array it serves (smaller capacities round up to it).
const GRANULE: usize = 64;
const SMALL_MIN: usize = GRANULE;
const _: () = assert!(PAGE / GRANULE == 64, "a page's granules are the bits of a word");

/// Pages of a region: metadata, then array pages.
#[cfg(not(test))]
const REGION_PAGES: usize = 256;
/// A small region in tests, so that filling it is quick.
#[cfg(test)]
const REGION_PAGES: usize = 16;

/// The region's first pages: the array pages' states, then the idle large arrays.
const META_PAGES: usize = 2;

/// Idle large arrays the region's metadata lists (the rest are chained through their own
/// first slot).
#[cfg(not(test))]
const IDLE_LISTED: usize = (META_PAGES * PAGE - std::mem::size_of::<[u64; REGION_PAGES]>()) / SLOT - 1;
#[cfg(test)]
const IDLE_LISTED: usize = 2;

/// Array pages whose granule words the pool keeps itself (128 bytes), so that a table
/// whose small arrays fit in them (eight shards' arrays of up to 512 slots, with their
/// predecessors while they migrate) touches no metadata page.
#[cfg(not(test))]
const INLINE_PAGES: usize = 16;
/// Fewer in tests, so that they reach the pages whose words are in the metadata.
#[cfg(test)]
const INLINE_PAGES: usize = 2;

/// What the region's metadata pages hold.
#[repr(C)]
struct Meta {
    /// A bit per granule of each page, set while an array holds it (the words of the
    /// metadata pages and of the first [`INLINE_PAGES`] array pages go unused).
    pages: [u64; REGION_PAGES],
    idle_len: usize,
    idle: [usize; IDLE_LISTED],
}
const _: () = assert!(std::mem::size_of::<Meta>() <= META_PAGES * PAGE);

/// An array's word: where its slots start, its capacity, and whether it came from the
/// global allocator. Copying it copies the name, not the array.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct ArrayWord(NonNull<u8>);

impl ArrayWord {
    /// The word in a set's `current` or `previous` field, if not null.
    #[inline]
    pub(super) fn from_raw(raw: *mut u8) -> Option<ArrayWord> {
        NonNull::new(raw).map(ArrayWord)
    }

    #[inline]
    pub(super) fn as_raw(self) -> *mut u8 {
        self.0.as_ptr()
    }

    #[inline]
    pub(super) fn capacity(self) -> usize {
        1 << (self.0.as_ptr().addr() & LOG_CAPACITY)
    }

    /// The first slot.
    #[inline]
    pub(super) fn base(self) -> *mut AtomicPtr<u8> {
        self.0.as_ptr().map_addr(|addr| addr & !(ALIGN - 1)).cast()
    }

    fn is_from_allocator(self) -> bool {
        self.0.as_ptr().addr() & FROM_ALLOCATOR != 0
    }

    /// Whether the array came from a table's pool, which keeps its memory slot-shaped
    /// once it is freed.
    #[inline]
    pub(super) fn is_pooled(self) -> bool {
        !self.is_from_allocator()
    }

    pub(super) fn bytes(self) -> usize {
        self.capacity() * SLOT
    }

    fn new(base: NonNull<u8>, capacity: usize, from_allocator: bool) -> ArrayWord {
        debug_assert!(base.as_ptr().addr().is_multiple_of(ALIGN) && capacity.is_power_of_two());
        let bits = capacity.trailing_zeros() as usize | if from_allocator { FROM_ALLOCATOR } else { 0 };
        ArrayWord(base.map_addr(|addr| addr | bits))
    }
}

/// A table's pool of slot array memory.
pub(crate) struct ArrayPool {
    state: Mutex<PoolState>,
}

struct PoolState {
    /// The small arrays' region: [`REGION_PAGES`] pages, the first [`META_PAGES`] of them
    /// its [`Meta`]; null until the first array.
    region: *mut u8,
    /// The kernel refused the region: the pool does without one.
    region_refused: bool,
    /// The first idle large array past those the metadata lists, chained through the
    /// first slot of each (null: none).
    idle_chain: *mut u8,
    /// The granule words of the region's first [`INLINE_PAGES`] array pages.
    first_pages: [u64; INLINE_PAGES],
    /// Whether the region's metadata has been written (it is resident from then on).
    meta_written: bool,
}

// SAFETY: the raw pointers name mappings the pool owns, touched only under its lock.
unsafe impl Send for PoolState {}

/// What a pool holds beyond the arrays in use.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub(crate) struct PoolUsage {
    /// Resident bytes: the metadata pages touched, and the free arrays of the region's
    /// pages that hold some array in use.
    pub(crate) spare_bytes: usize,
    /// Bytes of idle large arrays: address space only, their pages handed back.
    pub(crate) idle_bytes: usize,
}

impl Default for ArrayPool {
    fn default() -> ArrayPool {
        ArrayPool {
            state: Mutex::new(PoolState {
                region: ptr::null_mut(),
                region_refused: false,
                idle_chain: ptr::null_mut(),
                first_pages: [0; INLINE_PAGES],
                meta_written: false,
            }),
        }
    }
}

impl ArrayPool {
    /// An array of `capacity` empty slots (a power of two, at most [`MAX_CAPACITY`]), or
    /// `None` if memory ran out. From the global allocator when `pool` is `None`.
    pub(super) fn allocate(pool: Option<&ArrayPool>, capacity: usize) -> Option<ArrayWord> {
        debug_assert!(capacity.is_power_of_two() && capacity <= MAX_CAPACITY);
        let bytes = capacity.checked_mul(SLOT)?;
        if let Some(pool) = pool.filter(|_| cfg!(all(target_os = "linux", not(loom)))) {
            let mut state = lock(&pool.state);
            let pooled = if bytes <= SMALL_MAX { state.small(bytes.max(SMALL_MIN)) } else { state.large(bytes) };
            if let Some(base) = pooled {
                return Some(ArrayWord::new(base, capacity, false));
            }
        }
        from_allocator(capacity, bytes)
    }

    /// Frees `array` into `pool` (the one that made it, or `None` if none did).
    ///
    /// # Safety
    /// `array` came from [`ArrayPool::allocate`] with this `pool`, is freed once, and no
    /// reference to its slots is live (a reader still probing it through raw pointers
    /// reads zeros or this table's slot words, as the module docs say).
    pub(super) unsafe fn free(pool: Option<&ArrayPool>, array: ArrayWord) {
        if array.is_from_allocator() {
            // SAFETY: forwarded from the caller.
            unsafe { to_allocator(array) };
            return;
        }
        let pool = pool.expect("a pooled array goes back to its pool");
        let mut state = lock(&pool.state);
        let bytes = array.bytes();
        // SAFETY: forwarded from the caller: a pooled array of this pool, freed once.
        unsafe {
            if bytes <= SMALL_MAX {
                state.free_small(array.base().cast(), bytes.max(SMALL_MIN))
            } else {
                state.free_large(array)
            }
        }
    }

    /// What the pool holds beyond the arrays in use.
    pub(crate) fn usage(&self) -> PoolUsage {
        lock(&self.state).usage()
    }

    /// Pages of the region that hold some array.
    #[cfg(test)]
    pub(super) fn pages_in_use(&self) -> usize {
        let state = lock(&self.state);
        (META_PAGES..REGION_PAGES).filter(|&page| state.peek_used(page) != 0).count()
    }
}

impl PoolState {
    /// The region, mapped on first use; `None` if the kernel refused it.
    fn region(&mut self) -> Option<*mut u8> {
        if self.region.is_null() && !self.region_refused {
            match pages::map(REGION_PAGES * PAGE) {
                Some(region) => self.region = region.as_ptr(),
                None => self.region_refused = true,
            }
        }
        (!self.region.is_null()).then_some(self.region)
    }

    /// The region's metadata (mapping the region on first use), to write; `None` if the
    /// kernel refused the region.
    fn meta(&mut self) -> Option<&mut Meta> {
        let region = self.region()?;
        self.meta_written = true;
        // SAFETY: the region's first pages hold its `Meta` (zero at mapping: no page in
        // use, no idle array listed), touched only under the pool's lock, which `&mut
        // self` stands for.
        Some(unsafe { &mut *region.cast::<Meta>() })
    }

    /// The region's metadata as it stands, if the region is mapped (reading it makes no
    /// page resident that was not).
    fn peek_meta(&self) -> Option<&Meta> {
        // SAFETY: as in `meta`; `&self` stands for the pool's lock, held.
        (!self.region.is_null()).then(|| unsafe { &*self.region.cast::<Meta>() })
    }

    /// The word of array page `page` (from [`META_PAGES`]): a bit per granule in use.
    /// Maps the region on first use; `None` if the kernel refused it.
    fn used_word(&mut self, page: usize) -> Option<&mut u64> {
        debug_assert!((META_PAGES..REGION_PAGES).contains(&page));
        match page - META_PAGES {
            inline if inline < INLINE_PAGES => {
                self.region()?;
                Some(&mut self.first_pages[inline])
            }
            _ => Some(&mut self.meta()?.pages[page]),
        }
    }

    /// The word of array page `page`, read without touching a metadata page that no
    /// write has touched (0 while the region is unmapped).
    fn peek_used(&self, page: usize) -> u64 {
        match page - META_PAGES {
            inline if inline < INLINE_PAGES => self.first_pages[inline],
            _ if self.meta_written => self.peek_meta().map_or(0, |meta| meta.pages[page]),
            _ => 0,
        }
    }

    /// A free small array of `bytes` (a power of two from [`SMALL_MIN`] to [`SMALL_MAX`]):
    /// the first free run of granules of its length, aligned to its length, in the
    /// lowest page that has one (so arrays pack into few pages).
    fn small(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        let granules = bytes / GRANULE;
        let run = run_mask(granules);
        let region = self.region()?;
        let (page, first) = (META_PAGES..REGION_PAGES).find_map(|page| {
            let used = self.peek_used(page);
            (0..64).step_by(granules).find(|&first| used & (run << first) == 0).map(|first| (page, first))
        })?;
        *self.used_word(page)? |= run << first;
        // SAFETY: the page and the run are within the region, mapped. A free run's slots
        // are zero: never touched, or handed back with its page, or zeroed when its array
        // was freed.
        NonNull::new(unsafe { region.add(page * PAGE + first * GRANULE) })
    }

    /// # Safety
    /// `base` is a small array of `bytes` from [`PoolState::small`], freed once, with no
    /// reference to its slots left.
    unsafe fn free_small(&mut self, base: *mut u8, bytes: usize) {
        let region = self.region;
        let offset = base.addr() - region.addr();
        let (page, first) = (offset / PAGE, offset % PAGE / GRANULE);
        let run = run_mask(bytes / GRANULE) << first;
        let used = self.used_word(page).expect("a small array lies in the region");
        debug_assert_eq!(*used & run, run, "an array is freed once");
        *used &= !run;
        // SAFETY: the whole page is the region's; with no array in it, nothing uses it.
        if *used == 0 && unsafe { pages::hand_back(region.add(page * PAGE), PAGE) } {
            return;
        }
        // SAFETY: the caller's array, which nothing references any more: zeroed so that
        // it is an array of empty slots when handed out again. Atomic stores, because a
        // late reader may still load its slots.
        unsafe { clear(base.cast(), bytes / SLOT) };
    }

    /// A large array of `bytes` (a multiple of [`PAGE`]): an idle one of its size, else a
    /// fresh mapping.
    fn large(&mut self, bytes: usize) -> Option<NonNull<u8>> {
        let capacity_log = (bytes / SLOT).trailing_zeros() as usize;
        let matches = |word: usize| word & LOG_CAPACITY == capacity_log;
        let reused = self.take_listed(matches).or_else(|| self.take_chained(matches));
        let base = match reused {
            Some(base) => base,
            None => pages::map(bytes)?,
        };
        if bytes >= POPULATE_FROM {
            pages::populate(base.as_ptr(), bytes);
        }
        Some(base)
    }

    fn take_listed(&mut self, matches: impl Fn(usize) -> bool) -> Option<NonNull<u8>> {
        if !self.meta_written {
            return None; // Nothing was ever listed; don't touch the page to find that out.
        }
        let meta = self.meta()?;
        let position = meta.idle[..meta.idle_len].iter().position(|&word| matches(word))?;
        let word = meta.idle[position];
        meta.idle_len -= 1;
        meta.idle[position] = meta.idle[meta.idle_len];
        Some(idle_base(word))
    }

    /// Takes the first chained idle array `matches` accepts. Its first slot held the
    /// chain's link: it is cleared before the array is handed out.
    fn take_chained(&mut self, matches: impl Fn(usize) -> bool) -> Option<NonNull<u8>> {
        let mut link: *mut *mut u8 = &raw mut self.idle_chain;
        loop {
            // SAFETY: `link` is the chain's head or the first slot of a chained array,
            // both the pool's, under its lock.
            let word = unsafe { *link };
            if word.is_null() {
                return None;
            }
            let base = idle_base(word.addr());
            // SAFETY: a chained array's first slot is its link.
            let next = unsafe { base.as_ptr().cast::<*mut u8>().read() };
            if matches(word.addr()) {
                // SAFETY: unlinking: the link now skips the array, whose first slot is
                // cleared (its other slots read zero since it was handed back).
                unsafe {
                    *link = next;
                    clear(base.as_ptr().cast(), 1);
                }
                return Some(base);
            }
            link = base.as_ptr().cast();
        }
    }

    /// # Safety
    /// `array` is a large array from [`PoolState::large`], freed once, with no reference
    /// to its slots left.
    unsafe fn free_large(&mut self, array: ArrayWord) {
        let base = array.base().cast::<u8>();
        // SAFETY: the array is a mapping of its own (whole pages), which nothing uses.
        if !unsafe { pages::hand_back(base, array.bytes()) } {
            // SAFETY: as above: zeroed by hand instead.
            unsafe { clear(base.cast(), array.capacity()) };
        }
        let word = array.as_raw().expose_provenance();
        if let Some(meta) = self.meta()
            && meta.idle_len < IDLE_LISTED
        {
            meta.idle[meta.idle_len] = word;
            meta.idle_len += 1;
            return;
        }
        // SAFETY: the array's first slot becomes the chain's link (a page of it resident
        // again); `word` keeps the array's provenance.
        unsafe { base.cast::<*mut u8>().write(self.idle_chain) };
        self.idle_chain = array.as_raw();
    }

    fn usage(&self) -> PoolUsage {
        let mut usage = PoolUsage::default();
        let mut idle = |word: usize| usage.idle_bytes += (1 << (word & LOG_CAPACITY)) * SLOT;
        let mut link = self.idle_chain;
        while !link.is_null() {
            idle(link.addr());
            // SAFETY: a chained array's first slot is its link.
            link = unsafe { idle_base(link.addr()).as_ptr().cast::<*mut u8>().read() };
            usage.spare_bytes += PAGE;
        }
        if !self.meta_written {
            return self.add_free_granules(usage);
        }
        let meta = self.peek_meta().expect("written metadata lies in the mapped region");
        meta.idle[..meta.idle_len].iter().for_each(|&word| idle(word));
        let listed_end = std::mem::offset_of!(Meta, idle) + meta.idle_len * SLOT;
        usage.spare_bytes += listed_end.div_ceil(PAGE) * PAGE;
        self.add_free_granules(usage)
    }

    /// `usage` with the free granules of the region's pages in use added.
    fn add_free_granules(&self, mut usage: PoolUsage) -> PoolUsage {
        for page in META_PAGES..REGION_PAGES {
            let used = self.peek_used(page);
            if used != 0 {
                usage.spare_bytes += used.count_zeros() as usize * GRANULE;
            }
        }
        usage
    }
}

// Bytes the pools dropped on this thread unmapped (for the tests: another thread may map
// the same addresses at once, so `mincore` cannot tell).
#[cfg(test)]
std::thread_local! {
    static UNMAPPED: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Unmaps `len` bytes at `start` for a dropped pool.
///
/// # Safety
/// As for [`pages::unmap`].
unsafe fn unmap(start: *mut u8, len: usize) {
    #[cfg(test)]
    UNMAPPED.with(|unmapped| unmapped.set(unmapped.get() + len));
    // SAFETY: forwarded from the caller.
    unsafe { pages::unmap(start, len) };
}

impl Drop for ArrayPool {
    fn drop(&mut self) {
        let state = crate::sync::exclusive(&mut self.state);
        while !state.idle_chain.is_null() {
            let word = state.idle_chain;
            let base = idle_base(word.addr());
            // SAFETY: a chained array's first slot is its link; the array is then unmapped
            // (the table is gone: no reader is left).
            unsafe {
                state.idle_chain = base.as_ptr().cast::<*mut u8>().read();
                unmap(base.as_ptr(), (1 << (word.addr() & LOG_CAPACITY)) * SLOT);
            }
        }
        if state.region.is_null() {
            return;
        }
        let region = state.region;
        debug_assert!((META_PAGES..REGION_PAGES).all(|page| state.peek_used(page) == 0), "every array was freed first");
        let idle: &[usize] = match state.peek_meta() {
            Some(meta) if state.meta_written => &meta.idle[..meta.idle_len],
            _ => &[],
        };
        for &word in idle {
            // SAFETY: an idle large array, a mapping of its own that no reader can reach.
            unsafe { unmap(idle_base(word).as_ptr(), (1 << (word & LOG_CAPACITY)) * SLOT) };
        }
        // SAFETY: the region, mapped by `meta`, with no array in use.
        unsafe { unmap(region, REGION_PAGES * PAGE) };
    }
}

/// The first slot of an idle array's word, with the provenance of the mapping that the
/// word was made from.
fn idle_base(word: usize) -> NonNull<u8> {
    let base = ptr::with_exposed_provenance_mut::<u8>(word & !(ALIGN - 1));
    NonNull::new(base).expect("an array is not at address 0")
}

/// Stores empty slots in `count` slots from `base`.
///
/// # Safety
/// `count` slots from `base` are an array's, whose owner is the caller.
unsafe fn clear(base: *mut AtomicPtr<u8>, count: usize) {
    for index in 0..count {
        // SAFETY: within the caller's array; a late reader may load it concurrently.
        unsafe { (*base.add(index)).store(ptr::null_mut(), Ordering::Relaxed) };
    }
}

/// The bits of a run of `granules` (1 to 64) from bit 0.
fn run_mask(granules: usize) -> u64 {
    if granules >= 64 { u64::MAX } else { (1 << granules) - 1 }
}

/// An array of the global allocator, flagged as such.
fn from_allocator(capacity: usize, bytes: usize) -> Option<ArrayWord> {
    let layout = Layout::from_size_align(bytes, ALIGN).ok()?;
    // Zeroed memory is an array of empty slots. loom's atomics are objects of their own,
    // so under loom each slot is written.
    // SAFETY: the layout is non-zero-sized (a capacity is at least 1).
    #[cfg(not(loom))]
    let raw = unsafe { raw_alloc::alloc_zeroed(layout) };
    // SAFETY: as above.
    #[cfg(loom)]
    let raw = unsafe { raw_alloc::alloc(layout) };
    let base = NonNull::new(raw)?;
    #[cfg(loom)]
    // SAFETY: `capacity` slots fit in the fresh block; each is written once before the
    // array is shared.
    unsafe {
        for index in 0..capacity {
            raw.cast::<AtomicPtr<u8>>().add(index).write(AtomicPtr::new(ptr::null_mut()));
        }
    }
    if bytes >= POPULATE_FROM {
        pages::populate(raw, bytes);
    }
    Some(ArrayWord::new(base, capacity, true))
}

/// # Safety
/// `array` came from [`from_allocator`] and is freed once, with no reader left.
unsafe fn to_allocator(array: ArrayWord) {
    let layout = Layout::from_size_align(array.bytes(), ALIGN).expect("the layout was valid at allocation");
    // SAFETY: forwarded from the caller; loom's atomics must be dropped (std's need not,
    // but dropping them is free).
    unsafe {
        for index in 0..array.capacity() {
            ptr::drop_in_place(array.base().add(index));
        }
        raw_alloc::dealloc(array.base().cast(), layout);
    }
}

/// Arrays of this many bytes and more are faulted in when they are made, in one call (see
/// [`pages::populate`]), rather than page by page as the migration's copies reach them:
/// one pause per growth instead of a page fault in each of many inserts.
const POPULATE_FROM: usize = 64 * 1024;

/// A set's way to its table's pool, which outlives the set (see [`PoolRef::new`]).
#[derive(Clone, Copy)]
pub(super) struct PoolRef(NonNull<ArrayPool>);

// SAFETY: a shared reference to a pool, which is `Sync` (its state is behind a lock);
// `PoolRef::new`'s contract keeps the pool alive for as long as the reference is used.
unsafe impl Send for PoolRef {}
// SAFETY: as above.
unsafe impl Sync for PoolRef {}

impl PoolRef {
    /// # Safety
    /// `pool` outlives every use of the result (a table's pool outlives its shards).
    pub(super) unsafe fn new(pool: &ArrayPool) -> PoolRef {
        PoolRef(NonNull::from(pool))
    }

    pub(super) fn get(self) -> &'static ArrayPool {
        // SAFETY: `new`'s contract: the pool is alive whenever its set uses it. The
        // `'static` never escapes the set's methods, which the pool outlives.
        unsafe { self.0.as_ref() }
    }

    /// The context a set's list of retired arrays gives [`free_retired`].
    pub(super) fn as_context(pool: Option<PoolRef>) -> *const () {
        pool.map_or(ptr::null(), |pool| pool.0.as_ptr().cast_const().cast())
    }
}

/// Frees a retired array, `ptr` its word, `context` its pool (null: none), as
/// [`PoolRef::as_context`] made it.
///
/// # Safety
/// As for [`ArrayPool::free`]; the pool is alive.
pub(super) unsafe fn free_retired(ptr: NonNull<()>, context: *const ()) {
    // SAFETY: forwarded from the caller: the context names a live pool, if any.
    let pool = unsafe { context.cast::<ArrayPool>().as_ref() };
    // SAFETY: forwarded from the caller.
    unsafe { ArrayPool::free(pool, ArrayWord(ptr.cast())) };
}

#[cfg(all(test, target_os = "linux", not(loom)))]
mod tests {
    use super::*;

    fn resident(array: ArrayWord) -> Option<Vec<bool>> {
        let base = array.base().cast::<u8>();
        let start = NonNull::new(base.map_addr(|addr| addr & !(PAGE - 1))).unwrap();
        pages::resident(start, array.bytes().max(PAGE))
    }

    fn slots(array: ArrayWord) -> &'static [AtomicPtr<u8>] {
        // SAFETY: the tests keep each array until they free it, and read its slots only
        // before.
        unsafe { std::slice::from_raw_parts(array.base(), array.capacity()) }
    }

    fn fill(array: ArrayWord, value: usize) {
        for slot in slots(array) {
            slot.store(ptr::without_provenance_mut(value), Ordering::Relaxed);
        }
    }

    fn is_empty(array: ArrayWord) -> bool {
        slots(array).iter().all(|slot| slot.load(Ordering::Relaxed).is_null())
    }

    fn free(pool: &ArrayPool, array: ArrayWord) {
        // SAFETY: each test frees an array once, after its last use.
        unsafe { ArrayPool::free(Some(pool), array) };
    }

    #[test]
    fn small_arrays_are_distinct_empty_aligned_and_carry_their_capacity() {
        let pool = ArrayPool::default();
        let mut arrays = Vec::new();
        for capacity in [8, 16, 32, 64, 128, 256, 8, 256] {
            let array = ArrayPool::allocate(Some(&pool), capacity).unwrap();
            assert_eq!(array.capacity(), capacity);
            assert!(!array.is_from_allocator());
            assert!(array.base().addr().is_multiple_of(ALIGN));
            assert!(is_empty(array));
            fill(array, 8);
            arrays.push(array);
        }
        let mut spans: Vec<_> = arrays.iter().map(|a| (a.base().addr(), a.base().addr() + a.bytes())).collect();
        spans.sort_unstable();
        assert!(spans.windows(2).all(|pair| pair[0].1 <= pair[1].0), "arrays overlap: {spans:x?}");
        for array in arrays {
            free(&pool, array);
        }
        assert_eq!(
            pool.usage(),
            PoolUsage { spare_bytes: 0, idle_bytes: 0 },
            "two pages, their words the pool's own: no metadata page written"
        );
    }

    #[test]
    fn the_metadata_page_is_written_only_past_the_pools_own_page_words() {
        let pool = ArrayPool::default();
        let page_arrays: Vec<_> =
            (0..INLINE_PAGES).map(|_| ArrayPool::allocate(Some(&pool), PAGE / SLOT).unwrap()).collect();
        page_arrays.iter().for_each(|&array| fill(array, 8));
        let region = page_arrays[0].base().cast::<u8>().wrapping_sub(META_PAGES * PAGE);
        let meta_page = NonNull::new(region).unwrap();
        assert_eq!(pages::resident(meta_page, PAGE), Some(vec![false]), "the pool's own words serve the first pages");
        assert_eq!(pool.usage(), PoolUsage::default(), "full pages, no metadata: nothing spare");

        let past = ArrayPool::allocate(Some(&pool), 8).unwrap();
        assert_eq!(past.base().cast::<u8>(), region.wrapping_add((META_PAGES + INLINE_PAGES) * PAGE), "the next page");
        assert_eq!(pages::resident(meta_page, PAGE), Some(vec![true]), "its word is in the metadata");
        assert_eq!(pool.usage().spare_bytes, PAGE + PAGE - 64, "the metadata page, and the rest of the new page");

        free(&pool, past);
        free(&pool, page_arrays[0]);
        let again = ArrayPool::allocate(Some(&pool), PAGE / SLOT).unwrap();
        assert_eq!(again, page_arrays[0], "an inline page, handed back, serves again");
        free(&pool, again);
        page_arrays[1..].iter().for_each(|&array| free(&pool, array));
        assert_eq!(pool.usage(), PoolUsage { spare_bytes: PAGE, idle_bytes: 0 }, "only the metadata page is left");
    }

    #[test]
    fn a_page_whose_arrays_all_come_back_is_handed_back_and_may_hold_another_size() {
        let pool = ArrayPool::default();
        let arrays: Vec<_> = (0..PAGE / 64).map(|_| ArrayPool::allocate(Some(&pool), 8).unwrap()).collect();
        let page = arrays[0].base().addr() & !(PAGE - 1);
        assert!(arrays.iter().all(|array| array.base().addr() & !(PAGE - 1) == page), "one page holds them all");
        arrays.iter().for_each(|&array| fill(array, 8));
        assert_eq!(resident(arrays[0]), Some(vec![true]));
        assert_eq!(pool.usage().spare_bytes, 0, "a full page has no spare array");
        free(&pool, arrays[1]);
        assert_eq!(pool.usage().spare_bytes, 64, "a free array of a page in use is spare");
        for &array in arrays.iter().filter(|&&array| array != arrays[1]) {
            free(&pool, array);
        }
        assert_eq!(resident(arrays[0]), Some(vec![false]), "handed back, still mapped");
        let larger = ArrayPool::allocate(Some(&pool), 256).unwrap();
        assert_eq!(larger.base().addr(), page, "the first free page, now of 2 KiB arrays");
        assert!(is_empty(larger));
        free(&pool, larger);
    }

    #[test]
    fn arrays_of_every_size_share_a_page() {
        let pool = ArrayPool::default();
        let arrays: Vec<_> = [256, 8, 128, 16, 64, 32, 8]
            .into_iter()
            .map(|capacity| ArrayPool::allocate(Some(&pool), capacity).unwrap())
            .collect();
        let page = arrays[0].base().addr() & !(PAGE - 1);
        assert!(arrays.iter().all(|array| array.base().addr() & !(PAGE - 1) == page), "4 KiB of arrays, one page");
        assert!(
            arrays.iter().all(|array| array.base().addr().is_multiple_of(array.bytes())),
            "each aligned to its length"
        );
        assert_eq!(pool.usage().spare_bytes, 0, "the page is full, its word the pool's own: nothing spare");
        arrays.into_iter().for_each(|array| free(&pool, array));
    }

    #[test]
    fn a_freed_small_array_is_empty_when_handed_out_again() {
        let pool = ArrayPool::default();
        let kept = ArrayPool::allocate(Some(&pool), 16).unwrap();
        let freed = ArrayPool::allocate(Some(&pool), 16).unwrap();
        fill(freed, 0x1_0000);
        free(&pool, freed);
        let again = ArrayPool::allocate(Some(&pool), 16).unwrap();
        assert_eq!(again, freed, "the same array, its page still in use");
        assert!(is_empty(again));
        free(&pool, again);
        free(&pool, kept);
    }

    #[test]
    fn a_large_array_is_handed_back_kept_idle_and_reused_for_its_capacity() {
        let pool = ArrayPool::default();
        let array = ArrayPool::allocate(Some(&pool), 1024).unwrap();
        assert!(!array.is_from_allocator() && array.base().addr().is_multiple_of(PAGE));
        fill(array, 8);
        assert_eq!(resident(array), Some(vec![true, true]));
        free(&pool, array);
        assert_eq!(resident(array), Some(vec![false, false]), "handed back, still mapped");
        assert_eq!(pool.usage().idle_bytes, 8192);
        let other = ArrayPool::allocate(Some(&pool), 2048).unwrap();
        assert_ne!(other.base(), array.base(), "an idle array serves its own capacity only");
        let again = ArrayPool::allocate(Some(&pool), 1024).unwrap();
        assert_eq!(again, array);
        assert!(is_empty(again));
        assert_eq!(pool.usage().idle_bytes, 0);
        free(&pool, again);
        free(&pool, other);
    }

    #[test]
    fn idle_arrays_past_the_list_are_chained_reused_and_unmapped_with_the_pool() {
        let pool = ArrayPool::default();
        let capacities = [1024, 2048, 1024, 4096, 1024];
        let arrays: Vec<_> =
            capacities.iter().map(|&capacity| ArrayPool::allocate(Some(&pool), capacity).unwrap()).collect();
        arrays.iter().for_each(|&array| fill(array, 8));
        arrays.iter().for_each(|&array| free(&pool, array));
        assert!(capacities.len() > IDLE_LISTED);
        let idle: usize = arrays.iter().map(|array| array.bytes()).sum();
        assert_eq!(pool.usage().idle_bytes, idle);
        let again: Vec<_> =
            capacities.iter().map(|&capacity| ArrayPool::allocate(Some(&pool), capacity).unwrap()).collect();
        let mut before: Vec<_> = arrays.iter().map(|array| array.as_raw().addr()).collect();
        let mut after: Vec<_> = again.iter().map(|array| array.as_raw().addr()).collect();
        before.sort_unstable();
        after.sort_unstable();
        assert_eq!(before, after, "every idle array, listed or chained, was reused");
        assert!(again.iter().all(|&array| is_empty(array)), "a chained array's link is cleared");
        again.iter().for_each(|&array| free(&pool, array));
        let unmapped = UNMAPPED.with(std::cell::Cell::get);
        drop(pool);
        let region = REGION_PAGES * PAGE;
        assert_eq!(UNMAPPED.with(std::cell::Cell::get) - unmapped, idle + region, "every idle array and the region");
    }

    #[test]
    fn arrays_come_from_the_allocator_past_a_full_region_or_without_a_pool() {
        let pool = ArrayPool::default();
        let per_page = PAGE / 2048;
        let pooled: Vec<_> = (0..(REGION_PAGES - META_PAGES) * per_page)
            .map(|_| ArrayPool::allocate(Some(&pool), 256).unwrap())
            .collect();
        assert!(pooled.iter().all(|array| !array.is_from_allocator()));
        let spilled = ArrayPool::allocate(Some(&pool), 256).unwrap();
        assert!(spilled.is_from_allocator() && is_empty(spilled));
        let loose = ArrayPool::allocate(None, 8).unwrap();
        assert!(loose.is_from_allocator() && is_empty(loose) && loose.capacity() == 8);
        free(&pool, spilled);
        // SAFETY: made without a pool, freed once.
        unsafe { ArrayPool::free(None, loose) };
        pooled.into_iter().for_each(|array| free(&pool, array));
    }
}
