//! `Str`, `Atom` and `AtomTable` operations against `String` and a map of live atoms:
//! creation (inline, heap, static, from bytes, over an owner's bytes), slices, clones,
//! interning into the global and a local table, lookups, drops, comparisons and hashes;
//! `is_interned` against what `intern` then does, also for buffers an adopting local
//! table holds. At the end every handle is dropped, and no table may still hold one of
//! the texts.

#![no_main]

use std::collections::hash_map::RandomState;
use std::collections::HashSet;
use std::hash::BuildHasher;

use arbitrary::Arbitrary;
use dynatom::{Atom, AtomTable, Str};
use libfuzzer_sys::fuzz_target;

/// Texts that may become immortal static atoms (they and their slices may stay in the
/// global table for good).
const STATICS: [&str; 4] = ["", "short", "a static text past seven bytes", "fuzz static: ünïcödé and more"];

#[derive(Arbitrary, Debug)]
enum Make {
    Plain,
    Try,
    FromString,
    Static(u8),
    Builder,
    /// Over the bytes of an owner (`Str::from_owner`): a `String`, or a `Box<[u8]>`
    /// that keeps them (short texts are copied inline and the owner dropped).
    Owned {
        boxed: bool,
    },
}

#[derive(Arbitrary, Debug)]
enum Op {
    Make { text: String, how: Make },
    FromBytes(Vec<u8>),
    Slice { at: u8, start: u16, end: u16 },
    Trim(u8),
    Access { at: u8, index: u16 },
    Clone(u8),
    DropStr(u8),
    InternGlobal(u8),
    InternLocal(u8),
    InternAdopting(u8),
    AtomFrom(String),
    AtomStatic(u8),
    LookupGlobal(String),
    LookupLocal(String),
    LookupHeld { at: u8, local: bool },
    ToStr(u8),
    CloneAtom(u8),
    DropAtom(u8),
    CompareStrs(u8, u8),
    CompareAtoms(u8, u8),
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Table {
    Global,
    Local,
}

struct Model {
    strs: Vec<(Str, String)>,
    atoms: Vec<(Atom, String, Table)>,
    table: AtomTable,
    /// A local table with the process seed, which adopts whole buffers as `intern` does.
    adopting: AtomTable,
    texts: HashSet<String>,
    hasher: RandomState,
}

fn pick<T>(items: &[T], at: u8) -> Option<usize> {
    (!items.is_empty()).then(|| at as usize % items.len())
}

impl Model {
    fn push_str(&mut self, s: Str, text: String) {
        assert_eq!(s.as_str(), text);
        assert_eq!(s.len(), text.len());
        assert_eq!(s.as_bytes(), text.as_bytes());
        self.texts.insert(text.clone());
        self.strs.push((s, text));
    }

    fn push_atom(&mut self, atom: Atom, text: String, table: Table) {
        assert_eq!(atom.as_str(), text);
        assert_eq!(atom.len(), text.len());
        assert_eq!(atom.is_inline(), text.len() <= 7, "{text:?}");
        // Equal text in the same table is the same atom.
        if let Some((same, _, _)) = self.atoms.iter().find(|(_, t, tab)| *t == text && *tab == table) {
            assert_eq!(*same, atom);
            if !atom.is_inline() {
                assert_eq!(same.as_ptr(), atom.as_ptr());
            }
        }
        self.texts.insert(text.clone());
        self.atoms.push((atom, text, table));
    }

    fn live_atom(&self, text: &str, table: Table) -> Option<&Atom> {
        self.atoms.iter().find(|(_, t, tab)| t == text && *tab == table).map(|(a, _, _)| a)
    }

    fn check_lookup(&self, text: &str, table: Table) {
        let found = match table {
            Table::Global => Atom::lookup(text),
            Table::Local => self.table.lookup(text),
        };
        if let Some(atom) = &found {
            assert_eq!(atom.as_str(), text);
        }
        if let Some(live) = self.live_atom(text, table) {
            assert_eq!(found.as_ref(), Some(live), "a live atom was not found: {text:?}");
        }
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::Make { text, how } => {
                let s = match how {
                    Make::Plain => {
                        let s = Str::from(text.as_str());
                        assert_eq!(s.is_inline(), text.len() <= 15);
                        s
                    }
                    Make::Try => Str::try_from_str(&text).expect("a short text fits"),
                    Make::FromString => Str::from(text.clone()),
                    Make::Static(k) => {
                        let s = Str::from_static(STATICS[k as usize % STATICS.len()]);
                        return self.push_str(s.clone(), s.as_str().to_owned());
                    }
                    Make::Owned { boxed } => {
                        let s = if boxed {
                            Str::from_owner(text.clone().into_bytes().into_boxed_slice()).ok()
                        } else {
                            Str::from_owner(text.clone()).ok()
                        };
                        let s = s.expect("a String's bytes are text");
                        assert_eq!(s.is_inline(), text.len() <= 15);
                        s
                    }
                    Make::Builder => {
                        let mut builder = dynatom::StrBuilder::new();
                        for c in text.chars() {
                            builder.push(c);
                        }
                        builder.finish()
                    }
                };
                self.push_str(s, text);
            }
            Op::FromBytes(bytes) => match (Str::from_utf8_slice(&bytes), std::str::from_utf8(&bytes)) {
                (Ok(s), Ok(text)) => self.push_str(s, text.to_owned()),
                (Err(_), Err(_)) => {}
                (ours, std) => panic!("from_utf8_slice {ours:?} disagrees with std {std:?}"),
            },
            Op::Slice { at, start, end } => {
                let Some(i) = pick(&self.strs, at) else { return };
                let (s, text) = &self.strs[i];
                let (start, end) = (start as usize % (text.len() + 2), end as usize % (text.len() + 2));
                let expected = text.get(start..end).map(str::to_owned);
                let got = s.get_slice(start..end);
                assert_eq!(got.as_ref().map(Str::as_str), expected.as_deref(), "{text:?}[{start}..{end}]");
                if let (Some(got), Some(expected)) = (got, expected) {
                    assert_eq!(s.slice(start..end), got);
                    self.push_str(got, expected);
                }
            }
            Op::Trim(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let (s, text) = &self.strs[i];
                let (trimmed, expected) = (s.slice_ref(s.trim()), text.trim().to_owned());
                assert_eq!(s.slice_ref(s.trim_start()), text.trim_start());
                assert_eq!(s.slice_ref(s.trim_end()), text.trim_end());
                self.push_str(trimmed, expected);
            }
            Op::Access { at, index } => {
                let Some(i) = pick(&self.strs, at) else { return };
                let (s, text) = &self.strs[i];
                let index = index as usize;
                assert_eq!(s.byte_at(index), text.as_bytes().get(index).copied());
                let expected = text.get(index..).and_then(|rest| rest.chars().next());
                assert_eq!(s.char_at(index), expected);
            }
            Op::Clone(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let (s, text) = self.strs[i].clone();
                assert!(s.ptr_eq(&self.strs[i].0));
                self.push_str(s, text);
            }
            Op::DropStr(at) => {
                if let Some(i) = pick(&self.strs, at) {
                    self.strs.swap_remove(i);
                }
            }
            Op::InternGlobal(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let was_interned = self.strs[i].0.is_interned();
                let (atom, text) = (self.strs[i].0.intern(), self.strs[i].1.clone());
                if was_interned && !atom.is_inline() {
                    assert_eq!(atom.as_ptr(), self.strs[i].0.as_ptr(), "is_interned, yet intern made a copy");
                }
                self.push_atom(atom, text, Table::Global);
            }
            Op::InternAdopting(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let s = &self.strs[i].0;
                let atom = s.intern_in(&self.adopting);
                assert_eq!(atom.as_str(), self.strs[i].1);
                if !atom.is_inline() && atom.as_ptr() == s.as_ptr() {
                    assert!(!s.is_interned(), "a buffer a local table holds is not the global atom");
                }
                if s.is_interned() && !atom.is_inline() {
                    assert_eq!(s.intern().as_ptr(), s.as_ptr(), "is_interned, yet intern made a copy");
                }
            }
            Op::InternLocal(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let (atom, text) = (self.strs[i].0.intern_in(&self.table), self.strs[i].1.clone());
                assert!(self.table.contains(&atom) || atom.is_inline());
                self.push_atom(atom, text, Table::Local);
            }
            Op::AtomFrom(text) => self.push_atom(Atom::from(text.as_str()), text, Table::Global),
            Op::AtomStatic(k) => {
                let text = STATICS[k as usize % STATICS.len()];
                self.push_atom(Atom::from_static(text), text.to_owned(), Table::Global);
            }
            Op::LookupGlobal(text) => self.check_lookup(&text, Table::Global),
            Op::LookupLocal(text) => self.check_lookup(&text, Table::Local),
            Op::LookupHeld { at, local } => {
                let Some(i) = pick(&self.strs, at) else { return };
                let text = self.strs[i].1.clone();
                self.check_lookup(&text, if local { Table::Local } else { Table::Global });
            }
            Op::ToStr(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                let (atom, text, _) = &self.atoms[i];
                let s = Str::from(atom);
                if !atom.is_inline() {
                    assert_eq!(s.as_ptr(), atom.as_ptr(), "to_str makes no copy");
                }
                let text = text.clone();
                self.push_str(s, text);
            }
            Op::CloneAtom(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                let (atom, text, table) = self.atoms[i].clone();
                self.push_atom(atom, text, table);
            }
            Op::DropAtom(at) => {
                if let Some(i) = pick(&self.atoms, at) {
                    self.atoms.swap_remove(i);
                }
            }
            Op::CompareStrs(a, b) => {
                let (Some(i), Some(j)) = (pick(&self.strs, a), pick(&self.strs, b)) else { return };
                let ((x, tx), (y, ty)) = (&self.strs[i], &self.strs[j]);
                assert_eq!(x == y, tx == ty);
                assert_eq!(x.cmp(y), tx.cmp(ty));
                assert_eq!(x == ty.as_str(), tx == ty);
                assert_eq!(self.hasher.hash_one(x), self.hasher.hash_one(tx.as_str()), "Hash agrees with str's");
                if tx == ty {
                    assert_eq!(x.hash64(), y.hash64());
                }
            }
            Op::CompareAtoms(a, b) => {
                let (Some(i), Some(j)) = (pick(&self.atoms, a), pick(&self.atoms, b)) else { return };
                let ((x, tx, kx), (y, ty, ky)) = (&self.atoms[i], &self.atoms[j]);
                assert_eq!(*x == ty.as_str(), tx == ty);
                if tx != ty {
                    assert_ne!(x, y);
                    assert_eq!(x.cmp(y), tx.cmp(ty), "atoms are ordered by text");
                } else if kx == ky {
                    assert_eq!(x, y);
                    assert_eq!(x.hash64(), y.hash64());
                    assert_eq!(self.hasher.hash_one(x), self.hasher.hash_one(y));
                }
            }
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    ops: Vec<Op>,
}

fuzz_target!(|input: Input| {
    let mut model = Model {
        strs: Vec::new(),
        atoms: Vec::new(),
        table: AtomTable::with_seed(0x5eed),
        adopting: AtomTable::new(),
        texts: HashSet::new(),
        hasher: RandomState::new(),
    };
    for op in input.ops {
        model.apply(op);
    }
    let Model { strs, atoms, table, adopting, texts, .. } = model;
    drop(strs);
    drop(atoms);
    assert_eq!(table.len(), 0, "the local table outlived every handle");
    assert_eq!(adopting.len(), 0, "the adopting table outlived every handle");
    // Interning a static `Str` (or a slice of one) in the global table files an immortal
    // entry, and the table makes an atom that keeps coming back from unused permanent;
    // every other entry must have left with its last handle.
    let mortal = texts.iter().filter(|t| t.len() > 7 && !STATICS.iter().any(|s| s.contains(t.as_str())));
    for text in mortal {
        let kept = Atom::lookup(text);
        assert!(kept.is_none_or(|atom| atom.is_permanent()), "the global table kept {text:?} after its last handle");
    }
    table.shrink();
    assert_eq!(table.memory_report().unused_atoms, 0, "a sweep frees every unused atom");
    // Atoms whose handles are gone stay in the global table, unused, until a sweep, held
    // only by the table's tagged slot words, which LeakSanitizer cannot follow: sweep them
    // before it checks this input for leaks, and check that the sweep left none behind.
    dynatom::AtomTable::global().shrink();
    assert_eq!(dynatom::AtomTable::global().memory_report().unused_atoms, 0);
});
