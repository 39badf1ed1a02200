//! `AtomTable::fix_process_seed`, in a test binary of its own: the seed can be fixed only
//! before anything in the process has chosen it, so this file holds one test.

use dynatom::{Atom, AtomTable, Str};

#[test]
fn the_process_seed_can_be_fixed_before_anything_hashes() {
    assert!(AtomTable::fix_process_seed(7));
    assert!(!AtomTable::fix_process_seed(8), "the seed stays once chosen");
    let text = "a text long enough for the heap";
    let reference = AtomTable::with_seed(7).intern(text).hash64();
    assert_eq!(AtomTable::new().intern(text).hash64(), reference);
    assert_eq!(Atom::from(text).hash64(), reference);
    assert_eq!(Str::from(text).hash64(), reference);
    assert_ne!(AtomTable::with_seed(8).intern(text).hash64(), reference);
}
