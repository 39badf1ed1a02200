//! Property tests: an `AtomTable` against a `HashSet<String>`-like model that counts the
//! handles alive for each text, and remembers which texts the table still files (in use,
//! or unused until a sweep) and at what address.

use dynatom::{Atom, AtomTable, BuildAtomHasher, Str};
use proptest::prelude::*;
use std::collections::HashMap;

const POOL: &[&str] = &[
    "",
    "a",
    "seven!!",
    "eight!!!",
    "fifteen bytes!!",
    "sixteen bytes!!!",
    "a considerably longer text that lives on the heap",
    "a considerably longer text that lives on the heaP",
    "ünïcödé keys are keys too, and long ones",
];

#[derive(Debug, Clone)]
enum Op {
    Intern(usize),
    InternStr(usize),
    Lookup(usize),
    CloneHandle(usize),
    DropHandle(usize),
    ToStrAndBack(usize),
    Shrink,
}

fn op() -> impl Strategy<Value = Op> {
    let text = 0..POOL.len();
    prop_oneof![
        text.clone().prop_map(Op::Intern),
        text.clone().prop_map(Op::InternStr),
        text.clone().prop_map(Op::Lookup),
        any::<usize>().prop_map(Op::CloneHandle),
        any::<usize>().prop_map(Op::DropHandle),
        any::<usize>().prop_map(Op::ToStrAndBack),
        Just(Op::Shrink),
    ]
}

/// Texts the table files (longer than an inline atom), with their live handle counts.
fn filed(model: &HashMap<&str, usize>) -> usize {
    model.iter().filter(|&(text, &count)| text.len() > 7 && count > 0).count()
}

proptest! {
    /// A std `HashMap` keyed by atoms under `BuildAtomHasher` counts like one keyed by
    /// `String` under std's hasher.
    #[test]
    fn atom_keyed_std_map_matches_a_string_keyed_one(words in proptest::collection::vec("[a-d]{0,3}|[a-z ]{8,24}", 0..200)) {
        let mut atoms: HashMap<Atom, u32, BuildAtomHasher> = HashMap::default();
        let mut model: HashMap<String, u32> = HashMap::new();
        for word in &words {
            *atoms.entry(Atom::from(word.as_str())).or_insert(0) += 1;
            *model.entry(word.clone()).or_insert(0) += 1;
        }
        prop_assert_eq!(atoms.len(), model.len());
        for (word, count) in &model {
            prop_assert_eq!(atoms.get(&Atom::from(word.as_str())), Some(count));
        }
    }

    #[test]
    fn table_matches_model(ops in proptest::collection::vec(op(), 1..120), seed in any::<u64>()) {
        // Even seeds: a table of its own seed (copies); odd: a process-seed table (adopts).
        let table = if seed % 2 == 0 { AtomTable::with_seed(seed) } else { AtomTable::new() };
        // Filed heap texts (in use or unused) and the address of their characters.
        let mut entries: HashMap<&str, *const u8> = HashMap::new();
        let mut handles: Vec<(Atom, &str)> = Vec::new();
        let mut strs: Vec<(Str, &str)> = Vec::new();
        let mut model: HashMap<&str, usize> = HashMap::new();
        for op in ops {
            match op {
                Op::Intern(i) => {
                    let atom = table.intern(POOL[i]);
                    prop_assert_eq!(atom.as_str(), POOL[i]);
                    check_entry(&mut entries, POOL[i], &atom)?;
                    for (other, text) in &handles {
                        prop_assert_eq!(other == &atom, *text == POOL[i]);
                    }
                    handles.push((atom, POOL[i]));
                    *model.entry(POOL[i]).or_default() += 1;
                }
                Op::InternStr(i) => {
                    let s = Str::from(POOL[i]);
                    let atom = s.intern_in(&table);
                    prop_assert_eq!(atom.as_str(), POOL[i]);
                    let adopted = seed % 2 == 1 && POOL[i].len() > 15 && !entries.contains_key(POOL[i]);
                    prop_assert_eq!(atom.as_ptr() == s.as_ptr(), adopted);
                    check_entry(&mut entries, POOL[i], &atom)?;
                    handles.push((atom, POOL[i]));
                    *model.entry(POOL[i]).or_default() += 1;
                }
                Op::Lookup(i) => {
                    let alive = POOL[i].len() <= 7 || model.get(POOL[i]).copied().unwrap_or(0) > 0;
                    prop_assert_eq!(table.contains_text(POOL[i]), alive);
                    prop_assert_eq!(table.contains_bytes(POOL[i].as_bytes()), alive);
                    let found = table.lookup(POOL[i]);
                    prop_assert_eq!(found.is_some(), alive);
                    if let Some(atom) = found {
                        prop_assert_eq!(atom.as_str(), POOL[i]);
                    }
                }
                Op::CloneHandle(k) if !handles.is_empty() => {
                    let (atom, text) = handles[k % handles.len()].clone();
                    handles.push((atom, text));
                    *model.entry(text).or_default() += 1;
                }
                Op::DropHandle(k) if !handles.is_empty() => {
                    let (_, text) = handles.swap_remove(k % handles.len());
                    *model.get_mut(text).unwrap() -= 1;
                }
                Op::ToStrAndBack(k) if !handles.is_empty() => {
                    let (atom, text) = &handles[k % handles.len()];
                    let s = Str::from(atom);
                    prop_assert_eq!(s.intern_in(&table), atom.clone());
                    // The Str keeps the atom alive like any handle.
                    strs.push((s, text));
                    *model.entry(text).or_default() += 1;
                }
                Op::Shrink => {
                    let unused: Vec<&str> =
                        entries.keys().copied().filter(|text| model.get(text).copied().unwrap_or(0) == 0).collect();
                    prop_assert_eq!(table.shrink(), unused.len());
                    for text in unused {
                        entries.remove(text);
                    }
                }
                _ => {}
            }
            prop_assert_eq!(table.len(), filed(&model));
            let report = table.memory_report();
            prop_assert_eq!(report.atoms + report.unused_atoms, entries.len());
            prop_assert_eq!(report.unused_atoms, entries.len() - filed(&model));
        }
        drop(handles);
        drop(strs);
        prop_assert_eq!(table.len(), 0);
        prop_assert_eq!(table.shrink(), entries.len());
        prop_assert_eq!(table.memory_report().unused_atoms, 0);
    }
}

/// An intern of a filed text (in use or unused) gives the filed atom; a new one is filed.
fn check_entry<'a>(entries: &mut HashMap<&'a str, *const u8>, text: &'a str, atom: &Atom) -> Result<(), TestCaseError> {
    if text.len() <= 7 {
        return Ok(());
    }
    let at = *entries.entry(text).or_insert(atom.as_ptr());
    prop_assert_eq!(at, atom.as_ptr(), "an unused atom is revived, not filed again");
    Ok(())
}
