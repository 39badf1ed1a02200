//! Static atoms: declared sets are the same atoms as dynamic ones, in every table and
//! thread, usable in `match`.

use std::sync::Barrier;

use dynatom::{Atom, AtomTable, ByteAtom, Str};
use proptest::prelude::*;

dynatom::static_atoms! {
    /// HTTP header names, as a server would declare them.
    pub mod headers {
        CONTENT_TYPE = "content-type",
        CONTENT_LENGTH = "content-length",
        PATH = ":path",
        accept,
        HOST = "host",
        LONG = "x-a-header-name-long-enough-to-span-several-words-of-hashing",
    }
}

dynatom::static_atoms! {
    /// A second set declaring one text of the first: one atom.
    pub mod library {
        CONTENT_TYPE = "content-type",
        ONLY_HERE = "only in the library's set",
    }
}

dynatom::static_atoms! {
    mod keywords { r#if, r#else, r#while, RETURN = "return", FUNCTION = "function" }
}

fn classify(atom: &Atom) -> u32 {
    match *atom {
        keywords::r#if | keywords::r#else => 1,
        keywords::r#while => 2,
        keywords::RETURN => 3,
        keywords::FUNCTION => 4,
        headers::CONTENT_TYPE => 5,
        _ => 0,
    }
}

#[test]
fn static_atoms_are_the_atoms_of_their_text() {
    assert_eq!(Atom::from("content-type"), headers::CONTENT_TYPE);
    assert_eq!(Atom::from(String::from(":path")), headers::PATH);
    assert_eq!(Str::from(String::from("content-length")).intern(), headers::CONTENT_LENGTH);
    assert_eq!(ByteAtom::new(b"content-type"), headers::bytes::CONTENT_TYPE);
    assert_eq!(Atom::from_static("host"), headers::HOST);
    assert_eq!(Atom::lookup("x-a-header-name-long-enough-to-span-several-words-of-hashing"), Some(headers::LONG));
    assert_eq!(headers::LONG.as_str(), "x-a-header-name-long-enough-to-span-several-words-of-hashing");
    assert_eq!(Str::from(&headers::CONTENT_TYPE), "content-type");
    assert_eq!(headers::accept.as_str(), "accept");
    assert!(headers::CONTENT_TYPE.is_declared());
    assert!(!headers::HOST.is_declared(), "4 bytes: an inline atom, declared or not");
}

#[test]
fn a_text_in_two_sets_is_one_atom() {
    assert_eq!(headers::CONTENT_TYPE, library::CONTENT_TYPE);
    assert_eq!(headers::SET.index_of(&library::CONTENT_TYPE), Some(0));
    assert_eq!(library::SET.index_of(&headers::CONTENT_TYPE), Some(0));
    assert_eq!(library::SET.get("content-length"), None);
    assert_eq!(Atom::from("only in the library's set"), library::ONLY_HERE);
}

#[test]
fn match_on_static_atoms() {
    assert_eq!(classify(&Atom::from("if")), 1);
    assert_eq!(classify(&Atom::from("while")), 2);
    assert_eq!(classify(&Atom::from(String::from("function"))), 4);
    assert_eq!(classify(&Atom::from("content-type")), 5);
    assert_eq!(classify(&Atom::from("contents")), 0);
    assert_eq!(classify(&AtomTable::new().intern("function")), 4);
}

#[test]
fn local_tables_give_the_static_atoms_on_their_misses() {
    let table = AtomTable::new();
    let atom = table.intern("content-type");
    assert_eq!(atom, headers::CONTENT_TYPE);
    assert_eq!(table.len(), 0, "a declared text is never filed in a local table");
    assert_eq!(table.lookup("content-type"), Some(headers::CONTENT_TYPE));
    assert_eq!(Str::from(String::from("content-length")).intern_in(&table), headers::CONTENT_LENGTH);
    let seeded = AtomTable::with_seed(7);
    assert_eq!(seeded.intern_bytes(b"content-type"), headers::bytes::CONTENT_TYPE);
    assert!(table.contains(&headers::CONTENT_TYPE));
    let ordinary = table.intern("a text in no set at all, filed");
    assert_ne!(ordinary, Atom::from("a text in no set at all, filed"));
    assert_eq!(table.len(), 1);
}

#[test]
fn sets_index_look_up_and_iterate() {
    let set = &headers::SET;
    assert_eq!(set.name(), "headers");
    assert_eq!(set.len(), 6);
    assert_eq!(set.get(":path"), Some(headers::PATH));
    assert_eq!(set.get_bytes(b"accept"), Some(headers::bytes::accept));
    assert_eq!(set.get("x-unknown"), None);
    assert_eq!(set.get("acceptt"), None);
    let all: Vec<Atom> = set.iter().collect();
    assert_eq!(all.len(), 6);
    for (position, atom) in all.iter().enumerate() {
        assert_eq!(set.index_of(atom), Some(position));
        assert_eq!(set.atom(position).as_ref(), Some(atom));
        assert_eq!(set.texts()[position].bytes(), atom.as_bytes());
    }
    assert_eq!(set.index_of(&Atom::from("x-other")), None);
    assert!(!set.contains(&Atom::from("a long text of no set whatsoever")));
}

#[test]
fn static_atoms_hash_and_order_like_any_atom() {
    use std::collections::{BTreeSet, HashSet};
    let dynamic = Atom::from(String::from("content-type"));
    let mut set = HashSet::new();
    set.insert(headers::CONTENT_TYPE);
    assert!(set.contains(&dynamic));
    assert_eq!(dynamic.hash64(), headers::CONTENT_TYPE.hash64());
    let ordered: BTreeSet<Atom> = headers::SET.iter().collect();
    let texts: Vec<&str> = ordered.iter().map(Atom::as_str).collect();
    let mut sorted = texts.clone();
    sorted.sort_unstable();
    assert_eq!(texts, sorted);
    assert_eq!(format!("{:?}", headers::PATH), "\":path\"");
}

#[test]
fn registering_a_set_at_run_time() {
    static TEXTS: [dynatom::StaticText; 2] = [
        dynatom::StaticText::new("LATE", b"a text registered at run time"),
        dynatom::StaticText::new("SHORT", b"late"),
    ];
    AtomTable::register_static_set("late", &TEXTS).unwrap();
    let atom = ByteAtom::new(b"a text registered at run time");
    assert_eq!(atom.clone().into_raw(), TEXTS[0].bits());
    assert_eq!(AtomTable::new().intern_bytes(b"a text registered at run time"), atom);
    // Registering it again is refused by nothing (same texts, same words).
    static CLASH: [dynatom::StaticText; 1] = [dynatom::StaticText::new("X", b"content-type")];
    AtomTable::register_static_set("clash", &CLASH).unwrap();
    // A text interned before its set is reported.
    let before = Atom::from("interned before its set was registered");
    static AFTER: [dynatom::StaticText; 1] =
        [dynatom::StaticText::new("AFTER", b"interned before its set was registered")];
    let err = AtomTable::register_static_set("after", &AFTER).unwrap_err();
    assert!(err.to_string().contains("before its static set"), "{err}");
    drop(before);
    static TWICE: [dynatom::StaticText; 2] = [
        dynatom::StaticText::new("A", b"declared twice, refused"),
        dynatom::StaticText::new("B", b"declared twice, refused"),
    ];
    assert!(AtomTable::register_static_set("twice", &TWICE).is_err());
    assert!(!Atom::from("declared twice, refused").is_declared(), "a refused set leaves nothing behind");
}

#[test]
fn many_threads_meet_the_static_atoms_in_any_order() {
    let texts: Vec<&str> = headers::SET.texts().iter().map(|t| std::str::from_utf8(t.bytes()).unwrap()).collect();
    let barrier = Barrier::new(4);
    std::thread::scope(|scope| {
        for thread in 0..4 {
            let (texts, barrier) = (&texts, &barrier);
            scope.spawn(move || {
                barrier.wait();
                for round in 0..200 {
                    for (i, text) in texts.iter().enumerate() {
                        let pick = (i + thread + round) % texts.len();
                        let atom = match (thread + round) % 3 {
                            0 => Atom::from(texts[pick]),
                            1 => Str::from(String::from(texts[pick])).intern(),
                            _ => AtomTable::new().intern(texts[pick]),
                        };
                        assert_eq!(atom, headers::SET.atom(pick).unwrap());
                        assert_eq!(headers::SET.get(text), headers::SET.atom(i));
                    }
                }
            });
        }
    });
}

/// How a test makes an atom of a text.
fn make_atom(text: &str, how: usize, local: &AtomTable) -> Atom {
    match how {
        0 => Atom::from(text),
        1 => Str::from(String::from(text)).intern(),
        2 => local.intern(text),
        3 => ByteAtom::new(text.as_bytes()).to_text().unwrap(),
        _ => Atom::lookup(text).unwrap_or_else(|| Atom::from(text)),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Against a model (text equality): from several threads at once, each making atoms of
    /// declared and undeclared texts in its own random order and way (global table, a
    /// `Str`'s adoption, a shared local table, bytes, lookup), an atom equals a static
    /// atom exactly when their texts are equal.
    #[test]
    fn static_and_dynamic_atoms_agree_with_text_equality_from_many_threads(
        plans in proptest::collection::vec(proptest::collection::vec((0usize..10, 0usize..5), 1..40), 3),
    ) {
        let extra = ["content-typ", "content-type ", "x-other-header-name", "Content-Type"];
        let statics: Vec<Atom> = headers::SET.iter().chain(keywords::SET.iter()).collect();
        let text_of = |index: usize| -> String {
            if index < 6 { headers::SET.atom(index).unwrap().to_string() } else { extra[index - 6].to_string() }
        };
        let local = AtomTable::new();
        let barrier = Barrier::new(plans.len());
        let mismatches: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = plans
                .iter()
                .map(|plan| {
                    let (local, barrier, statics, text_of) = (&local, &barrier, &statics, &text_of);
                    scope.spawn(move || {
                        barrier.wait();
                        let mut wrong = Vec::new();
                        for &(index, how) in plan {
                            let text = text_of(index);
                            let atom = make_atom(&text, how, local);
                            for known in statics {
                                if (*known == atom) != (known.as_str() == text) {
                                    wrong.push(format!("{known:?} vs {text:?} made by way {how}"));
                                }
                            }
                        }
                        wrong
                    })
                })
                .collect();
            handles.into_iter().flat_map(|handle| handle.join().unwrap()).collect()
        });
        prop_assert!(mismatches.is_empty(), "{:?}", mismatches);
    }
}

#[test]
fn the_memory_report_shows_static_atoms_apart() {
    let report = AtomTable::global().memory_report();
    // Longer than 7 bytes, declared in this binary: content-type, content-length, the long
    // header, the library's own text and "function".
    assert!(report.declared_atoms >= 5, "{report:?}");
    assert!(report.static_atoms >= report.declared_atoms);
    assert!(report.static_char_bytes >= "content-typecontent-lengthfunction".len());
    assert!(report.to_string().contains("of declared sets"), "{report}");
    let local = AtomTable::new();
    let _atom = local.intern("content-type");
    assert_eq!(local.memory_report().declared_atoms, 0, "local tables file no declared text");
}

#[cfg(feature = "small-map")]
#[test]
fn atom_maps_find_declared_and_static_keys_by_text() {
    use dynatom::AtomMap;

    let immortal = Atom::from_static("an immortal atom of the global table, filed as static");
    let mut map = AtomMap::new();
    map.insert_atom(headers::CONTENT_TYPE, 1); // declared, longer than 7 bytes
    map.insert_atom(headers::accept, 2); // declared, inline
    map.insert_atom(immortal.clone(), 3);
    map.insert("return", 4); // a keyword's declared text, given as text
    for filler in 0..12 {
        map.insert(format!("a filler key that makes the map large, {filler}"), 0);
    }
    for (text, value) in [("content-type", 1), ("accept", 2), ("return", 4)] {
        assert_eq!(map.get(text), Some(&value), "{text}");
        assert_eq!(map.get_bytes(text.as_bytes()), Some(&value), "{text}");
        *map.entry(text).or_insert(0) += 10;
        assert_eq!(map.get(&Atom::from(text)), Some(&(value + 10)), "{text}");
    }
    assert_eq!(map.get("an immortal atom of the global table, filed as static"), Some(&3));
    assert_eq!(map.get(&keywords::RETURN), Some(&14));
    assert_eq!(map.len(), 16);
    assert_eq!(map.remove("content-type"), Some(11));
    assert_eq!(map.get(&headers::CONTENT_TYPE), None);
    assert_eq!(map.remove(&immortal), Some(3));
}
