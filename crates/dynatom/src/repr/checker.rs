//! What the memory checkers are told about memory dynatom manages itself.
//!
//! valgrind's memcheck and AddressSanitizer track blocks at the granularity of the global
//! allocator: a slot of a slab page that dynatom has taken back is, to them, still part of
//! a live allocation, so a read through a stale pointer into it passes unseen. These
//! functions tell them what the slot is now:
//!
//! | state        | function            | memcheck              | ASan       |
//! |--------------|---------------------|-----------------------|------------|
//! | nobody's     | [`mark_freed`]      | `MAKE_MEM_NOACCESS`   | poison     |
//! | handed out   | [`mark_allocated`]  | `MAKE_MEM_UNDEFINED`  | unpoison   |
//! | readable     | [`mark_defined`]    | `MAKE_MEM_DEFINED`    | unpoison   |
//!
//! Each checker is built in only when asked for, with a cfg the test scripts set:
//!
//! * `--cfg dynatom_valgrind` (x86-64, not under loom): memcheck client requests, the
//!   instruction sequence valgrind's `valgrind.h` documents, which does nothing on a real
//!   CPU and which valgrind recognises and answers (`scripts/valgrind-tests`).
//! * `--cfg dynatom_asan`: calls into the AddressSanitizer runtime, so it needs
//!   `-Zsanitizer=address` to link (`scripts/asan-tests`).
//!
//! Without either, every function is an empty inline one: the release build, which the
//! benchmarks count instruction by instruction under callgrind, carries no trace of them.
//!
//! None of this changes what the program does; it changes only what a checker will report.
//! That is why the functions are safe: marking memory wrongly gives false reports (or hides
//! true ones), never undefined behaviour. Callers mark only ranges they own.

// The request codes, checked against valgrind 3.19's `valgrind.h` and `memcheck.h`
// (`/usr/include/valgrind/`): the core's own are fixed numbers in `valgrind.h`'s enum, a
// tool's are numbered up from `VG_USERREQ_TOOL_BASE(a, b)` = `a << 24 | b << 16` in the
// order `memcheck.h` lists them, memcheck's letters being 'M', 'C'.
const MEMCHECK_BASE: u64 = (b'M' as u64) << 24 | (b'C' as u64) << 16;
const MAKE_MEM_NOACCESS: u64 = MEMCHECK_BASE;
const MAKE_MEM_UNDEFINED: u64 = MEMCHECK_BASE + 1;
const MAKE_MEM_DEFINED: u64 = MEMCHECK_BASE + 2;
// Asked only by tests (the planted uses after free check that memcheck counted them).
#[cfg_attr(not(test), allow(dead_code))]
const RUNNING_ON_VALGRIND: u64 = 0x1001;
#[cfg_attr(not(test), allow(dead_code))]
const COUNT_ERRORS: u64 = 0x1201;

// The codes as the headers' enums come out, so that an edit of the arithmetic above
// cannot silently send another request.
const _: () = assert!(MAKE_MEM_NOACCESS == 0x4D43_0000 && MAKE_MEM_DEFINED == 0x4D43_0002);

/// valgrind's client requests through the x86-64 "magic sequence".
#[cfg(all(dynatom_valgrind, target_arch = "x86_64", not(loom)))]
mod valgrind {
    use core::arch::asm;

    /// Sends `request` with two arguments and returns valgrind's answer, or `default` when
    /// the program runs on a real CPU.
    #[inline(always)]
    pub(super) fn request(default: usize, request: u64, arg1: u64, arg2: u64) -> usize {
        // valgrind reads six words: the request and five arguments, unused ones zero.
        let args: [u64; 6] = [request, arg1, arg2, 0, 0, 0];
        let result: usize;
        // SAFETY: on a CPU the rotations add up to 128 bits, two full turns, so rdi ends
        // as it began, and `xchg rbx, rbx` swaps a register with itself: the only effect
        // is on the flags, which are not declared preserved. Under valgrind the sequence
        // is replaced by the request, which reads the six words behind rax (`args`, alive
        // across the block) and writes only rdx, declared as the output. Neither touches
        // the stack. The block is not `nomem`/`readonly`, so the compiler keeps the
        // program's own reads and writes of the marked memory on their side of it.
        unsafe {
            asm!(
                "rol rdi, 3",
                "rol rdi, 13",
                "rol rdi, 61",
                "rol rdi, 51",
                "xchg rbx, rbx",
                in("rax") args.as_ptr(),
                inout("rdx") default => result,
                options(nostack),
            );
        }
        result
    }
}

/// Without the cfg (or off x86-64, or under loom) every request answers its default.
#[cfg(not(all(dynatom_valgrind, target_arch = "x86_64", not(loom))))]
mod valgrind {
    #[inline(always)]
    pub(super) fn request(default: usize, _request: u64, _arg1: u64, _arg2: u64) -> usize {
        default
    }
}

/// The AddressSanitizer runtime's interface for memory a program manages itself
/// (`sanitizer/asan_interface.h`). It poisons whole 8-byte granules only: a range whose
/// ends are not 8-aligned may be poisoned short of them.
#[cfg(dynatom_asan)]
mod asan {
    use core::ffi::c_void;

    unsafe extern "C" {
        fn __asan_poison_memory_region(addr: *const c_void, size: usize);
        fn __asan_unpoison_memory_region(addr: *const c_void, size: usize);
    }

    #[inline(always)]
    pub(super) fn poison(ptr: *const u8, len: usize) {
        // SAFETY: poisoning changes only ASan's shadow memory; it neither reads nor
        // writes the range, so any address and length are sound.
        unsafe { __asan_poison_memory_region(ptr.cast(), len) }
    }

    #[inline(always)]
    pub(super) fn unpoison(ptr: *const u8, len: usize) {
        // SAFETY: as for `poison`, only the shadow memory changes.
        unsafe { __asan_unpoison_memory_region(ptr.cast(), len) }
    }
}

#[cfg(not(dynatom_asan))]
mod asan {
    #[inline(always)]
    pub(super) fn poison(_ptr: *const u8, _len: usize) {}

    #[inline(always)]
    pub(super) fn unpoison(_ptr: *const u8, _len: usize) {}
}

/// Marks `len` bytes at `ptr` as memory the allocator holds and nobody may touch: a slot
/// put back on a free list. A later read or write of it is reported (memcheck: "Invalid
/// read/write"; ASan: "use-after-poison") until [`mark_allocated`] or [`mark_defined`]
/// covers it again.
///
/// Under ASan the range must be unpoisoned again before the memory goes back to the global
/// allocator, which reports freeing poisoned memory otherwise.
#[inline(always)]
pub(crate) fn mark_freed(ptr: *const u8, len: usize) {
    valgrind::request(0, MAKE_MEM_NOACCESS, ptr.addr() as u64, len as u64);
    asan::poison(ptr, len);
}

/// Marks `len` bytes at `ptr` as handed out with contents not yet written: accessible,
/// but memcheck reports a decision taken on any byte read before it is written. ASan
/// tracks addressability only, so to it this is the same as [`mark_defined`].
#[inline(always)]
pub(crate) fn mark_allocated(ptr: *const u8, len: usize) {
    valgrind::request(0, MAKE_MEM_UNDEFINED, ptr.addr() as u64, len as u64);
    asan::unpoison(ptr, len);
}

/// Marks `len` bytes at `ptr` as accessible with defined contents: for the few bytes of
/// a freed slot the allocator itself uses (its free-list link), which it then reads and
/// writes without a report. Mark them freed again when done with them.
#[inline(always)]
pub(crate) fn mark_defined(ptr: *const u8, len: usize) {
    valgrind::request(0, MAKE_MEM_DEFINED, ptr.addr() as u64, len as u64);
    asan::unpoison(ptr, len);
}

/// Whether the program runs under valgrind (any tool). Always `false` unless built with
/// `--cfg dynatom_valgrind`: the question is asked through the same request sequence.
#[cfg_attr(not(test), allow(dead_code))]
#[inline(always)]
pub(crate) fn running_on_valgrind() -> bool {
    valgrind::request(0, RUNNING_ON_VALGRIND, 0, 0) != 0
}

/// How many errors valgrind has reported so far; 0 when not running under it (or not
/// built with `--cfg dynatom_valgrind`). Lets a test check that memcheck saw what it
/// planted.
#[cfg_attr(not(test), allow(dead_code))]
#[inline(always)]
pub(crate) fn valgrind_error_count() -> usize {
    valgrind::request(0, COUNT_ERRORS, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for a slab page: 64 bytes from the global allocator, 8-aligned so that
    /// ASan's 8-byte granules cover a slot that starts and ends on a multiple of 8
    /// exactly. Held as a raw pointer, as the slab allocator will hold its pages, so
    /// every access goes through a pointer that may write.
    struct Page(*mut [u64; 8]);

    const PAGE_LEN: usize = 64;
    /// Where the 40-byte slot the tests mark sits in the page.
    const SLOT_OFFSET: usize = 8;
    const SLOT_LEN: usize = 40;

    impl Page {
        fn new(fill: u8) -> Self {
            let page = Page(Box::into_raw(Box::new([0; 8])));
            mark_allocated(page.base(), PAGE_LEN);
            // SAFETY: the page's 64 bytes are ours, just allocated.
            unsafe { page.base().write_bytes(fill, PAGE_LEN) };
            page
        }

        fn base(&self) -> *mut u8 {
            self.0.cast()
        }

        fn slot(&self) -> *mut u8 {
            self.base().wrapping_add(SLOT_OFFSET)
        }
    }

    impl Drop for Page {
        fn drop(&mut self) {
            // ASan reports freeing poisoned memory: the whole page is made plain again
            // before it goes back to the global allocator.
            mark_defined(self.base(), PAGE_LEN);
            // SAFETY: `self.0` came from `Box::into_raw` in `new` and is freed only here.
            drop(unsafe { Box::from_raw(self.0) });
        }
    }

    /// Freed, handed out again, written and read: no checker has anything to report.
    #[test]
    fn a_slot_freed_and_allocated_again_is_usable() {
        let errors_before = valgrind_error_count();
        let page = Page::new(7);
        mark_freed(page.slot(), SLOT_LEN);
        mark_allocated(page.slot(), SLOT_LEN);
        for i in 0..SLOT_LEN {
            // SAFETY: the slot lies inside the page's 64 bytes, which `page` owns.
            unsafe { page.slot().add(i).write(i as u8) };
        }
        for i in 0..SLOT_LEN {
            // SAFETY: as above; every byte was just written.
            assert_eq!(unsafe { page.slot().add(i).read() }, i as u8);
        }
        // The bytes around the slot were never marked and keep their contents.
        for i in (0..SLOT_OFFSET).chain(SLOT_OFFSET + SLOT_LEN..PAGE_LEN) {
            // SAFETY: the byte lies inside the page's 64 bytes.
            assert_eq!(unsafe { page.base().add(i).read() }, 7);
        }
        assert_eq!(valgrind_error_count(), errors_before);
    }

    /// The allocator's own link in a freed slot: made defined, written, read, freed again.
    #[test]
    fn a_free_list_link_in_a_freed_slot_is_usable() {
        let errors_before = valgrind_error_count();
        let page = Page::new(0);
        mark_freed(page.slot(), SLOT_LEN);
        let link = page.slot().cast::<usize>();
        mark_defined(link.cast(), size_of::<usize>());
        // SAFETY: the link's 8 bytes lie in the page, at offset 8, so aligned for usize.
        unsafe { link.write(0x1234) };
        // SAFETY: as above; just written.
        assert_eq!(unsafe { link.read() }, 0x1234);
        mark_freed(link.cast(), size_of::<usize>());
        assert_eq!(valgrind_error_count(), errors_before);
    }

    #[test]
    #[cfg(not(dynatom_valgrind))]
    fn without_the_cfg_valgrind_is_never_seen() {
        assert!(!running_on_valgrind());
        assert_eq!(valgrind_error_count(), 0);
    }

    /// A read of a freed slot, which only a checker can see: the memory still belongs to
    /// the page's box, so the read is sound Rust. Without a checker built in, it passes.
    #[test]
    #[ignore = "planted use-after-free: scripts/valgrind-tests and scripts/asan-tests run it and require their checker to catch it"]
    fn planted_use_after_free() {
        let errors_before = valgrind_error_count();
        let page = Page::new(0xAB);
        mark_freed(page.slot(), SLOT_LEN);
        // SAFETY: the byte lies inside the page's 64 bytes, written in `new`. Volatile, so
        // the compiler cannot answer the read with the value it saw `new` write.
        let stale = unsafe { std::ptr::read_volatile(page.slot().add(3)) };
        assert_eq!(stale, 0xAB);
        if running_on_valgrind() {
            assert!(valgrind_error_count() > errors_before, "memcheck did not count the read of a freed slot");
        }
    }
}
