//! [`AtomMapKey`]: what [`AtomMap`](super::AtomMap)'s lookups accept, so that an atom
//! goes the atom path and text the text path, whichever the caller writes.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use super::stats;
use crate::atom::Atom;
use crate::str::Str;

mod sealed {
    pub trait Sealed {}
}

/// A key [`AtomMap`](super::AtomMap) can be searched by: an [`Atom`] (no table lookup,
/// no text byte read) or text (`str`, `String`, [`Str`], ...: one lookup in the global
/// atom table, and `None` at once if the text has no atom).
///
/// Without it, `map.get(&atom)` would deref the atom to its `&str` and silently take the
/// slower text path. Sealed: the set of key types is this crate's to choose.
///
/// ```
/// use dynatom::{Atom, AtomMap, Str};
///
/// let key = Atom::from("a key held as an atom");
/// let map: AtomMap<u8> = [(key.clone(), 1)].into_iter().collect();
/// assert_eq!(map.get(&key), Some(&1)); // the atom path
/// assert_eq!(map.get("a key held as an atom"), Some(&1)); // the text path
/// assert_eq!(map.get(&String::from("a key held as an atom")), Some(&1));
/// assert_eq!(map.get(&Str::from("a key held as an atom")), Some(&1));
/// ```
pub trait AtomMapKey: sealed::Sealed {
    /// The global atom for this key, if one is alive.
    ///
    /// ```
    /// use dynatom::small_map::AtomMapKey;
    /// use dynatom::Atom;
    ///
    /// let atom = Atom::from("looked up by its own atom");
    /// assert_eq!(atom.find_atom().as_deref(), Some(&atom));
    /// assert!("text no one has interned, ever".find_atom().is_none());
    /// ```
    fn find_atom(&self) -> Option<Cow<'_, Atom>>;
}

impl sealed::Sealed for Atom {}

impl AtomMapKey for Atom {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        Some(Cow::Borrowed(self))
    }
}

impl sealed::Sealed for str {}

impl AtomMapKey for str {
    /// One lookup in the global table; counts the misses (`stats` feature).
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        let atom = Atom::lookup(self);
        if atom.is_none() {
            stats::unknown_text();
        }
        atom.map(Cow::Owned)
    }
}

impl sealed::Sealed for Str {}

impl AtomMapKey for Str {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        self.as_str().find_atom()
    }
}

macro_rules! text_keys {
    ($($ty:ty),*) => {$(
        impl sealed::Sealed for $ty {}
        impl AtomMapKey for $ty {
            #[inline]
            fn find_atom(&self) -> Option<Cow<'_, Atom>> {
                str::find_atom(self)
            }
        }
    )*};
}

text_keys!(String, Box<str>, Rc<str>, Arc<str>, Cow<'_, str>);

impl<T: AtomMapKey + ?Sized> sealed::Sealed for &T {}

impl<T: AtomMapKey + ?Sized> AtomMapKey for &T {
    #[inline]
    fn find_atom(&self) -> Option<Cow<'_, Atom>> {
        T::find_atom(self)
    }
}
