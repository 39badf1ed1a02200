//! Adapters for the keys of the `substrings` suite's loaded-features index: `Str` slices
//! of the one path (O(1), no allocation) against `String` copies of each suffix.

use super::SuffixKeys;
use dynatom::Str;
use std::ops::Range;

/// Keys are `Str` slices sharing the path's buffer.
pub struct StrSlices;

impl SuffixKeys for StrSlices {
    type Path = Str;
    type Key = Str;
    const NAME: &'static str = "Str slices (dynatom)";
    #[inline]
    fn path(text: &str) -> Str {
        Str::from(text)
    }
    #[inline]
    fn key(path: &Str, range: Range<usize>) -> Str {
        path.slice(range)
    }
    #[inline]
    fn key_text(key: &Str) -> &str {
        key.as_str()
    }
}

/// Keys are `String` copies of each suffix.
pub struct StringCopies;

impl SuffixKeys for StringCopies {
    type Path = String;
    type Key = String;
    const NAME: &'static str = "String copies";
    #[inline]
    fn path(text: &str) -> String {
        String::from(text)
    }
    #[inline]
    fn key(path: &String, range: Range<usize>) -> String {
        path[range].to_string()
    }
    #[inline]
    fn key_text(key: &String) -> &str {
        key
    }
}
