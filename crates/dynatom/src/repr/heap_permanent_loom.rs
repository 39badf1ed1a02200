//! loom models of the permanent count: a promotion racing the last drop of a handle, and
//! racing a clone and a drop, end with a block that is either permanent (and never freed)
//! or counted exactly.
//!
//! Run with `RUSTFLAGS="--cfg loom" cargo test -p dynatom --release --lib loom_`.

use loom::sync::Arc;
use loom::thread;

use super::*;

/// A table's entry as the models share it between threads.
#[derive(Clone, Copy)]
struct Entry(NonNull<Header>);

// SAFETY: the models hold the entry's count (the table's) until they free it at the end.
unsafe impl Send for Entry {}
// SAFETY: as for `Send`.
unsafe impl Sync for Entry {}

fn filed_with_one_handle() -> (Entry, Block) {
    let block = Block::copy_from(b"promoted while its handle goes", Fallibility::Infallible).unwrap();
    let handle = block.clone();
    (Entry(block.into_raw()), handle)
}

/// Ends a model: a permanent block is set back to the table's one count; then the table
/// takes it back, which must succeed (no handle is left) and frees it.
fn take_back(entry: Entry, promoted: bool) {
    // SAFETY: the model's threads are joined; the table's count is the one left.
    unsafe {
        if promoted {
            assert!(Block::entry_is_permanent(entry.0), "a promoted block stays permanent");
            entry.0.as_ref().count.store(1, Ordering::Relaxed);
        }
        assert_eq!(Block::entry_count(entry.0), 1, "every handle's count came back");
        drop(Block::reclaim_unused(entry.0).expect("unused"));
    }
}

#[test]
fn loom_promotion_races_the_last_drop() {
    loom::model(|| {
        let (entry, handle) = filed_with_one_handle();
        let dropper = thread::spawn(move || drop(handle));
        // SAFETY: the table's count keeps the block alive; the model stands for the global
        // table, and sets the count back before freeing.
        let promoted = unsafe { Block::make_permanent(entry.0) };
        dropper.join().unwrap();
        take_back(entry, promoted);
    });
}

#[test]
fn loom_promotion_races_a_clone_and_a_drop() {
    loom::model(|| {
        let (entry, handle) = filed_with_one_handle();
        let handle = Arc::new(handle);
        let other = handle.clone();
        let user = thread::spawn(move || drop(Block::clone(&other)));
        // SAFETY: as above.
        let promoted = unsafe { Block::make_permanent(entry.0) };
        user.join().unwrap();
        drop(Arc::try_unwrap(handle).ok().expect("the other thread's Arc is gone"));
        take_back(entry, promoted);
    });
}
