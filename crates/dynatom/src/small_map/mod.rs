//! Maps for the many small tables keyed by strings: [`SmallMap`] with one-byte hash
//! hints, and [`AtomMap`], which interns its keys on insert.
//!
//! Most tables a program builds hold a handful of entries (options, headers, object
//! fields). Ruby's Feature #15602 keeps, for hashes of up to 8 entries, one byte of each
//! key's hash in a single word next to the entries: a lookup checks the eight bytes at
//! once and touches entries only on a match, which cut small hashes from 192 to 128
//! bytes at equal speed. [`SmallMap`] does the same for any [`HintKey`]: with
//! [`Atom`](crate::Atom) keys the hint comes from the atom's hash (a mix of its word, or
//! the hash cached in its header) and the key compare is that word, so no text byte is
//! read at all.
//!
//! ```
//! use dynatom::{Atom, AtomMap, SmallMap};
//!
//! // Atom keys: hash cached, compare by one word.
//! let mut fields: SmallMap<Atom, i64> = SmallMap::new();
//! fields.insert(Atom::from("x"), 3);
//! fields.insert(Atom::from("y"), 4);
//! assert_eq!(fields[&Atom::from("y")], 4);
//!
//! // Or let the map intern text keys itself.
//! let mut point = AtomMap::new();
//! point.insert("x", 3);
//! assert_eq!(point.get("x"), Some(&3));
//! ```
//!
//! With the `stats` feature, [`SmallMapStats`] counts hint hits, false matches and
//! not-found lookups per thread; without it they cost nothing. With `serde`, both maps
//! serialize as maps in insertion order.

mod atom_key;
mod atom_map;
mod entry;
mod hint;
mod iter;
mod key;
mod large;
mod map;
#[cfg(feature = "serde")]
mod map_serde;
mod map_traits;
mod retain;
mod small;
mod stats;
mod std_keys;

pub use atom_key::{AtomMapKey, IntoAtomKey};
pub use atom_map::AtomMap;
pub use entry::{Entry, OccupiedEntry, VacantEntry};
pub use hint::Hint;
pub use iter::{IntoIter, Iter, IterMut, Keys, Values, ValuesMut};
pub use key::HintKey;
pub use map::SmallMap;
pub use stats::SmallMapStats;
pub use std_keys::Hashed;
