//! Tests that pin the core's promises: sizes, inline vs heap, adoption, O(1) re-intern,
//! copy-free hand-back, slice sharing and the retention policy.

use dynatom::{Atom, AtomTable, ByteStr, MemoryReport, Str, StrError};
use std::mem::size_of;

#[test]
fn handle_sizes() {
    assert_eq!(size_of::<Str>(), 16);
    assert_eq!(size_of::<Option<Str>>(), 16);
    assert_eq!(size_of::<Str>(), size_of::<&str>());
    assert_eq!(size_of::<Atom>(), 8);
    assert_eq!(size_of::<Option<Atom>>(), 8);
    assert_eq!(MemoryReport::HEADER_BYTES, 16);
}

fn assert_send_sync<T: Send + Sync>() {}

#[test]
fn handles_are_send_and_sync() {
    assert_send_sync::<Str>();
    assert_send_sync::<Atom>();
    assert_send_sync::<AtomTable>();
}

#[test]
fn up_to_fifteen_bytes_inline() {
    for len in 0..=15 {
        let text = "x".repeat(len);
        let s = Str::from(text.as_str());
        assert!(s.is_inline(), "{len} bytes");
        assert_eq!(s, text.as_str());
    }
    let s = Str::from("x".repeat(16));
    assert!(!s.is_inline());
}

#[test]
fn static_strings_borrow_the_binary() {
    static TEXT: &str = "a static text that is long enough for the heap";
    let s = Str::from_static(TEXT);
    assert_eq!(s.as_ptr(), TEXT.as_ptr());
    assert_eq!(s.slice(2..).as_ptr(), TEXT[2..].as_ptr());
}

#[test]
fn clones_share_the_buffer() {
    let s = Str::from("a heap string shared by every clone");
    let t = s.clone();
    assert_eq!(s.as_ptr(), t.as_ptr());
    assert!(s.ptr_eq(&t));
}

#[test]
fn interning_adopts_the_buffer() {
    let table = AtomTable::global();
    let s = Str::from(format!("adopted-{}-buffer-xyz", line!()));
    assert!(!s.is_interned());
    let atom = s.intern_in(table);
    assert_eq!(atom.as_ptr(), s.as_ptr());
    assert!(s.is_interned());
    assert_eq!(s.intern(), atom);
}

#[test]
fn reinterning_is_o1_without_probing() {
    // The global table knows its atoms by a header flag: no lookup at all. Its counters
    // are shared with the other tests, so this is checked through the promise itself.
    let atom = Atom::from("a global atom handed out as a string");
    let s = Str::from(&atom);
    assert!(s.is_interned());
    assert_eq!(s.intern(), atom);
    // A local table has no room in the header to name itself: it finds its own entry by
    // address under the cached hash, without the lock, hashing and comparing no text.
    // `is_interned` speaks of the global table only: `intern()` would copy these.
    for table in [AtomTable::with_seed(21), AtomTable::new()] {
        let atom = table.intern("a local atom handed out as a string");
        let s = Str::from(&atom);
        assert!(!s.is_interned());
        let before = table.memory_report().locked_lookups;
        for _ in 0..10 {
            assert_eq!(s.intern_in(&table), atom);
        }
        assert_eq!(table.memory_report().locked_lookups, before, "re-intern must not probe the table");
    }
}

#[test]
fn is_interned_means_the_global_table_holds_the_buffer() {
    // Adopted by a local table: that table's atom, but `intern()` copies.
    let table = AtomTable::new();
    let s = Str::from(format!("a buffer a local table adopts, {}", line!()));
    let local = s.intern_in(&table);
    assert_eq!(local.as_ptr(), s.as_ptr(), "the local table adopted the buffer");
    assert!(!s.is_interned());
    assert!(!s.as_byte_str().is_interned());
    let global = s.intern();
    assert_ne!(global.as_ptr(), s.as_ptr(), "the global table copied it");
    assert!(!s.is_interned());
    assert!(Str::from(&global).is_interned());
    assert_eq!(Str::from(&global).intern().as_ptr(), global.as_ptr());

    // Adopted by the global table: `intern()` hands back this very buffer.
    let s = ByteStr::copy_from_slice(format!("a buffer the global table adopts, {}", line!()).as_bytes());
    assert!(!s.is_interned());
    let atom = s.intern();
    assert_eq!(atom.as_ptr(), s.as_ptr());
    assert!(s.is_interned());
    assert_eq!(s.intern().as_ptr(), s.as_ptr());
    // A local table's copy of an atom's text is not the global atom either.
    let other = AtomTable::with_seed(3);
    let copy = ByteStr::from(s.intern_in(&other));
    assert_ne!(copy.as_ptr(), s.as_ptr());
    assert!(!copy.is_interned());
}

#[test]
fn interning_existing_text_returns_the_existing_atom() {
    let first = Atom::from("an atom filed before the string came");
    let s = Str::from("an atom filed before the string came");
    let atom = s.intern();
    assert_eq!(atom, first);
    assert_eq!(atom.as_ptr(), first.as_ptr());
    assert_ne!(atom.as_ptr(), s.as_ptr());
    assert!(!s.is_interned());
}

#[test]
fn interning_a_slice_copies_it() {
    let parent = Str::from("prefix/the-interned-part-of-a-longer-buffer");
    let part = parent.slice(7..);
    let atom = part.intern();
    assert_eq!(atom, "the-interned-part-of-a-longer-buffer");
    assert_ne!(atom.as_ptr(), part.as_ptr(), "an atom owns exactly its bytes");
}

#[test]
fn atom_to_str_is_copy_free_for_every_length() {
    for len in [3, 7, 8, 15, 16, 63, 64, 100, 101, 4096] {
        let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
        let atom = Atom::from(text.as_str());
        let s = Str::from(&atom);
        assert_eq!(s, text.as_str());
        if !atom.is_inline() {
            assert_eq!(s.as_ptr(), atom.as_ptr(), "length {len}");
        }
        assert_eq!(Str::from(atom.clone()).as_str(), text);
    }
}

#[test]
fn static_atoms_are_the_same_atom_as_dynamic_ones() {
    static TEXT: &str = "a static atom that nobody filed before";
    let from_static = Atom::from_static(TEXT);
    assert_eq!(from_static.as_ptr(), TEXT.as_ptr(), "bytes stay in the binary");
    let dynamic = Atom::from(String::from(TEXT));
    assert_eq!(from_static, dynamic);
    assert_eq!(Str::from(&from_static).as_ptr(), TEXT.as_ptr());

    let dynamic_first = Atom::from("a dynamic atom filed before its static twin");
    assert_eq!(Atom::from_static("a dynamic atom filed before its static twin"), dynamic_first);
}

#[test]
fn reclamation_frees_entries_when_the_last_handle_goes() {
    let table = AtomTable::with_seed(11);
    let s = Str::from("reclaimed once the handles are gone");
    let atom = table.intern("reclaimed once the handles are gone");
    let from_str = s.intern_in(&table);
    assert_eq!(atom, from_str);
    assert_eq!(table.len(), 1);
    drop(atom);
    assert_eq!(table.len(), 1);
    drop(from_str);
    assert_eq!(table.len(), 0);
    assert!(table.lookup("reclaimed once the handles are gone").is_none());
    // Kept, unused, for a later intern, until a sweep.
    let report = table.memory_report();
    assert_eq!((report.unused_atoms, report.removals), (1, 0));
    assert_eq!(report.unused_bytes, MemoryReport::HEADER_BYTES + "reclaimed once the handles are gone".len());
    assert_eq!(table.shrink(), 1);
    let report = table.memory_report();
    assert_eq!((report.unused_atoms, report.unused_bytes, report.removals), (0, 0, 1));
}

#[test]
fn adopted_buffers_leave_the_table_with_their_last_str() {
    let text = format!("adopted and then dropped {}", line!());
    let s = Str::from(text.as_str());
    let atom = s.intern();
    drop(atom);
    assert!(Atom::lookup(&text).is_some(), "the Str still holds the atom's buffer");
    drop(s);
    assert!(Atom::lookup(&text).is_none());
}

#[test]
fn tables_are_independent() {
    let a = AtomTable::with_seed(1);
    let b = AtomTable::with_seed(2);
    let in_a = a.intern("the same text in two tables");
    let in_b = b.intern("the same text in two tables");
    assert_ne!(in_a, in_b, "atoms are identities within one table");
    assert_eq!(in_a.as_str(), in_b.as_str());
    assert_ne!(in_a.cmp(&in_b), std::cmp::Ordering::Equal, "Ord stays consistent with Eq");
    assert!(a.contains(&in_a) && !a.contains(&in_b));
    // Short texts are atoms by value, shared by every table.
    assert_eq!(a.intern("short"), b.intern("short"));
}

#[test]
fn a_local_table_outlives_its_handle_while_atoms_live() {
    let table = AtomTable::new();
    let atom = table.intern("outlives the table handle");
    let s = Str::from(&atom);
    drop(table);
    assert_eq!(atom, atom.clone());
    assert_eq!(s, "outlives the table handle");
    drop(atom);
    drop(s);
}

#[test]
fn lookup_never_inserts() {
    let table = AtomTable::new();
    assert!(table.lookup("never filed by a lookup").is_none());
    assert_eq!(table.len(), 0);
    assert!(table.lookup("tiny").is_some(), "short texts are atoms by value");
}

#[test]
fn hash_is_cached_and_reused_by_interning() {
    let s = Str::from(format!("hash cached before interning {}", line!()));
    let hash = s.hash64();
    let atom = s.intern();
    assert_eq!(atom.hash64(), hash);
    assert_eq!(s.clone().hash64(), hash);
}

#[test]
fn fixed_seeds_are_reproducible() {
    let a = AtomTable::with_seed(42).intern("reproducible hashing");
    let b = AtomTable::with_seed(42).intern("reproducible hashing");
    let c = AtomTable::with_seed(43).intern("reproducible hashing");
    assert_eq!(a.hash64(), b.hash64());
    assert_ne!(a.hash64(), c.hash64());
}

#[test]
fn similar_strings_do_not_lengthen_probes() {
    let table = AtomTable::with_seed(5);
    let base = "x".repeat(4096);
    let atoms: Vec<Atom> = (0..2000)
        .map(|i| {
            let mut text = base.clone().into_bytes();
            text[2048] = b'a' + (i % 26) as u8;
            text[100] = b'a' + (i / 26 % 26) as u8;
            text[4000] = b'a' + (i / 676) as u8;
            table.intern(std::str::from_utf8(&text).unwrap())
        })
        .collect();
    assert_eq!(table.len(), 2000);
    let report = table.memory_report();
    assert!(report.max_compared <= 2, "entries compared by one lookup: {}", report.max_compared);
    drop(atoms);
}

#[test]
fn sparse_hash_pathology_does_not_collide() {
    // LuaJIT's hash_sparse reads only a few bytes, so strings equal in those bytes and
    // of equal length collide. A full-content hash gives them all different hashes.
    let table = AtomTable::with_seed(9);
    let mut hashes = std::collections::HashSet::new();
    for i in 0..5000 {
        let text = format!("{:0>64}", i).replace('0', "z");
        let atom = table.intern(&text);
        hashes.insert(atom.hash64());
    }
    assert_eq!(hashes.len(), 5000);
    assert!(table.memory_report().max_compared <= 2);
}

#[test]
fn slices_share_the_parent_buffer() {
    let parent = Str::from("a parent buffer long enough to be shared by its slices");
    for start in [0, 1, 9, 20] {
        let slice = parent.slice(start..start + 20);
        assert!(!slice.is_inline());
        assert_eq!(slice.as_ptr(), parent.as_str()[start..].as_ptr());
        assert_eq!(slice, &parent.as_str()[start..start + 20]);
        let nested = slice.slice(2..18);
        assert_eq!(nested.as_ptr(), parent.as_str()[start + 2..].as_ptr());
    }
}

#[test]
fn retention_policy() {
    let big = Str::from("b".repeat(4096));
    // Up to 15 bytes: inline copies.
    assert!(big.slice(..15).is_inline());
    // Less than 1/8 of a parent of at least 1 KiB: copied out.
    let small = big.slice(..511);
    assert_ne!(small.as_ptr(), big.as_ptr());
    assert!(!small.is_inline());
    // 1/8 or more: shared.
    let shared = big.slice(..512);
    assert_eq!(shared.as_ptr(), big.as_ptr());
    // Parents below 1 KiB always share.
    let medium = Str::from("m".repeat(1023));
    assert_eq!(medium.slice(1000..1016).as_ptr(), medium.as_str()[1000..].as_ptr());
}

#[test]
#[should_panic(expected = "char boundary")]
fn slicing_inside_a_char_panics() {
    let s = Str::from("ééééééééééééééééééé");
    let _ = s.slice(1..);
}

#[test]
#[should_panic]
fn slicing_out_of_bounds_panics() {
    let s = Str::from("short");
    let _ = s.slice(2..9);
}

#[test]
fn get_slice_refuses_bad_ranges() {
    let s = Str::from("héllo wörld, a longer string");
    assert!(s.get_slice(2..3).is_none());
    assert!(s.get_slice(5..100).is_none());
    #[allow(clippy::reversed_empty_ranges)]
    let reversed = s.get_slice(4..3);
    assert!(reversed.is_none());
    assert_eq!(s.get_slice(..).unwrap(), s);
    assert_eq!(s.get_slice(0..=0).unwrap(), "h");
}

#[test]
fn invalid_utf8_is_a_clear_error_and_loses_nothing() {
    let bytes = vec![b'o', b'k', 0xF0, 0x28];
    let err = Str::from_utf8(bytes.clone()).unwrap_err();
    assert_eq!(err.utf8_error().valid_up_to(), 2);
    assert_eq!(err.into_bytes(), bytes);
    let err = Str::from_utf8_slice(&bytes).unwrap_err();
    assert!(err.to_string().starts_with("invalid UTF-8"));
}

#[test]
fn equality_fast_paths_agree_with_bytes() {
    let a = Str::from("equal texts in different buffers");
    let b = Str::from("equal texts in different buffers");
    let c = Str::from("other texts in different buffers");
    assert_eq!(a, b);
    assert_ne!(a, c);
    let _ = (a.hash64(), c.hash64());
    assert_ne!(a, c);
    let (ia, ic) = (a.intern(), c.intern());
    assert_ne!(a, c);
    assert_eq!(a, b);
    assert_ne!(ia, ic);
}

#[test]
fn errors_for_bad_length_are_errors() {
    assert!(matches!(StrError::TooLong { len: usize::MAX }.to_string().as_str(), s if s.contains("exceeds")));
}

#[test]
fn borrow_str_lookups_work() {
    let mut map = std::collections::HashMap::new();
    map.insert(Str::from("a key that lives on the heap"), 1);
    map.insert(Str::from("inline key"), 2);
    assert_eq!(map.get("a key that lives on the heap"), Some(&1));
    assert_eq!(map.get("inline key"), Some(&2));
}

#[test]
fn memory_report_counts_bytes() {
    let table = AtomTable::with_seed(3);
    let atoms: Vec<Atom> = (0..1000).map(|i| table.intern(&format!("memory_report_identifier_{i:05}"))).collect();
    let report = table.memory_report();
    assert_eq!(report.atoms, 1000);
    assert_eq!(report.char_bytes, 1000 * "memory_report_identifier_00000".len());
    assert_eq!(report.header_bytes, 1000 * 16);
    assert!(report.table_bytes > 1000 * 8);
    assert_eq!(report.inserts, 1000);
    assert_eq!(report.locked_misses, 1000);
    if cfg!(all(target_os = "linux", target_env = "gnu", feature = "glibc-slop")) {
        assert!(report.slop_bytes.is_some());
    } else {
        assert_eq!(report.slop_bytes, None, "slop is unknown unless glibc-slop is on");
    }
    let text = report.to_string();
    assert!(text.contains("atom headers") && text.contains("characters") && text.contains("%"));
    drop(atoms);
}
