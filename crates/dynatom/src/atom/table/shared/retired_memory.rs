//! The collection of retired memory: the swept blocks and old slot arrays that wait for
//! lock-free readers to move on, freed by any later write to any shard and by a reader's
//! reads now and then, so that memory retired in a shard that is never touched again is
//! freed all the same. "When retired memory is freed" in the module docs of [`super`]
//! says how; `waiting_shards` in [`TableShared`] records which shards hold some.

use super::{ShardGuard, TableShared};
use crate::sync::Ordering;

/// While a table holds retired memory, each thread's lock-free reads (intern hits and
/// lookups) make a collection every this many: often enough that memory waits for reads
/// measured in microseconds, seldom enough that readers do not queue on the reclaimer's
/// lock while a pinned thread holds the epoch back.
pub(super) const READS_PER_COLLECTION: u32 = 256;

impl TableShared {
    /// What a lock-free read does once unpinned: one relaxed load, and a collection now
    /// and then while retired memory waits (see [`READS_PER_COLLECTION`]). Unpinned
    /// first, so that the reader's own pin holds nothing back.
    #[inline(always)]
    pub(super) fn after_read(&self) {
        if self.has_retired_waiting() {
            self.collect_after_reads();
        }
    }

    /// Whether some shard holds retired memory: one relaxed load, for a hit to test before
    /// it calls anything.
    #[inline(always)]
    pub(super) fn has_retired_waiting(&self) -> bool {
        self.waiting_shards.load(Ordering::Relaxed) != 0
    }

    /// [`TableShared::after_read`]'s collection, on one in [`READS_PER_COLLECTION`] of the
    /// thread's reads that find retired memory waiting (in any table: the count is the
    /// thread's).
    #[cold]
    #[inline(never)]
    fn collect_after_reads(&self) {
        // Loom's threads share the process's thread-locals: there, every such read collects.
        #[cfg(not(loom))]
        {
            std::thread_local! {
                static READS_TO_COLLECT: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
            }
            let due = READS_TO_COLLECT.try_with(|left| {
                let now = left.get();
                left.set(if now == 0 { READS_PER_COLLECTION - 1 } else { now - 1 });
                now == 0
            });
            if due != Ok(true) {
                return;
            }
        }
        self.collect_waiting(None);
    }

    /// Records whether the shard at `index` (locked) still holds retired memory: swept
    /// blocks, or old slot arrays.
    pub(super) fn note_waiting(&self, index: usize, shard: &ShardGuard<'_>) {
        let bit = 1 << index;
        let waits = shard.retired.len() > 0 || shard.arrays_waiting() > 0;
        // Only this shard's lock holder changes its bit: a load says whether it must.
        if waits != (self.waiting_shards.load(Ordering::Relaxed) & bit != 0) {
            if waits {
                self.waiting_shards.fetch_or(bit, Ordering::Relaxed);
            } else {
                self.waiting_shards.fetch_and(!bit, Ordering::Relaxed);
            }
        }
    }

    /// One collection of the shard at `index` (locked): frees what the epoch allows of its
    /// swept blocks and old arrays, moving the epoch a step if it can.
    pub(super) fn collect_shard(&self, index: usize, shard: &mut ShardGuard<'_>) {
        shard.retired.collect();
        shard.collect_arrays();
        self.note_waiting(index, shard);
    }

    /// Collects every shard whose retired memory waits, except `held` (which the caller
    /// has locked and collects itself). A shard whose lock another thread holds is
    /// skipped: the caller may hold a shard's lock, so waiting for a second one could
    /// deadlock with a thread locking them the other way, and a reader must not wait for
    /// a writer. The holder collects its own shard when it writes.
    #[cold]
    #[inline(never)]
    fn collect_waiting(&self, held: Option<usize>) {
        let mut waiting = self.waiting_shards.load(Ordering::Relaxed);
        if let Some(held) = held {
            waiting &= !(1 << held);
        }
        while waiting != 0 {
            let index = waiting.trailing_zeros() as usize;
            waiting &= waiting - 1;
            let Some(mut shard) = self.shards[index].slots.try_lock() else { continue };
            self.collect_shard(index, &mut shard);
        }
    }

    /// What a write to the shard at `index` (locked) does for retired memory: records
    /// whether the shard's own still waits (the write may have retired an old array),
    /// and while any shard's waits, collects them all.
    #[inline]
    pub(super) fn collect_after_write(&self, index: usize, shard: &mut ShardGuard<'_>) {
        // The common case, nothing waiting anywhere, in one load and two compares (counted:
        // noting the shard's state first cost every filing some 20 instructions).
        if self.waiting_shards.load(Ordering::Relaxed) == 0 && shard.retired.len() == 0 && shard.arrays_waiting() == 0 {
            return;
        }
        self.collect_everywhere_after_write(index, shard);
    }

    #[cold]
    #[inline(never)]
    fn collect_everywhere_after_write(&self, index: usize, shard: &mut ShardGuard<'_>) {
        self.note_waiting(index, shard);
        if self.waiting_shards.load(Ordering::Relaxed) != 0 {
            self.collect_shard(index, shard);
            self.collect_waiting(Some(index));
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::atom::table::reclaim;
    use crate::repr::heap::HEADER_SIZE;

    /// Sweeps a large unused atom of `table` while another thread is pinned, and returns
    /// the atom's bytes (header and text) and its shard, with the reader released.
    fn retire_beside_a_pinned_reader(table: &crate::AtomTable, text: &str) -> (usize, usize) {
        drop(table.intern(text));
        let (pinned_tx, pinned_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            let guard = reclaim::pin();
            pinned_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            drop(guard);
        });
        pinned_rx.recv().unwrap();
        assert_eq!(table.shrink(), 1);
        let bytes = HEADER_SIZE + text.len();
        let report = table.memory_report();
        assert_eq!(
            (report.unused_bytes, report.retired_bytes),
            (0, bytes),
            "shown while the reader holds it\n{report}"
        );
        release_tx.send(()).unwrap();
        reader.join().unwrap();
        (bytes, table.shared().shard_index(table.shared().hash(text.as_bytes())))
    }

    /// Texts filed in shards other than `shard`.
    fn texts_elsewhere<'a>(
        table: &'a crate::AtomTable,
        shard: usize,
        tag: &'a str,
    ) -> impl Iterator<Item = String> + 'a {
        (0..)
            .map(move |i| format!("{tag}, number {i}"))
            .filter(move |text| table.shared().shard_index(table.shared().hash(text.as_bytes())) != shard)
    }

    #[test]
    fn memory_swept_beside_a_pinned_reader_is_freed_by_writes_to_other_shards() {
        let _serial = reclaim::long_pins_serial();
        let table = crate::AtomTable::with_seed(3);
        let (_, shard) = retire_beside_a_pinned_reader(&table, &"w".repeat(1 << 20));
        let mut kept = Vec::new();
        // Other tests' pins are short, but on a loaded machine their threads may sleep
        // while pinned: seconds, not a count of writes.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        for text in texts_elsewhere(&table, shard, "a write to another shard") {
            if table.memory_report().retired_bytes == 0 {
                break;
            }
            assert!(std::time::Instant::now() < deadline, "writes elsewhere must free it\n{}", table.memory_report());
            kept.push(table.intern(&text));
        }
        assert!(!kept.is_empty(), "the reader's unpin alone frees nothing");
        assert_eq!(table.shared().waiting_shards.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn memory_swept_beside_a_pinned_reader_is_freed_by_lookups_alone() {
        let _serial = reclaim::long_pins_serial();
        let table = crate::AtomTable::with_seed(4);
        let large = "r".repeat(1 << 20);
        let shard = table.shared().shard_index(table.shared().hash(large.as_bytes()));
        let held: Vec<_> = texts_elsewhere(&table, shard, "looked up in another shard")
            .take(4)
            .map(|text| table.intern(&text))
            .collect();
        retire_beside_a_pinned_reader(&table, &large);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut lookups = 0;
        while table.memory_report().retired_bytes > 0 {
            assert!(std::time::Instant::now() < deadline, "lookups must free it\n{}", table.memory_report());
            for atom in &held {
                assert_eq!(table.lookup(atom.as_str()).as_ref(), Some(atom));
                lookups += 1;
            }
        }
        assert!(lookups > 0, "the reader's unpin alone frees nothing");
    }
}
