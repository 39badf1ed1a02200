//! Allocation-free access to a [`Str`]: bytes, chars, and `Str` sub-strings that share
//! the buffer.
//!
//! `Str` derefs to `str`, so every `str` method that returns an index, a `bool`, a
//! `char` or a borrowed `&str` is already free (`find`, `starts_with`, `chars`,
//! `char_indices`, `bytes`, ...). What `str` cannot give is an **owned** sub-string
//! without a copy; the methods here do, and are named after their `str` counterparts
//! with a `_str` suffix (`trim` gives `&str`, `trim_str` gives [`Str`]), so the deref'd
//! methods keep their usual meaning.
//!
//! Every `Str` these methods return is made in O(1) without allocating: up to 15 bytes
//! are stored inline, anything longer shares the parent's buffer. Unlike
//! [`Str::slice`], they never copy a small piece out of a big buffer, so a piece keeps
//! its whole parent buffer alive; `Str::from(piece.as_str())` detaches one.
//!
//! ```
//! use dynatom::Str;
//!
//! let request = Str::from("GET /index.html HTTP/1.1\r\nHost: example.com\r\n");
//! // Free through deref: indices, bools, chars.
//! assert_eq!(request.find(' '), Some(3));
//! assert!(request.starts_with("GET"));
//! assert_eq!(request.byte_at(0), Some(b'G'));
//! // Owned pieces sharing the buffer.
//! let lines: Vec<Str> = request.lines_str().collect();
//! assert_eq!(lines, ["GET /index.html HTTP/1.1", "Host: example.com"]);
//! assert_eq!(lines[0].as_ptr(), request.as_ptr()); // no copy
//! let (name, value) = lines[1].split_once_str(':').unwrap();
//! assert_eq!((name, value.trim_str()), (Str::from("Host"), Str::from("example.com")));
//! ```

use std::fmt;
use std::iter::FusedIterator;

use crate::str::Str;

impl Str {
    /// The byte at `index`, or `None` past the end. No allocation (Lua's
    /// `string.byte`, where `string.sub` would make a string).
    ///
    /// ```
    /// let s = dynatom::Str::from("héllo");
    /// assert_eq!(s.byte_at(1), Some(0xc3));
    /// assert_eq!(s.byte_at(6), None);
    /// ```
    pub fn byte_at(&self, index: usize) -> Option<u8> {
        self.as_bytes().get(index).copied()
    }

    /// The char starting at byte `index`, or `None` if `index` is past the end or not
    /// on a char boundary.
    ///
    /// ```
    /// let s = dynatom::Str::from("héllo");
    /// assert_eq!(s.char_at(1), Some('é'));
    /// assert_eq!(s.char_at(2), None); // inside 'é'
    /// assert_eq!(s.char_at(3), Some('l'));
    /// ```
    pub fn char_at(&self, index: usize) -> Option<char> {
        self.as_str().get(index..)?.chars().next()
    }

    /// `str::trim` as a shared [`Str`].
    ///
    /// ```
    /// let s = dynatom::Str::from("   a string with padding around it   ");
    /// let t = s.trim_str();
    /// assert_eq!(t, "a string with padding around it");
    /// assert_eq!(t.as_ptr(), s.as_str()[3..].as_ptr()); // shares the buffer
    /// ```
    pub fn trim_str(&self) -> Str {
        self.sub_of(self.as_str().trim())
    }

    /// `str::trim_start` as a shared [`Str`].
    ///
    /// ```
    /// assert_eq!(dynatom::Str::from("  x ").trim_start_str(), "x ");
    /// ```
    pub fn trim_start_str(&self) -> Str {
        self.sub_of(self.as_str().trim_start())
    }

    /// `str::trim_end` as a shared [`Str`].
    ///
    /// ```
    /// assert_eq!(dynatom::Str::from("  x ").trim_end_str(), "  x");
    /// ```
    pub fn trim_end_str(&self) -> Str {
        self.sub_of(self.as_str().trim_end())
    }

    /// `str::strip_prefix` as a shared [`Str`].
    ///
    /// ```
    /// let s = dynatom::Str::from("prefix:rest");
    /// assert_eq!(s.strip_prefix_str("prefix:").unwrap(), "rest");
    /// assert!(s.strip_prefix_str("nope").is_none());
    /// ```
    pub fn strip_prefix_str(&self, prefix: &str) -> Option<Str> {
        self.as_str().strip_prefix(prefix).map(|rest| self.sub_of(rest))
    }

    /// `str::strip_suffix` as a shared [`Str`].
    ///
    /// ```
    /// let s = dynatom::Str::from("file.rs");
    /// assert_eq!(s.strip_suffix_str(".rs").unwrap(), "file");
    /// ```
    pub fn strip_suffix_str(&self, suffix: &str) -> Option<Str> {
        self.as_str().strip_suffix(suffix).map(|rest| self.sub_of(rest))
    }

    /// `str::split_once` as two shared [`Str`]s.
    ///
    /// ```
    /// let s = dynatom::Str::from("key=value=more");
    /// let (k, v) = s.split_once_str('=').unwrap();
    /// assert_eq!((k.as_str(), v.as_str()), ("key", "value=more"));
    /// ```
    pub fn split_once_str<S: Separator>(&self, separator: S) -> Option<(Str, Str)> {
        let (before, after) = separator.split_once_text(self.as_str())?;
        Some((self.sub_of(before), self.sub_of(after)))
    }

    /// `str::split` yielding shared [`Str`]s. The separator is a `char`, a `&str`, a
    /// set of chars (`&[char]`, `[char; N]`) or a `FnMut(char) -> bool`.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let csv = Str::from("alpha,beta,,a much longer field that lives on the heap");
    /// let fields: Vec<Str> = csv.split_str(',').collect();
    /// assert_eq!(fields, ["alpha", "beta", "", "a much longer field that lives on the heap"]);
    /// assert_eq!(fields[3].as_ptr(), csv.as_str()[12..].as_ptr()); // shared
    /// assert_eq!(Str::from("a-b_c").split_str(['-', '_']).count(), 3);
    /// ```
    pub fn split_str<S: Separator>(&self, separator: S) -> SubStrs<'_, S::Split<'_>> {
        SubStrs { parent: self, parts: separator.split_text(self.as_str()) }
    }

    /// `str::split_whitespace` yielding shared [`Str`]s.
    ///
    /// ```
    /// let s = dynatom::Str::from("  one two\tthree\n");
    /// let words: Vec<_> = s.split_whitespace_str().collect();
    /// assert_eq!(words, ["one", "two", "three"]);
    /// ```
    pub fn split_whitespace_str(&self) -> SubStrs<'_, std::str::SplitWhitespace<'_>> {
        SubStrs { parent: self, parts: self.as_str().split_whitespace() }
    }

    /// `str::lines` yielding shared [`Str`]s (`\n` or `\r\n` endings, not included).
    ///
    /// ```
    /// let s = dynatom::Str::from("first\r\nsecond\nthird");
    /// assert_eq!(s.lines_str().collect::<Vec<_>>(), ["first", "second", "third"]);
    /// ```
    pub fn lines_str(&self) -> SubStrs<'_, std::str::Lines<'_>> {
        SubStrs { parent: self, parts: self.as_str().lines() }
    }

    /// The `Str` for `part`, which must be a sub-slice of `self.as_str()`.
    fn sub_of(&self, part: &str) -> Str {
        let start = (part.as_ptr() as usize).wrapping_sub(self.as_ptr() as usize);
        debug_assert!(start <= self.len() && part.len() <= self.len() - start, "not a sub-slice of this string");
        self.share(start, start + part.len())
    }
}

/// An iterator of [`Str`] sub-strings of one parent, sharing its buffer (or inline):
/// what [`Str::split_str`], [`Str::split_whitespace_str`] and [`Str::lines_str`]
/// return. It wraps the matching `str` iterator and turns each `&str` it yields into a
/// `Str` in O(1).
///
/// ```
/// use dynatom::Str;
///
/// let s = Str::from("a b c");
/// let mut words = s.split_whitespace_str();
/// assert_eq!(words.next().unwrap(), "a");
/// assert_eq!(words.next_back().unwrap(), "c");
/// ```
#[derive(Clone)]
pub struct SubStrs<'a, I> {
    parent: &'a Str,
    parts: I,
}

impl<'a, I: Iterator<Item = &'a str>> Iterator for SubStrs<'a, I> {
    type Item = Str;

    fn next(&mut self) -> Option<Str> {
        let part = self.parts.next()?;
        Some(self.parent.sub_of(part))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.parts.size_hint()
    }
}

impl<'a, I: DoubleEndedIterator<Item = &'a str>> DoubleEndedIterator for SubStrs<'a, I> {
    fn next_back(&mut self) -> Option<Str> {
        let part = self.parts.next_back()?;
        Some(self.parent.sub_of(part))
    }
}

impl<'a, I: FusedIterator<Item = &'a str>> FusedIterator for SubStrs<'a, I> {}

impl<I> fmt::Debug for SubStrs<'_, I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SubStrs").field("parent", self.parent).finish_non_exhaustive()
    }
}

mod sealed {
    pub trait Sealed {}
}

/// What [`Str::split_str`] and [`Str::split_once_str`] split on: a `char`, a `&str`, a
/// `&String`, a set of chars (`&[char]`, `[char; N]`) or a `FnMut(char) -> bool` (the
/// stable subset of `str`'s patterns). Sealed: the crate implements it for these types.
///
/// ```
/// use dynatom::Str;
///
/// let s = Str::from("a1b22c");
/// let parts: Vec<Str> = s.split_str(|c: char| c.is_ascii_digit()).collect();
/// assert_eq!(parts, ["a", "b", "", "c"]);
/// ```
pub trait Separator: sealed::Sealed {
    /// The `str` iterator this separator splits with.
    type Split<'a>: Iterator<Item = &'a str>
    where
        Self: 'a;

    /// `text.split(self)`.
    ///
    /// ```
    /// use dynatom::Separator;
    ///
    /// assert_eq!(','.split_text("a,b").collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    fn split_text<'a>(self, text: &'a str) -> Self::Split<'a>
    where
        Self: 'a;

    /// `text.split_once(self)`.
    ///
    /// ```
    /// use dynatom::Separator;
    ///
    /// assert_eq!("::".split_once_text("a::b::c"), Some(("a", "b::c")));
    /// ```
    fn split_once_text(self, text: &str) -> Option<(&str, &str)>;
}

/// Implements [`Separator`] for types that are `str` patterns, by forwarding.
macro_rules! separator_by_pattern {
    ($([$($generics:tt)*] $ty:ty),* $(,)?) => {$(
        impl<$($generics)*> sealed::Sealed for $ty {}
        impl<$($generics)*> Separator for $ty {
            type Split<'a> = std::str::Split<'a, $ty> where Self: 'a;
            fn split_text<'a>(self, text: &'a str) -> Self::Split<'a>
            where
                Self: 'a,
            {
                text.split(self)
            }
            fn split_once_text(self, text: &str) -> Option<(&str, &str)> {
                text.split_once(self)
            }
        }
    )*};
}

separator_by_pattern!(
    [] char,
    ['p] &'p str,
    ['p] &'p String,
    ['p] &'p [char],
    [const N: usize] [char; N],
    ['p, const N: usize] &'p [char; N],
    [F: FnMut(char) -> bool] F,
);
