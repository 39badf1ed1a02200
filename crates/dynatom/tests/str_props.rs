//! Property tests: `Str` behaves exactly like `String`.

use dynatom::Str;
use proptest::prelude::*;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

fn std_hash<T: Hash + ?Sized>(value: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

/// Texts of every size class: inline, just past inline, long, and big enough for the
/// retention policy.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        ".{0,15}",
        ".{16,40}",
        "[a-zé€]{0,200}",
        (0usize..3000).prop_map(|len| "ab€".chars().cycle().take(len).collect()),
    ]
}

proptest! {
    #[test]
    fn construction_round_trips(model in text()) {
        let from_ref = Str::from(model.as_str());
        let from_string = Str::from(model.clone());
        let from_bytes = Str::from_utf8(model.clone().into_bytes()).unwrap();
        let from_slice = Str::from_utf8_slice(model.as_bytes()).unwrap();
        let from_owner = Str::from_owner(model.clone()).unwrap();
        for s in [&from_ref, &from_string, &from_bytes, &from_slice, &from_owner] {
            prop_assert_eq!(s.as_str(), model.as_str());
            prop_assert_eq!(s.len(), model.len());
            prop_assert_eq!(s.is_inline(), model.len() <= 15);
            let copy = (*s).clone();
            prop_assert_eq!(copy.as_str(), model.as_str());
        }
    }

    #[test]
    fn comparisons_agree_with_string(a in text(), b in text()) {
        let (sa, sb) = (Str::from(a.as_str()), Str::from(b.as_str()));
        prop_assert_eq!(sa == sb, a == b);
        prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
        prop_assert_eq!(std_hash(&sa), std_hash(a.as_str()));
        prop_assert_eq!(std_hash(&sa) == std_hash(&sb), std_hash(&a) == std_hash(&b));
        let oa = Str::from_owner(a.clone()).unwrap();
        prop_assert_eq!(oa == sb, a == b);
        prop_assert_eq!(oa.cmp(&sb), a.cmp(&b));
        prop_assert_eq!(std_hash(&oa), std_hash(a.as_str()));
        // Cached hashes and interning change no answer.
        let _ = (sa.hash64(), sb.hash64());
        prop_assert_eq!(sa == sb, a == b);
        let (ia, ib) = (sa.intern(), sb.intern());
        prop_assert_eq!(ia == ib, a == b);
        prop_assert_eq!(sa == sb, a == b);
        prop_assert_eq!(ia.as_str(), a.as_str());
        prop_assert_eq!(ia.cmp(&ib), a.cmp(&b));
    }

    #[test]
    fn slices_agree_with_str_indexing(model in text(), start in 0usize..3100, len in 0usize..3100, owned: bool) {
        let s = if owned { Str::from_owner(model.clone()).unwrap() } else { Str::from(model.as_str()) };
        let end = start.saturating_add(len);
        let expected = model.get(start..end);
        let got = s.get_slice(start..end);
        prop_assert_eq!(got.as_ref().map(|g| g.as_str()), expected);
        if let Some(slice) = got {
            // Slices of slices too, and slicing never changes the parent.
            let inner = slice.get_slice(..slice.len() / 2);
            prop_assert_eq!(inner.as_ref().map(|g| g.as_str()), slice.as_str().get(..slice.len() / 2));
            prop_assert_eq!(s.as_str(), model.as_str());
            let result = std::panic::catch_unwind(|| s.slice(start..end));
            prop_assert!(result.is_ok());
        } else {
            let result = std::panic::catch_unwind(|| s.slice(start..end));
            prop_assert!(result.is_err());
        }
    }

    #[test]
    fn borrow_lookups_find_every_key(keys in proptest::collection::vec(text(), 0..20)) {
        let map: std::collections::HashMap<Str, usize> =
            keys.iter().enumerate().map(|(i, k)| (Str::from(k.as_str()), i)).collect();
        let model: std::collections::HashMap<&str, usize> =
            keys.iter().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
        for key in &keys {
            prop_assert_eq!(map.get(key.as_str()), model.get(key.as_str()));
        }
    }

    #[test]
    fn invalid_utf8_is_rejected_and_returned(mut bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
        bytes.push(0xff); // never valid UTF-8
        let err = Str::from_utf8(bytes.clone()).unwrap_err();
        prop_assert_eq!(err.into_bytes(), bytes.clone());
        prop_assert!(Str::from_utf8_slice(&bytes).is_err());
    }
}
