//! The atoms of declared static sets, however the sets came: declared at compile time
//! with `static_atoms!` (the `static-atoms` feature) or registered
//! at run time with [`AtomTable::register_static_set`](crate::AtomTable::register_static_set).
//! Kept apart from `static_set.rs` so that it is built without that feature: the C ABI
//! registers its sets at run time and needs no proc macro.

use super::Atom;
use super::byte_atom::ByteAtom;
use crate::repr::atom_word::AtomWord;
use crate::repr::declared::{self, StaticText};

impl Atom {
    /// Whether this atom was declared in a static set (texts of up to 7 bytes are atoms by
    /// value whether declared or not, so this says `false` for them).
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable, StaticText};
    ///
    /// static TEXTS: [StaticText; 1] = [StaticText::new("ETAG", b"etag, a declared header")];
    /// AtomTable::register_static_set("headers for Atom::is_declared", &TEXTS).unwrap();
    /// assert!(Atom::from("etag, a declared header").is_declared());
    /// assert!(!Atom::from("x-not-declared-anywhere").is_declared());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_declared(&self) -> bool {
        self.word().is_declared_key()
    }
}

/// The texts of every registered set named `set` (usually one), in declaration order.
fn texts_of_sets_named(set: &str) -> impl Iterator<Item = StaticText> + '_ {
    declared::sets_named(set).flat_map(|declared| declared.texts).copied()
}

impl ByteAtom {
    /// Whether this atom was declared in a static set (as [`Atom::is_declared`]).
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteAtom, StaticText};
    ///
    /// static TEXTS: [StaticText; 1] = [StaticText::new("ETAG", b"etag, a declared byte header")];
    /// AtomTable::register_static_set("headers for ByteAtom::is_declared", &TEXTS).unwrap();
    /// assert!(ByteAtom::new(b"etag, a declared byte header").is_declared());
    /// assert!(!ByteAtom::new(b"x-not-declared-anywhere").is_declared());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_declared(&self) -> bool {
        self.word().is_declared_key()
    }

    /// The static atom named `name` in the registered set `set` (a
    /// `static_atoms!` module's name and item, or a set registered
    /// with [`AtomTable::register_static_set`](crate::AtomTable::register_static_set)),
    /// for bindings that know sets by name. It walks the registered sets: keep the atom.
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteAtom, StaticText};
    ///
    /// static MIME: [StaticText; 1] = [StaticText::new("JSON", b"application/json")];
    /// AtomTable::register_static_set("mime by name", &MIME).unwrap();
    /// assert_eq!(ByteAtom::from_static_name("mime by name", "JSON"), Some(ByteAtom::new(b"application/json")));
    /// assert_eq!(ByteAtom::from_static_name("mime by name", "XML"), None);
    /// ```
    ///
    /// With the `static-atoms` feature, a `static_atoms!` module is
    /// a set of its name:
    ///
    /// ```
    /// # #[cfg(feature = "static-atoms")] {
    /// dynatom::static_atoms! { mod mime { JSON = "application/json" } }
    /// assert_eq!(dynatom::ByteAtom::from_static_name("mime", "JSON"), Some(mime::bytes::JSON));
    /// # }
    /// ```
    #[must_use]
    pub fn from_static_name(set: &str, name: &str) -> Option<ByteAtom> {
        let text = texts_of_sets_named(set).find(|text| text.name() == name)?;
        Some(ByteAtom::from_word(AtomWord::from_declared_bits(text.bits())))
    }

    /// The static atom of `bytes` if the registered set `set` declares them; never
    /// interns (as [`from_static_name`](Self::from_static_name), by text).
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteAtom, StaticText};
    ///
    /// static MIME: [StaticText; 1] = [StaticText::new("JSON", b"application/json")];
    /// AtomTable::register_static_set("mime by text", &MIME).unwrap();
    /// let json = ByteAtom::from_static_text("mime by text", b"application/json");
    /// assert_eq!(json, Some(ByteAtom::new(b"application/json")));
    /// assert_eq!(ByteAtom::from_static_text("mime by text", b"text/plain"), None);
    /// ```
    #[must_use]
    pub fn from_static_text(set: &str, bytes: &[u8]) -> Option<ByteAtom> {
        let text = texts_of_sets_named(set).find(|text| text.bytes() == bytes)?;
        Some(ByteAtom::from_word(AtomWord::from_declared_bits(text.bits())))
    }
}
