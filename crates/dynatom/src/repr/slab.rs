//! Size-class slabs: where a table keeps the atoms it copies in.
//!
//! # Layout
//!
//! ```text
//!  a slab: SLAB_BYTES, aligned to SLAB_BYTES, blocks of one size (a multiple of 8)
//!  +-------------+---------+---------+- - -+---------+---------------------+
//!  | SlabHeader  | block 0 | block 1 |     | block k | never handed out    |
//!  +-------------+---------+---------+- - -+---------+---------------------+
//!  ^ block address with its low SLAB_BYTES bits cleared
//! ```
//!
//! A table has one [`Slabs`]: a class per block size from 16 to [`MAX_BLOCK`] bytes in
//! steps of 8, each a lock over the class's slabs. A block's slab is found from the block's
//! address alone (the slab's alignment), so a block carries no allocator header and is
//! rounded to 8 bytes, where glibc's malloc adds an 8-byte chunk header and rounds to 16.
//!
//! # Ownership and reuse
//!
//! While its table lives, a slab is *owned*: its header points at its class, and blocks
//! come and go only under that class's lock. A freed block goes on its slab's free list
//! and is only ever handed out again as a block of the same table and size, and an owned
//! slab is never given back to the system: memory that once held a block of some size
//! holds blocks of that size, at the same offsets, for as long as the table lives. That is
//! what lets a reader that holds no lock and no pin look at a block that may have been
//! freed: whatever it finds at a block's address is a block header.
//!
//! * A free block's first [`KEPT_ON_FREE`] bytes stay addressable, and its first word is
//!   left as its last user left it (a heap block is freed only once its count is 0, so its
//!   count reads 0); the free-list link lives in its second word.
//! * A slab whose last block comes back becomes *idle* (unless it is the class's only slab
//!   with room, kept so that an intern-and-sweep cycle at a slab boundary does not
//!   allocate every time): on Linux its pages go back to the system with
//!   `MADV_DONTNEED` while the mapping stays, so it costs address space but no memory,
//!   and a reader of it reads zeros, a count of 0. The class takes an idle slab back
//!   before it maps a new one. Where slabs come from the global allocator (elsewhere, or
//!   when the kernel refuses a mapping), an emptied slab stays as it is, with room for the
//!   class's next blocks.
//!
//! When the table goes ([`Slabs::disown`], before it lets go of its entries), each slab
//! loses its owner: it is released at once if empty, else by whichever thread frees its
//! last block, through the slab's own count (the blocks still held are atoms of the
//! dropped table that outlive it). The table lets go of its entries only after disowning,
//! and until then it holds a count of every block in its slabs, so no handle can free a
//! block of an owned slab: only the table's own code does, in its sweeps.
//!
//! # The checkers
//!
//! The text of a block on a free list, and the room not yet handed out, are marked
//! inaccessible for valgrind's memcheck and AddressSanitizer ([`checker`]), so a use after
//! free of a text inside a slab is reported as it would be for a malloc block. A free
//! block's header (its first [`KEPT_ON_FREE`] bytes, the free-list link among them) stays
//! accessible, since a reader may look at it as described above.

use std::cell::UnsafeCell;
use std::ptr::{self, NonNull};

use super::checker;
use crate::error::StrError;
use crate::sync::{AtomicPtr, AtomicU32, AtomicUsize, Backoff, Ordering, exclusive_ptr, fence};

/// Bytes of one slab, and its alignment: 32 KiB holds at least 126 blocks of the largest
/// class and bounds a class's room that no block uses yet to 32 KiB.
pub(crate) const SLAB_BYTES: usize = 32 * 1024;

/// The largest block a slab holds (header and text, rounded to 8): texts up to 240 bytes.
/// Longer ones cost enough to copy and hash that malloc's header is noise.
pub(crate) const MAX_BLOCK: usize = 256;

/// Block sizes step by 8 bytes, the alignment every block needs.
const CLASS_STEP: usize = 8;

/// Classes indexed by `size / CLASS_STEP`; the indices below 2 (blocks under 16 bytes)
/// are never asked for.
const CLASS_COUNT: usize = MAX_BLOCK / CLASS_STEP + 1;

/// Where the first block of a slab starts: past the header, 8-aligned.
const FIRST_BLOCK: usize = std::mem::size_of::<SlabHeader>().next_multiple_of(CLASS_STEP);

/// Bytes at the start of a free block that stay addressable to the checkers and that the
/// slab never overwrites but for the free-list link at [`LINK_OFFSET`]: a heap block's
/// header (count, length, hash and flags).
pub(crate) const KEPT_ON_FREE: usize = 16;

/// Where in a free block its free-list link lies: past the first word, which a freed heap
/// block keeps (its count, 0).
const LINK_OFFSET: usize = 8;

const _: () = assert!(LINK_OFFSET + std::mem::size_of::<*mut u8>() <= KEPT_ON_FREE);
const _: () = assert!(KEPT_ON_FREE <= 2 * CLASS_STEP, "the smallest block holds the kept bytes");

/// The size of the block that holds `bytes` bytes, if a slab holds it.
#[inline]
pub(crate) const fn block_size(bytes: usize) -> Option<usize> {
    let size = bytes.next_multiple_of(CLASS_STEP);
    if size <= MAX_BLOCK { Some(size) } else { None }
}

#[repr(C)]
struct SlabHeader {
    /// Blocks handed out and not yet back, plus one while a table owns the slab. Changed
    /// with plain loads and stores under the owner's lock; with atomic decrements once the
    /// slab is disowned.
    live: AtomicU32,
    block_size: u32,
    /// Where the slab's memory goes back to.
    source: memory::Source,
    /// The class that owns the slab, or null once its table let go of it.
    owner: AtomicPtr<ClassLock>,
    /// Touched only under the owner's lock.
    links: UnsafeCell<Links>,
}

/// A slab's place in its class, and its free blocks.
struct Links {
    /// The last block given back; each free block's word at [`LINK_OFFSET`] is the next one.
    free: *mut u8,
    /// Offset of the first block never handed out.
    fresh: usize,
    in_partial: bool,
    all: Neighbours,
    partial: Neighbours,
}

#[derive(Clone, Copy)]
struct Neighbours {
    prev: *mut SlabHeader,
    next: *mut SlabHeader,
}

const NO_NEIGHBOURS: Neighbours = Neighbours { prev: ptr::null_mut(), next: ptr::null_mut() };

/// One block size's slabs: every slab (for the table's drop), and those with room.
pub(crate) struct Class {
    all: *mut SlabHeader,
    partial: *mut SlabHeader,
    /// Emptied slabs whose pages went back to the system, taken again before any new
    /// mapping: on no list (their headers read zero), and not counted in `slabs`.
    idle: IdleSlabs,
    slabs: usize,
    /// Of those, the slabs mapped from the kernel (outside the global allocator).
    mapped_slabs: usize,
    /// Bytes of the class's slabs not handed out as blocks (free blocks, unused room and
    /// the headers), for memory reports.
    spare_bytes: usize,
}

const EMPTY_CLASS: Class = Class {
    all: ptr::null_mut(),
    partial: ptr::null_mut(),
    idle: IdleSlabs::EMPTY,
    slabs: 0,
    mapped_slabs: 0,
    spare_bytes: 0,
};

/// A class's idle slabs: a stack kept in memory that comes from where slabs come from
/// (outside the global allocator, on Linux), made when the first slab goes idle and
/// touched only as far as the stack reaches, 8 bytes per idle slab. Not a `Vec`: a table
/// whose slabs empty and fill again then asks the global allocator for nothing.
struct IdleSlabs {
    stack: *mut *mut SlabHeader,
    source: memory::Source,
    len: usize,
}

/// Idle slabs one stack holds: 4,096, 128 MiB of a class's slabs. A class that empties
/// more keeps the rest resident, as empty slabs with room.
const IDLE_CAPACITY: usize = SLAB_BYTES / std::mem::size_of::<*mut SlabHeader>();

impl IdleSlabs {
    const EMPTY: IdleSlabs = IdleSlabs { stack: ptr::null_mut(), source: memory::Source::Allocator, len: 0 };

    fn len(&self) -> usize {
        self.len
    }

    /// Whether a slab can be pushed now (making the stack if there is none yet).
    fn has_room(&mut self) -> bool {
        if self.stack.is_null() {
            let Some((memory, source)) = memory::map() else { return false };
            self.stack = memory.as_ptr().cast();
            self.source = source;
        }
        self.len < IDLE_CAPACITY
    }

    /// Pushes `slab`, after [`IdleSlabs::has_room`] said yes.
    fn push(&mut self, slab: NonNull<SlabHeader>) {
        assert!(!self.stack.is_null() && self.len < IDLE_CAPACITY, "asked has_room first");
        // SAFETY: entry `len` lies inside the stack's SLAB_BYTES, which are ours.
        unsafe { self.stack.add(self.len).write(slab.as_ptr()) };
        self.len += 1;
    }

    fn pop(&mut self) -> Option<NonNull<SlabHeader>> {
        if self.len == 0 {
            return None;
        }
        self.len -= 1;
        // SAFETY: entry `len` was written by `push` and lies inside the stack.
        NonNull::new(unsafe { self.stack.add(self.len).read() })
    }

    /// Unmaps every idle slab, then the stack.
    fn release_all(&mut self) {
        while let Some(idle) = self.pop() {
            // SAFETY: an idle slab holds no block and is on no list; its header was
            // dropped when it went idle.
            unsafe { release_idle_slab(idle) };
        }
        if let Some(stack) = NonNull::new(self.stack) {
            // SAFETY: the stack came from `memory::map` with this source, and is unused.
            unsafe { memory::unmap(stack.cast(), self.source) };
            self.stack = ptr::null_mut();
        }
    }
}

/// A class behind its lock: a spin lock, whose release is a plain store where a futex
/// mutex's is a locked exchange (the holder runs a few dozen instructions, so a waiter
/// spins, then yields, then sleeps: see [`Backoff`]). The figures for memory reports are
/// published beside it at each release, so that a report takes no class lock: in the
/// global table a class is locked only by a holder of a shard lock, which the fork handlers
/// hold across `fork`, so no child starts with a class locked.
pub(crate) struct ClassLock {
    held: AtomicU32,
    slabs: AtomicUsize,
    idle_slabs: AtomicUsize,
    mapped_slabs: AtomicUsize,
    spare_bytes: AtomicUsize,
    class: UnsafeCell<Class>,
}

// SAFETY: the class (and the slabs it reaches) is touched only by the holder of `held`,
// which the Acquire/Release pair hands from one thread to the next.
unsafe impl Sync for ClassLock {}
// SAFETY: as above; the raw pointers lead only to this class's slabs.
unsafe impl Send for ClassLock {}

impl ClassLock {
    fn new() -> ClassLock {
        ClassLock {
            held: AtomicU32::new(0),
            slabs: AtomicUsize::new(0),
            idle_slabs: AtomicUsize::new(0),
            mapped_slabs: AtomicUsize::new(0),
            spare_bytes: AtomicUsize::new(0),
            class: UnsafeCell::new(EMPTY_CLASS),
        }
    }

    #[inline]
    fn lock(&self) -> ClassGuard<'_> {
        self.lock_noting_contention().0
    }

    /// The lock, and whether another thread held it when we asked.
    #[inline]
    fn lock_noting_contention(&self) -> (ClassGuard<'_>, bool) {
        let mut contended = false;
        while self.held.compare_exchange_weak(0, 1, Ordering::Acquire, Ordering::Relaxed).is_err() {
            contended = true;
            let mut backoff = Backoff::new();
            while self.held.load(Ordering::Relaxed) != 0 {
                backoff.wait();
            }
        }
        (ClassGuard { lock: self }, contended)
    }

    /// The class, owned outright.
    fn get_mut(&mut self) -> &mut Class {
        self.class.get_mut()
    }

    fn usage(&self) -> SlabUsage {
        SlabUsage {
            slabs: self.slabs.load(Ordering::Relaxed),
            idle_slabs: self.idle_slabs.load(Ordering::Relaxed),
            mapped_slabs: self.mapped_slabs.load(Ordering::Relaxed),
            spare_bytes: self.spare_bytes.load(Ordering::Relaxed),
        }
    }
}

struct ClassGuard<'a> {
    lock: &'a ClassLock,
}

impl std::ops::Deref for ClassGuard<'_> {
    type Target = Class;

    fn deref(&self) -> &Class {
        // SAFETY: this guard holds the lock.
        unsafe { &*self.lock.class.get() }
    }
}

impl std::ops::DerefMut for ClassGuard<'_> {
    fn deref_mut(&mut self) -> &mut Class {
        // SAFETY: this guard holds the lock, and the borrow of the guard is unique.
        unsafe { &mut *self.lock.class.get() }
    }
}

impl Drop for ClassGuard<'_> {
    fn drop(&mut self) {
        let (slabs, mapped_slabs, spare_bytes) = (self.slabs, self.mapped_slabs, self.spare_bytes);
        let idle_slabs = self.idle.len();
        self.lock.slabs.store(slabs, Ordering::Relaxed);
        self.lock.idle_slabs.store(idle_slabs, Ordering::Relaxed);
        self.lock.mapped_slabs.store(mapped_slabs, Ordering::Relaxed);
        self.lock.spare_bytes.store(spare_bytes, Ordering::Relaxed);
        self.lock.held.store(0, Ordering::Release);
    }
}

/// A table's slabs: one class per block size in each of its stripes.
///
/// A stripe is a full set of classes. Allocations pick one by a key (the global table
/// passes the shard index), so threads filing into different shards mostly lock different
/// classes: with one set, every miss of every thread locks the one class of its size, and
/// at 16 threads that lock and the slab it guards are the bottleneck. A stripe keeps up
/// to one slab with room per class, so each stripe in use may add `SLAB_BYTES` per block
/// size to what the table keeps beyond its blocks. Hence stripes come into use only under
/// contention: allocation starts on one, and an allocation that found its class locked by
/// another thread doubles the stripes in use, up to those the table has.
///
/// A stripe is made at the first allocation that picks it: its locks are 3.4 KiB, and a
/// table that never files a block, or never sees contention, has no use for them (on a
/// 16-core machine the global table may have 16 stripes, 55 KiB, most of them idle).
pub(crate) struct Slabs {
    /// Each null until its first allocation; then boxed (each slab points at its class,
    /// which must not move) and kept until the table drops.
    stripes: [AtomicPtr<Stripe>; MAX_STRIPES],
    /// Stripes the table may have: a power of two, at most [`MAX_STRIPES`].
    stripe_count: usize,
    /// Stripes in use: a power of two, at most `stripe_count`; only grows.
    in_use: AtomicUsize,
}

/// One set of classes, on cache lines of its own.
#[repr(align(128))]
struct Stripe([ClassLock; CLASS_COUNT]);

/// Stripes a table may have: more than the global table's shard count would share none.
pub(crate) const MAX_STRIPES: usize = 16;

/// What a table's slabs hold, for memory reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SlabUsage {
    pub(crate) slabs: usize,
    /// Emptied slabs kept mapped with their pages handed back: address space, no memory.
    pub(crate) idle_slabs: usize,
    /// Of those, the slabs mapped from the kernel (outside the global allocator).
    pub(crate) mapped_slabs: usize,
    /// Bytes of slabs not handed out as blocks: free blocks, room not used yet, headers.
    pub(crate) spare_bytes: usize,
}

impl Slabs {
    /// Empty slabs in one stripe (no memory but the classes' locks).
    #[cfg(test)]
    pub(crate) fn try_new() -> Result<Slabs, StrError> {
        Slabs::try_with_stripes(1)
    }

    /// Empty slabs in `stripes` stripes (a power of two, at most [`MAX_STRIPES`]).
    /// Allocates nothing: each stripe comes with its first block.
    pub(crate) fn try_with_stripes(stripes: usize) -> Result<Slabs, StrError> {
        debug_assert!(stripes.is_power_of_two() && stripes <= MAX_STRIPES);
        Ok(Slabs {
            stripes: std::array::from_fn(|_| AtomicPtr::new(ptr::null_mut())),
            stripe_count: stripes,
            in_use: AtomicUsize::new(1),
        })
    }

    /// Stripe `index` (below `stripe_count`), made now if it is the first use; `None` if
    /// memory ran out making it.
    #[inline]
    fn stripe(&self, index: usize) -> Option<&Stripe> {
        // Acquire: pairs with the exchange that published the stripe, so its classes'
        // initial state is visible.
        match NonNull::new(self.stripes[index].load(Ordering::Acquire)) {
            // SAFETY: a published stripe stays allocated, and unmoved, until `self` drops.
            Some(stripe) => Some(unsafe { stripe.as_ref() }),
            None => self.make_stripe(index),
        }
    }

    #[cold]
    fn make_stripe(&self, index: usize) -> Option<&Stripe> {
        let mut one = Vec::new();
        one.try_reserve_exact(1).ok()?;
        one.push(Stripe(std::array::from_fn(|_| ClassLock::new())));
        let boxed: Box<[Stripe; 1]> = one.into_boxed_slice().try_into().ok()?;
        let fresh = Box::into_raw(boxed).cast::<Stripe>();
        // AcqRel: Release publishes the fresh stripe's contents; Acquire, on a lost race,
        // makes the winner's visible.
        let published =
            match self.stripes[index].compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => fresh,
                Err(winner) => {
                    // SAFETY: `fresh` came from `Box::into_raw` above and was never shared.
                    drop(unsafe { Box::from_raw(fresh.cast::<[Stripe; 1]>()) });
                    winner
                }
            };
        // SAFETY: published: allocated, and unmoved, until `self` drops.
        Some(unsafe { &*published })
    }

    /// The stripes made so far, read by their owner outright: no synchronising load, since
    /// loom drops the global table among its statics.
    fn made_stripes_owned(&mut self) -> impl Iterator<Item = NonNull<Stripe>> + use<'_> {
        self.stripes[..self.stripe_count].iter_mut().filter_map(|stripe| NonNull::new(exclusive_ptr(stripe)))
    }

    /// The stripes made so far.
    fn made_stripes(&self) -> impl Iterator<Item = &Stripe> {
        self.stripes[..self.stripe_count].iter().filter_map(|stripe| {
            // Acquire: as in `stripe`.
            // SAFETY: as in `stripe`.
            NonNull::new(stripe.load(Ordering::Acquire)).map(|stripe| unsafe { stripe.as_ref() })
        })
    }

    /// A block of `size` bytes (a [`block_size`]) from the stripe that `key` picks among
    /// those in use; `None` if memory ran out. Its first [`KEPT_ON_FREE`] bytes hold what
    /// they held when the block was last freed (zeros if it never was), but for the word at
    /// [`LINK_OFFSET`]; the rest is undefined.
    #[inline]
    pub(crate) fn allocate(&self, size: usize, key: usize) -> Option<NonNull<u8>> {
        debug_assert!(block_size(size) == Some(size) && size >= 2 * CLASS_STEP);
        let in_use = self.in_use.load(Ordering::Relaxed);
        let stripe = self.stripe(key & (in_use - 1))?;
        let owner = &stripe.0[size / CLASS_STEP];
        let (mut class, contended) = owner.lock_noting_contention();
        if contended && in_use < self.stripe_count {
            // A lost race means another thread widened it already.
            let _ = self.in_use.compare_exchange(in_use, in_use * 2, Ordering::Relaxed, Ordering::Relaxed);
        }
        let slab = match NonNull::new(class.partial) {
            Some(slab) => slab,
            None => new_slab(&mut class, owner, size)?,
        };
        // SAFETY: a slab of this class (on its partial list), owned, under its lock.
        Some(unsafe { take_block(&mut class, slab, size) })
    }

    /// Slabs in use and their spare bytes, as each class's last lock holder left them.
    pub(crate) fn usage(&self) -> SlabUsage {
        self.classes().map(ClassLock::usage).fold(SlabUsage::default(), |sum, class| SlabUsage {
            slabs: sum.slabs + class.slabs,
            idle_slabs: sum.idle_slabs + class.idle_slabs,
            mapped_slabs: sum.mapped_slabs + class.mapped_slabs,
            spare_bytes: sum.spare_bytes + class.spare_bytes,
        })
    }

    fn classes(&self) -> impl Iterator<Item = &ClassLock> {
        self.made_stripes().flat_map(|stripe| stripe.0.iter())
    }

    /// The table lets go of its slabs: each is released now if empty, else when its
    /// last block is freed. Must come before the table gives up its entries' counts (see
    /// the module's docs); later calls find nothing.
    pub(crate) fn disown(&mut self) {
        // SAFETY: published stripes stay allocated until `self` drops, and `&mut self`
        // leaves no other reference to them.
        for lock in self.made_stripes_owned().flat_map(|stripe| unsafe { &mut (*stripe.as_ptr()).0 }.iter_mut()) {
            let class = lock.get_mut();
            let mut slab = class.all;
            while let Some(current) = NonNull::new(slab) {
                // SAFETY: a slab of this class, whose lock we hold outright.
                slab = unsafe { links(current).all.next };
                // SAFETY: `current` is owned by this class until the store below.
                let header = unsafe { current.as_ref() };
                // Release: our writes to the slab happen before a later releaser's
                // (which loads the owner with Acquire, or decrements after us).
                header.owner.store(ptr::null_mut(), Ordering::Release);
                if header.live.fetch_sub(1, Ordering::AcqRel) == 1 {
                    // SAFETY: no block is out and no owner refers to it any more.
                    unsafe { release_slab(current) };
                }
            }
            class.idle.release_all();
            *lock = ClassLock::new();
        }
    }
}

impl Drop for Slabs {
    fn drop(&mut self) {
        self.disown();
        for made in self.made_stripes_owned() {
            // SAFETY: made by `make_stripe` from a `Box<[Stripe; 1]>`, and disowned above:
            // no slab points at its classes any more.
            drop(unsafe { Box::from_raw(made.as_ptr().cast::<[Stripe; 1]>()) });
        }
    }
}

/// Frees a block from [`Slabs::allocate`].
///
/// # Safety
/// - `block` came from `Slabs::allocate` and is freed once, with nothing left using it;
/// - if its table has not disowned its slabs, the table is alive for the whole call.
pub(crate) unsafe fn free(block: NonNull<u8>) {
    let slab = slab_of(block);
    // SAFETY: the slab holds `block`, which is not back yet, so it is not released.
    let header = unsafe { slab.as_ref() };
    let size = header.block_size as usize;
    // Acquire: pairs with `disown`'s Release store.
    match NonNull::new(header.owner.load(Ordering::Acquire)) {
        Some(owner) => {
            // SAFETY: the owner is the class of a live table (the caller's guarantee).
            let mut class = unsafe { owner.as_ref() }.lock();
            // SAFETY: `block` is of this owned slab, under its class's lock.
            unsafe { give_back(&mut class, slab, block, size) };
        }
        None => {
            checker::mark_freed(block.as_ptr(), size);
            // Release: our uses of the block happen before whoever releases the slab.
            if header.live.fetch_sub(1, Ordering::Release) == 1 {
                fence(Ordering::Acquire);
                // SAFETY: the last block is back and no owner is left.
                unsafe { release_slab(slab) };
            }
        }
    }
}

/// The slab a block lies in.
#[inline]
fn slab_of(block: NonNull<u8>) -> NonNull<SlabHeader> {
    // The slab starts at the block's address rounded down to the slab alignment; `map_addr`
    // keeps the block's provenance, which spans the whole slab allocation.
    let start = block.as_ptr().map_addr(|addr| addr & !(SLAB_BYTES - 1));
    // SAFETY: a slab allocation is never at address 0.
    unsafe { NonNull::new_unchecked(start.cast()) }
}

/// The mutable part of an owned slab.
///
/// # Safety
/// `slab` is owned by a class whose lock the caller holds (or outright), and no other
/// reference to its links is alive.
#[allow(clippy::mut_from_ref)]
#[inline]
unsafe fn links<'a>(slab: NonNull<SlabHeader>) -> &'a mut Links {
    // SAFETY: the caller holds the lock that guards the links.
    unsafe { &mut *slab.as_ref().links.get() }
}

/// Allocates an empty slab for `class`, first on its lists.
#[cold]
#[inline(never)]
fn new_slab(class: &mut Class, owner: &ClassLock, size: usize) -> Option<NonNull<SlabHeader>> {
    let (slab, source, was_idle) = match class.idle.pop() {
        Some(idle) => (idle.cast::<u8>(), memory::Source::Kernel, true),
        None => {
            let (slab, source) = memory::map()?;
            (slab, source, false)
        }
    };
    let slab = slab.cast::<SlabHeader>();
    let header = SlabHeader {
        live: AtomicU32::new(1),
        block_size: u32::try_from(size).expect("blocks are at most MAX_BLOCK"),
        source,
        owner: AtomicPtr::new(ptr::from_ref(owner).cast_mut()),
        links: UnsafeCell::new(Links {
            free: ptr::null_mut(),
            fresh: FIRST_BLOCK,
            in_partial: true,
            all: Neighbours { prev: ptr::null_mut(), next: class.all },
            partial: Neighbours { prev: ptr::null_mut(), next: class.partial },
        }),
    };
    // SAFETY: a fresh allocation sized and aligned for a header at its start.
    unsafe { slab.as_ptr().write(header) };
    // SAFETY: the neighbours are slabs of this class, under its lock.
    unsafe {
        if let Some(next) = NonNull::new(class.all) {
            links(next).all.prev = slab.as_ptr();
        }
        if let Some(next) = NonNull::new(class.partial) {
            links(next).partial.prev = slab.as_ptr();
        }
    }
    class.all = slab.as_ptr();
    class.partial = slab.as_ptr();
    class.slabs += 1;
    class.mapped_slabs += usize::from(source == memory::Source::Kernel);
    class.spare_bytes += SLAB_BYTES;
    let room = slab.as_ptr().cast::<u8>().wrapping_add(FIRST_BLOCK);
    checker::mark_freed(room, SLAB_BYTES - FIRST_BLOCK);
    if was_idle {
        // Blocks of this size lay here before: their headers stay readable, as a free
        // block's do, for a reader that still holds the address of one.
        for offset in (FIRST_BLOCK..=SLAB_BYTES - size).step_by(size) {
            checker::mark_defined(room.wrapping_add(offset - FIRST_BLOCK), KEPT_ON_FREE);
        }
    }
    Some(slab)
}

/// Takes a free block (or the next fresh one) from `slab`, which has one.
///
/// # Safety
/// `slab` is on `class`'s partial list, of blocks of `size`, under the class's lock.
#[inline]
unsafe fn take_block(class: &mut Class, slab: NonNull<SlabHeader>, size: usize) -> NonNull<u8> {
    // SAFETY: forwarded from the caller.
    let slab_links = unsafe { links(slab) };
    let block = match NonNull::new(slab_links.free) {
        Some(block) => {
            // SAFETY: a free block of this slab, whose link `give_back` wrote.
            slab_links.free = unsafe { block.as_ptr().add(LINK_OFFSET).cast::<*mut u8>().read() };
            // The header keeps what it held (readers may look at it); the text is new.
            checker::mark_allocated(block.as_ptr().wrapping_add(KEPT_ON_FREE), size - KEPT_ON_FREE);
            block
        }
        None => {
            let offset = slab_links.fresh;
            slab_links.fresh += size;
            // SAFETY: the slab is on the partial list, so a fresh block fits at `offset`.
            let block = unsafe { NonNull::new_unchecked(slab.as_ptr().cast::<u8>().add(offset)) };
            checker::mark_allocated(block.as_ptr(), size);
            // Every block is handed out with a count word (its first four bytes) of 0, as
            // a freed one keeps it (a heap block's count: see `heap::Block::copy_filed_in`).
            // A slab from the allocator is not zeroed, and to memcheck a fresh block is
            // unwritten. Atomic, because a reader may still hold this address from an
            // earlier life of the slab (an idle one taken back) and load the count.
            // SAFETY: the block is ours, 8-aligned and at least 8 bytes long; its count
            // word is only ever accessed atomically.
            unsafe { std::sync::atomic::AtomicU32::from_ptr(block.as_ptr().cast()) }.store(0, Ordering::Relaxed);
            block
        }
    };
    // SAFETY: owned slab: `live` changes only under this lock.
    let header = unsafe { slab.as_ref() };
    header.live.store(header.live.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
    class.spare_bytes -= size;
    if slab_links.free.is_null() && slab_links.fresh + size > SLAB_BYTES {
        // SAFETY: forwarded from the caller.
        unsafe { unlink_partial(class, slab) };
    }
    block
}

/// Puts `block` back on its owned slab, releasing the slab if it empties and the class
/// has another with room.
///
/// # Safety
/// `block` (of `size` bytes) was handed out from `slab`, owned by `class`, whose lock the
/// caller holds; nothing uses the block any more.
unsafe fn give_back(class: &mut Class, slab: NonNull<SlabHeader>, block: NonNull<u8>, size: usize) {
    // SAFETY: forwarded from the caller.
    let slab_links = unsafe { links(slab) };
    // SAFETY: the block is ours to reuse; its word at LINK_OFFSET becomes the free-list
    // link, and its first word is left as it is.
    unsafe { block.as_ptr().add(LINK_OFFSET).cast::<*mut u8>().write(slab_links.free) };
    slab_links.free = block.as_ptr();
    checker::mark_freed(block.as_ptr().wrapping_add(KEPT_ON_FREE), size - KEPT_ON_FREE);
    // SAFETY: owned slab: `live` changes only under this lock.
    let header = unsafe { slab.as_ref() };
    let live = header.live.load(Ordering::Relaxed) - 1;
    header.live.store(live, Ordering::Relaxed);
    class.spare_bytes += size;
    if !slab_links.in_partial {
        slab_links.in_partial = true;
        slab_links.partial = Neighbours { prev: ptr::null_mut(), next: class.partial };
        if let Some(next) = NonNull::new(class.partial) {
            // SAFETY: a slab of this class, under its lock.
            unsafe { links(next).partial.prev = slab.as_ptr() };
        }
        class.partial = slab.as_ptr();
    }
    let only_room = class.partial == slab.as_ptr() && slab_links.partial.next.is_null();
    if live == 1 && !only_room && header.source == memory::Source::Kernel && class.idle.has_room() {
        // SAFETY: forwarded from the caller.
        unsafe {
            unlink_partial(class, slab);
            unlink_all(class, slab);
            make_idle(slab);
        }
        class.idle.push(slab);
        class.mapped_slabs -= 1;
        class.slabs -= 1;
        class.spare_bytes -= SLAB_BYTES;
    }
}

/// Takes `slab` out of the list that starts at `head` and links through `neighbours`.
///
/// # Safety
/// `slab` is on that list of its class, whose lock the caller holds.
unsafe fn unlink(head: &mut *mut SlabHeader, slab: NonNull<SlabHeader>, neighbours: fn(&mut Links) -> &mut Neighbours) {
    // SAFETY: forwarded from the caller; neighbours are slabs of the same class.
    unsafe {
        let Neighbours { prev, next } = *neighbours(links(slab));
        match NonNull::new(prev) {
            Some(prev) => neighbours(links(prev)).next = next,
            None => *head = next,
        }
        if let Some(next) = NonNull::new(next) {
            neighbours(links(next)).prev = prev;
        }
        *neighbours(links(slab)) = NO_NEIGHBOURS;
    }
}

/// # Safety
/// `slab` is on `class`'s partial list, under its lock.
unsafe fn unlink_partial(class: &mut Class, slab: NonNull<SlabHeader>) {
    // SAFETY: forwarded from the caller.
    unsafe {
        unlink(&mut class.partial, slab, |links| &mut links.partial);
        links(slab).in_partial = false;
    }
}

/// # Safety
/// `slab` is on `class`'s list of all slabs, under its lock.
unsafe fn unlink_all(class: &mut Class, slab: NonNull<SlabHeader>) {
    // SAFETY: forwarded from the caller.
    unsafe { unlink(&mut class.all, slab, |links| &mut links.all) };
}

/// Hands an emptied slab's pages back to the system, keeping its mapping: it reads zeros
/// from then on (and a reader that touches it maps the shared zero page, no memory).
///
/// # Safety
/// `slab` is a slab mapped from the kernel, no block of it is out and no list refers to it.
unsafe fn make_idle(slab: NonNull<SlabHeader>) {
    // SAFETY: the header was written by `new_slab` and is dropped once here (loom's
    // atomics need their destructors; idle slabs exist only outside loom).
    unsafe { ptr::drop_in_place(slab.as_ptr()) };
    // SAFETY: forwarded from the caller: the whole slab is ours and unused.
    unsafe { memory::hand_back_pages(slab.cast()) };
}

/// Unmaps an idle slab.
///
/// # Safety
/// `slab` went idle through [`make_idle`], was not taken again, and is released once.
unsafe fn release_idle_slab(slab: NonNull<SlabHeader>) {
    checker::mark_defined(slab.as_ptr().cast(), SLAB_BYTES);
    // SAFETY: idle slabs were mapped from the kernel; nothing uses this one.
    unsafe { memory::unmap(slab.cast(), memory::Source::Kernel) };
}

/// Gives a slab back to the allocator.
///
/// # Safety
/// No block of it is out, no list and no owner refers to it, and it is released once.
unsafe fn release_slab(slab: NonNull<SlabHeader>) {
    let room = slab.as_ptr().cast::<u8>().wrapping_add(FIRST_BLOCK);
    // The allocator may reuse the memory for anything: lift the slab's own marks.
    checker::mark_defined(room, SLAB_BYTES - FIRST_BLOCK);
    // SAFETY: the header was written by `new_slab` and is dropped once (loom's atomics
    // need their destructors); the memory came from `memory::map`, unmapped once.
    unsafe {
        let source = slab.as_ref().source;
        ptr::drop_in_place(slab.as_ptr());
        memory::unmap(slab.cast(), source);
    }
}

/// Where slabs come from. On Linux, straight from the kernel: an allocator asked for
/// memory aligned to its own size (glibc's `posix_memalign`) carves it out of a larger
/// chunk and leaves the rest as a gap, resident memory that malloc blocks would not cost
/// (docs/design-history.md has the figure); a mapping is
/// trimmed to the alignment instead, and adjacent slabs merge into one mapping. When the
/// kernel refuses (its limit on mappings, say), and elsewhere, and under loom (whose
/// allocator checks leaks), from the global allocator.
mod memory {
    use std::alloc::Layout;
    use std::ptr::NonNull;

    use super::SLAB_BYTES;
    use crate::sync::raw_alloc;

    /// Where a slab's memory came from, which is where it goes back.
    #[derive(Clone, Copy, PartialEq, Eq, Debug)]
    pub(super) enum Source {
        /// An anonymous mapping of its own, outside the global allocator's view.
        #[cfg_attr(not(all(target_os = "linux", not(loom))), allow(dead_code))]
        Kernel,
        /// The global allocator (through `raw_alloc`).
        Allocator,
    }

    fn layout() -> Layout {
        Layout::from_size_align(SLAB_BYTES, SLAB_BYTES).expect("a valid slab layout")
    }

    /// `SLAB_BYTES` aligned to `SLAB_BYTES`, and where they came from; `None` if memory
    /// ran out.
    pub(super) fn map() -> Option<(NonNull<u8>, Source)> {
        #[cfg(all(target_os = "linux", not(loom)))]
        if let Some(slab) = kernel::map() {
            return Some((slab, Source::Kernel));
        }
        from_allocator()
    }

    /// A slab from the global allocator.
    pub(super) fn from_allocator() -> Option<(NonNull<u8>, Source)> {
        // SAFETY: the layout has a non-zero size.
        NonNull::new(unsafe { raw_alloc::alloc(layout()) }).map(|slab| (slab, Source::Allocator))
    }

    /// Hands the pages of a slab mapped from the kernel back to the system, keeping the
    /// mapping, which reads zeros from then on.
    ///
    /// # Safety
    /// `slab` came from [`map`] with [`Source::Kernel`], and nothing uses it.
    pub(super) unsafe fn hand_back_pages(slab: NonNull<u8>) {
        #[cfg(all(target_os = "linux", not(loom)))]
        // SAFETY: forwarded from the caller.
        unsafe {
            kernel::hand_back_pages(slab)
        };
        #[cfg(not(all(target_os = "linux", not(loom))))]
        unreachable!("slabs are mapped from the kernel only on Linux: {slab:p}");
    }

    /// # Safety
    /// `slab` came from [`map`] with `source`, and nothing uses it any more.
    pub(super) unsafe fn unmap(slab: NonNull<u8>, source: Source) {
        match source {
            #[cfg(all(target_os = "linux", not(loom)))]
            // SAFETY: forwarded from the caller.
            Source::Kernel => unsafe { kernel::unmap(slab) },
            #[cfg(not(all(target_os = "linux", not(loom))))]
            Source::Kernel => unreachable!("slabs are mapped from the kernel only on Linux"),
            // SAFETY: allocated by `map` with this layout.
            Source::Allocator => unsafe { raw_alloc::dealloc(slab.as_ptr(), layout()) },
        }
    }

    #[cfg(all(target_os = "linux", not(loom)))]
    mod kernel {
        use std::ptr::{self, NonNull};
        use std::sync::atomic::{AtomicUsize, Ordering};

        use super::SLAB_BYTES;
        use crate::sync::pages;

        /// # Safety
        /// `start..start + len` is whole pages of a mapping of ours that nothing uses.
        unsafe fn unmap_range(start: *mut u8, len: usize) {
            // SAFETY: forwarded from the caller.
            unsafe { pages::unmap(start, len) };
        }

        /// Slabs mapped at once: one mapping (and its trim) per 32 slabs rather than per
        /// slab keeps the system calls out of all but one intern in tens of thousands. The
        /// slabs not handed out yet are address space only, until the process has handed
        /// out many: then they are faulted in by groups (see [`populate_ahead`]).
        const SLABS_PER_MAPPING: usize = 32;

        /// The slabs of the last mapping not handed out yet, shared by every table: the
        /// mapping's address (a multiple of `SLAB_BYTES`) plus how many are left, below
        /// its first slab's alignment bits. An atomic rather than a lock, so that a fork
        /// taken while another thread maps can never leave the child a lock held.
        static SPARE_SLABS: AtomicUsize = AtomicUsize::new(0);

        const LEFT_MASK: usize = SLAB_BYTES - 1;

        const _: () = assert!(SLABS_PER_MAPPING <= LEFT_MASK, "the count fits below the alignment");

        /// Slabs handed out so far in the process (see [`populate_ahead`]).
        static HANDED_OUT: AtomicUsize = AtomicUsize::new(0);

        /// Slabs handed out before any is faulted in ahead: 2 MiB, so that a small table
        /// (the 30,000 keys of the table-size sweep hold about 40 slabs) maps and touches
        /// only the pages its atoms fill.
        const POPULATE_FROM: usize = 64;

        /// Past [`POPULATE_FROM`], how many slabs one fault-in covers: a thirty-second of
        /// the slabs handed out (a power of two, at most a mapping), so that the pages
        /// touched ahead of need stay within about 3% of the slabs in use.
        fn populate_group(handed: usize) -> usize {
            (handed / 32).next_power_of_two().min(SLABS_PER_MAPPING)
        }

        /// Faults in, with one system call, the group of slabs that the slab at `index` of
        /// the mapping at `base` opens (slabs go out from the mapping's last one down): a
        /// large table's fill then takes one page fault per group, in one intern in many
        /// thousands, rather than one per page in about one intern in a hundred (which set
        /// the fill's 99th and 99.9th percentile latency). A small table's slabs are not
        /// touched ahead.
        fn populate_ahead(base: usize, index: usize) {
            let handed = HANDED_OUT.fetch_add(1, Ordering::Relaxed);
            if handed < POPULATE_FROM {
                return;
            }
            let group = populate_group(handed);
            if !(index + 1).is_multiple_of(group) {
                return;
            }
            let first = index + 1 - group;
            let start = ptr::with_exposed_provenance_mut::<u8>(base + first * SLAB_BYTES);
            // Fresh slabs of ours, zero until written (this one is about to be; the others
            // are handed out later, to whichever class asks): populating changes no byte.
            pages::populate(start, group * SLAB_BYTES);
        }

        /// `len` bytes of zeroed memory aligned to `SLAB_BYTES`, or `None`.
        fn map_aligned(len: usize) -> Option<NonNull<u8>> {
            let wide = pages::map(len + SLAB_BYTES)?;
            let head = wide.as_ptr().addr().next_multiple_of(SLAB_BYTES) - wide.as_ptr().addr();
            // SAFETY: the head and the tail around the aligned span are ours and unused.
            unsafe {
                unmap_range(wide.as_ptr(), head);
                unmap_range(wide.as_ptr().add(head + len), SLAB_BYTES - head);
                Some(wide.add(head))
            }
        }

        /// `SLAB_BYTES` of zeroed memory aligned to `SLAB_BYTES`, or `None`.
        pub(super) fn map() -> Option<NonNull<u8>> {
            loop {
                let spare = SPARE_SLABS.load(Ordering::Acquire);
                let left = spare & LEFT_MASK;
                if left > 0 {
                    let base = spare & !LEFT_MASK;
                    if SPARE_SLABS
                        .compare_exchange_weak(spare, base | (left - 1), Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        // The address alone came through the atomic: take the mapping's
                        // provenance back (every mapping made here exposed it).
                        let slab = ptr::with_exposed_provenance_mut::<u8>(base + (left - 1) * SLAB_BYTES);
                        populate_ahead(base, left - 1);
                        return NonNull::new(slab);
                    }
                    continue;
                }
                let mapping = map_aligned(SLABS_PER_MAPPING * SLAB_BYTES)?;
                let base = mapping.as_ptr().expose_provenance();
                // This thread keeps the mapping's last slab; the others are offered.
                let offered = base | (SLABS_PER_MAPPING - 1);
                if SPARE_SLABS.compare_exchange(spare, offered, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                    populate_ahead(base, SLABS_PER_MAPPING - 1);
                    // SAFETY: the last slab of the mapping, within it.
                    return Some(unsafe { mapping.add((SLABS_PER_MAPPING - 1) * SLAB_BYTES) });
                }
                // Another thread offered slabs meanwhile: take one of those instead.
                // SAFETY: just mapped, never handed out.
                unsafe { unmap_range(mapping.as_ptr(), SLABS_PER_MAPPING * SLAB_BYTES) };
            }
        }

        /// # Safety
        /// `slab` came from [`map`] and nothing uses it.
        pub(super) unsafe fn hand_back_pages(slab: NonNull<u8>) {
            // SAFETY: forwarded from the caller. A failure leaves the pages resident:
            // memory kept, nothing unsound (the slab is reused as it is, stale contents
            // and all).
            let _ = unsafe { pages::hand_back(slab.as_ptr(), SLAB_BYTES) };
        }

        /// # Safety
        /// `slab` came from [`map`] and nothing uses it any more.
        pub(super) unsafe fn unmap(slab: NonNull<u8>) {
            // SAFETY: forwarded from the caller.
            unsafe { unmap_range(slab.as_ptr(), SLAB_BYTES) };
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn groups_grow_with_the_slabs_handed_out_up_to_a_mapping() {
                assert_eq!(populate_group(POPULATE_FROM), 2);
                assert_eq!(populate_group(100), 4);
                assert_eq!(populate_group(1 << 20), SLABS_PER_MAPPING);
            }

            #[test]
            fn past_the_first_slabs_fresh_ones_come_faulted_in() {
                let slabs: Vec<_> =
                    (0..POPULATE_FROM + 2 * SLABS_PER_MAPPING).map(|_| map().expect("address space")).collect();
                // Other tests may take slabs meanwhile: that only brings the groups sooner.
                let faulted_in = slabs[POPULATE_FROM..]
                    .iter()
                    .filter(|slab| pages::resident(**slab, SLAB_BYTES).expect("mapped").into_iter().all(|page| page))
                    .count();
                for slab in slabs {
                    // SAFETY: mapped above, never used.
                    unsafe { unmap(slab) };
                }
                // Unpopulated, a fresh slab has no page resident before its first write.
                assert!(
                    faulted_in >= SLABS_PER_MAPPING / 2,
                    "{faulted_in} of {} slabs faulted in",
                    2 * SLABS_PER_MAPPING
                );
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn live(block: NonNull<u8>) -> u32 {
        // SAFETY: the slab of a block still out.
        unsafe { slab_of(block).as_ref() }.live.load(Ordering::Relaxed)
    }

    proptest::proptest! {
        /// Allocations and frees in any order, checked against a model (the set of blocks
        /// out): blocks never overlap, keep what was written to them, and the spare bytes
        /// are the slabs' bytes less the blocks out.
        #[test]
        fn slabs_behave_like_a_set_of_disjoint_blocks(
            ops in proptest::collection::vec((0usize..31, proptest::bool::ANY, 0usize..64), 1..600),
        ) {
            let slabs = Slabs::try_new().unwrap();
            let mut out: Vec<(NonNull<u8>, usize, u8)> = Vec::new();
            for (step, &(class, allocate, pick)) in ops.iter().enumerate() {
                if allocate || out.is_empty() {
                    let size = 16 + 8 * class;
                    let block = slabs.allocate(size, 0).unwrap();
                    let fill = step as u8;
                    // SAFETY: a fresh block of `size` bytes, ours.
                    unsafe { block.as_ptr().write_bytes(fill, size) };
                    out.push((block, size, fill));
                } else {
                    let (block, size, fill) = out.swap_remove(pick % out.len());
                    // SAFETY: still out, written with `fill`.
                    let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), size) };
                    proptest::prop_assert!(bytes.iter().all(|&b| b == fill));
                    // SAFETY: freed once.
                    unsafe { free(block) };
                }
                let mut spans: Vec<(usize, usize)> = out.iter().map(|&(b, size, _)| (b.as_ptr().addr(), size)).collect();
                spans.sort_unstable();
                proptest::prop_assert!(spans.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "blocks overlap");
                let usage = slabs.usage();
                let out_bytes: usize = out.iter().map(|&(_, size, _)| size).sum();
                proptest::prop_assert_eq!(usage.spare_bytes, usage.slabs * SLAB_BYTES - out_bytes);
            }
            for (block, size, fill) in out {
                // SAFETY: still out, written with `fill`.
                let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), size) };
                proptest::prop_assert!(bytes.iter().all(|&b| b == fill));
                // SAFETY: freed once.
                unsafe { free(block) };
            }
            if cfg!(target_os = "linux") {
                proptest::prop_assert!(slabs.usage().slabs <= 31, "at most one empty slab resident per size");
            }
        }
    }

    #[test]
    fn slabs_from_either_source_are_aligned_and_go_back_where_they_came_from() {
        let sources = [memory::map(), memory::from_allocator()];
        for (slab, source) in sources.into_iter().map(Option::unwrap) {
            assert_eq!(slab.as_ptr().addr() % SLAB_BYTES, 0);
            // SAFETY: a fresh slab of SLAB_BYTES, ours.
            unsafe { slab.as_ptr().write_bytes(0x5A, SLAB_BYTES) };
            // SAFETY: from `map` or `from_allocator` with this source, unused.
            unsafe { memory::unmap(slab, source) };
        }
        let expected = if cfg!(target_os = "linux") { memory::Source::Kernel } else { memory::Source::Allocator };
        let (slab, source) = memory::map().unwrap();
        assert_eq!(source, expected);
        // SAFETY: as above.
        unsafe { memory::unmap(slab, source) };
    }

    #[test]
    fn sizes_round_to_eight_up_to_the_largest_block() {
        assert_eq!(block_size(17), Some(24));
        assert_eq!(block_size(24), Some(24));
        assert_eq!(block_size(MAX_BLOCK), Some(MAX_BLOCK));
        assert_eq!(block_size(MAX_BLOCK + 1), None);
    }

    #[test]
    fn blocks_are_distinct_aligned_and_reused_after_free() {
        let slabs = Slabs::try_new().unwrap();
        let blocks: Vec<_> = (0..1000).map(|_| slabs.allocate(40, 0).unwrap()).collect();
        let mut addresses: Vec<usize> = blocks.iter().map(|b| b.as_ptr() as usize).collect();
        addresses.sort_unstable();
        addresses.dedup();
        assert_eq!(addresses.len(), 1000);
        assert!(addresses.iter().all(|a| a % 8 == 0));
        assert!(addresses.windows(2).all(|w| w[1] - w[0] >= 40), "blocks do not overlap");
        let per_slab = (SLAB_BYTES - FIRST_BLOCK) / 40;
        assert_eq!(slabs.usage().slabs, 1000usize.div_ceil(per_slab));
        let last = blocks[999];
        // SAFETY: allocated above, freed once.
        unsafe { free(last) };
        assert_eq!(slabs.allocate(40, 0), Some(last), "a freed block is the next handed out");
        for block in blocks {
            // SAFETY: each block is freed once.
            unsafe { free(block) };
        }
        let usage = slabs.usage();
        if cfg!(target_os = "linux") {
            assert_eq!(usage.slabs, 1, "empty slabs go idle but the last with room");
            assert_eq!(usage.idle_slabs, 1000usize.div_ceil(per_slab) - 1);
        }
        assert_eq!(usage.spare_bytes, usage.slabs * SLAB_BYTES);
    }

    #[test]
    fn a_free_block_keeps_its_first_word() {
        let slabs = Slabs::try_new().unwrap();
        let kept = slabs.allocate(24, 0).unwrap();
        let freed = slabs.allocate(24, 0).unwrap();
        let first_word = 0x0000_0007_0000_0000_u64;
        // SAFETY: fresh blocks of 24 bytes, ours.
        unsafe {
            freed.as_ptr().cast::<u64>().write(first_word);
            freed.as_ptr().add(8).write_bytes(0xEE, 16);
        }
        // SAFETY: freed once.
        unsafe { free(freed) };
        // SAFETY: the block's first word stays addressable while its slab is owned;
        // volatile, so the read is made.
        let read = unsafe { std::ptr::read_volatile(freed.as_ptr().cast::<u64>()) };
        assert_eq!(read, first_word, "the free-list link lies elsewhere");
        let again = slabs.allocate(24, 0).unwrap();
        assert_eq!(again, freed);
        // SAFETY: handed out again: its first word is as the last user left it.
        assert_eq!(unsafe { again.as_ptr().cast::<u64>().read() }, first_word);
        // SAFETY: freed once each.
        unsafe {
            free(again);
            free(kept);
        }
    }

    /// Whether each page of the slab at `slab` is resident.
    #[cfg(target_os = "linux")]
    fn resident_pages(slab: NonNull<SlabHeader>) -> Vec<bool> {
        crate::sync::pages::resident(slab.cast(), SLAB_BYTES).expect("the slab is mapped")
    }

    #[test]
    #[cfg(target_os = "linux")]
    fn an_emptied_slab_stays_mapped_hands_back_its_pages_and_comes_back() {
        let slabs = Slabs::try_new().unwrap();
        let per_slab = (SLAB_BYTES - FIRST_BLOCK) / 40;
        let blocks: Vec<_> = (0..per_slab + 1).map(|_| slabs.allocate(40, 0).unwrap()).collect();
        let first = slab_of(blocks[0]);
        assert_ne!(slab_of(blocks[per_slab]), first, "the last block opened a second slab");
        for &block in &blocks[..per_slab] {
            // SAFETY: a block of 40 bytes, ours: a count of 0 and a text, as a heap
            // block freed at count 0 would have.
            unsafe {
                block.as_ptr().write_bytes(0, 8);
                block.as_ptr().add(8).write_bytes(0xAB, 32);
            }
        }
        assert!(resident_pages(first).iter().all(|&resident| resident));
        for &block in &blocks[..per_slab] {
            // SAFETY: freed once.
            unsafe { free(block) };
        }
        let usage = slabs.usage();
        assert_eq!((usage.slabs, usage.idle_slabs), (1, 1), "the first slab went idle");
        assert_eq!(usage.spare_bytes, SLAB_BYTES - 40);
        assert!(resident_pages(first).iter().all(|&resident| !resident), "its pages went back");
        // SAFETY: the slab is still mapped; a reader holding a block's address reads its
        // first word (the count) as 0. Volatile, so the read is made.
        let count = unsafe { std::ptr::read_volatile(blocks[1].as_ptr().cast::<u32>()) };
        assert_eq!(count, 0);

        // Fill the second slab; the next slab is the idle one, taken back.
        let mut more: Vec<_> = (0..per_slab).map(|_| slabs.allocate(40, 0).unwrap()).collect();
        assert!(more.iter().any(|&block| slab_of(block) == first), "the idle slab came back");
        let usage = slabs.usage();
        assert_eq!((usage.slabs, usage.idle_slabs), (2, 0));
        more.push(blocks[per_slab]);
        for block in more {
            // SAFETY: freed once each.
            unsafe { free(block) };
        }
        assert_eq!(slabs.usage().idle_slabs, 1);
        // Dropping the slabs unmaps the idle one (valgrind and ASan see it go).
    }

    #[test]
    fn a_disowned_slab_goes_when_its_last_block_does() {
        let mut slabs = Slabs::try_new().unwrap();
        let kept = slabs.allocate(24, 0).unwrap();
        let other = slabs.allocate(24, 0).unwrap();
        let big = slabs.allocate(MAX_BLOCK, 0).unwrap();
        // SAFETY: allocated above, freed once.
        unsafe { free(big) };
        assert_eq!(live(kept), 3, "two blocks and the owner");
        slabs.disown();
        assert_eq!(slabs.usage(), SlabUsage::default());
        assert_eq!(live(kept), 2);
        // SAFETY: the blocks of a disowned slab are freed once each (valgrind and ASan
        // see the slab go with the second).
        unsafe {
            free(other);
            free(kept);
        }
    }

    #[test]
    fn spare_bytes_count_what_no_block_uses() {
        let slabs = Slabs::try_new().unwrap();
        let a = slabs.allocate(64, 0).unwrap();
        let b = slabs.allocate(32, 0).unwrap();
        let mapped_slabs = if cfg!(target_os = "linux") { 2 } else { 0 };
        assert_eq!(
            slabs.usage(),
            SlabUsage { slabs: 2, idle_slabs: 0, mapped_slabs, spare_bytes: 2 * SLAB_BYTES - 96 }
        );
        // SAFETY: freed once each.
        unsafe {
            free(a);
            free(b);
        }
        assert_eq!(slabs.usage(), SlabUsage { slabs: 2, idle_slabs: 0, mapped_slabs, spare_bytes: 2 * SLAB_BYTES });
    }

    #[test]
    fn slabs_are_shared_across_threads() {
        // Two stripes for four threads, two of them on each class in use.
        let slabs = std::sync::Arc::new(Slabs::try_with_stripes(2).unwrap());
        slabs.in_use.store(2, Ordering::Relaxed);
        let handles: Vec<_> = (0..4)
            .map(|t| {
                let slabs = std::sync::Arc::clone(&slabs);
                std::thread::spawn(move || {
                    let size = 24 + 8 * (t / 2);
                    let mut out = Vec::new();
                    for round in 0..2000 {
                        let block = slabs.allocate(size, t / 2).unwrap();
                        // SAFETY: a fresh block of `size` bytes, ours.
                        unsafe { block.as_ptr().write_bytes(t as u8, size) };
                        out.push(block.as_ptr() as usize);
                        if round % 3 == 0 {
                            let addr = out.swap_remove(out.len() / 2);
                            let block = NonNull::new(addr as *mut u8).unwrap();
                            // SAFETY: still ours, and unchanged by the other threads.
                            let bytes = unsafe { std::slice::from_raw_parts(block.as_ptr(), size) };
                            assert!(bytes.iter().all(|&b| b == t as u8));
                            // SAFETY: freed once.
                            unsafe { free(block) };
                        }
                    }
                    for addr in out {
                        // SAFETY: freed once.
                        unsafe { free(NonNull::new(addr as *mut u8).unwrap()) };
                    }
                })
            })
            .collect();
        for handle in handles {
            handle.join().unwrap();
        }
        assert_eq!(slabs.usage().slabs, 2, "one slab with room kept per class");
    }

    #[test]
    fn a_stripe_is_made_by_its_first_allocation() {
        let slabs = Slabs::try_with_stripes(4).unwrap();
        assert_eq!(slabs.made_stripes().count(), 0, "a fresh table holds no class locks");
        assert_eq!(slabs.usage(), SlabUsage::default());
        let first = slabs.allocate(40, 3).unwrap();
        assert_eq!(slabs.made_stripes().count(), 1, "one stripe in use, one made");
        slabs.in_use.store(4, Ordering::Relaxed);
        let second = slabs.allocate(40, 2).unwrap();
        let made: Vec<*const Stripe> = slabs.made_stripes().map(std::ptr::from_ref).collect();
        assert_eq!(made.len(), 2, "only the stripes picked are made");
        assert_eq!(made[1], std::ptr::from_ref(slabs.stripe(2).unwrap()), "stripe 2 is the one key 2 picked");
        assert_ne!(slab_of(first), slab_of(second));
        for block in [first, second] {
            // SAFETY: each block freed once.
            unsafe { free(block) };
        }
    }

    #[test]
    fn contention_brings_another_stripe_into_use() {
        let slabs = Slabs::try_with_stripes(4).unwrap();
        let first = slabs.allocate(40, 1).unwrap();
        assert_eq!(slabs.in_use.load(Ordering::Relaxed), 1, "no contention, one stripe");
        let class = &slabs.stripe(0).unwrap().0[40 / CLASS_STEP];
        let second = std::thread::scope(|scope| {
            let guard = class.lock();
            let waiter = scope.spawn(|| slabs.allocate(40, 1).unwrap().as_ptr() as usize);
            // The waiter finds the class locked however long it takes to get there.
            std::thread::sleep(std::time::Duration::from_millis(50));
            drop(guard);
            waiter.join().unwrap()
        });
        assert_eq!(slabs.in_use.load(Ordering::Relaxed), 2, "the waiter widened the stripes");
        let third = slabs.allocate(40, 1).unwrap();
        assert_ne!(slab_of(third), slab_of(first), "key 1 now picks the second stripe");
        for block in [first, NonNull::new(second as *mut u8).unwrap(), third] {
            // SAFETY: each block freed once.
            unsafe { free(block) };
        }
    }

    #[test]
    fn each_stripe_has_its_own_slabs_and_frees_reach_them_from_any_thread() {
        let slabs = std::sync::Arc::new(Slabs::try_with_stripes(4).unwrap());
        slabs.in_use.store(4, Ordering::Relaxed);
        let blocks: Vec<_> = (0..4).map(|key| slabs.allocate(40, key).unwrap()).collect();
        let slab_starts = |blocks: &[NonNull<u8>]| {
            blocks.iter().map(|&block| slab_of(block).as_ptr() as usize).collect::<std::collections::HashSet<_>>()
        };
        assert_eq!(slab_starts(&blocks).len(), 4, "one slab per stripe");
        let wrapped = slabs.allocate(40, 4 + 1).unwrap();
        assert_eq!(slab_of(wrapped), slab_of(blocks[1]), "keys wrap around the stripes");
        let usage = slabs.usage();
        assert_eq!((usage.slabs, usage.spare_bytes), (4, 4 * SLAB_BYTES - 5 * 40));

        let addresses: Vec<usize> = blocks.iter().chain([&wrapped]).map(|block| block.as_ptr() as usize).collect();
        std::thread::spawn(move || {
            for addr in addresses {
                // SAFETY: each block freed once, by this thread only.
                unsafe { free(NonNull::new(addr as *mut u8).unwrap()) };
            }
        })
        .join()
        .unwrap();
        let usage = slabs.usage();
        assert_eq!((usage.slabs, usage.spare_bytes), (4, 4 * SLAB_BYTES), "every stripe keeps its slab with room");
    }
}
