//! Adapters for the global / concurrent interners.

use super::GlobalInterner;

/// `Atom::from`: dynatom's process-global table.
pub struct DynatomGlobal;

impl GlobalInterner for DynatomGlobal {
    type Handle = dynatom::Atom;
    const NAME: &'static str = "dynatom Atom";
    fn create() -> Self {
        DynatomGlobal
    }
    fn intern(&self, s: &str) -> dynatom::Atom {
        dynatom::Atom::from(s)
    }
    fn resolve<'a>(&'a self, h: &'a dynatom::Atom) -> &'a str {
        h.as_str()
    }
    const LOOKS: bool = true;
    fn look(&self, s: &str) -> bool {
        dynatom::AtomTable::global().contains_text(s)
    }
    fn mapped_bytes(&self) -> usize {
        dynatom::AtomTable::global().memory_report().mapped_bytes
    }
}

pub struct UstrPeer;

impl GlobalInterner for UstrPeer {
    type Handle = ustr::Ustr;
    const NAME: &'static str = "ustr";
    fn create() -> Self {
        UstrPeer
    }
    fn intern(&self, s: &str) -> ustr::Ustr {
        ustr::Ustr::from(s)
    }
    fn resolve<'a>(&'a self, h: &'a ustr::Ustr) -> &'a str {
        h.as_str()
    }
    const LOOKS: bool = true;
    fn look(&self, s: &str) -> bool {
        ustr::existing_ustr(s).is_some()
    }
}

pub struct StringCachePeer;

impl GlobalInterner for StringCachePeer {
    type Handle = string_cache::DefaultAtom;
    const NAME: &'static str = "string_cache";
    fn create() -> Self {
        StringCachePeer
    }
    fn intern(&self, s: &str) -> string_cache::DefaultAtom {
        string_cache::DefaultAtom::from(s)
    }
    fn resolve<'a>(&'a self, h: &'a string_cache::DefaultAtom) -> &'a str {
        h
    }
}

pub struct InternmentPeer;

impl GlobalInterner for InternmentPeer {
    type Handle = internment::ArcIntern<str>;
    const NAME: &'static str = "internment ArcIntern";
    fn create() -> Self {
        InternmentPeer
    }
    fn intern(&self, s: &str) -> internment::ArcIntern<str> {
        internment::ArcIntern::from(s)
    }
    fn resolve<'a>(&'a self, h: &'a internment::ArcIntern<str>) -> &'a str {
        h
    }
}

/// Not process-global, but the concurrent interner people share between threads.
pub struct ThreadedRodeoPeer(lasso::ThreadedRodeo);

impl GlobalInterner for ThreadedRodeoPeer {
    type Handle = lasso::Spur;
    const NAME: &'static str = "lasso ThreadedRodeo";
    fn create() -> Self {
        ThreadedRodeoPeer(lasso::ThreadedRodeo::new())
    }
    fn intern(&self, s: &str) -> lasso::Spur {
        self.0.get_or_intern(s)
    }
    fn resolve<'a>(&'a self, h: &'a lasso::Spur) -> &'a str {
        self.0.resolve(h)
    }
    const LOOKS: bool = true;
    fn look(&self, s: &str) -> bool {
        self.0.contains(s)
    }
}

/// internment's `Intern`: never frees (its handles are `Copy`), so churn is all hits.
pub struct InternmentNeverFree;

impl GlobalInterner for InternmentNeverFree {
    type Handle = internment::Intern<str>;
    const NAME: &'static str = "internment Intern";
    fn create() -> Self {
        InternmentNeverFree
    }
    fn intern(&self, s: &str) -> internment::Intern<str> {
        internment::Intern::from(s)
    }
    fn resolve<'a>(&'a self, h: &'a internment::Intern<str>) -> &'a str {
        h
    }
}
