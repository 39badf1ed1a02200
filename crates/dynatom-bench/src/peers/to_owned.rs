//! Adapters for handing an atom's text out as an owned string (the `atom-to-string`
//! suite): dynatom's `Atom::to_str` against a copy into a `String`.

use super::AtomToOwned;
use dynatom::Atom;

/// `Str::from(&atom)` (reported under its old name `Atom::to_str`): the atom's own buffer as a `Str` (a count increment, no copy).
pub struct ToStr;

impl AtomToOwned for ToStr {
    type Owned = dynatom::Str;
    const NAME: &'static str = "Atom::to_str";
    #[inline]
    fn to_owned(atom: &Atom) -> dynatom::Str {
        dynatom::Str::from(atom)
    }
    #[inline]
    fn text(owned: &dynatom::Str) -> &str {
        owned.as_str()
    }
}

/// What a caller without `to_str` does: copy the text into a fresh `String`.
pub struct CopyIntoString;

impl AtomToOwned for CopyIntoString {
    type Owned = String;
    const NAME: &'static str = "copy into String";
    #[inline]
    fn to_owned(atom: &Atom) -> String {
        String::from(atom.as_str())
    }
    #[inline]
    fn text(owned: &String) -> &str {
        owned
    }
}
