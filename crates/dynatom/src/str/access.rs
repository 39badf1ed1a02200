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

use crate::str::Str;
use crate::str::byte_str::not_a_part;

impl Str {
    crate::accessors::handle_accessors!(byte_at Str);

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
        // Read once, as `ByteStr::slice_ref` does: each read decodes the handle's form.
        let whole = self.as_str();
        let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
        if start > whole.len() || part.len() > whole.len() - start {
            if part.is_empty() {
                return Str::new();
            }
            not_a_part("Str", whole.len(), part.len());
        }
        self.share(start, start + part.len())
    }
}
