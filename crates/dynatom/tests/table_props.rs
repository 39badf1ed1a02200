//! Property tests: an `AtomTable` against a `HashSet<String>`-like model that counts the
//! handles alive for each text.

use dynatom::{Atom, AtomTable, Str};
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
    ]
}

/// Texts the table files (longer than an inline atom), with their live handle counts.
fn filed(model: &HashMap<&str, usize>) -> usize {
    model.iter().filter(|(text, &count)| text.len() > 7 && count > 0).count()
}

proptest! {
    #[test]
    fn table_matches_model(ops in proptest::collection::vec(op(), 1..120), seed in any::<u64>()) {
        let table = AtomTable::with_seed(seed);
        let mut handles: Vec<(Atom, &str)> = Vec::new();
        let mut strs: Vec<(Str, &str)> = Vec::new();
        let mut model: HashMap<&str, usize> = HashMap::new();
        for op in ops {
            match op {
                Op::Intern(i) => {
                    let atom = table.intern(POOL[i]);
                    prop_assert_eq!(atom.as_str(), POOL[i]);
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
                    handles.push((atom, POOL[i]));
                    *model.entry(POOL[i]).or_default() += 1;
                }
                Op::Lookup(i) => {
                    let found = table.lookup(POOL[i]);
                    let alive = POOL[i].len() <= 7 || model.get(POOL[i]).copied().unwrap_or(0) > 0;
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
                _ => {}
            }
            prop_assert_eq!(table.len(), filed(&model));
        }
        drop(handles);
        drop(strs);
        prop_assert_eq!(table.len(), 0);
    }
}
