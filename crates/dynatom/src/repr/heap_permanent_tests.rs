//! The permanent count: once a block is made permanent its handles write nothing, no
//! drop frees it or reports it unused, and a sweep cannot take it back.

use super::*;

/// A block as a table files it: one count for the table's entry, one for `handles`
/// more handles each.
fn filed(text: &[u8], handles: u32) -> (NonNull<Header>, Vec<Block>) {
    let block = Block::copy_from(text, Fallibility::Infallible).unwrap();
    let others = (0..handles).map(|_| block.clone()).collect();
    (block.into_raw(), others)
}

/// Frees a block made permanent in a test: no table will, so its count is set back.
fn free_for_test(entry: NonNull<Header>) {
    // SAFETY: `entry` is the test's own block, whose only remaining count is the table's.
    let block = unsafe { Block::from_raw(entry) };
    block.set_count_for_test(1);
    drop(block);
}

#[test]
fn a_permanent_block_is_neither_counted_nor_freed_by_its_handles() {
    let (entry, handles) = filed(b"a block made permanent", 1);
    // SAFETY: the entry's count is held by this test for its whole length.
    unsafe {
        assert!(Block::make_permanent(entry));
        assert!(!Block::make_permanent(entry), "only the first call makes it so");
        assert!(Block::entry_is_permanent(entry));
    }
    let before = handles[0].count_for_test();
    assert!(before >= PERMANENT_FROM);
    let clones: Vec<Block> = (0..1000).map(|_| handles[0].clone()).collect();
    // SAFETY: as above.
    let hits: Vec<Block> = (0..1000).map(|_| unsafe { Block::acquire_entry(entry, 2) }.unwrap()).collect();
    assert_eq!(handles[0].count_for_test(), before, "clones and hits write nothing");
    drop((clones, hits, handles));
    // SAFETY: as above.
    unsafe {
        assert_eq!(Block::entry_count(entry), before, "drops write nothing");
        assert!(Block::reclaim_unused(entry).is_none(), "a sweep never takes it back");
    }
    free_for_test(entry);
}

#[test]
fn an_unused_block_is_not_made_permanent() {
    let (entry, handles) = filed(b"held by its table alone", 0);
    assert!(handles.is_empty());
    // SAFETY: the entry's count is held by this test.
    unsafe {
        assert!(!Block::make_permanent(entry), "a sweep may be taking it back");
        assert!(!Block::entry_is_permanent(entry));
        drop(Block::reclaim_unused(entry).expect("still the table's to sweep"));
    }
}

#[test]
fn stray_steps_of_racing_handles_stay_in_the_permanent_zone() {
    let (entry, handles) = filed(b"a block whose racing handles step its count", 1);
    // SAFETY: the entry's count is held by this test.
    assert!(unsafe { Block::make_permanent(entry) });
    let handle = &handles[0];
    let permanent = handle.count_for_test();
    // What a clone and a drop that read the count just before the promotion do after it.
    handle.header().count.fetch_add(64, Ordering::Relaxed);
    assert!(handle.is_permanent());
    handle.header().count.fetch_sub(128, Ordering::Relaxed);
    assert!(handle.is_permanent());
    assert!(permanent - 64 >= PERMANENT_FROM + (1 << 29), "far inside the zone");
    drop(handles);
    free_for_test(entry);
}

#[test]
fn a_contended_raise_is_noted_and_an_uncontended_one_is_not() {
    let (entry, handles) = filed(b"raised with and without a rival", 1);
    let mut signs = HitSigns::default();
    // SAFETY: the entry's count is held by this test.
    let hit = unsafe { Block::acquire_entry_noting(entry, 2, &mut signs) }.unwrap();
    assert_eq!(signs, HitSigns::default(), "nobody else moved the count, and it was in use");
    drop((hit, handles));
    // SAFETY: as above; the table's count is the last.
    drop(unsafe { Block::reclaim_unused(entry) }.expect("unused"));
}
