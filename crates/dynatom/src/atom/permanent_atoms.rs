//! Permanent atoms, as users see them: atoms whose clones and drops write nothing (see
//! `table/permanent.rs` for when the global table makes one, and its budget).

use super::Atom;
use super::byte_atom::ByteAtom;
use super::table::AtomTable;

impl Atom {
    /// Makes this atom permanent, if it is the global table's and the table's budget for
    /// permanent atoms allows: from then on its clones, drops and interning hits write
    /// nothing to shared memory (no count to update), and the atom is never freed. Says
    /// whether the atom is permanent now.
    ///
    /// Atoms of up to 7 bytes, declared and static atoms are permanent already. The global
    /// table also makes an atom permanent by itself when two threads raise its count at
    /// the same moment, and when it keeps going unused and coming back (see
    /// [`AtomTable::set_permanent_on_reuse`]). Permanent atoms' headers and characters are kept under
    /// `max(1 MiB, in-use bytes / 8)`; beyond that this returns `false`. Atoms of tables
    /// made with [`AtomTable::new`] or [`AtomTable::with_seed`] are never permanent: such
    /// a table can be dropped, and its atoms with it.
    ///
    /// ```
    /// use dynatom::{Atom, AtomTable};
    ///
    /// let keyword = Atom::from("a keyword every thread looks up");
    /// assert!(keyword.make_permanent());
    /// assert!(keyword.is_permanent());
    /// let local = AtomTable::new().intern("an atom of a table that can go away");
    /// assert!(!local.make_permanent());
    /// ```
    #[must_use = "it says whether the atom became permanent"]
    pub fn make_permanent(&self) -> bool {
        AtomTable::make_word_permanent(self.word())
    }

    /// Whether this atom's handles stop counting (see [`Atom::make_permanent`]).
    ///
    /// ```
    /// use dynatom::Atom;
    ///
    /// assert!(Atom::from("short").is_permanent(), "7 bytes or fewer: a value");
    /// assert!(!Atom::from("an ordinary atom, counted").is_permanent());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_permanent(&self) -> bool {
        self.word().is_permanent()
    }
}

impl ByteAtom {
    /// Makes this atom permanent (as [`Atom::make_permanent`]).
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// let tag = ByteAtom::new(b"\xff a byte atom made permanent");
    /// assert!(tag.make_permanent());
    /// ```
    #[must_use = "it says whether the atom became permanent"]
    pub fn make_permanent(&self) -> bool {
        AtomTable::make_word_permanent(self.word())
    }

    /// Whether this atom's handles stop counting (as [`Atom::is_permanent`]).
    ///
    /// ```
    /// use dynatom::ByteAtom;
    ///
    /// assert!(!ByteAtom::new(b"an ordinary byte atom").is_permanent());
    /// ```
    #[must_use]
    #[inline]
    pub fn is_permanent(&self) -> bool {
        self.word().is_permanent()
    }
}
