//! Adapters for the interners that threads share, and the read-only readers they freeze
//! into: dynatom's `SyncInterner` / `Resolver` and lasso's `ThreadedRodeo` / `RodeoReader`.

use super::SharedInterner;

impl SharedInterner for dynatom::SyncInterner {
    type Symbol = dynatom::Symbol;
    type Reader = dynatom::Resolver;
    const NAME: &'static str = "dynatom SyncInterner";
    const READER_NAME: &'static str = "dynatom Resolver (frozen)";
    fn create() -> Self {
        dynatom::SyncInterner::new()
    }
    fn intern(&self, s: &str) -> dynatom::Symbol {
        dynatom::SyncInterner::intern(self, s)
    }
    fn get(&self, s: &str) -> Option<dynatom::Symbol> {
        dynatom::SyncInterner::get(self, s)
    }
    fn resolve(&self, sym: dynatom::Symbol) -> &str {
        dynatom::SyncInterner::resolve(self, sym)
    }
    fn freeze(self) -> dynatom::Resolver {
        dynatom::SyncInterner::freeze(self)
    }
    fn reader_get(reader: &dynatom::Resolver, s: &str) -> Option<dynatom::Symbol> {
        reader.get(s)
    }
    fn reader_resolve(reader: &dynatom::Resolver, sym: dynatom::Symbol) -> &str {
        reader.resolve(sym)
    }
}

impl SharedInterner for lasso::ThreadedRodeo {
    type Symbol = lasso::Spur;
    type Reader = lasso::RodeoReader;
    const NAME: &'static str = "lasso ThreadedRodeo";
    const READER_NAME: &'static str = "lasso RodeoReader";
    fn create() -> Self {
        lasso::ThreadedRodeo::new()
    }
    fn intern(&self, s: &str) -> lasso::Spur {
        self.get_or_intern(s)
    }
    fn get(&self, s: &str) -> Option<lasso::Spur> {
        lasso::ThreadedRodeo::get(self, s)
    }
    fn resolve(&self, sym: lasso::Spur) -> &str {
        lasso::ThreadedRodeo::resolve(self, &sym)
    }
    fn freeze(self) -> lasso::RodeoReader {
        self.into_reader()
    }
    fn reader_get(reader: &lasso::RodeoReader, s: &str) -> Option<lasso::Spur> {
        reader.get(s)
    }
    fn reader_resolve(reader: &lasso::RodeoReader, sym: lasso::Spur) -> &str {
        reader.resolve(&sym)
    }
}
