//! `dt_static_set_register` from C's side: registering the same set again copies nothing
//! (a generated header registers its set from every translation unit that includes it),
//! and another set under a taken name is refused.

use dynatom_ffi::{dt_static_entry, dt_static_set_register, dt_status};

unsafe extern "C" {
    fn malloc_trim(pad: usize) -> i32;
}

/// Resident bytes of this process after giving free heap back to the kernel.
fn resident_bytes() -> usize {
    // SAFETY: glibc's `malloc_trim` only releases free memory.
    unsafe { malloc_trim(0) };
    let statm = std::fs::read_to_string("/proc/self/statm").expect("Linux's /proc");
    let pages: usize = statm.split_whitespace().nth(1).expect("resident field").parse().expect("a number");
    pages * 4096
}

struct Set {
    names: Vec<String>,
    texts: Vec<String>,
}

impl Set {
    fn new(count: usize, tag: &str) -> Set {
        let names = (0..count).map(|i| format!("ENTRY_{i}")).collect();
        let texts = (0..count).map(|i| format!("{tag} text number {i} of a large registered set")).collect();
        Set { names, texts }
    }

    fn entries(&self) -> Vec<dt_static_entry> {
        self.names
            .iter()
            .zip(&self.texts)
            .map(|(name, text)| dt_static_entry {
                name: name.as_ptr(),
                name_len: name.len(),
                text: text.as_ptr(),
                text_len: text.len(),
                word: dynatom_core::StaticText::bits_of(text.as_bytes()) as u64,
            })
            .collect()
    }

    fn register(&self, name: &str) -> dt_status {
        let entries = self.entries();
        dt_static_set_register(name.as_ptr(), name.len(), entries.as_ptr(), entries.len())
    }
}

#[test]
fn registering_the_same_set_again_costs_no_memory() {
    let set = Set::new(20_000, "kept once");
    // The first registration, and a few more so that the heap holds the call's own
    // temporaries (the checked entries, the duplicate checks) at their largest.
    for _ in 0..4 {
        assert_eq!(set.register("large"), dt_status::DT_OK);
    }
    let before = resident_bytes();
    for _ in 0..50 {
        assert_eq!(set.register("large"), dt_status::DT_OK);
    }
    let grown = resident_bytes().saturating_sub(before);
    // A copy of this set is about 1.3 MiB (names, texts and entries): copying it each time
    // would grow the process by over 60 MiB.
    assert!(grown < 2 << 20, "50 registrations of the same set grew the process by {grown} bytes");

    let other = Set::new(3, "another");
    assert_eq!(other.register("large"), dt_status::DT_ERR_DUPLICATE, "another set under a taken name");
    assert_eq!(other.register("another name"), dt_status::DT_OK);
}
