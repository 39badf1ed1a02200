//! The atom table's [`MemoryReport`], read from its shards (and, with `glibc-slop`, from
//! glibc's `malloc_usable_size`).

use super::TableShared;
use super::shared::for_each_entry;
use crate::counters::Counters;
use crate::memory_report::MemoryReport;
use crate::repr::atom_word::RawAtom;

/// The report of `table`, each shard read under its lock.
pub(crate) fn collect(table: &TableShared) -> MemoryReport {
    let mut report = MemoryReport { table_bytes: table.shards_size(), slop_bytes: Some(0), ..Default::default() };
    let mut counters = Counters::default();
    table.for_each_shard(|shard| {
        counters.add(&shard.counters);
        let most = shard.most_insert();
        report.max_insert_slots = report.max_insert_slots.max(most.slots as u64);
        report.max_insert_bytes = report.max_insert_bytes.max(most.array_bytes as u64);
        report.table_bytes += shard.memory_size();
        report.retired_bytes += shard.retired_bytes();
        for_each_entry(shard, |raw| add_entry(&mut report, raw));
    });
    report.table_bytes += table.array_pool_usage().spare_bytes;
    let usage = table.slab_usage();
    report.slabs = usage.slabs;
    report.idle_slabs = usage.idle_slabs;
    report.mapped_bytes = usage.mapped_slabs * crate::repr::slab::SLAB_BYTES;
    report.slab_spare_bytes += usage.spare_bytes;
    report.unused_bytes_limit = table.unused_bytes_floor().max((report.header_bytes + report.char_bytes) / 2);
    if !slop_is_known() {
        report.slop_bytes = None;
    }
    report.locked_lookups = counters.lookups;
    report.locked_hits = counters.hits;
    report.locked_misses = counters.misses;
    report.inserts = counters.inserts;
    report.removals = counters.removals;
    report.max_probe = counters.max_probe;
    report.max_compared = counters.max_compared;
    report.mean_probe = if counters.lookups == 0 { 0.0 } else { counters.probes as f64 / counters.lookups as f64 };
    report
}

fn add_entry(report: &mut MemoryReport, raw: RawAtom) {
    // SAFETY: `collect` visits entries with their shard locked, so no sweep frees them;
    // the table holds their counts.
    let (footprint, unused, permanent) = unsafe { (raw.footprint(), raw.is_unused(), raw.is_permanent()) };
    if let Some(size) = footprint.slab_block {
        report.slab_spare_bytes += size - (footprint.header + footprint.chars);
    }
    if unused {
        report.unused_atoms += 1;
        report.unused_bytes += footprint.header + footprint.chars;
        return;
    }
    report.atoms += 1;
    report.header_bytes += footprint.header;
    report.char_bytes += footprint.chars;
    report.static_char_bytes += footprint.static_chars;
    if footprint.block.is_none() {
        report.static_atoms += 1;
        report.declared_atoms += usize::from(footprint.declared);
    } else if permanent {
        report.permanent_atoms += 1;
        report.permanent_bytes += footprint.header + footprint.chars;
    }
    if let (Some(block), Some(slop), None) = (footprint.block, report.slop_bytes.as_mut(), footprint.slab_block) {
        *slop += usable_size(block.as_ptr()).saturating_sub(footprint.header + footprint.chars);
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom)))]
fn usable_size(ptr: *mut u8) -> usize {
    unsafe extern "C" {
        fn malloc_usable_size(ptr: *mut std::ffi::c_void) -> usize;
    }
    // SAFETY: `ptr` is a live heap block (its shard is locked), and with this feature
    // every heap block is allocated through `sync::raw_alloc`, which sends it to
    // `std::alloc::System`: glibc's malloc, whatever global allocator the program installs.
    // So glibc is asked only about its own blocks.
    unsafe { malloc_usable_size(ptr.cast()) }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom))))]
fn usable_size(_ptr: *mut u8) -> usize {
    0
}

fn slop_is_known() -> bool {
    cfg!(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop", not(loom)))
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn the_reported_header_size_is_the_heaps() {
        assert_eq!(MemoryReport::HEADER_BYTES, crate::repr::heap::HEADER_SIZE);
    }
}
