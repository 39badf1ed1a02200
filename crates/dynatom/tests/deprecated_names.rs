//! The 0.1 names kept as deprecated aliases for one release (see the crate docs'
//! "Names") still work and give what their replacements give. Delete this file with the
//! aliases.
#![allow(deprecated)]

use dynatom::interner::{Interner, SyncInterner};
use dynatom::{Atom, AtomTable, ByteStr, Piece, Pieces, Str};

const LONG: &str = "  a text long enough to live on the heap, twice over  ";

#[test]
fn atom_to_str_is_str_from_atom() {
    let atom = Atom::from(LONG);
    let old = atom.to_str();
    assert_eq!(old, Str::from(&atom));
    assert_eq!(old.as_ptr(), atom.as_ptr(), "still no copy");
}

#[test]
fn sub_string_methods_are_slice_ref_of_the_str_methods() {
    let s = Str::from(LONG);
    // Equal, and a heap-sized piece in the same place (short ones are inline).
    let same = |old: Str, new: Str| old == new && (old.len() <= 15 || old.as_ptr() == new.as_ptr());
    assert!(same(s.trim_str(), s.slice_ref(s.trim())));
    assert!(same(s.trim_start_str(), s.slice_ref(s.trim_start())));
    assert!(same(s.trim_end_str(), s.slice_ref(s.trim_end())));
    assert!(same(s.strip_prefix_str("  a").unwrap(), s.slice_ref(s.strip_prefix("  a").unwrap())));
    assert!(same(s.strip_suffix_str("over  ").unwrap(), s.slice_ref(s.strip_suffix("over  ").unwrap())));
    let (a, b) = s.split_once_str(',').unwrap();
    let (x, y) = s.split_once(',').unwrap();
    assert!(same(a, s.slice_ref(x)) && same(b, s.slice_ref(y)));
    let old: Vec<Str> = s.split_str(' ').collect();
    let new: Vec<Str> = s.split(' ').map(|part| s.slice_ref(part)).collect();
    assert_eq!(old, new);
    assert_eq!(s.split_whitespace_str().collect::<Vec<_>>(), s.split_whitespace().collect::<Vec<_>>());
    let lines = Str::from("one\r\ntwo\nthree");
    assert_eq!(lines.lines_str().collect::<Vec<_>>(), ["one", "two", "three"]);
}

#[test]
fn table_intern_str_is_intern_in() {
    let table = AtomTable::new();
    let s = Str::from(LONG);
    let atom = s.intern_in(&table);
    assert_eq!(table.intern_str(&s), atom);
    assert_eq!(table.try_intern_str(&s).unwrap(), atom);
    let bytes = ByteStr::copy_from_slice(b"bytes long enough for the heap: \xff\xfe");
    let byte_atom = bytes.intern_in(&table);
    assert_eq!(table.intern_byte_str(&bytes), byte_atom);
    assert_eq!(table.try_intern_byte_str(&bytes).unwrap(), byte_atom);
    assert_eq!(table.len(), 2, "the old names filed nothing new");
}

#[test]
fn pieces_to_str_is_to_text() {
    let pieces: Pieces = ["join", "ed"].into_iter().collect();
    assert_eq!(pieces.to_str(), pieces.to_text());
    assert_eq!(pieces.try_to_str().unwrap(), "joined");
    let piece = Piece::from("piece");
    assert_eq!(piece.as_str(), piece.to_str());
    assert_eq!(piece.into_str().unwrap(), "piece");
    assert!(Piece::from(&b"\xff"[..]).into_str().is_err());
}

#[test]
fn interner_intern_str_and_resolve_str() {
    let mut single = Interner::new();
    let sym = single.intern_str(&Str::from(LONG));
    assert_eq!(sym, single.intern(LONG));
    assert_eq!(single.resolve_str(sym), LONG);
    let sync = SyncInterner::new();
    let sym = sync.intern_str(&Str::from(LONG));
    assert_eq!(sym, sync.intern(LONG));
    assert_eq!(sync.resolve_str(sym), LONG);
}
