//! loom models of the table's read protocol with no pin ("A hit: the read protocol" in
//! [`super::shared`]'s docs), on a tiny table of their own: one slot, a pool of one block
//! reused last-in-first-out, the block's count a loom atomic and its text a loom
//! `UnsafeCell`.
//!
//! The real table's hit cannot run here: under loom its blocks' atomics are objects that a
//! free drops, so a stale read would be a loom error rather than a modelled race, and
//! every hit pins. These models keep the blocks alive for the whole model, as the slabs
//! keep their memory, and check the protocol's steps with the orderings the table uses
//! (`Block::raise_unpinned`, `Block::publish_entry`, `Block::reclaim_unused` and the
//! handle's drop): a reader that reads a text after its raise never races with the write
//! of the next atom's text into the same block, never takes a count of a freed block,
//! and its own drop never frees.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p dynatom --release --lib loom_`.

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use loom::thread;

/// A slab block: a count and a text (a number here).
struct Block {
    count: AtomicU32,
    text: UnsafeCell<u64>,
}

/// One slot (0: empty; 1: the block) and the pool's one block.
struct Table {
    slot: AtomicUsize,
    block: Block,
}

const OLD: u64 = 1;
const NEW: u64 = 2;

impl Table {
    /// A table whose slot lists the block, holding `text` with `count`.
    fn with(text: u64, count: u32) -> Arc<Table> {
        Arc::new(Table {
            slot: AtomicUsize::new(1),
            block: Block { count: AtomicU32::new(count), text: UnsafeCell::new(text) },
        })
    }

    /// The hit with no pin: the slot, then a raise from a live value, then the text.
    /// Returns the text it took, if it took one; drops the count at once either way.
    fn hit(&self, wanted: u64) -> Option<u64> {
        if self.slot.load(Ordering::Acquire) == 0 {
            return None;
        }
        let block = &self.block;
        let mut now = block.count.load(Ordering::Acquire);
        loop {
            if now == 0 {
                return None;
            }
            match block.count.compare_exchange(now, now + 1, Ordering::Acquire, Ordering::Acquire) {
                Ok(_) => break,
                Err(actual) => now = actual,
            }
        }
        // SAFETY: a loom cell: loom reports this read if it races with a write.
        let text = block.text.with(|text| unsafe { *text });
        let before = block.count.fetch_sub(1, Ordering::Release);
        assert!(before >= 2, "a reader's drop freed the block");
        (text == wanted).then_some(text)
    }

    /// A sweep of the unused atom (count 1 -> 0), then the block's reuse for `text`:
    /// written while its count is 0, published (count stored last, with Release), then
    /// listed again.
    fn sweep_and_reuse(&self, text: u64) {
        if self.block.count.compare_exchange(1, 0, Ordering::Acquire, Ordering::Relaxed).is_err() {
            return;
        }
        self.slot.store(0, Ordering::Release);
        // SAFETY: a loom cell: loom reports this write if it races with a read.
        self.block.text.with_mut(|slot| unsafe { *slot = text });
        self.block.count.store(1, Ordering::Release);
        self.slot.store(1, Ordering::Release);
    }
}

/// A reader that loaded the slot before a sweep took the unused atom back and the block was
/// reused for another text: it takes the old atom (its raise beat the sweep), or misses,
/// or raises the new atom and sees its text whole; never a torn or raced text, never a
/// free by its own drop.
#[test]
fn loom_a_stale_reader_never_races_the_reuse_of_a_swept_block() {
    loom::model(|| {
        let table = Table::with(OLD, 1);
        let writer = {
            let table = table.clone();
            thread::spawn(move || table.sweep_and_reuse(NEW))
        };
        let found = table.hit(OLD);
        writer.join().unwrap();
        assert!(found.is_none() || found == Some(OLD));
        // Whichever won, the block holds one live atom, counted once by its table.
        assert_eq!(table.block.count.load(Ordering::Relaxed), 1);
    });
}

/// Two readers, one looking for the old text and one for the new, against a sweep and
/// reuse: each finds only its own text, and the counts come back to the table's one.
#[test]
fn loom_readers_of_both_texts_against_a_reuse_find_only_their_own() {
    loom::model(|| {
        let table = Table::with(OLD, 1);
        let writer = {
            let table = table.clone();
            thread::spawn(move || table.sweep_and_reuse(NEW))
        };
        let reader = {
            let table = table.clone();
            thread::spawn(move || table.hit(NEW))
        };
        let old = table.hit(OLD);
        let new = reader.join().unwrap();
        writer.join().unwrap();
        assert!(old.is_none() || old == Some(OLD));
        assert!(new.is_none() || new == Some(NEW));
        assert_eq!(table.block.count.load(Ordering::Relaxed), 1);
    });
}

/// A block being filed: its text is written while its count is 0, then the count is
/// published. A reader holding the block's address from its last life (a stale slot
/// word) either sees 0 and misses, or raises after the publish and reads the new text
/// whole.
#[test]
fn loom_a_block_is_takeable_only_once_its_text_is_published() {
    loom::model(|| {
        let table = Table::with(OLD, 0);
        let filer = {
            let table = table.clone();
            thread::spawn(move || {
                // SAFETY: a loom cell: loom reports this write if it races with a read.
                table.block.text.with_mut(|slot| unsafe { *slot = NEW });
                table.block.count.store(1, Ordering::Release);
            })
        };
        let found = table.hit(NEW);
        filer.join().unwrap();
        assert!(found.is_none() || found == Some(NEW));
        assert_eq!(table.block.count.load(Ordering::Relaxed), 1);
    });
}
