//! serde support (feature `serde`): interners serialise as the sequence of their
//! strings in symbol order, so reading one back gives every string its old symbol;
//! a `Symbol` serialises as its `u32` index.

use std::fmt;

use serde::de::{Error, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{Interner, Resolver, Symbol, SyncInterner};

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Symbol {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.index_u32())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Symbol {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Symbol, D::Error> {
        let i = u32::deserialize(d)?;
        Symbol::from_usize(i as usize).ok_or_else(|| D::Error::custom("symbol index out of range"))
    }
}

fn serialize_strs<'a, S: Serializer>(
    len: usize,
    it: impl Iterator<Item = (Symbol, &'a str)>,
    s: S,
) -> Result<S::Ok, S::Error> {
    let mut seq = s.serialize_seq(Some(len))?;
    for (_, text) in it {
        seq.serialize_element(text)?;
    }
    seq.end()
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Interner {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_strs(self.len(), self.iter(), s)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for SyncInterner {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let it = self.iter();
        serialize_strs(it.len(), it, s)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Resolver {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serialize_strs(self.len(), self.iter(), s)
    }
}

/// Reads a sequence of distinct strings, interning each with `add` (which
/// returns the symbol it got); a repeat would renumber, so it is an error.
struct StrsVisitor<F>(F);

impl<'de, F> Visitor<'de> for StrsVisitor<F>
where
    F: FnMut(&str, usize) -> Result<Symbol, String>,
{
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a sequence of distinct strings")
    }

    fn visit_seq<A: SeqAccess<'de>>(mut self, mut seq: A) -> Result<(), A::Error> {
        let mut n = 0;
        while let Some(text) = seq.next_element::<std::borrow::Cow<'de, str>>()? {
            let sym = (self.0)(&text, n).map_err(A::Error::custom)?;
            if sym.to_usize() != n {
                return Err(A::Error::custom(format!("duplicate interned string {text:?} at position {n}")));
            }
            n += 1;
        }
        Ok(())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Interner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Interner, D::Error> {
        let mut interner = Interner::new();
        d.deserialize_seq(StrsVisitor(|s: &str, _| interner.try_intern(s).map_err(|e| e.to_string())))?;
        Ok(interner)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for SyncInterner {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<SyncInterner, D::Error> {
        let interner = SyncInterner::new();
        d.deserialize_seq(StrsVisitor(|s: &str, _| interner.try_intern(s).map_err(|e| e.to_string())))?;
        Ok(interner)
    }
}
