//! The control block of a string whose bytes live in memory someone else owns: an
//! *owner* (a `Vec<u8>`, a `Box<[u8]>`, `bytes::Bytes`, a mapped file) that the block
//! keeps alive until the last handle of it goes.
//!
//! # Memory layout
//!
//! ```text
//!  offset 0        8              16       24               32
//!         +--------+--------------+--------+----------------+------------- - -
//!         | count  | bytes ptr    | len    | release fn     | the owner (O)
//!         | usize  | *const u8    | usize  | unsafe fn(ptr) |
//!         +--------+--------------+--------+----------------+------------- - -
//!         ^
//!         Owned.ptr (align >= 8: low bits 000)
//! ```
//!
//! * One allocation per owner, holding a [`Control`] header followed by the owner
//!   itself, made by [`NewOwned::new`]. The owner is moved into the block *first* and
//!   then asked for its bytes (`as_ref`) exactly once: the pointer and length of that
//!   first answer are all the handles ever read, so an owner whose `as_ref` would answer
//!   differently later is never asked again (and owners that keep their bytes inside
//!   themselves, such as arrays, are asked where they will stay).
//! * `count` is the number of handles of the block. Its last one, on whichever thread
//!   that is, calls `release`: the one function that knows the owner's type, which moves
//!   the owner out of the block, frees the block, and only then drops the owner. An
//!   owner whose `Drop` panics therefore panics on that thread after the block is gone:
//!   no handle can see the block any more, and no table ever holds one (interning copies
//!   the bytes), so nothing is left half released.
//! * The bytes are immutable for the block's whole life: nothing holds `&mut` to the
//!   owner before `release`, and the owner is `Send + Sync`, so handles may read them
//!   and drop the last count from any thread.
//!
//! The header's alignment (8) leaves the three low bits of every block pointer zero;
//! [`StrWord`](super::str_word::StrWord) tags them `0b11`.

use std::alloc::Layout;
use std::marker::PhantomData;
use std::ptr::{self, NonNull};

use crate::error::{Fallibility, StrError};
use crate::sync::{AtomicUsize, Ordering, fence, raw_alloc};

/// Beyond this many handles a clone aborts the process, as `Arc` does (the count can
/// then never wrap to zero and free bytes still in use).
const MAX_COUNT: usize = isize::MAX as usize;

/// The type-independent front of every control block.
#[repr(C)]
pub(crate) struct Control {
    count: AtomicUsize,
    /// The owner's first `as_ref` answer.
    ptr: *const u8,
    len: usize,
    /// Takes the owner out, frees the block, drops the owner (knows the owner's type).
    release: unsafe fn(NonNull<Control>),
}

/// The whole block for an owner of type `O`: the header first (`repr(C)`), so a pointer
/// to the block is a pointer to its [`Control`].
#[repr(C)]
struct WithOwner<O> {
    control: Control,
    owner: O,
}

#[cfg(not(loom))]
const _: () = {
    assert!(std::mem::align_of::<Control>() >= 8, "handles use three low pointer bits as tags");
    assert!(std::mem::size_of::<Control>() == 32, "the documented header size");
};

/// Frees the block of an owner of type `O` and then drops the owner.
///
/// # Safety
/// `control` points at a live `WithOwner<O>` allocated by [`NewOwned::new`] with this
/// very `O`, and nothing refers to it any more (its count reached zero, or it was never
/// shared); it is released once.
unsafe fn release<O>(control: NonNull<Control>) {
    let block = control.cast::<WithOwner<O>>();
    // SAFETY: the caller guarantees the block is live, of this type, and ours alone: the
    // value is moved out once and its memory is not read again.
    // (The header's copy is dropped with the statement: loom's atomics need that.)
    let WithOwner { control: _, owner } = unsafe { ptr::read(block.as_ptr()) };
    // SAFETY: allocated by `NewOwned::new` through `raw_alloc::alloc` with this layout.
    unsafe { raw_alloc::dealloc(block.as_ptr().cast(), Layout::new::<WithOwner<O>>()) };
    // The block is gone before any user code runs: a panicking `Drop` of the owner
    // unwinds from here with nothing left to release.
    drop(owner);
}

/// A control block made for an owner and not shared yet: the owner can still be taken
/// back ([`NewOwned::into_owner`]), which is how a rejected owner is handed back.
pub(crate) struct NewOwned<O> {
    ptr: NonNull<WithOwner<O>>,
    _owner: PhantomData<O>,
}

impl<O: AsRef<[u8]> + Send + Sync + 'static> NewOwned<O> {
    /// Moves `owner` into a new control block (one allocation) and asks it for its bytes,
    /// once. On allocation failure (fallible mode) the owner comes back with the error.
    ///
    /// A panicking `as_ref` unwinds after the owner has been dropped and the block freed.
    pub(crate) fn new(owner: O, fallibility: Fallibility) -> Result<NewOwned<O>, (O, StrError)> {
        let layout = Layout::new::<WithOwner<O>>();
        // SAFETY: the layout has a non-zero size (the header).
        let raw = unsafe { raw_alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw.cast::<WithOwner<O>>()) else {
            return match fallibility {
                Fallibility::Fallible => Err((owner, StrError::AllocFailed { size: layout.size() })),
                Fallibility::Infallible => std::alloc::handle_alloc_error(layout),
            };
        };
        let block = WithOwner {
            control: Control {
                count: AtomicUsize::new(1),
                ptr: NonNull::dangling().as_ptr(),
                len: 0,
                release: release::<O>,
            },
            owner,
        };
        // SAFETY: a fresh allocation sized and aligned for a `WithOwner<O>`.
        unsafe { ptr.as_ptr().write(block) };
        // From here on, dropping `new` (an unwinding `as_ref` included) releases the block.
        let mut new = NewOwned { ptr, _owner: PhantomData };
        // SAFETY: the block is initialised and ours alone; the owner stays at this address,
        // unmoved and never mutated, until `release`, so its first answer stays valid.
        let bytes: &[u8] = unsafe { &(*ptr.as_ptr()).owner }.as_ref();
        let (bytes_ptr, len) = (bytes.as_ptr(), bytes.len());
        let control = new.control_mut();
        control.ptr = bytes_ptr;
        control.len = len;
        Ok(new)
    }
}

impl<O> NewOwned<O> {
    fn control_mut(&mut self) -> &mut Control {
        // SAFETY: the block is initialised and not shared yet: `&mut self` is the only
        // access to its header (the owner's borrow taken by `as_ref` is a separate field).
        unsafe { &mut (*self.ptr.as_ptr()).control }
    }

    /// The owner's bytes, as its one `as_ref` call answered.
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        // SAFETY: the block is initialised; its bytes are the owner's first answer, valid
        // while the owner lives unmoved in the block, which outlives this borrow.
        unsafe {
            let control = &(*self.ptr.as_ptr()).control;
            std::slice::from_raw_parts(control.ptr, control.len)
        }
    }

    /// Frees the block and gives the owner back.
    pub(crate) fn into_owner(self) -> O {
        let block = self.ptr;
        std::mem::forget(self);
        // SAFETY: the block was never shared: the value is moved out once, then its memory
        // is freed with the layout it was allocated with.
        unsafe {
            let WithOwner { control: _, owner } = ptr::read(block.as_ptr());
            raw_alloc::dealloc(block.as_ptr().cast(), Layout::new::<WithOwner<O>>());
            owner
        }
    }

    /// Publishes the block as the first counted handle of it.
    #[inline]
    pub(crate) fn share(self) -> Owned {
        let ptr = self.ptr.cast::<Control>();
        std::mem::forget(self);
        Owned { ptr }
    }
}

impl<O> Drop for NewOwned<O> {
    fn drop(&mut self) {
        // SAFETY: an unshared block of this very `O`, released once (here).
        unsafe { release::<O>(self.ptr.cast()) }
    }
}

/// One counted reference to a live control block.
pub(crate) struct Owned {
    ptr: NonNull<Control>,
}

// SAFETY: the header is only written before the block is shared (the count is atomic),
// the bytes never change, and the owner is `Send + Sync` (required by `NewOwned::new`,
// the only way to make a block), so it may be read and released from any thread.
unsafe impl Send for Owned {}
// SAFETY: as for `Send`.
unsafe impl Sync for Owned {}

impl Owned {
    /// The block pointer, giving up this count (for a handle's tagged word).
    #[inline]
    pub(crate) fn into_raw(self) -> NonNull<Control> {
        let ptr = self.ptr;
        std::mem::forget(self);
        ptr
    }

    /// Takes back a count given up by [`Owned::into_raw`].
    ///
    /// # Safety
    /// `ptr` came from [`Owned::into_raw`], and the count it stands for is taken back once.
    #[inline]
    pub(crate) unsafe fn from_raw(ptr: NonNull<Control>) -> Owned {
        Owned { ptr }
    }

    /// A borrow of the block `ptr` points at.
    ///
    /// # Safety
    /// `ptr` holds a count of a live block (from [`Owned::into_raw`]) for at least `'a`.
    #[inline]
    pub(crate) unsafe fn borrow_raw<'a>(ptr: NonNull<Control>) -> OwnedRef<'a> {
        OwnedRef { ptr, _borrow: PhantomData }
    }

    #[inline]
    fn as_ref(&self) -> OwnedRef<'_> {
        OwnedRef { ptr: self.ptr, _borrow: PhantomData }
    }

    /// Their length.
    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.as_ref().len()
    }
}

impl Clone for Owned {
    #[inline]
    fn clone(&self) -> Owned {
        self.as_ref().counted()
    }
}

impl Drop for Owned {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `self` holds a count, so the block is live.
        let control = unsafe { self.ptr.as_ref() };
        // Release: our reads of the bytes happen before whoever releases the block.
        if control.count.fetch_sub(1, Ordering::Release) != 1 {
            return;
        }
        // Acquire: every other handle's reads happened before the release below.
        fence(Ordering::Acquire);
        let release = control.release;
        // SAFETY: the count reached zero: nothing else refers to the block, and `release`
        // is the function stored for its owner's type by `NewOwned::new`.
        unsafe { release(self.ptr) }
    }
}

/// A borrowed control block (what a handle's word lends out): its bytes, and new counts.
#[derive(Clone, Copy)]
pub(crate) struct OwnedRef<'a> {
    ptr: NonNull<Control>,
    _borrow: PhantomData<&'a Control>,
}

impl<'a> OwnedRef<'a> {
    #[inline]
    fn control(self) -> &'a Control {
        // SAFETY: an `OwnedRef` is made only from a counted handle that outlives `'a`.
        unsafe { self.ptr.as_ref() }
    }

    /// The owner's bytes (its first `as_ref` answer).
    #[inline]
    pub(crate) fn bytes(self) -> &'a [u8] {
        let control = self.control();
        // SAFETY: the owner's first answer, valid while the owner lives unmoved in the
        // block, which the counted handle behind `'a` keeps alive.
        unsafe { std::slice::from_raw_parts(control.ptr, control.len) }
    }

    /// Their length.
    #[inline]
    pub(crate) fn len(self) -> usize {
        self.control().len
    }

    /// A new counted handle of the block.
    #[inline]
    pub(crate) fn counted(self) -> Owned {
        // Relaxed: a new count can only be made from an existing one, which already keeps
        // the block alive (the argument std's `Arc::clone` makes).
        let old = self.control().count.fetch_add(1, Ordering::Relaxed);
        if old > MAX_COUNT {
            std::process::abort();
        }
        Owned { ptr: self.ptr }
    }

    /// The number of handles (for tests).
    #[cfg(all(test, not(loom)))]
    pub(crate) fn count(self) -> usize {
        self.control().count.load(Ordering::Relaxed)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize as StdCount;

    use super::*;

    /// Counts its drops.
    #[derive(Debug)]
    struct Counted(Vec<u8>, Arc<StdCount>);

    impl AsRef<[u8]> for Counted {
        fn as_ref(&self) -> &[u8] {
            &self.0
        }
    }

    impl Drop for Counted {
        fn drop(&mut self) {
            self.1.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
    }

    fn counted(bytes: &[u8]) -> (Counted, Arc<StdCount>) {
        let drops = Arc::new(StdCount::new(0));
        (Counted(bytes.to_vec(), drops.clone()), drops)
    }

    #[test]
    fn header_layout_is_as_documented() {
        assert_eq!(std::mem::offset_of!(Control, count), 0);
        assert_eq!(std::mem::offset_of!(Control, ptr), 8);
        assert_eq!(std::mem::offset_of!(Control, len), 16);
        assert_eq!(std::mem::offset_of!(Control, release), 24);
        assert_eq!(std::mem::offset_of!(WithOwner<[u8; 3]>, owner), 32);
    }

    #[test]
    fn the_last_count_drops_the_owner_once() {
        let (owner, drops) = counted(b"bytes that stay where the owner put them");
        let expected = owner.0.as_ptr();
        let new = NewOwned::new(owner, Fallibility::Infallible).unwrap();
        assert_eq!(new.bytes().as_ptr(), expected, "no copy");
        let first = new.share();
        let second = first.clone();
        assert_eq!(first.as_ref().count(), 2);
        drop(first);
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 0);
        assert_eq!(second.as_ref().bytes(), b"bytes that stay where the owner put them");
        assert_eq!(second.len(), 40);
        drop(second);
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn an_unshared_block_gives_the_owner_back() {
        let (owner, drops) = counted(b"handed back");
        let new = NewOwned::new(owner, Fallibility::Fallible).unwrap();
        let back = new.into_owner();
        assert_eq!(back.0, b"handed back");
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 0);
        drop(back);
        let (owner, drops) = counted(b"dropped unshared");
        drop(NewOwned::new(owner, Fallibility::Fallible).unwrap());
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 1);
    }

    #[test]
    fn an_owner_holding_its_bytes_is_asked_where_it_stays() {
        let new =
            NewOwned::new(*b"bytes inside the owner itself, moved into the block", Fallibility::Infallible).unwrap();
        let block_start = new.ptr.as_ptr() as usize;
        let at = new.bytes().as_ptr() as usize;
        assert!(at > block_start && at < block_start + std::mem::size_of::<WithOwner<[u8; 51]>>());
        assert_eq!(new.share().as_ref().bytes(), b"bytes inside the owner itself, moved into the block");
    }

    #[test]
    fn a_panicking_as_ref_frees_the_block_and_drops_the_owner() {
        #[derive(Debug)]
        struct Refuses(Arc<StdCount>);
        impl AsRef<[u8]> for Refuses {
            fn as_ref(&self) -> &[u8] {
                panic!("as_ref refuses")
            }
        }
        impl Drop for Refuses {
            fn drop(&mut self) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
        }
        let drops = Arc::new(StdCount::new(0));
        let owner = Refuses(drops.clone());
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = NewOwned::new(owner, Fallibility::Infallible);
        }));
        assert!(result.is_err());
        assert_eq!(drops.load(std::sync::atomic::Ordering::SeqCst), 1);
    }
}
