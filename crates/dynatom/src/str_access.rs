//! Allocation-free access to a [`Str`]: bytes, chars, and `Str` sub-strings that share
//! the buffer.
//!
//! `Str` derefs to `str`, so every `str` method that returns an index, a `bool`, a
//! `char` or a borrowed `&str` is already free (`find`, `starts_with`, `chars`, `trim`,
//! `split`, ...). What `str` cannot give is an **owned** sub-string without a copy:
//! [`Str::slice_ref`] turns any `&str` borrowed from the string into one, in O(1), so
//! every `str` method that returns `&str` has a shared-`Str` form without a twin
//! method for each (the way `bytes::Bytes::slice_ref` does it).
//!
//! Every `Str` that `slice_ref` returns is made in O(1) without allocating: up to 15
//! bytes are stored inline, anything longer shares the parent's buffer. Unlike
//! [`Str::slice`], it never copies a small piece out of a big buffer, so a piece keeps
//! its whole parent buffer alive; `Str::from(piece.as_str())` detaches one.
//!
//! The `_str` methods here (`trim_str`, `split_str`, ...) are the 0.1 names of the same
//! thing, deprecated: in this crate's names `str` is std's `&str` (see the crate docs'
//! "Names"). [`SubStrs`] and [`Separator`] serve them and go with them.
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
//! let lines: Vec<Str> = request.lines().map(|line| request.slice_ref(line)).collect();
//! assert_eq!(lines, ["GET /index.html HTTP/1.1", "Host: example.com"]);
//! assert_eq!(lines[0].as_ptr(), request.as_ptr()); // no copy
//! let (name, value) = lines[1].split_once(':').unwrap();
//! let (name, value) = (lines[1].slice_ref(name), lines[1].slice_ref(value.trim()));
//! assert_eq!((name, value), (Str::from("Host"), Str::from("example.com")));
//! ```

use std::fmt;
use std::iter::FusedIterator;

use crate::byte_str::not_a_part;
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

    /// `part`, a `&str` borrowed from this string (from `trim`, `split`, `find`
    /// and slicing, `lines`, ...), as a [`Str`] in O(1) without allocating: inline if it
    /// fits, else sharing this string's buffer. An empty `part` gives an empty `Str`
    /// wherever it points.
    ///
    /// # Panics
    /// If `part` is not empty and does not lie within this string's bytes (a `&str` of
    /// equal text from elsewhere is not enough), like `bytes::Bytes::slice_ref`.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let csv = Str::from("alpha, beta,,a much longer field that lives on the heap");
    /// let fields: Vec<Str> = csv.split(',').map(|field| csv.slice_ref(field.trim())).collect();
    /// assert_eq!(fields, ["alpha", "beta", "", "a much longer field that lives on the heap"]);
    /// assert_eq!(fields[3].as_ptr(), csv.as_str()[13..].as_ptr()); // shared
    /// ```
    #[must_use = "slice_ref makes a new handle and has no other effect"]
    #[track_caller]
    pub fn slice_ref(&self, part: &str) -> Str {
        let start = (part.as_ptr() as usize).wrapping_sub(self.as_ptr() as usize);
        if start > self.len() || part.len() > self.len() - start {
            if part.is_empty() {
                return Str::new();
            }
            not_a_part("Str", self.len(), part.len());
        }
        self.share(start, start + part.len())
    }

    /// `str::trim` as a shared [`Str`]; deprecated, the same as `s.slice_ref(s.trim())`.
    ///
    /// ```
    /// let s = dynatom::Str::from("   a string with padding around it   ");
    /// assert_eq!(s.slice_ref(s.trim()), "a string with padding around it");
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.slice_ref(s.trim())`; `str` in a name means std's `&str`")]
    pub fn trim_str(&self) -> Str {
        self.slice_ref(self.as_str().trim())
    }

    /// `str::trim_start` as a shared [`Str`]; deprecated, the same as
    /// `s.slice_ref(s.trim_start())`.
    ///
    /// ```
    /// let s = dynatom::Str::from("  x ");
    /// assert_eq!(s.slice_ref(s.trim_start()), "x ");
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.slice_ref(s.trim_start())`; `str` in a name means std's `&str`")]
    pub fn trim_start_str(&self) -> Str {
        self.slice_ref(self.as_str().trim_start())
    }

    /// `str::trim_end` as a shared [`Str`]; deprecated, the same as
    /// `s.slice_ref(s.trim_end())`.
    ///
    /// ```
    /// let s = dynatom::Str::from("  x ");
    /// assert_eq!(s.slice_ref(s.trim_end()), "  x");
    /// ```
    #[deprecated(since = "0.2.0", note = "use `s.slice_ref(s.trim_end())`; `str` in a name means std's `&str`")]
    pub fn trim_end_str(&self) -> Str {
        self.slice_ref(self.as_str().trim_end())
    }

    /// `str::strip_prefix` as a shared [`Str`]; deprecated, the same as
    /// `s.strip_prefix(prefix).map(|rest| s.slice_ref(rest))`.
    ///
    /// ```
    /// let s = dynatom::Str::from("prefix:rest");
    /// assert_eq!(s.strip_prefix("prefix:").map(|rest| s.slice_ref(rest)).unwrap(), "rest");
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.strip_prefix(prefix).map(|rest| s.slice_ref(rest))`; `str` in a name means std's `&str`"
    )]
    pub fn strip_prefix_str(&self, prefix: &str) -> Option<Str> {
        self.as_str().strip_prefix(prefix).map(|rest| self.slice_ref(rest))
    }

    /// `str::strip_suffix` as a shared [`Str`]; deprecated, the same as
    /// `s.strip_suffix(suffix).map(|rest| s.slice_ref(rest))`.
    ///
    /// ```
    /// let s = dynatom::Str::from("file.rs");
    /// assert_eq!(s.strip_suffix(".rs").map(|rest| s.slice_ref(rest)).unwrap(), "file");
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.strip_suffix(suffix).map(|rest| s.slice_ref(rest))`; `str` in a name means std's `&str`"
    )]
    pub fn strip_suffix_str(&self, suffix: &str) -> Option<Str> {
        self.as_str().strip_suffix(suffix).map(|rest| self.slice_ref(rest))
    }

    /// `str::split_once` as two shared [`Str`]s; deprecated, the same as
    /// `s.split_once(sep).map(|(a, b)| (s.slice_ref(a), s.slice_ref(b)))`.
    ///
    /// ```
    /// let s = dynatom::Str::from("key=value=more");
    /// let (k, v) = s.split_once('=').map(|(k, v)| (s.slice_ref(k), s.slice_ref(v))).unwrap();
    /// assert_eq!((k.as_str(), v.as_str()), ("key", "value=more"));
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.split_once(sep).map(|(a, b)| (s.slice_ref(a), s.slice_ref(b)))`; `str` in a name means std's `&str`"
    )]
    pub fn split_once_str<S: Separator>(&self, separator: S) -> Option<(Str, Str)> {
        let (before, after) = separator.split_once_text(self.as_str())?;
        Some((self.slice_ref(before), self.slice_ref(after)))
    }

    /// `str::split` yielding shared [`Str`]s; deprecated, the same as
    /// `s.split(sep).map(|part| s.slice_ref(part))` (which also takes every `str`
    /// pattern).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let csv = Str::from("alpha,beta");
    /// let fields: Vec<Str> = csv.split(',').map(|field| csv.slice_ref(field)).collect();
    /// assert_eq!(fields, ["alpha", "beta"]);
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.split(sep).map(|part| s.slice_ref(part))`; `str` in a name means std's `&str`"
    )]
    pub fn split_str<S: Separator>(&self, separator: S) -> SubStrs<'_, S::Split<'_>> {
        SubStrs { parent: self, parts: separator.split_text(self.as_str()) }
    }

    /// `str::split_whitespace` yielding shared [`Str`]s; deprecated, the same as
    /// `s.split_whitespace().map(|word| s.slice_ref(word))`.
    ///
    /// ```
    /// let s = dynatom::Str::from("  one two\tthree\n");
    /// let words: Vec<_> = s.split_whitespace().map(|word| s.slice_ref(word)).collect();
    /// assert_eq!(words, ["one", "two", "three"]);
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.split_whitespace().map(|word| s.slice_ref(word))`; `str` in a name means std's `&str`"
    )]
    pub fn split_whitespace_str(&self) -> SubStrs<'_, std::str::SplitWhitespace<'_>> {
        SubStrs { parent: self, parts: self.as_str().split_whitespace() }
    }

    /// `str::lines` yielding shared [`Str`]s; deprecated, the same as
    /// `s.lines().map(|line| s.slice_ref(line))`.
    ///
    /// ```
    /// let s = dynatom::Str::from("first\r\nsecond\nthird");
    /// assert_eq!(s.lines().map(|line| s.slice_ref(line)).collect::<Vec<_>>(), ["first", "second", "third"]);
    /// ```
    #[deprecated(
        since = "0.2.0",
        note = "use `s.lines().map(|line| s.slice_ref(line))`; `str` in a name means std's `&str`"
    )]
    pub fn lines_str(&self) -> SubStrs<'_, std::str::Lines<'_>> {
        SubStrs { parent: self, parts: self.as_str().lines() }
    }
}

/// An iterator of [`Str`] sub-strings of one parent, sharing its buffer (or inline):
/// what the deprecated [`Str::split_str`], [`Str::split_whitespace_str`] and
/// [`Str::lines_str`] return, and removed with them. It wraps the matching `str`
/// iterator and turns each `&str` it yields into a `Str` with [`Str::slice_ref`].
///
/// ```
/// # #![allow(deprecated)] // documents the deprecated methods' iterator
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
        Some(self.parent.slice_ref(part))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.parts.size_hint()
    }
}

impl<'a, I: DoubleEndedIterator<Item = &'a str>> DoubleEndedIterator for SubStrs<'a, I> {
    fn next_back(&mut self) -> Option<Str> {
        let part = self.parts.next_back()?;
        Some(self.parent.slice_ref(part))
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

/// What the deprecated [`Str::split_str`] and [`Str::split_once_str`] split on (removed
/// with them): a `char`, a `&str`, a `&String`, a set of chars (`&[char]`, `[char; N]`)
/// or a `FnMut(char) -> bool` (the stable subset of `str`'s patterns). Sealed: the crate
/// implements it for these types.
///
/// ```
/// use dynatom::Separator;
///
/// let parts: Vec<&str> = (|c: char| c.is_ascii_digit()).split_text("a1b22c").collect();
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
