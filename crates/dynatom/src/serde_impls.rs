//! `serde` support: [`Str`] and [`Atom`] travel as plain strings.

use serde::de::{Deserialize, Deserializer, Error, Visitor};
use serde::ser::{Serialize, Serializer};
use std::fmt;

use crate::{Atom, Str};

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
}
