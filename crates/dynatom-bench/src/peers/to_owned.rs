//! Adapters for handing an atom's text out as an owned string (the `atom-to-string`
//! suite): dynatom's `Str::from(&atom)` against a copy into a `String`.

use super::AtomToOwned;
use dynatom::Atom;

/// `Str::from(&atom)`: the atom's own buffer as a `Str` (a count increment, no copy).
pub struct StrFromAtom;

impl AtomToOwned for StrFromAtom {
    type Owned = dynatom::Str;
    const NAME: &'static str = "Str::from(&atom)";
    #[inline]
    fn to_owned(atom: &Atom) -> dynatom::Str {
        dynatom::Str::from(atom)
    }
    #[inline]
    fn text(owned: &dynatom::Str) -> &str {
        owned.as_str()
    }
}

/// What a caller without a shared handle does: copy the text into a fresh `String`.
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
