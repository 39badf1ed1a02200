//! Whole pages straight from the kernel: anonymous mappings, handing their pages back
//! while keeping the mapping, and faulting them in ahead of use. The slabs and the slot
//! arrays' pool take their memory here; nothing else in the crate calls `mmap`.
//!
//! Linux only, and never under loom (whose allocator must see every allocation): elsewhere
//! [`map`] returns `None` and its callers fall back to the global allocator.

use std::ptr::NonNull;

/// The page size every caller rounds to. Linux on x86-64 and most aarch64 kernels use
/// 4 KiB; on a kernel with larger pages the calls still work, only whole-page hand-backs
/// of a part of a larger page do nothing.
pub(crate) const PAGE: usize = 4096;

#[cfg(all(target_os = "linux", not(loom)))]
mod linux {
    use std::ffi::{c_int, c_long, c_void};
    use std::ptr::{self, NonNull};

    unsafe extern "C" {
        fn mmap(addr: *mut c_void, len: usize, prot: c_int, flags: c_int, fd: c_int, offset: c_long) -> *mut c_void;
        fn munmap(addr: *mut c_void, len: usize) -> c_int;
        fn madvise(addr: *mut c_void, len: usize, advice: c_int) -> c_int;
    }

    const PROT_READ: c_int = 1;
    const PROT_WRITE: c_int = 2;
    const MAP_PRIVATE: c_int = 2;
    const MAP_ANONYMOUS: c_int = 0x20;
    const MADV_DONTNEED: c_int = 4;
    const MADV_POPULATE_WRITE: c_int = 23;

    pub(super) fn map(len: usize) -> Option<NonNull<u8>> {
        // SAFETY: a fresh private anonymous mapping, touching no existing memory.
        let raw = unsafe { mmap(ptr::null_mut(), len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) };
        if raw.addr() == usize::MAX { None } else { NonNull::new(raw.cast()) }
    }

    /// # Safety
    /// As [`super::unmap`].
    pub(super) unsafe fn unmap(start: *mut u8, len: usize) {
        // SAFETY: forwarded from the caller. A failure leaves the pages mapped: memory
        // lost, nothing unsound.
        unsafe { munmap(start.cast(), len) };
    }

    /// # Safety
    /// As [`super::hand_back`].
    pub(super) unsafe fn hand_back(start: *mut u8, len: usize) -> bool {
        // SAFETY: forwarded from the caller. A private anonymous mapping reads zeros after
        // `MADV_DONTNEED`; a failure leaves the pages resident with their contents.
        unsafe { madvise(start.cast(), len, MADV_DONTNEED) == 0 }
    }

    pub(super) fn populate(start: *mut u8, len: usize) {
        // SAFETY: the caller's whole pages, fresh and about to be written; populating
        // changes no byte the program can see (a page not yet present reads as zero either
        // way, one present is left alone). An older kernel's error is ignored.
        unsafe { madvise(start.cast(), len, MADV_POPULATE_WRITE) };
    }
}

/// `len` bytes (a multiple of [`PAGE`]) of zeroed memory of a fresh private anonymous
/// mapping, page-aligned; `None` if the kernel refuses, or elsewhere than on Linux.
pub(crate) fn map(len: usize) -> Option<NonNull<u8>> {
    debug_assert!(len > 0 && len.is_multiple_of(PAGE));
    #[cfg(all(target_os = "linux", not(loom)))]
    return linux::map(len);
    #[cfg(not(all(target_os = "linux", not(loom))))]
    {
        let _ = len;
        None
    }
}

/// Removes `start..start + len` from the address space. Does nothing for `len == 0`.
///
/// # Safety
/// The range is whole pages of mappings made by [`map`], and nothing will touch it again.
pub(crate) unsafe fn unmap(start: *mut u8, len: usize) {
    if len == 0 {
        return;
    }
    #[cfg(all(target_os = "linux", not(loom)))]
    // SAFETY: forwarded from the caller.
    unsafe {
        linux::unmap(start, len)
    };
    #[cfg(not(all(target_os = "linux", not(loom))))]
    unreachable!("only Linux maps pages: {start:p} {len}");
}

/// Hands the pages of `start..start + len` back to the system; the mapping stays and reads
/// zeros from then on. Returns `false` if the kernel refused: the pages then stay
/// resident, contents and all.
///
/// # Safety
/// The range is whole pages of mappings made by [`map`], and no reference to its bytes
/// is live (atomic loads through raw pointers may still race with it: they read the old
/// contents or zeros).
#[must_use]
pub(crate) unsafe fn hand_back(start: *mut u8, len: usize) -> bool {
    debug_assert!(start.addr().is_multiple_of(PAGE) && len.is_multiple_of(PAGE));
    #[cfg(all(target_os = "linux", not(loom)))]
    // SAFETY: forwarded from the caller.
    return unsafe { linux::hand_back(start, len) };
    #[cfg(not(all(target_os = "linux", not(loom))))]
    unreachable!("only Linux maps pages: {start:p} {len}");
}

/// Faults in the whole pages within `block..block + size`, a fresh allocation about to be
/// written, with one `madvise(MADV_POPULATE_WRITE)` (Linux 5.14 and later) instead of a
/// page fault per page as the writes reach it: on a VM each fault is a trip through the
/// hypervisor. Pages already present are left as they are (their contents too). Does
/// nothing elsewhere, or under loom.
#[inline]
pub(crate) fn populate(block: *mut u8, size: usize) {
    let start = block.addr().next_multiple_of(PAGE);
    let end = (block.addr() + size) & !(PAGE - 1);
    if end <= start {
        return;
    }
    #[cfg(all(target_os = "linux", not(loom)))]
    linux::populate(block.wrapping_add(start - block.addr()), end - start);
}

/// Which of the pages of `start..start + len` are resident, by `mincore`; `None` if some
/// page of the range is not mapped.
#[cfg(all(test, target_os = "linux", not(loom)))]
pub(crate) fn resident(start: NonNull<u8>, len: usize) -> Option<Vec<bool>> {
    unsafe extern "C" {
        fn mincore(addr: *mut std::ffi::c_void, len: usize, vec: *mut u8) -> std::ffi::c_int;
    }
    let mut pages = vec![0u8; len.div_ceil(PAGE)];
    // SAFETY: `pages` has a byte per page of the range, as many as mincore writes.
    let result = unsafe { mincore(start.as_ptr().cast(), len, pages.as_mut_ptr()) };
    (result == 0).then(|| pages.into_iter().map(|page| page & 1 == 1).collect())
}
