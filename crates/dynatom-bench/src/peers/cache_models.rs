//! Adapters for the `lazy-vs-eager` suite: how each model creates the string object of a
//! cached value, and what evicting it does. Only creation is timed.

use super::CacheModel;
use crate::luajit_model::{StrId, StrTable};
use std::collections::HashMap;

/// dynatom's `Str`: never interned, so creation is one allocation and a copy.
#[derive(Default)]
pub struct StrModel;

impl CacheModel for StrModel {
    type Obj = dynatom::Str;
    const NAME: &'static str = "dynatom Str";
    fn create(&mut self, s: &str) -> dynatom::Str {
        dynatom::Str::from(s)
    }
    fn text<'a>(&'a self, o: &'a dynatom::Str) -> &'a [u8] {
        o.as_bytes()
    }
}

/// A `Str` interned as it goes into the cache (the global table adopts its buffer).
#[derive(Default)]
pub struct InternOnInsert;

impl CacheModel for InternOnInsert {
    type Obj = dynatom::Atom;
    const NAME: &'static str = "Str + intern on insert";
    const HASHES_CONTENT: bool = true;
    fn create(&mut self, s: &str) -> dynatom::Atom {
        dynatom::Str::from(s).intern()
    }
    fn create_timing_step(&mut self, s: &str) -> (dynatom::Atom, Option<f64>) {
        let copy = dynatom::Str::from(s);
        let (atom, ns) = crate::suites::time_ns(|| copy.intern());
        (atom, Some(ns))
    }
    fn text<'a>(&'a self, o: &'a dynatom::Atom) -> &'a [u8] {
        o.as_bytes()
    }
}

/// Our model of LuaJIT 2.1's eager interning (`lj_str_new`): objects are ids in the
/// string table; the collector is modelled by unlinking a string once no cache entry
/// holds it (untimed).
#[derive(Default)]
pub struct LuaJitModel {
    table: StrTable,
    refs: HashMap<StrId, u32>,
}

impl CacheModel for LuaJitModel {
    type Obj = StrId;
    const NAME: &'static str = "LuaJIT 2.1 model";
    fn create(&mut self, s: &str) -> StrId {
        self.table.intern(s.as_bytes())
    }
    fn cached(&mut self, id: &StrId) {
        *self.refs.entry(*id).or_insert(0) += 1;
    }
    fn evict(&mut self, id: StrId) {
        let r = self.refs.get_mut(&id).expect("cached id");
        *r -= 1;
        if *r == 0 {
            self.refs.remove(&id);
            self.table.remove(id);
        }
    }
    fn text<'a>(&'a self, id: &'a StrId) -> &'a [u8] {
        self.table.bytes(*id)
    }
    fn counters(&self) -> Vec<(&'static str, f64)> {
        vec![("resizes", f64::from(self.table.resizes)), ("chain_rehashes", f64::from(self.table.chain_rehashes))]
    }
}

/// A plain `String` copy: the floor.
#[derive(Default)]
pub struct StringCopy;

impl CacheModel for StringCopy {
    type Obj = String;
    const NAME: &'static str = "String copy";
    fn create(&mut self, s: &str) -> String {
        String::from(s)
    }
    fn text<'a>(&'a self, o: &'a String) -> &'a [u8] {
        o.as_bytes()
    }
}
