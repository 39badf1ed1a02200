//! [`HintKey`] for keys that are not strings: the standard integer types, `char`, `bool`,
//! [`Symbol`], pairs and triples of keys, and [`Hashed`], the way in for any other
//! `Hash + Eq` type (the orphan rule keeps users from implementing `HintKey` for types
//! they do not own).
//!
//! There is no blanket `impl<T: Hash + Eq> HintKey for T`: it would overlap the string
//! impls, whose hash must agree with [`Str::hash64`](crate::Str::hash64) so that a
//! `SmallMap<Str, V>` can be searched by `&str`.

use std::hash::{BuildHasher, Hash};

use super::key::HintKey;
use crate::hash::{hash_word, word_seed as seed};
#[cfg(feature = "interner")]
use crate::interner::Symbol;

/// Integers that fit in a word hash as that word: one folded multiply.
macro_rules! hint_key_as_word {
    ($($ty:ty),*) => {$(
        impl HintKey for $ty {
            #[inline]
            fn key_hash(&self) -> u64 {
                hash_word(*self as u64, seed())
            }
        }
    )*};
}

hint_key_as_word!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

impl HintKey for u128 {
    #[inline]
    fn key_hash(&self) -> u64 {
        hash_word((*self >> 64) as u64 ^ hash_word(*self as u64, seed()), seed())
    }
}

impl HintKey for i128 {
    #[inline]
    fn key_hash(&self) -> u64 {
        (*self as u128).key_hash()
    }
}

impl HintKey for char {
    #[inline]
    fn key_hash(&self) -> u64 {
        u32::from(*self).key_hash()
    }
}

impl HintKey for bool {
    #[inline]
    fn key_hash(&self) -> u64 {
        u8::from(*self).key_hash()
    }
}

#[cfg(feature = "interner")]
impl HintKey for Symbol {
    #[inline]
    fn key_hash(&self) -> u64 {
        u32::from(*self).key_hash()
    }
}

impl<A: HintKey, B: HintKey> HintKey for (A, B) {
    #[inline]
    fn key_hash(&self) -> u64 {
        hash_word(self.0.key_hash() ^ self.1.key_hash().rotate_left(29), seed())
    }
}

impl<A: HintKey, B: HintKey, C: HintKey> HintKey for (A, B, C) {
    #[inline]
    fn key_hash(&self) -> u64 {
        let first_two = (&self.0, &self.1).key_hash();
        hash_word(first_two ^ self.2.key_hash().rotate_left(29), seed())
    }
}

/// A key of any `Hash + Eq` type, hashed with its own [`Hash`] impl (foldhash under a
/// random per-process seed): the way to use a type from another crate, which the orphan
/// rule keeps you from implementing [`HintKey`] for, as a [`SmallMap`](crate::SmallMap)
/// key. Look it up by wrapping the key too.
///
/// ```
/// use dynatom::small_map::Hashed;
/// use dynatom::SmallMap;
/// use std::net::Ipv4Addr;
///
/// let mut hosts = SmallMap::new();
/// hosts.insert(Hashed(Ipv4Addr::LOCALHOST), "localhost");
/// assert_eq!(hosts.get(&Hashed(Ipv4Addr::LOCALHOST)), Some(&"localhost"));
/// assert_eq!(hosts.get(&Hashed(Ipv4Addr::BROADCAST)), None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hashed<K>(pub K);

impl<K: Hash + Eq> HintKey for Hashed<K> {
    #[inline]
    fn key_hash(&self) -> u64 {
        foldhash::fast::FixedState::with_seed(seed()).hash_one(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_keys_hash_alike_and_neighbours_differ_in_the_hint() {
        assert_eq!(7u32.key_hash(), 7u32.key_hash());
        assert_eq!((1u8, 'x').key_hash(), (1u8, 'x').key_hash());
        assert_eq!(Hashed("text").key_hash(), Hashed("text").key_hash());
        // Consecutive integers must not share their top seven bits (the small form's
        // hint) all the time, or every lookup would compare every key.
        let hints: std::collections::HashSet<u64> = (0u64..64).map(|n| n.key_hash() >> 57).collect();
        assert!(hints.len() > 16, "{} distinct hints for 64 consecutive integers", hints.len());
    }
}
