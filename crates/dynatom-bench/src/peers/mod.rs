//! One adapter per peer behind a small trait per family, and a visitor per family so a
//! suite's generic code can run "the peer named X". Adding a peer = one adapter and one
//! entry in the family's list (which makes both its name list and its dispatch).

pub mod arena_map;
pub mod builders;
pub mod cache_models;
pub mod global;
pub mod handles;
pub mod local;
pub mod maps;
pub mod shared;
pub mod suffix_keys;
pub mod to_owned;

use std::hash::Hash;

/// A process-wide (or shared, thread-safe) interner: `&self` interning from any thread.
pub trait GlobalInterner: Sync + Sized {
    type Handle: Clone + Eq + Hash + Send + Sync;
    const NAME: &'static str;
    /// A fresh instance; for truly global interners a zero-sized token (the child process
    /// is fresh, so the global table starts empty).
    fn create() -> Self;
    fn intern(&self, s: &str) -> Self::Handle;
    fn resolve<'a>(&'a self, h: &'a Self::Handle) -> &'a str;
    /// Whether the interner can say if a text is interned without making a handle
    /// ([`GlobalInterner::look`]).
    const LOOKS: bool = false;
    /// Whether `s` is interned, asked without making a handle: called only where
    /// [`GlobalInterner::LOOKS`] holds.
    fn look(&self, _s: &str) -> bool {
        unreachable!("{} cannot look without making a handle", Self::NAME)
    }
    /// Memory the interner maps from the OS itself, which the counting allocator does
    /// not see (dynatom's slabs on Linux).
    fn mapped_bytes(&self) -> usize {
        0
    }
}

/// A single-owner interner: insertion through `&mut self`.
pub trait LocalInterner: Sized {
    type Symbol: Clone + Eq + Hash;
    const NAME: &'static str;
    fn create() -> Self;
    fn intern(&mut self, s: &str) -> Self::Symbol;
    /// Lookup of a string that may or may not be present (never inserts).
    fn get(&self, s: &str) -> Option<Self::Symbol>;
    fn resolve<'a>(&'a self, sym: &'a Self::Symbol) -> &'a str;
    /// As [`GlobalInterner::mapped_bytes`].
    fn mapped_bytes(&self) -> usize {
        0
    }
}

/// An interner shared by threads (`&self` everywhere), which freezes into a read-only
/// reader for the phase after building.
pub trait SharedInterner: Sync + Sized {
    type Symbol: Copy + Eq + Hash + Send + Sync;
    type Reader: Sync;
    const NAME: &'static str;
    const READER_NAME: &'static str;
    fn create() -> Self;
    fn intern(&self, s: &str) -> Self::Symbol;
    /// Lookup without inserting.
    fn get(&self, s: &str) -> Option<Self::Symbol>;
    fn resolve(&self, sym: Self::Symbol) -> &str;
    fn freeze(self) -> Self::Reader;
    fn reader_get(reader: &Self::Reader, s: &str) -> Option<Self::Symbol>;
    fn reader_resolve(reader: &Self::Reader, sym: Self::Symbol) -> &str;
}

/// An owned string handle.
pub trait StringHandle: Clone + Eq + Hash + Sized {
    /// What `slice` hands back (some peers return a different substring type).
    type Slice;
    const NAME: &'static str;
    fn from_str(s: &str) -> Self;
    fn text(&self) -> &str;
    /// An owned handle to `self[r]`: O(1) where the type can share, a copy otherwise.
    fn slice(&self, r: std::ops::Range<usize>) -> Self::Slice;
    fn slice_text(s: &Self::Slice) -> &str;
}

/// A way to hand an atom's text out as an owned string (`atom-to-string`).
pub trait AtomToOwned {
    type Owned;
    const NAME: &'static str;
    fn to_owned(atom: &dynatom::Atom) -> Self::Owned;
    fn text(owned: &Self::Owned) -> &str;
}

/// A way to make the keys of a path index (`substrings`): every key is a range of a path.
pub trait SuffixKeys {
    /// How the path itself is stored.
    type Path;
    type Key: Eq + std::hash::Hash;
    const NAME: &'static str;
    fn path(text: &str) -> Self::Path;
    fn key(path: &Self::Path, range: std::ops::Range<usize>) -> Self::Key;
    fn key_text(key: &Self::Key) -> &str;
}

/// A way to append one piece many times and finish a string (`build`).
pub trait Appender {
    /// Where the finished string goes, made once per child (a pipe, or nothing).
    type Sink;
    /// What one run leaves (dropped after the clock stops).
    type Built;
    const NAME: &'static str;
    /// Quadratic ways are timed once, not warmed up and repeated.
    const QUADRATIC: bool = false;
    fn sink() -> std::io::Result<Self::Sink>;
    fn build(sink: &mut Self::Sink, piece: &'static str, appends: usize) -> Self::Built;
    /// Bytes of the finished string (or written).
    fn len(built: &Self::Built) -> usize;
}

/// A way to format `(n, text)` into a `Str` (`build`): a short output and a long one.
pub trait Formatter {
    const NAME: &'static str;
    fn small(n: u64) -> dynatom::Str;
    fn large(n: u64, text: &str) -> dynatom::Str;
}

/// How one model of the cache workload (`lazy-vs-eager`) creates a value's string object,
/// and what caching and evicting it do (only creation is timed).
pub trait CacheModel: Default {
    type Obj;
    const NAME: &'static str;
    /// The model hashes every value's whole content once (the suite times one hash pass
    /// over the same values beside it).
    const HASHES_CONTENT: bool = false;
    fn create(&mut self, s: &str) -> Self::Obj;
    /// `create`, with the ns of the step that makes the model more than a copy (the intern
    /// of a model that hashes content), timed on its own; `None` for a model with no such
    /// step.
    fn create_timing_step(&mut self, s: &str) -> (Self::Obj, Option<f64>) {
        (self.create(s), None)
    }
    fn cached(&mut self, _obj: &Self::Obj) {}
    fn evict(&mut self, _obj: Self::Obj) {}
    fn text<'a>(&'a self, obj: &'a Self::Obj) -> &'a [u8];
    /// The model's own counters, reported beside the latencies.
    fn counters(&self) -> Vec<(&'static str, f64)> {
        Vec::new()
    }
}

pub trait GlobalVisitor {
    type Out;
    fn visit<G: GlobalInterner>(self) -> Self::Out;
}

pub trait LocalVisitor {
    type Out;
    fn visit<L: LocalInterner>(self) -> Self::Out;
}

pub trait SharedVisitor {
    type Out;
    fn visit<S: SharedInterner>(self) -> Self::Out;
}

pub trait AtomToOwnedVisitor {
    type Out;
    fn visit<A: AtomToOwned>(self) -> Self::Out;
}

pub trait SuffixKeysVisitor {
    type Out;
    fn visit<S: SuffixKeys>(self) -> Self::Out;
}

pub trait AppenderVisitor {
    type Out;
    fn visit<A: Appender>(self) -> Self::Out;
}

pub trait FormatterVisitor {
    type Out;
    fn visit<F: Formatter>(self) -> Self::Out;
}

pub trait CacheModelVisitor {
    type Out;
    fn visit<C: CacheModel>(self) -> Self::Out;
}

pub trait HandleVisitor {
    type Out;
    fn visit<H: StringHandle>(self) -> Self::Out;
}

/// Declares a family's name list and its visitor dispatch from one list of types, so
/// the two cannot disagree. The first type is the family's dynatom reference.
macro_rules! family {
    ($(#[$doc:meta])* $list:ident, $visit:ident, $trait:ident, $visitor:ident, [$($t:ty),* $(,)?]) => {
        $(#[$doc])*
        pub const $list: &[&str] = &[$(<$t as $trait>::NAME),*];

        pub fn $visit<V: $visitor>(name: &str, v: V) -> Option<V::Out> {
            $(if name == <$t as $trait>::NAME {
                return Some(v.visit::<$t>());
            })*
            None
        }
    };
}

family!(
    /// Global / concurrent interners.
    GLOBAL, visit_global, GlobalInterner, GlobalVisitor,
    [global::DynatomGlobal, global::UstrPeer, global::StringCachePeer, global::InternmentPeer, global::ThreadedRodeoPeer]
);

family!(
    /// Global interners that never free an interned string, measured where that matters
    /// (churn, fill latency, memory) and left out of the suites where it would only add
    /// a row like ustr's.
    NEVER_FREE, visit_never_free, GlobalInterner, GlobalVisitor,
    [global::InternmentNeverFree]
);

/// Every global interner: [`GLOBAL`] (dynatom's first), then [`NEVER_FREE`].
pub fn all_global() -> Vec<&'static str> {
    GLOBAL.iter().chain(NEVER_FREE).copied().collect()
}

/// [`visit_global`] over [`all_global`].
pub fn visit_any_global<V: GlobalVisitor>(name: &str, v: V) -> Option<V::Out> {
    if NEVER_FREE.contains(&name) {
        visit_never_free(name, v)
    } else {
        visit_global(name, v)
    }
}

family!(
    /// Single-owner interners (dynatom's `AtomTable` and `Interner` first).
    LOCAL, visit_local, LocalInterner, LocalVisitor,
    [
        local::DynatomTable,
        local::DynatomInterner,
        local::RodeoPeer,
        local::SiString,
        local::SiBucket,
        local::SiBuffer,
        local::SymbolTablePeer,
        arena_map::ArenaMap,
    ]
);

family!(
    /// Interners shared by threads (dynatom's `SyncInterner` first).
    SHARED, visit_shared, SharedInterner, SharedVisitor,
    [dynatom::SyncInterner, lasso::ThreadedRodeo]
);

family!(
    /// Owned string handles (dynatom's `Str` first).
    HANDLES, visit_handle, StringHandle, HandleVisitor,
    [
        dynatom::Str,
        String,
        std::sync::Arc<str>,
        compact_str::CompactString,
        smol_str::SmolStr,
        arcstr::ArcStr,
        handles::HipStr,
        bytes::Bytes,
    ]
);

family!(
    /// Ways to hand an atom's text out as an owned string (dynatom's `Str::from(&atom)` first).
    TO_OWNED, visit_to_owned, AtomToOwned, AtomToOwnedVisitor,
    [to_owned::StrFromAtom, to_owned::CopyIntoString]
);

family!(
    /// Ways to make a path index's keys (dynatom's `Str` slices first).
    SUFFIX_KEYS, visit_suffix_keys, SuffixKeys, SuffixKeysVisitor,
    [suffix_keys::StrSlices, suffix_keys::StringCopies]
);

family!(
    /// Ways to append and finish (dynatom's `StrBuilder` first).
    APPENDERS, visit_appender, Appender, AppenderVisitor,
    [
        builders::BuilderFinish,
        builders::StringThenStr,
        builders::NaiveConcat,
        builders::PiecesToSink,
        builders::PiecesToPipe,
    ]
);

family!(
    /// Ways to format into a `Str` (dynatom's `str_format!` first).
    FORMATTERS, visit_formatter, Formatter, FormatterVisitor,
    [builders::StrFormat, builders::FormatThenStr]
);

family!(
    /// In-process models of the cache workload (dynatom's `Str` first).
    CACHE_MODELS, visit_cache_model, CacheModel, CacheModelVisitor,
    [cache_models::StrModel, cache_models::InternOnInsert, cache_models::LuaJitModel, cache_models::StringCopy]
);

#[cfg(test)]
mod tests {
    use super::*;

    /// A visitor that answers the visited adapter's name, for every family.
    struct NameOf;

    impl GlobalVisitor for NameOf {
        type Out = &'static str;
        fn visit<G: GlobalInterner>(self) -> &'static str {
            G::NAME
        }
    }
    impl LocalVisitor for NameOf {
        type Out = &'static str;
        fn visit<L: LocalInterner>(self) -> &'static str {
            L::NAME
        }
    }
    impl SharedVisitor for NameOf {
        type Out = &'static str;
        fn visit<S: SharedInterner>(self) -> &'static str {
            S::NAME
        }
    }
    impl HandleVisitor for NameOf {
        type Out = &'static str;
        fn visit<H: StringHandle>(self) -> &'static str {
            H::NAME
        }
    }
    impl AtomToOwnedVisitor for NameOf {
        type Out = &'static str;
        fn visit<A: AtomToOwned>(self) -> &'static str {
            A::NAME
        }
    }
    impl SuffixKeysVisitor for NameOf {
        type Out = &'static str;
        fn visit<S: SuffixKeys>(self) -> &'static str {
            S::NAME
        }
    }
    impl AppenderVisitor for NameOf {
        type Out = &'static str;
        fn visit<A: Appender>(self) -> &'static str {
            A::NAME
        }
    }
    impl FormatterVisitor for NameOf {
        type Out = &'static str;
        fn visit<F: Formatter>(self) -> &'static str {
            F::NAME
        }
    }
    impl CacheModelVisitor for NameOf {
        type Out = &'static str;
        fn visit<C: CacheModel>(self) -> &'static str {
            C::NAME
        }
    }
    impl maps::MapVisitor<dynatom::Atom> for NameOf {
        type Out = &'static str;
        fn visit<M: maps::MapPeer<dynatom::Atom>>(self) -> &'static str {
            M::NAME
        }
    }

    fn check(list: &[&str], visit: impl Fn(&str) -> Option<&'static str>) {
        let mut seen = std::collections::HashSet::new();
        for name in list {
            assert_eq!(visit(name), Some(*name), "{name} dispatches to another adapter");
            assert!(seen.insert(*name), "{name} listed twice");
        }
        assert_eq!(visit("no such peer"), None);
    }

    #[test]
    fn every_listed_name_dispatches_to_its_own_adapter() {
        check(GLOBAL, |n| visit_global(n, NameOf));
        check(NEVER_FREE, |n| visit_never_free(n, NameOf));
        check(&all_global(), |n| visit_any_global(n, NameOf));
        check(LOCAL, |n| visit_local(n, NameOf));
        check(SHARED, |n| visit_shared(n, NameOf));
        check(HANDLES, |n| visit_handle(n, NameOf));
        check(TO_OWNED, |n| visit_to_owned(n, NameOf));
        check(SUFFIX_KEYS, |n| visit_suffix_keys(n, NameOf));
        check(APPENDERS, |n| visit_appender(n, NameOf));
        check(FORMATTERS, |n| visit_formatter(n, NameOf));
        check(CACHE_MODELS, |n| visit_cache_model(n, NameOf));
        check(maps::MAPS, |n| maps::visit_map::<dynatom::Atom, _>(n, NameOf));
    }

    #[test]
    fn global_families_do_not_overlap_and_dynatom_comes_first() {
        assert!(GLOBAL.iter().all(|g| !NEVER_FREE.contains(g)));
        assert_eq!(all_global()[0], global::DynatomGlobal::NAME);
        assert_eq!(all_global().len(), GLOBAL.len() + NEVER_FREE.len());
    }

    #[test]
    fn adapters_of_one_family_agree_on_the_text() {
        let atom = dynatom::Atom::from("a text longer than the inline limit");
        assert_eq!(to_owned::StrFromAtom::text(&to_owned::StrFromAtom::to_owned(&atom)), atom.as_str());
        assert_eq!(to_owned::CopyIntoString::text(&to_owned::CopyIntoString::to_owned(&atom)), atom.as_str());
        let path = "/usr/lib/ruby/net/http.rb";
        let slices = suffix_keys::StrSlices::path(path);
        let copies = suffix_keys::StringCopies::path(path);
        for range in [0..path.len(), 5..path.len() - 3, 14..18] {
            let a = suffix_keys::StrSlices::key(&slices, range.clone());
            let b = suffix_keys::StringCopies::key(&copies, range.clone());
            assert_eq!(suffix_keys::StrSlices::key_text(&a), &path[range.clone()]);
            assert_eq!(suffix_keys::StringCopies::key_text(&b), &path[range]);
        }
        for n in [0, 9, 123_456_789] {
            assert_eq!(builders::StrFormat::small(n), builders::FormatThenStr::small(n));
            assert_eq!(builders::StrFormat::large(n, "x"), builders::FormatThenStr::large(n, "x"));
        }
    }
}
