//! Adapters for the single-owner interners.

use super::LocalInterner;
use string_interner::backend::{BucketBackend, BufferBackend, StringBackend};
use string_interner::{DefaultSymbol, StringInterner};

/// `AtomTable::new()`: a private dynatom table (reference-counted atoms).
pub struct DynatomTable(dynatom::AtomTable);

impl LocalInterner for DynatomTable {
    type Symbol = dynatom::Atom;
    const NAME: &'static str = "dynatom AtomTable";
    fn create() -> Self {
        DynatomTable(dynatom::AtomTable::new())
    }
    fn intern(&mut self, s: &str) -> dynatom::Atom {
        self.0.intern(s)
    }
    fn get(&self, s: &str) -> Option<dynatom::Atom> {
        self.0.lookup(s)
    }
    fn resolve<'a>(&'a self, sym: &'a dynatom::Atom) -> &'a str {
        sym.as_str()
    }
    fn mapped_bytes(&self) -> usize {
        self.0.memory_report().mapped_bytes
    }
}

/// `dynatom::Interner`: 4-byte `Copy` symbols, text packed in chunks.
pub struct DynatomInterner(dynatom::Interner);

impl LocalInterner for DynatomInterner {
    type Symbol = dynatom::Symbol;
    const NAME: &'static str = "dynatom Interner";
    fn create() -> Self {
        DynatomInterner(dynatom::Interner::new())
    }
    fn intern(&mut self, s: &str) -> dynatom::Symbol {
        self.0.intern(s)
    }
    fn get(&self, s: &str) -> Option<dynatom::Symbol> {
        self.0.get(s)
    }
    fn resolve<'a>(&'a self, sym: &'a dynatom::Symbol) -> &'a str {
        self.0.resolve(*sym)
    }
}

pub struct RodeoPeer(lasso::Rodeo);

impl LocalInterner for RodeoPeer {
    type Symbol = lasso::Spur;
    const NAME: &'static str = "lasso Rodeo";
    fn create() -> Self {
        RodeoPeer(lasso::Rodeo::new())
    }
    fn intern(&mut self, s: &str) -> lasso::Spur {
        self.0.get_or_intern(s)
    }
    fn get(&self, s: &str) -> Option<lasso::Spur> {
        self.0.get(s)
    }
    fn resolve<'a>(&'a self, sym: &'a lasso::Spur) -> &'a str {
        self.0.resolve(sym)
    }
}

/// string-interner with one of its three backends.
macro_rules! string_interner_peer {
    ($peer:ident, $backend:ty, $name:literal) => {
        pub struct $peer(StringInterner<$backend>);

        impl LocalInterner for $peer {
            type Symbol = DefaultSymbol;
            const NAME: &'static str = $name;
            fn create() -> Self {
                $peer(StringInterner::new())
            }
            fn intern(&mut self, s: &str) -> DefaultSymbol {
                self.0.get_or_intern(s)
            }
            fn get(&self, s: &str) -> Option<DefaultSymbol> {
                self.0.get(s)
            }
            fn resolve<'a>(&'a self, sym: &'a DefaultSymbol) -> &'a str {
                self.0.resolve(*sym).expect("symbol from this interner")
            }
        }
    };
}

string_interner_peer!(SiString, StringBackend<DefaultSymbol>, "string-interner String");
string_interner_peer!(SiBucket, BucketBackend<DefaultSymbol>, "string-interner Bucket");
string_interner_peer!(SiBuffer, BufferBackend<DefaultSymbol>, "string-interner Buffer");

/// symbol_table has no "lookup without inserting"; `get` interns, which for the suite's
/// present keys is the same work (a hit).
pub struct SymbolTablePeer(symbol_table::SymbolTable);

impl LocalInterner for SymbolTablePeer {
    type Symbol = symbol_table::Symbol;
    const NAME: &'static str = "symbol_table";
    fn create() -> Self {
        SymbolTablePeer(symbol_table::SymbolTable::new())
    }
    fn intern(&mut self, s: &str) -> symbol_table::Symbol {
        self.0.intern(s)
    }
    fn get(&self, s: &str) -> Option<symbol_table::Symbol> {
        Some(self.0.intern(s))
    }
    fn resolve<'a>(&'a self, sym: &'a symbol_table::Symbol) -> &'a str {
        self.0.resolve(*sym)
    }
}
