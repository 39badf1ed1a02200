//! Property tests: `ByteStr`, `ByteAtom`, `ByteStrBuilder`, byte `Pieces` and byte-keyed
//! maps behave exactly like `Vec<u8>` (and `HashMap<Vec<u8>, V>`), and bytes meet text at
//! the same atoms.

use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use dynatom::{Atom, AtomMap, AtomTable, ByteAtom, ByteStr, ByteStrBuilder, Pieces, SmallMap, Str, StrError};
use proptest::prelude::*;

fn std_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Byte strings of every size class (inline, just past inline, long, big enough for the
/// retention policy), random bytes or mostly-UTF-8 ones.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..=15),
        prop::collection::vec(any::<u8>(), 16..48),
        prop::collection::vec(any::<u8>(), 0..300),
        (0usize..3000, any::<u8>()).prop_map(|(len, b)| [b'a', 0xc3, 0xa9, b]
            .iter()
            .copied()
            .cycle()
            .take(len)
            .collect()),
        "[a-zé€]{0,60}".prop_map(String::into_bytes),
    ]
}

proptest! {
    #[test]
    fn construction_round_trips(model in bytes()) {
        let copied = ByteStr::copy_from_slice(&model);
        let from_vec = ByteStr::from(model.clone());
        let fallible = ByteStr::try_copy_from_slice(&model).unwrap();
        let owned = ByteStr::from_owner(model.clone());
        let owned_box = ByteStr::try_from_owner(model.clone().into_boxed_slice()).unwrap();
        for s in [&copied, &from_vec, &fallible, &owned, &owned_box] {
            prop_assert_eq!(s.as_bytes(), &model[..]);
            prop_assert_eq!(s.len(), model.len());
            prop_assert_eq!(s.is_empty(), model.is_empty());
            prop_assert_eq!(s.is_inline(), model.len() <= 15);
            prop_assert_eq!(s.clone(), &model[..]);
            prop_assert_eq!(s.is_utf8(), std::str::from_utf8(&model).is_ok());
        }
        prop_assert_eq!(Vec::from(copied), model);
    }

    #[test]
    fn comparisons_agree_with_vec(a in bytes(), b in bytes()) {
        let (sa, sb) = (ByteStr::from(&a[..]), ByteStr::from(&b[..]));
        prop_assert_eq!(sa == sb, a == b);
        prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
        prop_assert_eq!(std_hash(&sa), std_hash(&a[..]));
        if a == b {
            prop_assert_eq!(sa.hash64(), sb.hash64());
        }
        // A string over an owner's bytes compares, hashes and orders as the copy does.
        let (oa, ob) = (ByteStr::from_owner(a.clone()), ByteStr::from_owner(b.clone()));
        prop_assert_eq!(oa == sb, a == b);
        prop_assert_eq!(oa == ob, a == b);
        prop_assert_eq!(oa.cmp(&sb), a.cmp(&b));
        prop_assert_eq!(std_hash(&oa), std_hash(&a[..]));
        prop_assert_eq!(oa.hash64(), sa.hash64());
        prop_assert_eq!(oa.intern(), sa.intern());
        let (ia, ib) = (sa.intern(), sb.intern());
        prop_assert_eq!(ia == ib, a == b);
        prop_assert_eq!(sa == sb, a == b, "interning changes no answer");
        prop_assert_eq!(ia.as_bytes(), &a[..]);
        prop_assert_eq!(ia.cmp(&ib), a.cmp(&b));
        if a == b {
            prop_assert_eq!(ia.hash64(), ib.hash64());
        }
    }

    #[test]
    fn slices_agree_with_vec_indexing(model in bytes(), start in 0usize..3100, len in 0usize..3100, owned: bool) {
        // The heap (or inline) copy, or a string over an owner's bytes: the same policy.
        let s = if owned { ByteStr::from_owner(model.clone()) } else { ByteStr::from(&model[..]) };
        let end = start.saturating_add(len);
        match model.get(start..end) {
            Some(expected) => {
                let slice = s.slice(start..end);
                prop_assert_eq!(slice.as_bytes(), expected);
                prop_assert_eq!(s.get_slice(start..end).unwrap(), expected);
                prop_assert_eq!(slice.is_inline(), expected.len() <= 15);
                let shared = slice.as_ptr() == model_ptr(&s, start);
                let copied_out = model.len() >= 1024 && expected.len() * 8 < model.len();
                if expected.len() > 15 {
                    prop_assert_eq!(shared, !copied_out, "retention policy");
                }
                prop_assert_eq!(s.slice(start..), &model[start..]);
                prop_assert_eq!(s.slice(..start), &model[..start]);
            }
            None => {
                prop_assert!(s.get_slice(start..end).is_none());
                let caught = std::panic::catch_unwind(|| s.slice(start..end));
                prop_assert!(caught.is_err());
            }
        }
    }

    #[test]
    fn slice_ref_shares_every_part(model in bytes(), start in 0usize..3100, len in 0usize..3100, owned: bool) {
        let s = if owned { ByteStr::from_owner(model.clone()) } else { ByteStr::from(&model[..]) };
        let start = start.min(model.len());
        let end = start.saturating_add(len).min(model.len());
        let part = s.slice_ref(&s[start..end]);
        prop_assert_eq!(part.as_bytes(), &model[start..end]);
        prop_assert_eq!(part.is_inline(), end - start <= 15);
        if end - start > 15 {
            // No retention policy: even a tiny part of a big buffer is shared.
            prop_assert_eq!(part.as_ptr(), model_ptr(&s, start));
        }
        prop_assert!(s.slice_ref(&model[start..start]).is_empty());
        if start < end {
            let foreign = std::panic::catch_unwind(|| s.slice_ref(&model[start..end]));
            prop_assert!(foreign.is_err(), "took bytes from another buffer");
        }
    }

    #[test]
    fn concat_agrees_with_vec_concat(parts in prop::collection::vec(bytes(), 0..6)) {
        let expected: Vec<u8> = parts.concat();
        prop_assert_eq!(ByteStr::concat(&parts), &expected[..]);
        prop_assert_eq!(ByteStr::try_concat(&parts).unwrap(), &expected[..]);
    }

    #[test]
    fn builder_agrees_with_vec_extend(parts in prop::collection::vec(bytes(), 0..6), cut in 0usize..4000) {
        let mut builder = ByteStrBuilder::new();
        let mut model = Vec::new();
        for part in &parts {
            builder.push_bytes(part);
            model.extend_from_slice(part);
            prop_assert_eq!(builder.as_bytes(), &model[..]);
        }
        builder.truncate(cut);
        model.truncate(cut);
        prop_assert_eq!(builder.len(), model.len());
        let finished = builder.finish();
        prop_assert_eq!(finished.as_bytes(), &model[..]);
        prop_assert_eq!(finished.is_inline(), model.len() <= 15);
    }

    #[test]
    fn pieces_write_what_vec_concat_holds(parts in prop::collection::vec(bytes(), 0..6), texts in prop::collection::vec("[a-zé]{0,20}", 0..3)) {
        let mut pieces = Pieces::new();
        let mut model = Vec::new();
        for (i, part) in parts.iter().enumerate() {
            pieces.push(ByteStr::from(&part[..]));
            model.extend_from_slice(part);
            if let Some(text) = texts.get(i) {
                pieces.push(Str::from(text.as_str()));
                model.extend_from_slice(text.as_bytes());
            }
        }
        prop_assert_eq!(pieces.len(), model.len());
        let mut out = Vec::new();
        prop_assert_eq!(pieces.write_to(&mut out).unwrap(), model.len());
        prop_assert_eq!(&out, &model);
        prop_assert_eq!(pieces.to_byte_str(), &model[..]);
        match std::str::from_utf8(&model) {
            Ok(text) => prop_assert_eq!(pieces.to_text(), text),
            Err(_) => prop_assert!(matches!(pieces.try_to_text(), Err(StrError::InvalidUtf8(_)))),
        }
    }

    #[test]
    fn bytes_and_text_are_one_atom(model in bytes()) {
        let table = AtomTable::new();
        let from_bytes = table.intern_bytes(&model);
        prop_assert_eq!(from_bytes.as_bytes(), &model[..]);
        prop_assert_eq!(table.lookup_bytes(&model), Some(from_bytes.clone()));
        prop_assert_eq!(ByteStr::from(&model[..]).intern_in(&table), from_bytes.clone());
        match std::str::from_utf8(&model) {
            Ok(text) => {
                let from_text = table.intern(text);
                prop_assert_eq!(ByteAtom::from(from_text.clone()), from_bytes.clone());
                prop_assert_eq!(from_bytes.to_text().unwrap(), from_text.clone());
                prop_assert_eq!(from_text.hash64(), from_bytes.hash64());
                prop_assert_eq!(ByteStr::from(&model[..]).to_text().unwrap(), text);
            }
            Err(err) => {
                prop_assert_eq!(from_bytes.to_text(), Err(StrError::InvalidUtf8(err)));
                prop_assert_eq!(ByteStr::from(&model[..]).to_text(), Err(StrError::InvalidUtf8(err)));
            }
        }
        prop_assert_eq!(table.len(), usize::from(model.len() > 7));
        // The global table too, through the adopting path.
        let s = ByteStr::from(&model[..]);
        let atom = s.intern();
        prop_assert_eq!(ByteAtom::lookup(&model), Some(atom.clone()));
        if model.len() > 15 {
            prop_assert_eq!(atom.as_ptr(), s.as_ptr(), "a whole heap buffer is adopted");
        }
        prop_assert_eq!(ByteStr::from(&atom), s);
    }

    #[test]
    fn byte_keyed_maps_agree_with_hashmap(ops in prop::collection::vec((0usize..20, any::<u16>(), 0u8..3), 0..80)) {
        // Keys: half of them not UTF-8, some short (inline atoms), some long.
        let keys: Vec<Vec<u8>> = (0..20u8)
            .map(|i| match i % 3 {
                0 => vec![0xff, i],
                1 => format!("header-name-number-{i}").into_bytes(),
                _ => [&b"\xfe binary key "[..], &[i; 9][..]].concat(),
            })
            .collect();
        let mut model: HashMap<Vec<u8>, u16> = HashMap::new();
        let mut by_str: SmallMap<ByteStr, u16> = SmallMap::new();
        let mut by_atom: SmallMap<ByteAtom, u16> = SmallMap::new();
        let mut text_keys: AtomMap<u16> = AtomMap::new();
        for (k, value, op) in ops {
            let key = &keys[k];
            match op {
                0 => {
                    let expected = model.insert(key.clone(), value);
                    prop_assert_eq!(by_str.insert(ByteStr::from(&key[..]), value), expected);
                    prop_assert_eq!(by_atom.insert(ByteAtom::new(key), value), expected);
                    match text_keys.insert_bytes(ByteStr::from(&key[..]), value) {
                        Ok(previous) => prop_assert_eq!(previous, expected),
                        Err(_) => prop_assert!(std::str::from_utf8(key).is_err()),
                    }
                }
                1 => {
                    let expected = model.remove(key);
                    prop_assert_eq!(by_str.remove(&key[..]), expected);
                    prop_assert_eq!(by_atom.remove(&ByteAtom::new(key)), expected);
                    let text_removed = text_keys.remove_bytes(key);
                    prop_assert_eq!(text_removed, expected.filter(|_| std::str::from_utf8(key).is_ok()));
                }
                _ => {
                    let expected = model.get(key);
                    prop_assert_eq!(by_str.get(&key[..]), expected);
                    prop_assert_eq!(by_atom.get(&ByteAtom::new(key)), expected);
                    if std::str::from_utf8(key).is_ok() {
                        prop_assert_eq!(text_keys.get_bytes(key), expected);
                    } else {
                        prop_assert_eq!(text_keys.get_bytes(key), None);
                    }
                }
            }
            prop_assert_eq!(by_str.len(), model.len());
            prop_assert_eq!(by_atom.len(), model.len());
        }
    }
}

/// Where byte `offset` of `s`'s bytes lives.
fn model_ptr(s: &ByteStr, offset: usize) -> *const u8 {
    s.as_bytes()[offset..].as_ptr()
}

#[test]
fn text_atoms_are_found_by_byte_atoms_in_atom_maps() {
    let mut map: SmallMap<Atom, u8> = SmallMap::new();
    map.insert(Atom::from("a text key, found by its bytes"), 1);
    assert_eq!(map.get(&ByteAtom::new(b"a text key, found by its bytes")), Some(&1));
}
