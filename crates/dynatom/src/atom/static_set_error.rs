//! [`StaticSetError`]: why a static set was not registered at run time. A file of its own,
//! below both the sets and the table that registers them.

use std::fmt;

use crate::repr::declared::DeclareError;

/// Why a static set could not be registered at run time (see
/// [`AtomTable::register_static_set`](crate::AtomTable::register_static_set)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaticSetError(pub(crate) DeclareError);

impl fmt::Display for StaticSetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for StaticSetError {}

impl StaticSetError {
    /// Whether the set was refused because an ordinary atom of one of its texts, made
    /// before the set was registered, is still in use (in the global table or a table
    /// made with [`AtomTable::new`](crate::AtomTable::new) or `with_seed`). Nothing was
    /// registered; unused atoms of its texts were evicted. Once that atom is dropped the
    /// same set registers, unless it is permanent (see
    /// [`is_interned_permanently`](Self::is_interned_permanently)).
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteAtom, StaticText};
    ///
    /// let early = ByteAtom::new(b"interned before its set, in a doctest");
    /// static TEXTS: [StaticText; 1] = [StaticText::new("EARLY", b"interned before its set, in a doctest")];
    /// let err = AtomTable::register_static_set("early", &TEXTS).unwrap_err();
    /// assert!(err.is_interned_before());
    /// assert!(!ByteAtom::new(b"interned before its set, in a doctest").is_declared(), "nothing registered");
    /// drop(early);
    /// AtomTable::register_static_set("early", &TEXTS).unwrap();
    /// assert!(ByteAtom::new(b"interned before its set, in a doctest").is_declared());
    /// ```
    #[must_use]
    pub fn is_interned_before(&self) -> bool {
        matches!(self.0, DeclareError::InternedBefore { .. })
    }

    /// Whether the atom in use that refused the set (see
    /// [`is_interned_before`](Self::is_interned_before)) is permanent: made so by
    /// [`Atom::make_permanent`](crate::Atom::make_permanent), or by the global table when
    /// threads contended on it or it kept coming back from unused. It stays in use for the
    /// life of the process, so trying again cannot succeed. A program that registers sets
    /// while its texts may already be interned turns automatic promotion off first
    /// ([`AtomTable::set_permanent_on_contention`](crate::AtomTable::set_permanent_on_contention),
    /// [`AtomTable::set_permanent_on_reuse`](crate::AtomTable::set_permanent_on_reuse)).
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable, StaticText};
    ///
    /// let hot = Atom::from("made permanent before its set, in a doctest");
    /// assert!(hot.make_permanent());
    /// drop(hot);
    /// static TEXTS: [StaticText; 1] = [StaticText::new("HOT", b"made permanent before its set, in a doctest")];
    /// let err = AtomTable::register_static_set("too late", &TEXTS).unwrap_err();
    /// assert!(err.is_interned_before() && err.is_interned_permanently());
    /// ```
    #[must_use]
    pub fn is_interned_permanently(&self) -> bool {
        matches!(self.0, DeclareError::InternedBefore { permanent: true, .. })
    }

    /// Whether the set was refused because another set, with other texts, is registered
    /// under its name. Nothing was registered.
    ///
    /// ```
    /// use dynatom::{AtomTable, StaticText};
    ///
    /// static FIRST: [StaticText; 1] = [StaticText::new("A", b"the first set's text")];
    /// static OTHER: [StaticText; 1] = [StaticText::new("B", b"another set's text")];
    /// AtomTable::register_static_set("taken name", &FIRST).unwrap();
    /// assert!(AtomTable::register_static_set("taken name", &OTHER).unwrap_err().is_name_taken());
    /// ```
    #[must_use]
    pub fn is_name_taken(&self) -> bool {
        matches!(self.0, DeclareError::NameTaken { .. })
    }
}
