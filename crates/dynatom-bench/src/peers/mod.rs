//! One adapter per peer behind a small trait per family, and a visitor per family so a
//! suite's generic code can run "the peer named X". Adding a peer = one adapter, one
//! entry in the family's name list, one match arm.

pub mod arena_map;
pub mod global;
pub mod handles;
pub mod local;
pub mod shared;

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
