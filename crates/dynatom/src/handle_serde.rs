//! `serde` support: [`Str`] and [`Atom`] travel as plain strings, [`ByteStr`] and
//! [`ByteAtom`] as byte strings (formats without one, such as JSON, use a sequence of
//! numbers; a string is accepted too).

use serde::de::{Deserialize, Deserializer, Error, SeqAccess, Visitor};
use serde::ser::{Serialize, Serializer};
use std::fmt;

use crate::{Atom, ByteAtom, ByteStr, ByteStrBuilder, Str};

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Str {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl Serialize for Atom {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

struct StrVisitor;

impl Visitor<'_> for StrVisitor {
    type Value = Str;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: Error>(self, text: &str) -> Result<Str, E> {
        Str::try_from_str(text).map_err(E::custom)
    }

    fn visit_string<E: Error>(self, text: String) -> Result<Str, E> {
        self.visit_str(&text)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Str {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Str, D::Error> {
        deserializer.deserialize_str(StrVisitor)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "serde")))]
impl<'de> Deserialize<'de> for Atom {
    /// Reads a string and interns it in the global table (adopting the fresh buffer).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Atom, D::Error> {
        let s = deserializer.deserialize_str(StrVisitor)?;
        s.try_intern().map_err(D::Error::custom)
    }
}

impl Serialize for ByteStr {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.as_bytes())
    }
}

impl Serialize for ByteAtom {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.as_bytes())
    }
}

struct ByteStrVisitor;

impl<'de> Visitor<'de> for ByteStrVisitor {
    type Value = ByteStr;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a byte string")
    }

    fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<ByteStr, E> {
        ByteStr::try_copy_from_slice(bytes).map_err(E::custom)
    }

    fn visit_str<E: Error>(self, text: &str) -> Result<ByteStr, E> {
        self.visit_bytes(text.as_bytes())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ByteStr, A::Error> {
        let mut builder = ByteStrBuilder::new();
        while let Some(byte) = seq.next_element::<u8>()? {
            builder.try_push_bytes(&[byte]).map_err(A::Error::custom)?;
        }
        builder.try_finish().map_err(A::Error::custom)
    }
}

impl<'de> Deserialize<'de> for ByteStr {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ByteStr, D::Error> {
        deserializer.deserialize_byte_buf(ByteStrVisitor)
    }
}

impl<'de> Deserialize<'de> for ByteAtom {
    /// Reads a byte string and interns it in the global table (adopting the fresh buffer).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ByteAtom, D::Error> {
        let s = deserializer.deserialize_byte_buf(ByteStrVisitor)?;
        s.try_intern().map_err(D::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_as_plain_strings() {
        let s = Str::from("a string that travels through JSON");
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "\"a string that travels through JSON\"");
        assert_eq!(serde_json::from_str::<Str>(&json).unwrap(), s);
        let atom = Atom::from("an atom that travels through JSON");
        let json = serde_json::to_string(&atom).unwrap();
        assert_eq!(serde_json::from_str::<Atom>(&json).unwrap(), atom);
    }

    #[test]
    fn byte_strings_round_trip_as_bytes() {
        let s = ByteStr::from(&b"bytes \xff that are not text"[..]);
        let json = serde_json::to_string(&s).unwrap();
        assert!(json.starts_with("[98,121,116"), "{json}");
        assert_eq!(serde_json::from_str::<ByteStr>(&json).unwrap(), s);
        assert_eq!(serde_json::from_str::<ByteStr>("\"text\"").unwrap(), b"text"[..]);
        let atom = ByteAtom::new(b"an atom \xfe of bytes");
        let json = serde_json::to_string(&atom).unwrap();
        assert_eq!(serde_json::from_str::<ByteAtom>(&json).unwrap(), atom);
    }
}
