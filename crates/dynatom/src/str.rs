//! [`Str`]: an immutable string handle the size of `&str`.

use std::ops::{Bound, RangeBounds};

use crate::atom::Atom;
use crate::error::StrError;
use crate::repr::heap::{Block, Fallibility};
use crate::repr::str_word::{StrForm, StrWord, INLINE_CAPACITY};
use crate::table::AtomTable;

/// A slice whose parent buffer is at least this long may be copied out instead of
/// shared (see [`Str::slice`]).
pub(crate) const RETAIN_CHECK_MIN_PARENT: usize = 1024;
/// ... and is copied when it is shorter than `parent / RETAIN_MAX_RATIO`.
pub(crate) const RETAIN_MAX_RATIO: usize = 8;

/// An immutable UTF-8 string in 16 bytes that costs nothing until it has to be an atom.
///
/// * Up to 15 bytes live inside the handle: no allocation.
/// * Longer strings live in **one** allocation: a 24-byte header (count, length, cached
///   hash, owning table) followed by the bytes. Texts of 128 KiB and more get room for
///   one of 8 size classes per doubling (at most 1/8 more, powers of two exact), so that
///   a [`StrBuilder`](crate::StrBuilder)'s doubled buffer can become the string as it is.
/// * Making a `Str` never hashes and never touches a table; [`Str::intern`] does that on
///   demand, adopting the buffer instead of copying it.
/// * Clone is O(1); [`Str::slice`] is O(1) for any range and shares the buffer.
/// * `Hash`, `Eq` and `Ord` agree with `str`'s, so `HashMap<Str, V>` can be searched by
///   `&str` ([`Borrow<str>`](std::borrow::Borrow)).
///
/// The longest string is [`Str::MAX_LEN`] bytes; longer input is an error
/// ([`Str::try_from_str`]) or a panic ([`From`]), never undefined behaviour.
///
/// ```
/// use dynatom::Str;
///
/// let line = Str::from("GET /index.html HTTP/1.1 -- a request line");
/// let path = line.slice(4..15); // O(1); 11 bytes, so it goes inline
/// assert_eq!(path, "/index.html");
/// let tail = line.slice(16..); // O(1), shares `line`'s buffer
/// assert_eq!(tail, "HTTP/1.1 -- a request line");
/// assert_eq!(std::mem::size_of::<Str>(), 16);
/// ```
pub struct Str {
    word: StrWord,
}

const _: () = {
    assert!(std::mem::size_of::<Str>() == 16);
    assert!(std::mem::size_of::<Option<Str>>() == 16);
};

impl Str {
    /// The longest string a `Str` can hold, in bytes (`u32::MAX`).
    pub const MAX_LEN: usize = crate::repr::heap::MAX_LEN;

    /// Strings of up to this many bytes are stored inside the handle.
    pub const INLINE_CAPACITY: usize = INLINE_CAPACITY;

    #[inline]
    pub(crate) fn from_word(word: StrWord) -> Str {
        Str { word }
    }

    #[inline]
    pub(crate) fn word(&self) -> &StrWord {
        &self.word
    }

    #[inline]
    pub(crate) fn static_text(&self) -> Option<&'static str> {
        self.word.static_text()
    }

    /// The empty string. Allocates nothing.
    ///
    /// ```
    /// assert!(dynatom::Str::new().is_empty());
    /// ```
    #[inline]
    pub const fn new() -> Str {
        Str { word: StrWord::empty() }
    }

    /// A handle to a `'static` text. Allocates and copies nothing; usable in `const`.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// const GREETING: Str = Str::from_static("hello, world of static strings");
    /// assert_eq!(GREETING, "hello, world of static strings");
    /// ```
    #[inline]
    pub const fn from_static(text: &'static str) -> Str {
        Str { word: StrWord::from_static(text) }
    }

    /// A copy of `text`, reporting over-long input and allocation failure instead of
    /// panicking or aborting.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::try_from_str("fallible").unwrap();
    /// assert_eq!(s, "fallible");
    /// ```
    #[inline]
    pub fn try_from_str(text: &str) -> Result<Str, StrError> {
        Str::from_str_fallibility(text, Fallibility::Fallible)
    }

    #[inline]
    pub(crate) fn from_str_fallibility(text: &str, fallibility: Fallibility) -> Result<Str, StrError> {
        if let Some(word) = StrWord::inline(text) {
            return Ok(Str { word });
        }
        let block = Block::copy_from(text, fallibility)?;
        Ok(Str { word: StrWord::heap_whole(block) })
    }

    /// Takes a byte vector that should hold UTF-8. On error the vector comes back inside
    /// the error, untouched.
    ///
    /// # Panics
    /// If the text is longer than [`Str::MAX_LEN`].
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert_eq!(Str::from_utf8(b"bytes".to_vec()).unwrap(), "bytes");
    /// let err = Str::from_utf8(vec![b'a', 0xff]).unwrap_err();
    /// assert_eq!(err.into_bytes(), vec![b'a', 0xff]); // nothing lost
    /// ```
    #[inline]
    pub fn from_utf8(bytes: Vec<u8>) -> Result<Str, std::string::FromUtf8Error> {
        String::from_utf8(bytes).map(Str::from)
    }

    /// A copy of `bytes` if they are UTF-8; also reports over-long input and allocation
    /// failure.
    ///
    /// ```
    /// use dynatom::{Str, StrError};
    ///
    /// assert_eq!(Str::from_utf8_slice("é".as_bytes()).unwrap(), "é");
    /// assert!(matches!(Str::from_utf8_slice(&[0xc3]), Err(StrError::InvalidUtf8(_))));
    /// ```
    #[inline]
    pub fn from_utf8_slice(bytes: &[u8]) -> Result<Str, StrError> {
        let text = std::str::from_utf8(bytes)?;
        Str::try_from_str(text)
    }

    /// The text.
    ///
    /// ```
    /// assert_eq!(dynatom::Str::from("text").as_str(), "text");
    /// ```
    #[inline]
    pub fn as_str(&self) -> &str {
        self.word.as_str()
    }

    /// The text's bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Str::from("ab").as_bytes(), b"ab");
    /// ```
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        self.word.as_bytes()
    }

    /// Pointer to the first byte (inside the handle for inline strings).
    ///
    /// ```
    /// let s = dynatom::Str::from("a string on the heap, not inline");
    /// assert_eq!(s.as_ptr(), s.clone().as_ptr()); // clones share the buffer
    /// ```
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.as_str().as_ptr()
    }

    /// Length in bytes.
    ///
    /// ```
    /// assert_eq!(dynatom::Str::from("héllo").len(), 6);
    /// ```
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the string is empty.
    ///
    /// ```
    /// assert!(dynatom::Str::from("").is_empty());
    /// ```
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the text is stored inside the handle (at most 15 bytes).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// assert!(Str::from("fifteen bytes!!").is_inline());
    /// assert!(!Str::from("sixteen bytes!!!").is_inline());
    /// ```
    #[inline]
    pub fn is_inline(&self) -> bool {
        matches!(self.word.form(), StrForm::Inline(_))
    }

    /// Whether interning this string is O(1): its whole buffer already is an atom's
    /// buffer, or it is short enough (7 bytes) to be an atom by value.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from("not interned until it has to be");
    /// assert!(!s.is_interned());
    /// let _atom = s.intern();
    /// assert!(s.is_interned());
    /// ```
    #[inline]
    pub fn is_interned(&self) -> bool {
        match self.word.form() {
            StrForm::Heap { block, offset: 0, len } => len == block.len() && !block.owner().is_null(),
            _ => self.len() <= crate::repr::atom_word::INLINE_ATOM_CAPACITY,
        }
    }

    /// Whether two handles are the same view of the same bytes (same buffer and range,
    /// or equal inline contents).
    ///
    /// ```
    /// let a = dynatom::Str::from("one buffer shared by two handles");
    /// assert!(a.ptr_eq(&a.clone()));
    /// assert!(!a.ptr_eq(&dynatom::Str::from("one buffer shared by two handles")));
    /// ```
    #[inline]
    pub fn ptr_eq(&self, other: &Str) -> bool {
        self.word.bits() == other.word.bits()
    }

    /// The sub-string `range`, in O(1) and without copying the parent.
    ///
    /// Retention policy: a result of up to 15 bytes is stored inline; a result shorter
    /// than 1/8 of a parent buffer of 1 KiB or more is copied out, so a tiny slice never
    /// pins a large buffer; anything else shares the parent's buffer.
    ///
    /// # Panics
    /// Like `&s[range]`: if the range is out of bounds or not on char boundaries. The
    /// message names the range, e.g. `Str::slice: range 2..4 of a 6-byte string is not
    /// on a char boundary (byte 2 is inside a character)`.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let path = Str::from("/usr/lib/ruby/3.3.0/net/http/response.rb");
    /// let feature = path.slice(20..);
    /// assert_eq!(feature, "net/http/response.rb");
    /// assert_eq!(feature.as_ptr(), path.as_str()[20..].as_ptr()); // shared
    /// ```
    #[inline]
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> Str {
        let (start, end) = bounds(&range, self.len());
        match self.get_slice((Bound::Included(start), Bound::Excluded(end))) {
            Some(slice) => slice,
            None => bad_slice(self.as_str(), start, end),
        }
    }

    /// Like [`Str::slice`], but `None` instead of a panic.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from("héllo");
    /// assert_eq!(s.get_slice(0..1).unwrap(), "h");
    /// assert!(s.get_slice(0..2).is_none()); // inside 'é'
    /// assert!(s.get_slice(3..10).is_none());
    /// ```
    #[inline]
    pub fn get_slice(&self, range: impl RangeBounds<usize>) -> Option<Str> {
        let (start, end) = bounds(&range, self.len());
        let text = self.as_str().get(start..end)?;
        if let Some(word) = StrWord::inline(text) {
            return Some(Str { word });
        }
        let word = match self.word.form() {
            StrForm::Heap { block, offset, .. } => {
                if block.len() >= RETAIN_CHECK_MIN_PARENT && text.len() * RETAIN_MAX_RATIO < block.len() {
                    return Some(Str::from(text));
                }
                StrWord::heap(block.clone(), offset + start, text.len())
            }
            StrForm::Static(_) => {
                let parent = self.static_text().expect("static form");
                StrWord::from_static(&parent[start..end])
            }
            StrForm::Inline(_) => unreachable!("slices of inline strings fit inline"),
        };
        Some(Str { word })
    }

    /// The global atom for this text. O(1) if the string is already interned; a heap
    /// string spanning its whole buffer is adopted when its text is new (no copy); a
    /// slice of a larger buffer is copied, so an atom never pins a parent.
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from(format!("user:{}:profile", 12345));
    /// let atom = s.intern();
    /// assert_eq!(atom.as_ptr(), s.as_ptr()); // adopted
    /// assert_eq!(s.intern(), atom); // O(1) from now on
    /// ```
    #[inline]
    pub fn intern(&self) -> Atom {
        AtomTable::global().intern_str(self)
    }

    /// Like [`Str::intern`], but reports allocation failure.
    ///
    /// ```
    /// let s = dynatom::Str::from("interned fallibly, if need be");
    /// assert_eq!(s.try_intern().unwrap(), s.intern());
    /// ```
    #[inline]
    pub fn try_intern(&self) -> Result<Atom, StrError> {
        AtomTable::global().try_intern_str(self)
    }

    /// The global table's hash of the text. For a heap string spanning its buffer it is
    /// computed once and cached in the header (interning reuses it).
    ///
    /// ```
    /// use dynatom::Str;
    ///
    /// let s = Str::from("hash me once, read me often");
    /// assert_eq!(s.hash64(), Str::from("hash me once, read me often").hash64());
    /// ```
    #[inline]
    pub fn hash64(&self) -> u64 {
        let global = AtomTable::global().shared();
        match self.word.form() {
            StrForm::Heap { block, offset: 0, len } if len == block.len() => {
                let owner = block.owner();
                if owner.is_null() || std::ptr::eq(owner, global) {
                    if let Some(hash) = block.cached_hash() {
                        return hash;
                    }
                    let hash = global.hash(self.as_bytes());
                    if owner.is_null() {
                        block.cache_hash(hash);
                    }
                    return hash;
                }
                global.hash(self.as_bytes())
            }
            _ => global.hash(self.as_bytes()),
        }
    }

    /// The block, if this string spans the whole of one.
    #[inline]
    fn whole_block(&self) -> Option<&Block> {
        match self.word.form() {
            StrForm::Heap { block, offset: 0, len } if len == block.len() => Some(block),
            _ => None,
        }
    }

    /// Equality with the fast paths: same view, both interned in one table, cached
    /// hashes that differ; bytes only as a last resort.
    #[inline]
    fn eq_fast(&self, other: &Str) -> bool {
        if self.word.bits() == other.word.bits() {
            return true;
        }
        let (a, b) = (self.as_bytes(), other.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        if let (Some(x), Some(y)) = (self.whole_block(), other.whole_block()) {
            if !blocks_may_be_equal(x, y) {
                return false;
            }
        }
        a == b
    }
}

/// False when two distinct whole blocks provably hold different texts: both interned in
/// one table (one entry per text), or both carrying global hashes that differ.
fn blocks_may_be_equal(x: &Block, y: &Block) -> bool {
    let (owner_x, owner_y) = (x.owner(), y.owner());
    if !owner_x.is_null() && std::ptr::eq(owner_x, owner_y) {
        return false;
    }
    let (Some(hash_x), Some(hash_y)) = (x.cached_hash(), y.cached_hash()) else {
        return true;
    };
    // A cached hash is the global table's unless a local table owns the block.
    let global =
        |owner: *const crate::table::TableShared| owner.is_null() || std::ptr::eq(owner, AtomTable::global().shared());
    hash_x == hash_y || !(global(owner_x) && global(owner_y))
}

/// The panic of [`Str::slice`]: names the range, the length and what is wrong.
#[cold]
#[track_caller]
fn bad_slice(text: &str, start: usize, end: usize) -> ! {
    let len = text.len();
    let why = if start > end {
        "starts after it ends".to_owned()
    } else if end > len {
        "is out of bounds".to_owned()
    } else {
        let inside = if text.is_char_boundary(start) { end } else { start };
        format!("is not on a char boundary (byte {inside} is inside a character)")
    };
    panic!("Str::slice: range {start}..{end} of a {len}-byte string {why}")
}

/// Resolves a range against a length the way slicing does, without checking it.
#[inline]
fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    let start = match range.start_bound() {
        Bound::Included(&start) => start,
        Bound::Excluded(&start) => start.saturating_add(1),
        Bound::Unbounded => 0,
    };
    let end = match range.end_bound() {
        Bound::Included(&end) => end.saturating_add(1),
        Bound::Excluded(&end) => end,
        Bound::Unbounded => len,
    };
    (start, end)
}

impl Clone for Str {
    #[inline]
    fn clone(&self) -> Str {
        Str { word: self.word.clone() }
    }
}

impl PartialEq for Str {
    #[inline]
    fn eq(&self, other: &Str) -> bool {
        self.eq_fast(other)
    }
}

impl Eq for Str {}
