//! [`ByteStr`]: an immutable byte-string handle the size of `&[u8]`.

use std::ops::{Bound, RangeBounds};

use crate::atom::table::AtomTable;
use crate::error::{Fallibility, StrError};
use crate::repr::growable::GrowableBlock;
use crate::repr::heap::Block;
use crate::repr::str_word::{INLINE_CAPACITY, StrForm, StrWord};

/// A slice whose parent buffer is at least this long may be copied out instead of
/// shared (see [`ByteStr::slice`]).
pub(crate) const RETAIN_CHECK_MIN_PARENT: usize = 1024;
/// ... and is copied when it is shorter than `parent / RETAIN_MAX_RATIO`.
pub(crate) const RETAIN_MAX_RATIO: usize = 8;

/// An immutable string of any bytes in 16 bytes: [`Str`](crate::Str)'s representation,
/// tables and costs, without the UTF-8 promise. For Lua strings, HTTP bodies, C strings.
///
/// * Up to 15 bytes live inside the handle; longer ones are **one** allocation (a 16-byte
///   header, then the bytes), exactly as for [`Str`](crate::Str), whose handle is this one
///   plus the promise that the bytes are text:
///   [`Str::as_byte_str`](crate::Str::as_byte_str) is free, and [`ByteStr::to_text`] checks
///   UTF-8 once.
/// * Bytes the program already owns (a `Vec<u8>`, `bytes::Bytes`, a mapped file) become a
///   `ByteStr` without a copy: [`ByteStr::from_owner`].
/// * Making one never hashes and never touches a table; [`ByteStr::intern`] does, adopting
///   the buffer. Equal bytes are the same atom whether they came in as bytes or as text.
/// * Clone is O(1); [`ByteStr::slice`] takes any byte range in O(1).
/// * `Hash`, `Eq` and `Ord` agree with `[u8]`'s, so `HashMap<ByteStr, V>` can be searched
///   by `&[u8]` ([`Borrow<[u8]>`](std::borrow::Borrow)).
///
/// ```
/// use dynatom::{Atom, ByteStr};
///
/// let body = ByteStr::copy_from_slice(b"\x89PNG\r\n\x1a\n and then a binary body ...");
/// let magic = body.slice(..8); // O(1), 8 bytes: stored inline
/// assert_eq!(magic, b"\x89PNG\r\n\x1a\n"[..]);
/// assert!(body.to_text().is_err()); // 0x89 is not UTF-8
///
/// let key = ByteStr::from("content-length: a text header").intern();
/// assert_eq!(key.to_text().unwrap(), Atom::from("content-length: a text header"));
/// assert_eq!(std::mem::size_of::<ByteStr>(), 16);
/// ```
#[repr(transparent)]
pub struct ByteStr {
    word: StrWord,
}

const _: () = {
    assert!(std::mem::size_of::<ByteStr>() == 16);
    assert!(std::mem::size_of::<Option<ByteStr>>() == 16);
};

impl ByteStr {
    /// Turns a filled buffer into the string of its bytes without copying them: a heap
    /// result is the buffer itself, trimmed and given its header; at most 15 bytes are
    /// stored inline and the buffer is freed. What both builders and `concat` finish with.
    pub(crate) fn from_buffer(buf: GrowableBlock, fallibility: Fallibility) -> Result<ByteStr, StrError> {
        buf.into_str_word(fallibility).map(ByteStr::from_word)
    }

    /// The longest byte string a `ByteStr` can hold (`u32::MAX`), as for [`Str`](crate::Str).
    pub const MAX_LEN: usize = crate::error::MAX_LEN;

    /// Byte strings of up to this many bytes are stored inside the handle.
    pub const INLINE_CAPACITY: usize = INLINE_CAPACITY;

    #[inline]
    pub(crate) const fn from_word(word: StrWord) -> ByteStr {
        ByteStr { word }
    }

    #[inline]
    pub(crate) fn word(&self) -> &StrWord {
        &self.word
    }

    #[inline]
    pub(crate) fn into_word(self) -> StrWord {
        self.word
    }

    /// The empty byte string. Allocates nothing.
    ///
    /// ```
    /// assert!(dynatom::ByteStr::new().is_empty());
    /// ```
    #[must_use]
    #[inline]
    pub const fn new() -> ByteStr {
        ByteStr { word: StrWord::empty() }
    }

    /// A handle to `'static` bytes. Allocates and copies nothing; usable in `const`.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// const MAGIC: ByteStr = ByteStr::from_static(b"\x7fELF, a magic number and more");
    /// assert_eq!(MAGIC.as_bytes()[..4], *b"\x7fELF");
    /// ```
    #[must_use]
    #[inline]
    pub const fn from_static(bytes: &'static [u8]) -> ByteStr {
        ByteStr { word: StrWord::from_static(bytes) }
    }

    /// Like [`ByteStr::from_static`], but bytes longer than [`ByteStr::MAX_LEN`] are an
    /// error instead of a panic. Allocates and copies nothing.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let s = ByteStr::try_from_static(b"static bytes, \xff checked").unwrap();
    /// assert_eq!(s, b"static bytes, \xff checked"[..]);
    /// ```
    #[inline]
    pub fn try_from_static(bytes: &'static [u8]) -> Result<ByteStr, StrError> {
        if bytes.len() > ByteStr::MAX_LEN {
            return Err(StrError::TooLong { len: bytes.len() });
        }
        Ok(ByteStr::from_static(bytes))
    }

    /// A copy of `bytes`: inline up to 15 bytes, else one allocation. No hashing.
    ///
    /// # Panics
    /// If `bytes` is longer than [`ByteStr::MAX_LEN`]; aborts if memory runs out. Use
    /// [`ByteStr::try_copy_from_slice`] to get an error instead.
    ///
    /// ```
    /// let s = dynatom::ByteStr::copy_from_slice(b"any bytes: \x00\xff");
    /// assert_eq!(s.len(), 13);
    /// ```
    #[must_use]
    #[inline]
    pub fn copy_from_slice(bytes: &[u8]) -> ByteStr {
        match ByteStr::copy_fallibility(bytes, Fallibility::Infallible) {
            Ok(s) => s,
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`ByteStr::copy_from_slice`], but reports over-long input
    /// ([`StrError::TooLong`]) and allocation failure ([`StrError::AllocFailed`]).
    ///
    /// ```
    /// let s = dynatom::ByteStr::try_copy_from_slice(b"fallible").unwrap();
    /// assert_eq!(s.as_bytes(), b"fallible");
    /// ```
    #[inline]
    pub fn try_copy_from_slice(bytes: &[u8]) -> Result<ByteStr, StrError> {
        ByteStr::copy_fallibility(bytes, Fallibility::Fallible)
    }

    #[inline]
    pub(crate) fn copy_fallibility(bytes: &[u8], fallibility: Fallibility) -> Result<ByteStr, StrError> {
        if let Some(word) = StrWord::inline(bytes) {
            return Ok(ByteStr { word });
        }
        let block = Block::copy_from(bytes, fallibility)?;
        Ok(ByteStr { word: StrWord::heap_whole(block) })
    }

    crate::accessors::handle_accessors!(bytes ByteStr);
    crate::accessors::handle_accessors!(byte_at ByteStr);

    /// Whether the bytes are stored inside the handle (at most 15).
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// assert!(ByteStr::copy_from_slice(&[0; 15]).is_inline());
    /// assert!(!ByteStr::copy_from_slice(&[0; 16]).is_inline());
    /// ```
    #[inline]
    pub fn is_inline(&self) -> bool {
        matches!(self.word.form(), StrForm::Inline(_))
    }

    /// Whether [`ByteStr::intern`] is O(1) and returns these very bytes: the whole buffer
    /// already is the global table's atom, or the string is short enough (7 bytes) to be
    /// an atom by value. A buffer that a local [`AtomTable`] holds does not count: `intern`
    /// copies it into the global table.
    ///
    /// ```
    /// use dynatom::{AtomTable, ByteStr};
    ///
    /// let s = ByteStr::copy_from_slice(b"not interned until it has to be");
    /// assert!(!s.is_interned());
    /// let table = AtomTable::new();
    /// let local = s.intern_in(&table);
    /// assert_eq!(local.as_ptr(), s.as_ptr()); // the local table adopted the buffer
    /// assert!(!s.is_interned());
    /// let atom = s.intern(); // a copy in the global table
    /// assert!(ByteStr::from(&atom).is_interned());
    /// ```
    #[inline]
    pub fn is_interned(&self) -> bool {
        match self.word.form() {
            StrForm::Heap { block, offset: 0, len } => len == block.len() && block.is_global_entry(),
            _ => self.len() <= crate::repr::atom_word::INLINE_ATOM_CAPACITY,
        }
    }

    /// Whether two handles are the same view of the same bytes (same buffer and range,
    /// or equal inline contents).
    ///
    /// ```
    /// let a = dynatom::ByteStr::copy_from_slice(b"one buffer shared by two handles");
    /// assert!(a.ptr_eq(&a.clone()));
    /// assert!(!a.ptr_eq(&dynatom::ByteStr::copy_from_slice(a.as_bytes())));
    /// ```
    #[inline]
    pub fn ptr_eq(&self, other: &ByteStr) -> bool {
        self.word.bits() == other.word.bits()
    }

    /// The bytes in `range`, in O(1).
    ///
    /// Retention policy (as [`Str::slice`](crate::Str::slice)): a result of up to 15 bytes
    /// is stored inline; a result shorter than 1/8 of a parent buffer of 1 KiB or more is
    /// copied out, so a tiny slice never pins a large buffer; anything else shares the
    /// parent's buffer. The bytes of an owner ([`ByteStr::from_owner`]) are one parent
    /// buffer too: for zero-copy parsing of a large buffer, take parts with
    /// [`ByteStr::slice_ref`], which shares (or stores up to 15 bytes inline) and never
    /// allocates.
    ///
    /// # Panics
    /// If the range is out of bounds or starts after it ends. The message names the
    /// range, e.g. `ByteStr::slice: range 3..40 of a 20-byte string is out of bounds`.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let frame = ByteStr::copy_from_slice(b"\x00\x10header bytes, then a payload of some length");
    /// let payload = frame.slice(16..);
    /// assert_eq!(payload, b"then a payload of some length"[..]);
    /// assert_eq!(payload.as_ptr(), frame.as_bytes()[16..].as_ptr()); // shared
    /// ```
    #[must_use = "slicing makes a new handle and leaves this one as it is"]
    #[inline]
    #[track_caller]
    pub fn slice(&self, range: impl RangeBounds<usize>) -> ByteStr {
        let (start, end) = bounds(&range, self.len());
        match self.get_slice((Bound::Included(start), Bound::Excluded(end))) {
            Some(slice) => slice,
            None => bad_slice(self.len(), start, end),
        }
    }

    /// Like [`ByteStr::slice`], but `None` instead of a panic.
    ///
    /// ```
    /// let s = dynatom::ByteStr::from(&b"bytes"[..]);
    /// assert_eq!(s.get_slice(1..3).unwrap(), b"yt"[..]);
    /// assert!(s.get_slice(3..10).is_none());
    /// assert!(s.get_slice(3..2).is_none());
    /// ```
    #[must_use = "slicing makes a new handle and leaves this one as it is"]
    #[inline]
    pub fn get_slice(&self, range: impl RangeBounds<usize>) -> Option<ByteStr> {
        let (start, end) = bounds(&range, self.len());
        let bytes = self.as_bytes().get(start..end)?;
        if let Some(word) = StrWord::inline(bytes) {
            return Some(ByteStr { word });
        }
        let word = match self.word.form() {
            StrForm::Heap { block, offset, .. } => {
                if block.len() >= RETAIN_CHECK_MIN_PARENT && bytes.len() * RETAIN_MAX_RATIO < block.len() {
                    return Some(ByteStr::copy_from_slice(bytes));
                }
                StrWord::heap(block.clone(), offset + start, bytes.len())
            }
            // An owner's bytes follow the same policy, the owner's whole bytes being the
            // parent buffer: a small part is copied out so it never keeps the owner alive.
            StrForm::Owned { block, offset, .. } => {
                if block.len() >= RETAIN_CHECK_MIN_PARENT && bytes.len() * RETAIN_MAX_RATIO < block.len() {
                    return Some(ByteStr::copy_from_slice(bytes));
                }
                StrWord::owned(block.counted(), offset + start, bytes.len())
            }
            StrForm::Static(parent) => StrWord::from_static(&parent[start..end]),
            StrForm::Inline(_) => unreachable!("slices of inline strings fit inline"),
        };
        Some(ByteStr { word })
    }

    /// `self[start..end]` without copying, whatever the size: inline if it fits, else the
    /// same buffer (no retention policy). The range must be in bounds.
    #[inline]
    pub(crate) fn share(&self, start: usize, end: usize) -> ByteStr {
        self.share_part(start, &self.as_bytes()[start..end])
    }

    /// [`ByteStr::share`] of `part`, which is `self[start..start + part.len()]`: the
    /// caller has read the bytes once already, and an inline part copies from them.
    #[inline(always)]
    fn share_part(&self, start: usize, part: &[u8]) -> ByteStr {
        if let Some(word) = StrWord::inline(part) {
            return ByteStr { word };
        }
        let len = part.len();
        let word = match self.word.form() {
            StrForm::Heap { block, offset, .. } => StrWord::heap(block.clone(), offset + start, len),
            StrForm::Owned { block, offset, .. } => StrWord::owned(block.counted(), offset + start, len),
            StrForm::Static(parent) => StrWord::from_static(&parent[start..start + len]),
            StrForm::Inline(_) => unreachable!("pieces of inline strings fit inline"),
        };
        ByteStr { word }
    }

    /// `part`, a byte slice borrowed from this string, as a [`ByteStr`] in O(1) without
    /// allocating: inline if it fits, else sharing this string's buffer or owner (the
    /// `bytes` crate's `Bytes::slice_ref`). The way to take parts for zero-copy parsing. An empty `part` gives an empty `ByteStr` wherever it
    /// points.
    ///
    /// # Panics
    /// If `part` is not empty and does not lie within this string's bytes.
    ///
    /// ```
    /// use dynatom::ByteStr;
    ///
    /// let line = ByteStr::copy_from_slice(b"key\x00a value long enough to be shared");
    /// let at = line.iter().position(|&b| b == 0).unwrap();
    /// let value = line.slice_ref(&line[at + 1..]);
    /// assert_eq!(value, b"a value long enough to be shared"[..]);
    /// assert_eq!(value.as_ptr(), line[at + 1..].as_ptr()); // shared
    /// ```
    #[must_use = "slice_ref makes a new handle and has no other effect"]
    #[track_caller]
    pub fn slice_ref(&self, part: &[u8]) -> ByteStr {
        // Read once: each read of the bytes decodes the handle's form again.
        let whole = self.as_bytes();
        let start = (part.as_ptr() as usize).wrapping_sub(whole.as_ptr() as usize);
        if start > whole.len() || part.len() > whole.len() - start {
            if part.is_empty() {
                return ByteStr::new();
            }
            not_a_part("ByteStr", whole.len(), part.len());
        }
        self.share_part(start, part)
    }

    /// The global table's hash of the bytes (the same as
    /// [`Str::hash64`](crate::Str::hash64) of equal text). For a heap string spanning its
    /// buffer it is computed once and cached in the header (interning reuses it).
    ///
    /// ```
    /// use dynatom::{ByteStr, Str};
    ///
    /// let s = ByteStr::copy_from_slice(b"hash me once, read me often");
    /// assert_eq!(s.hash64(), Str::from("hash me once, read me often").hash64());
    /// ```
    #[inline]
    pub fn hash64(&self) -> u64 {
        let global = AtomTable::global().shared();
        match self.whole_block() {
            Some(block) => block.cached_process_hash().unwrap_or_else(|| {
                let hash = global.hash(self.as_bytes());
                // Caches nothing if a table of its own seed filed the block with its hash.
                block.cache_hash(hash);
                hash
            }),
            None => global.hash(self.as_bytes()),
        }
    }

    /// The block, if this string spans the whole of one.
    #[inline]
    pub(crate) fn whole_block(&self) -> Option<&Block> {
        match self.word.form() {
            StrForm::Heap { block, offset: 0, len } if len == block.len() => Some(block),
            _ => None,
        }
    }

    /// Equality with the fast paths: same view, both interned in one table, cached
    /// hashes that differ; bytes only as a last resort.
    #[inline]
    pub(crate) fn eq_fast(&self, other: &ByteStr) -> bool {
        if self.word.bits() == other.word.bits() {
            return true;
        }
        let (a, b) = (self.as_bytes(), other.as_bytes());
        if a.len() != b.len() {
            return false;
        }
        if let (Some(x), Some(y)) = (self.whole_block(), other.whole_block())
            && !blocks_may_be_equal(x, y)
        {
            return false;
        }
        a == b
    }
}

/// False when two whole blocks provably hold different bytes: distinct entries of the
/// global table (one entry per byte string), or process-seed hashes that differ.
fn blocks_may_be_equal(x: &Block, y: &Block) -> bool {
    if std::ptr::eq(x.bytes_ptr(), y.bytes_ptr()) {
        return true;
    }
    if x.is_global_entry() && y.is_global_entry() {
        return false;
    }
    match (x.cached_process_hash(), y.cached_process_hash()) {
        (Some(hash_x), Some(hash_y)) => hash_x == hash_y,
        _ => true,
    }
}

/// The panic of `slice_ref` (of `ByteStr` and `Str`) on a part from elsewhere.
#[cold]
#[track_caller]
pub(crate) fn not_a_part(type_name: &str, len: usize, part_len: usize) -> ! {
    panic!("{type_name}::slice_ref: the {part_len}-byte part does not lie within this {len}-byte string")
}

/// The panic of [`ByteStr::slice`]: names the range, the length and what is wrong.
#[cold]
#[track_caller]
fn bad_slice(len: usize, start: usize, end: usize) -> ! {
    let why = if start > end { "starts after it ends" } else { "is out of bounds" };
    panic!("ByteStr::slice: range {start}..{end} of a {len}-byte string {why}")
}

/// Resolves a range against a length the way slicing does, without checking it.
#[inline]
pub(crate) fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
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

impl Clone for ByteStr {
    #[inline]
    fn clone(&self) -> ByteStr {
        ByteStr { word: self.word.clone() }
    }
}

impl PartialEq for ByteStr {
    #[inline]
    fn eq(&self, other: &ByteStr) -> bool {
        self.eq_fast(other)
    }
}

impl Eq for ByteStr {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn slices_follow_the_retention_policy() {
        let big = ByteStr::copy_from_slice(&[0xAB; 4096]);
        let small = big.slice(10..400); // 390 < 4096 / 8: copied out
        assert_ne!(small.as_ptr(), big.as_bytes()[10..].as_ptr());
        let large = big.slice(10..1000); // 990 >= 512: shared
        assert_eq!(large.as_ptr(), big.as_bytes()[10..].as_ptr());
        assert!(big.slice(1..16).is_inline());
        let statik = ByteStr::from_static(b"static bytes, sliced without a copy");
        assert_eq!(statik.slice(7..).as_ptr(), statik.as_bytes()[7..].as_ptr());
    }

    #[test]
    #[should_panic(expected = "ByteStr::slice: range 3..40 of a 20-byte string is out of bounds")]
    fn out_of_range_slices_name_the_range() {
        let _ = ByteStr::copy_from_slice(&[1; 20]).slice(3..40);
    }

    #[test]
    #[should_panic(expected = "ByteStr::slice: range 5..2 of a 20-byte string starts after it ends")]
    fn backward_slices_name_the_range() {
        #[allow(clippy::reversed_empty_ranges)]
        let _ = ByteStr::copy_from_slice(&[1; 20]).slice(5..2);
    }
}
