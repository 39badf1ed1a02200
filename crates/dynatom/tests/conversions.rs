//! Every standard trait and conversion added for adoption: comparisons both ways,
//! ordering against std strings, paths, `From` in and out, interner indexing, cloning
//! and clearing, symbol conversions, non-string `SmallMap` keys, `AtomMap` lookups by
//! atom, and borrowed text into `Pieces`.

// These tests call exactly the impls that clippy would route around (comparing with a
// freshly made `String`, passing `&String` to a generic, `a == b && b == a`), so its
// advice is off here.
#![allow(clippy::cmp_owned, clippy::needless_borrows_for_generic_args, clippy::nonminimal_bool)]

use std::borrow::Cow;
use std::cmp::Ordering;
use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::Path;
use std::rc::Rc;
use std::sync::Arc;

use dynatom::interner::{Interner, InternerError, Resolver, Symbol, SyncInterner};
use dynatom::small_map::{AtomMapKey, Hashed};
use dynatom::{Atom, AtomMap, ByteStr, HintKey, Limits, Piece, Pieces, SmallMap, Str};

/// Inline, table-sized and static texts, so every representation is exercised.
const TEXTS: [&str; 4] = ["", "short", "a text long enough to live on the heap", "ünïcödé text of some length"];

#[test]
fn atoms_compare_with_std_strings_from_both_sides() {
    for text in TEXTS {
        let atom = Atom::from(text);
        let string = String::from(text);
        assert!(atom == string && string == atom);
        assert!(atom == text && text == atom);
        assert!(atom == *text && *text == atom);
        assert!(atom == Box::<str>::from(text) && Box::<str>::from(text) == atom);
        assert!(atom == Cow::Borrowed(text) && Cow::<str>::Owned(string.clone()) == atom);
        let other = format!("{text}!");
        assert!(atom != other && other != atom);
        assert!(atom != other.as_str() && other.as_str() != atom);
    }
}

#[test]
fn strs_compare_with_std_strings_from_both_sides() {
    for text in TEXTS {
        let s = Str::from(text);
        assert!(String::from(text) == s && s == String::from(text));
        assert!(text == s && s == text);
        assert!(String::from("x") + text != s);
    }
}

/// `Str` and `Atom` order against std strings exactly as `str` does, from both sides.
#[test]
fn ordering_against_std_strings_agrees_with_str() {
    let words = ["", "a", "ab", "b", "apple pie, a long enough text", "é"];
    for x in words {
        for y in words {
            let expected = x.cmp(y);
            let (s, a, y_string) = (Str::from(x), Atom::from(x), String::from(y));
            assert_eq!(s.partial_cmp(y), Some(expected), "{x:?} vs {y:?}");
            assert_eq!(s.partial_cmp(&y), Some(expected));
            assert_eq!(s.partial_cmp(&y_string), Some(expected));
            assert_eq!(a.partial_cmp(y), Some(expected));
            assert_eq!(a.partial_cmp(&y), Some(expected));
            assert_eq!(a.partial_cmp(&y_string), Some(expected));
            assert_eq!(y.partial_cmp(&s), Some(expected.reverse()));
            assert_eq!((&y).partial_cmp(&s), Some(expected.reverse()));
            assert_eq!(y_string.partial_cmp(&s), Some(expected.reverse()));
            assert_eq!(y.partial_cmp(&a), Some(expected.reverse()));
            assert_eq!((&y).partial_cmp(&a), Some(expected.reverse()));
            assert_eq!(y_string.partial_cmp(&a), Some(expected.reverse()));
        }
    }
    assert!(Str::from("a") < "b" && "b" > Str::from("a"));
    assert!(Atom::from("a") < String::from("b"));
    assert_eq!(Str::from("same").partial_cmp("same"), Some(Ordering::Equal));
}

#[test]
fn strs_and_atoms_are_paths_and_os_strings() {
    let dir = std::env::temp_dir().join(format!("dynatom-conversions-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("file opened through a Str handle.txt");
    std::fs::write(&file, "contents").unwrap();
    let as_str = Str::from(file.to_str().unwrap());
    let as_atom = Atom::from(file.to_str().unwrap());
    assert_eq!(std::fs::read_to_string(&as_str).unwrap(), "contents");
    assert!(std::fs::File::open(&as_atom).is_ok());
    assert_eq!(AsRef::<Path>::as_ref(&as_str), file.as_path());
    assert_eq!(AsRef::<OsStr>::as_ref(&as_atom), file.as_os_str());
    assert_eq!(AsRef::<OsStr>::as_ref(&as_str), file.as_os_str());
    assert_eq!(AsRef::<Path>::as_ref(&as_atom), file.as_path());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn std_strings_convert_into_str_and_atom() {
    for text in TEXTS {
        assert_eq!(Str::from(Box::<str>::from(text)), text);
        assert_eq!(Str::from(Cow::Borrowed(text)), text);
        assert_eq!(Str::from(Cow::<str>::Owned(text.to_owned())), text);
        assert_eq!(Str::from(Arc::<str>::from(text)), text);
        assert_eq!(Str::from(Rc::<str>::from(text)), text);
        let atom = Atom::from(text);
        assert_eq!(Atom::from(Box::<str>::from(text)), atom);
        assert_eq!(Atom::from(Cow::Borrowed(text)), atom);
        assert_eq!(Atom::from(Cow::<str>::Owned(text.to_owned())), atom);
        assert_eq!(Atom::from(Arc::<str>::from(text)), atom);
        assert_eq!(Atom::from(Rc::<str>::from(text)), atom);
    }
    for c in ['a', 'é', '€', '😀'] {
        assert_eq!(Str::from(c), c.to_string());
        let atom = Atom::from(c);
        assert_eq!(atom, c.to_string());
        assert!(atom.is_inline(), "{c:?} fits in the atom");
    }
}

#[test]
fn str_and_atom_convert_out_into_std_types() {
    for text in TEXTS {
        let s = Str::from(text);
        let a = Atom::from(text);
        assert_eq!(String::from(s.clone()), text);
        assert_eq!(String::from(&s), text);
        assert_eq!(String::from(a.clone()), text);
        assert_eq!(String::from(&a), text);
        assert_eq!(&*Arc::<str>::from(s.clone()), text);
        assert_eq!(&*Arc::<str>::from(&s), text);
        assert_eq!(&*Arc::<str>::from(a.clone()), text);
        assert_eq!(&*Arc::<str>::from(&a), text);
        assert_eq!(&*Rc::<str>::from(s.clone()), text);
        assert_eq!(&*Rc::<str>::from(a.clone()), text);
        assert_eq!(&*Box::<str>::from(s.clone()), text);
        assert_eq!(&*Box::<str>::from(&s), text);
        assert_eq!(&*Box::<str>::from(a.clone()), text);
        assert_eq!(&*Box::<str>::from(&a), text);
        assert_eq!(Vec::<u8>::from(s.clone()), text.as_bytes());
        assert_eq!(Vec::<u8>::from(&s), text.as_bytes());
        assert_eq!(Vec::<u8>::from(a.clone()), text.as_bytes());
        assert_eq!(Vec::<u8>::from(&a), text.as_bytes());
        assert!(matches!(Cow::from(&s), Cow::Borrowed(t) if t == text));
        assert!(matches!(Cow::from(&a), Cow::Borrowed(t) if t == text));
    }
}

/// `Str` converts from the byte types `ByteStr` converts from, checking UTF-8: a vector
/// comes back whole inside the error, as `Str::from_utf8` gives it; and both convert out
/// into `Vec<u8>`, owned or borrowed.
#[test]
fn byte_vectors_and_slices_try_into_str_as_into_byte_str() {
    for text in TEXTS {
        let bytes = text.as_bytes();
        assert_eq!(Str::try_from(bytes.to_vec()).unwrap(), text);
        assert_eq!(Str::try_from(bytes).unwrap(), text);
        let via_vec: Result<Str, _> = bytes.to_vec().try_into();
        assert_eq!(via_vec.unwrap(), text);
        assert_eq!(ByteStr::from(bytes.to_vec()), bytes);
        assert_eq!(ByteStr::from(bytes), bytes);
        let s = Str::from(text);
        let b = ByteStr::from(text);
        assert_eq!(Vec::<u8>::from(&s), Vec::<u8>::from(&b));
        assert_eq!(Vec::<u8>::from(s), Vec::<u8>::from(b));
    }
    let invalid = vec![b'a', 0xff, b'z'];
    let err = Str::try_from(invalid.clone()).unwrap_err();
    assert_eq!(err.utf8_error(), Str::from_utf8(invalid.clone()).unwrap_err().utf8_error());
    assert_eq!(err.into_bytes(), invalid, "the vector comes back untouched");
    let err = Str::try_from(&invalid[..]).unwrap_err();
    assert_eq!(err, Str::from_utf8_slice(&invalid).unwrap_err());
    assert!(matches!(err, dynatom::StrError::InvalidUtf8(_)));
}

#[test]
fn from_utf8_errors_convert_into_str_error() {
    fn parse(bytes: Vec<u8>) -> Result<Str, dynatom::StrError> {
        Ok(Str::from_utf8(bytes)?)
    }
    assert_eq!(parse(b"fine".to_vec()).unwrap(), "fine");
    let err = parse(vec![b'a', 0xff]).unwrap_err();
    assert_eq!(err, Str::from_utf8_slice(&[b'a', 0xff]).unwrap_err());
}

#[test]
fn interners_take_any_text_and_index_by_symbol() {
    let mut i = Interner::new();
    let from_string = i.intern(String::from("string"));
    assert_eq!(i.intern(Str::from("string")), from_string);
    assert_eq!(i.intern(Atom::from("string")), from_string);
    assert_eq!(i.try_intern(&String::from("string")), Ok(from_string));
    assert_eq!(i.get(Str::from("string")), Some(from_string));
    assert!(i.contains(String::from("string")));
    assert_eq!(&i[from_string], "string");

    let sync = SyncInterner::new();
    let a = sync.intern(String::from("a"));
    assert_eq!(sync.try_intern(Str::from("a")), Ok(a));
    assert_eq!(sync.get(&String::from("a")), Some(a));
    assert!(sync.contains(Atom::from("a")));
    assert_eq!(&sync[a], "a");

    let frozen: Resolver = sync.freeze();
    assert_eq!(&frozen[a], "a");
    assert_eq!(frozen.get(String::from("a")), Some(a));
    assert!(frozen.contains(Str::from("a")));
}

#[test]
#[should_panic]
fn indexing_by_an_out_of_range_symbol_panics_like_resolve() {
    let i = Interner::new();
    let _ = &i[Symbol::from_usize(3).unwrap()];
}

#[test]
fn cloned_interners_keep_symbols_seed_and_limits() {
    let limits = Limits { max_symbols: 3, ..Limits::default() };
    let mut i = Interner::with_seed(5).with_limits(limits);
    let kw = i.intern_static("fn");
    let name = i.intern("a name");
    let mut copy = i.clone();
    assert_eq!(copy.iter().collect::<Vec<_>>(), i.iter().collect::<Vec<_>>());
    assert_eq!((copy.get("fn"), copy.get("a name")), (Some(kw), Some(name)));
    // Independent from here on, and under the same limits.
    let third = copy.intern("third");
    assert_eq!(i.get("third"), None);
    assert_eq!(copy.try_intern("fourth"), Err(InternerError::SymbolsExhausted { max: 3 }));
    assert_eq!(i.intern("other third"), third);

    let sync = SyncInterner::with_seed(6).with_shards(2).unwrap().with_limits(limits);
    let x = sync.intern("x");
    let sync_copy = sync.clone();
    assert_eq!(sync_copy.get("x"), Some(x));
    sync_copy.intern("y");
    assert_eq!(sync.len(), 1);
    assert_eq!(sync_copy.len(), 2);
    sync_copy.intern("z");
    assert!(sync_copy.try_intern("w").is_err(), "limits carried over");

    let frozen = sync_copy.freeze();
    let frozen_copy = frozen.clone();
    assert_eq!(frozen_copy.iter().collect::<Vec<_>>(), frozen.iter().collect::<Vec<_>>());
    assert_eq!(frozen_copy.into_interner().get("y"), frozen.get("y"));
}

#[test]
fn cleared_interners_start_over_with_their_limits() {
    let mut i = Interner::new().with_limits(Limits { max_symbols: 1, ..Limits::default() });
    i.intern("a");
    i.clear();
    assert!(i.is_empty());
    assert_eq!(i.get("a"), None);
    assert_eq!(i.memory_report().char_bytes, 0);
    assert_eq!(i.intern("b").to_usize(), 0);
    assert!(i.try_intern("c").is_err(), "limits kept");

    let mut sync = SyncInterner::new();
    sync.intern("a");
    sync.clear();
    assert!(sync.is_empty());
    assert_eq!(sync.get("a"), None);
    assert_eq!(sync.intern("b").to_usize(), 0);
}

#[test]
fn symbols_display_convert_and_refuse_out_of_range_indices() {
    let sym = Symbol::try_from(41usize).unwrap();
    assert_eq!(sym.to_string(), "#41");
    assert_eq!(format!("{sym:?}"), "Symbol(41)");
    assert_eq!(u32::from(sym), 41);
    assert_eq!(usize::from(sym), 41);
    assert_eq!(Symbol::try_from(41u32), Ok(sym));
    let max = Symbol::MAX_COUNT;
    assert_eq!(Symbol::try_from(max - 1).map(usize::from), Ok(max - 1));
    assert_eq!(Symbol::try_from(max), Err(InternerError::SymbolsExhausted { max }));
    assert!(Symbol::try_from(u32::MAX).is_err());
    assert!(Symbol::try_from(usize::MAX).is_err());
}

/// Integer, char, bool, symbol, tuple and `Hashed` keys agree with a `HashMap` model
/// across the small form's 8-entry boundary.
#[test]
fn small_maps_take_non_string_keys() {
    fn check<K: HintKey + Clone + std::hash::Hash + std::fmt::Debug>(keys: Vec<K>) {
        let mut map = SmallMap::new();
        let mut model = HashMap::new();
        for (n, key) in keys.iter().enumerate() {
            assert_eq!(map.insert(key.clone(), n), model.insert(key.clone(), n), "{key:?}");
        }
        assert_eq!(map.len(), model.len());
        for key in &keys {
            assert_eq!(map.get(key), model.get(key), "{key:?}");
        }
        for key in keys.iter().step_by(3) {
            assert_eq!(map.remove(key), model.remove(key));
            assert_eq!(map.get(key), None);
        }
        assert_eq!(map.len(), model.len());
    }
    check((0u8..20).chain(0..5).collect());
    check((0u16..20).map(|n| n * 1000).collect());
    check((0u32..40).collect());
    check((0u64..40).map(|n| n << 40).collect());
    check((0usize..40).collect());
    check((-20i8..20).collect());
    check((-20i16..20).collect());
    check((-20i32..20).collect());
    check((-20i64..20).collect());
    check((-20isize..20).collect());
    check((0u128..40).map(|n| n << 70 | n).collect());
    check((-20i128..20).collect());
    check(('a'..='z').collect());
    check(vec![true, false, true]);
    check((0..20).map(|n| Symbol::from_usize(n).unwrap()).collect());
    check((0u8..20).map(|n| (n % 4, char::from(b'a' + n / 4))).collect());
    check((0u8..20).map(|n| (n % 2, n % 3, n)).collect());
    check((0u8..20).map(|n| Hashed(format!("key {n}"))).collect());
    check((0u8..20).map(|n| Hashed(std::net::Ipv4Addr::new(10, 0, 0, n))).collect());
}

#[test]
fn atom_map_lookups_by_atom_find_the_key_of_their_text() {
    // A local table's atom has the same text as the key but is another atom: the map's
    // keys are the global table's atoms, so the word compare misses and the lookup falls
    // back to the text, finding the one entry for it.
    let table = dynatom::AtomTable::new();
    let text = "a key that is long enough to be filed";
    let local = table.intern(text);
    let mut map = AtomMap::new();
    map.insert(text, 1);
    assert_eq!(map.get(text), Some(&1));
    assert_eq!(map.get(&local), Some(&1), "another table's atom finds the entry of its text");
    assert_eq!(map.get(local.as_str()), Some(&1));
    let global = Atom::from(text);
    assert_eq!(map.get(&global), Some(&1));
    assert_eq!(map[&global], 1);
    assert!(map.contains_key(&global) && map.contains_key(&local));
    *map.get_mut(&global).unwrap() = 2;
    assert_eq!(map.get(&String::from(text)), Some(&2));
    assert_eq!(map.get(&Str::from(text)), Some(&2));
    assert_eq!(map.get(&Box::<str>::from(text)), Some(&2));
    assert_eq!(map.get(&Arc::<str>::from(text)), Some(&2));
    assert_eq!(map.get(&Rc::<str>::from(text)), Some(&2));
    assert_eq!(map.get(&Cow::Borrowed(text)), Some(&2));
    assert_eq!(map.get(&&text), Some(&2));
    assert_eq!(map.remove(&local), Some(2));
    assert!(map.is_empty());
    map.insert(text, 3);
    assert_eq!(map.remove(&global), Some(3));
    assert!(map.is_empty());
    assert!(global.find_atom().is_some());
}

#[test]
fn pieces_take_borrowed_text_by_copying_it() {
    let owned = String::from("borrowed from a String");
    let mut p = Pieces::new();
    p.push_copy(&owned[..8]);
    p.push(&owned);
    p.push_copy("");
    p.try_push_copy(" and tried").unwrap();
    p.push(Box::<str>::from("!"));
    p.push(Cow::<'static, str>::Borrowed(" static"));
    p.push(Cow::<'static, str>::Owned(String::from(" owned")));
    drop(owned);
    assert_eq!(p.piece_count(), 6);
    assert_eq!(p.to_text(), "borrowedborrowed from a String and tried! static owned");
    let stat = "kept in the binary, not copied";
    assert_eq!(Piece::from(Cow::Borrowed(stat)).to_str().unwrap().as_ptr(), stat.as_ptr());
}
