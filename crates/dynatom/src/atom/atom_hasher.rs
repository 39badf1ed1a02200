//! [`BuildAtomHasher`]: std's `HashMap` and `HashSet` keyed by atoms, hashing nothing again.

use std::hash::{BuildHasher, Hasher};

/// A [`BuildHasher`] for `HashMap<Atom, V>`, `HashSet<Atom>` (and their [`ByteAtom`]
/// twins, or hashbrown's maps): an atom's [`Hash`](std::hash::Hash) writes its cached hash
/// ([`Atom::hash64`]), and this hasher hands that hash to the map as it is, where std's
/// default hasher would run SipHash over it.
///
/// The cached hash is already a keyed, well-mixed 64-bit hash: the table's seeded hash of
/// the text for atoms in a table, a mix of the word under a random per-process seed for
/// atoms of up to 7 bytes. So a map keyed by atoms needs no second hash, and no one can
/// compute colliding keys offline.
///
/// Keys that are not one atom still work: every `write` after the first, and any `write`
/// of bytes or other integers, is folded in with a multiply. Such keys (a pair of atoms,
/// an atom and an index) get a reasonable hash, not a keyed one; key maps by atoms alone
/// where the keys come from an adversary.
///
/// [`ByteAtom`]: crate::ByteAtom
/// [`Atom::hash64`]: crate::Atom::hash64
///
/// ```
/// use std::collections::HashMap;
/// use dynatom::{Atom, BuildAtomHasher};
///
/// let mut counts: HashMap<Atom, u32, BuildAtomHasher> = HashMap::default();
/// for word in "the cat saw the other cat".split(' ') {
///     *counts.entry(Atom::from(word)).or_insert(0) += 1;
/// }
/// assert_eq!(counts[&Atom::from("cat")], 2);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct BuildAtomHasher;

impl BuildHasher for BuildAtomHasher {
    type Hasher = AtomHasher;

    #[inline]
    fn build_hasher(&self) -> AtomHasher {
        AtomHasher::default()
    }
}

/// The [`Hasher`] of [`BuildAtomHasher`]: the first 64-bit word written is the hash;
/// anything more is folded in.
///
/// ```
/// use std::hash::{BuildHasher, Hasher};
/// use dynatom::{Atom, BuildAtomHasher};
///
/// let atom = Atom::from("a key of some length");
/// assert_eq!(BuildAtomHasher.hash_one(&atom), atom.hash64());
/// ```
#[derive(Clone, Debug, Default)]
pub struct AtomHasher {
    hash: u64,
    words: u64,
}

impl AtomHasher {
    /// An odd constant with well-spread bits (2⁶⁴ / φ) for folding extra words in.
    const FOLD: u64 = 0x9E37_79B9_7F4A_7C15;

    #[inline]
    fn fold(&mut self, word: u64) {
        self.hash = if self.words == 0 { word } else { (self.hash.rotate_left(23) ^ word).wrapping_mul(Self::FOLD) };
        self.words += 1;
    }
}

impl Hasher for AtomHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }

    #[inline]
    fn write_u64(&mut self, word: u64) {
        self.fold(word);
    }

    /// Bytes (a key that is not an atom, or a length prefix) are folded in eight at a time,
    /// after a first fold that keeps a lone byte string from passing through unmixed.
    fn write(&mut self, bytes: &[u8]) {
        if self.words == 0 {
            self.fold(Self::FOLD);
        }
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.fold(u64::from_le_bytes(word) ^ chunk.len() as u64);
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        if self.words == 0 {
            self.fold(Self::FOLD);
        }
        self.fold(n as u64);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::atom::Atom;
    use crate::atom::byte_atom::ByteAtom;
    use std::collections::{HashMap, HashSet};

    #[test]
    fn an_atom_hashes_to_its_cached_hash() {
        for text in ["", "seven!!", "a heap atom, filed in the global table"] {
            let atom = Atom::new(text);
            assert_eq!(BuildAtomHasher.hash_one(&atom), atom.hash64());
            assert_eq!(BuildAtomHasher.hash_one(ByteAtom::from(atom.clone())), atom.hash64());
        }
    }

    #[test]
    fn maps_and_sets_of_atoms_work() {
        let atoms: Vec<Atom> = (0..2000).map(|i| Atom::new(&format!("key number {i}"))).collect();
        let mut map: HashMap<Atom, usize, BuildAtomHasher> = HashMap::default();
        for (i, atom) in atoms.iter().enumerate() {
            map.insert(atom.clone(), i);
        }
        for (i, atom) in atoms.iter().enumerate() {
            assert_eq!(map[&Atom::new(&format!("key number {i}"))], i);
            assert_eq!(map.get(atom), Some(&i));
        }
        let set: HashSet<Atom, BuildAtomHasher> = atoms.iter().cloned().collect();
        assert_eq!(set.len(), 2000);
    }

    #[test]
    fn other_keys_are_mixed_not_passed_through() {
        let pair = (Atom::new("left side of a pair"), Atom::new("right side of a pair"));
        let swapped = (pair.1.clone(), pair.0.clone());
        assert_ne!(BuildAtomHasher.hash_one(&pair), BuildAtomHasher.hash_one(&swapped));
        assert_ne!(BuildAtomHasher.hash_one(&pair), pair.0.hash64());
        assert_ne!(BuildAtomHasher.hash_one("ab"), BuildAtomHasher.hash_one("ba"));
        assert_ne!(BuildAtomHasher.hash_one(1u32), BuildAtomHasher.hash_one(2u32));
        let strings: HashSet<u64> = (0..1000).map(|i| BuildAtomHasher.hash_one(format!("s{i}"))).collect();
        assert_eq!(strings.len(), 1000);
    }
}
