//! A program whose global allocator is not glibc's malloc (as with jemalloc or mimalloc):
//! memory reports must never hand glibc a pointer it did not allocate.
//!
//! The allocator below serves every request from `System` but returns a pointer 16 bytes
//! into the block, with a poisoned word where glibc keeps a chunk's size. Were a memory
//! report to call `malloc_usable_size` on such a pointer it would read that word (a
//! huge "size", so a huge slop), and valgrind would flag the read. Without `glibc-slop`
//! the report says slop is unknown; with it, the strings' blocks come from glibc directly
//! and the slop is small and real.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use dynatom::{AtomTable, Str};

/// Bytes in front of every pointer handed out (also its alignment, at least 16).
fn offset_for(layout: Layout) -> usize {
    layout.align().max(16)
}

/// What would sit where glibc reads a chunk size: not a plausible size.
const POISON: usize = 0x7777_7777_7777_7770;

struct OffsetAllocator {
    served: AtomicUsize,
}

// SAFETY: every pointer handed out is `offset` bytes into a `System` block of
// `size + offset` bytes aligned to `max(align, 16)`, so it is aligned, has `size` usable
// bytes, and `dealloc` recovers the block by subtracting the same offset.
unsafe impl GlobalAlloc for OffsetAllocator {
    // Not inlined, so that valgrind's suppression of "possibly lost" blocks (reached only
    // 16 bytes in, as every block of this allocator is) can name it.
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let offset = offset_for(layout);
        let Ok(outer) = Layout::from_size_align(layout.size() + offset, offset) else {
            return std::ptr::null_mut();
        };
        // SAFETY: `outer` has a non-zero size (at least the offset).
        let base = unsafe { System.alloc(outer) };
        if base.is_null() {
            return base;
        }
        self.served.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the block is at least `offset` (≥ 16) bytes long and aligned to 16.
        unsafe {
            base.add(offset - 8).cast::<usize>().write(POISON);
            base.add(offset)
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let offset = offset_for(layout);
        let outer = Layout::from_size_align(layout.size() + offset, offset).expect("valid at allocation");
        // SAFETY: `ptr` was handed out by `alloc` with this layout, `offset` bytes into
        // a `System` block allocated with `outer`.
        unsafe { System.dealloc(ptr.sub(offset), outer) }
    }
}

#[global_allocator]
static GLOBAL: OffsetAllocator = OffsetAllocator { served: AtomicUsize::new(0) };

const ATOMS: usize = 500;

#[test]
fn memory_reports_never_ask_glibc_about_foreign_blocks() {
    let table = AtomTable::with_seed(5);
    // Every other text is too long for the table's slabs, so the report meets blocks
    // of the allocator as well as blocks of the slabs (which it never asks glibc about).
    let long = "x".repeat(300);
    let texts: Vec<Str> = (0..ATOMS)
        .map(|i| {
            Str::from(format!("a heap string of some length, number {i:05}{}", if i % 2 == 0 { &long } else { "" }))
        })
        .collect();
    let atoms: Vec<_> = texts.iter().map(|text| text.intern_in(&table)).collect();
    assert!(GLOBAL.served.load(Ordering::Relaxed) > 0, "this test binary runs on the offset allocator");

    let report = table.memory_report();
    assert_eq!(report.atoms, ATOMS);
    assert_eq!(report.char_bytes, texts.iter().map(|t| t.len()).sum::<usize>());
    let printed = report.to_string();
    if cfg!(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop")) {
        let slop = report.slop_bytes.expect("glibc-slop reports slop on glibc");
        // glibc rounds a request up to a 16-byte multiple after an 8-byte size word, so
        // its slop is under 32 bytes a block; the poisoned word would give ~2^62.
        assert!(slop < 32 * ATOMS, "slop {slop} for {ATOMS} blocks: not glibc's own figure");
        assert!(printed.contains("allocator slop") && !printed.contains("unknown"));
    } else {
        assert_eq!(report.slop_bytes, None, "slop must be unknown without glibc-slop");
        assert!(printed.contains("unknown -- allocator slop"), "{printed}");
        assert_eq!(
            report.total_bytes(),
            report.table_bytes + report.header_bytes + report.char_bytes + report.slab_spare_bytes
        );
        assert!(report.slabs > 0, "the short texts lie in slabs");
    }
    for (atom, text) in atoms.iter().zip(&texts) {
        assert_eq!(atom.as_str(), text.as_str());
    }
    drop(atoms);
    drop(texts);
    assert_eq!(table.memory_report().atoms, 0);
}
