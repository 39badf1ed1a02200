//! Packed text storage for the single-threaded [`Interner`](super::Interner).
//!
//! Symbols are grouped in *pages* of [`PAGE`] consecutive symbols. A page's
//! strings of up to [`INLINE_MAX`] bytes lie back to back in one *run* inside a
//! chunk; `pages[p]` points at the run and `ends[i + 1]` is the `u16` end of string
//! `i` relative to it (string `i` starts where `i - 1` ended, or at 0 for the first
//! of a page). So the index costs 2 bytes per string plus one pointer per page,
//! and finding a string is one `u16` pair, one pointer and the characters.
//!
//! Longer strings, and `intern_static` strings (kept uncopied), are *out of line*:
//! their run holds a 4-byte index into `longs` (pointer, length), and their
//! `ends` entry carries [`FLAG`].
//!
//! Chunks are allocated once and never move or grow (sizes double from 4 KiB up
//! to 32 KiB, then stay there); long strings go to chunks of their own kind, and
//! those over [`HUGE`] bytes get a block each. A run must be contiguous, so when
//! the open chunk cannot take the next string of a page, the page's run so far
//! (at most `PAGE * INLINE_MAX` bytes, typically a few hundred) is copied into the
//! new chunk and the page repointed; the old copy stays in place unused.

use std::alloc::{alloc, dealloc, handle_alloc_error, realloc, Layout};
use std::ptr::NonNull;

/// log2 of [`PAGE`].
const PAGE_BITS: u32 = 5;
/// Symbols per page.
const PAGE: usize = 1 << PAGE_BITS;
/// Longest string kept inline in a run.
pub(crate) const INLINE_MAX: usize = 255;
/// Set in an `ends` entry when the string is out of line.
const FLAG: u16 = 0x8000;
/// Size of an out-of-line record in a run (a `u32` index into `longs`).
const RECORD: usize = 4;
/// First chunk size (chunks double up to [`MAX_CHUNK`]).
pub(crate) const FIRST_CHUNK: usize = 4096;
/// Largest normal chunk.
const MAX_CHUNK: usize = 1 << 15;
/// Long strings over this many bytes get a block of their own.
const HUGE: usize = MAX_CHUNK / 4;

// A page's run always fits the `u16` offsets below `FLAG`, and a normal chunk
// (a run never needs a block of its own).
const _: () = assert!(PAGE * INLINE_MAX < FLAG as usize && PAGE * INLINE_MAX <= HUGE);

fn layout(cap: usize) -> Layout {
    Layout::from_size_align(cap, 1).expect("chunk size fits a Layout")
}

/// Bump allocation in chunks that never move.
struct Chunks {
    /// Every block, for freeing.
    blocks: Vec<(NonNull<u8>, usize)>,
    /// Write position of the open chunk (dangling when there is none).
    cur: NonNull<u8>,
    len: usize,
    cap: usize,
    next: usize,
    /// Bytes allocated in blocks.
    bytes: usize,
}

impl Chunks {
    fn new() -> Chunks {
        Chunks { blocks: Vec::new(), cur: NonNull::dangling(), len: 0, cap: 0, next: FIRST_CHUNK, bytes: 0 }
    }

    fn room(&self) -> usize {
        self.cap - self.len
    }

    /// Where the next byte goes.
    fn tip(&self) -> *mut u8 {
        // SAFETY: `len <= cap`, inside (or one past) the open chunk.
        unsafe { self.cur.as_ptr().add(self.len) }
    }

    /// Size of the chunk `open(need)` would allocate.
    fn next_size(&self, need: usize) -> usize {
        if need > HUGE {
            need
        } else {
            self.next.max(need)
        }
    }

    /// Allocates a block for `need` bytes: a new open chunk, or (over [`HUGE`]) a
    /// block of its own that leaves the open chunk alone. Returns the block.
    fn open(&mut self, need: usize) -> NonNull<u8> {
        let cap = self.next_size(need).max(1);
        // SAFETY: `cap > 0`.
        let raw = unsafe { alloc(layout(cap)) };
        let block = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout(cap)));
        self.blocks.push((block, cap));
        self.bytes += cap;
        if need <= HUGE {
            self.next = (self.next * 2).min(MAX_CHUNK);
            self.cur = block;
            self.len = 0;
            self.cap = cap;
        }
        block
    }

    /// Copies `s` into a chunk (or a block of its own) and returns where it lies.
    fn push(&mut self, s: &[u8]) -> *const u8 {
        let dst = if s.len() > HUGE {
            self.open(s.len()).as_ptr()
        } else {
            if self.room() < s.len() {
                self.open(s.len());
            }
            let p = self.tip();
            self.len += s.len();
            p
        };
        // SAFETY: `dst` has room for `s.len()` bytes in a block we own, which `s`
        // (borrowed from outside) cannot overlap.
        unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), dst, s.len()) };
        dst
    }

    /// Gives back the open chunk's unused tail. The chunk may move: returns
    /// `(old start, new start, kept length)` when it did.
    fn shrink_open(&mut self) -> Option<(*const u8, *const u8, usize)> {
        if self.cap == self.len || self.len == 0 {
            return None;
        }
        let k = self.blocks.iter().rposition(|&(b, _)| b == self.cur).expect("open chunk is a block");
        let old = self.cur;
        // SAFETY: `old` was allocated with `layout(cap)`; `len > 0`.
        let raw = unsafe { realloc(old.as_ptr(), layout(self.cap), self.len) };
        let new = NonNull::new(raw).unwrap_or_else(|| handle_alloc_error(layout(self.len)));
        self.bytes -= self.cap - self.len;
        self.blocks[k] = (new, self.len);
        self.cur = new;
        self.cap = self.len;
        (new != old).then_some((old.as_ptr().cast_const(), new.as_ptr().cast_const(), self.len))
    }
}

impl Drop for Chunks {
    fn drop(&mut self) {
        for &(b, cap) in &self.blocks {
            // SAFETY: allocated by `open` (or resized by `shrink_open`) with this layout.
            unsafe { dealloc(b.as_ptr(), layout(cap)) };
        }
    }
}

/// `p` moved from `old..old + len` to `new`, if it pointed there.
fn moved(p: *const u8, (old, new, len): (*const u8, *const u8, usize)) -> *const u8 {
    let off = (p as usize).wrapping_sub(old as usize);
    if off < len {
        new.wrapping_add(off)
    } else {
        p
    }
}

/// An out-of-line string.
#[derive(Clone, Copy)]
struct Long {
    ptr: *const u8,
    len: usize,
}

/// Symbol index → text, for the single-threaded interner.
pub(crate) struct TextStore {
    /// `ends[0] = 0`; `ends[i + 1]`: end of string `i` within its page's run
    /// (`| FLAG` when out of line). Empty until the first string.
    ends: Vec<u16>,
    /// Start of each page's run.
    pages: Vec<*const u8>,
    runs: Chunks,
    /// Out-of-line strings, indexed by the records in the runs.
    longs: Vec<Long>,
    long_text: Chunks,
    /// Owned characters stored.
    char_bytes: usize,
}

// SAFETY: every pointer leads into blocks the store owns (never written through
// `&self`) or to `&'static str` text; the store has no interior mutability.
unsafe impl Send for TextStore {}
// SAFETY: as above: `&TextStore` only reads.
unsafe impl Sync for TextStore {}

/// All ones except at a page's first string (whose start is 0).
#[inline(always)]
fn prev_mask(i: usize) -> u16 {
    0u16.wrapping_sub(u16::from(i & (PAGE - 1) != 0))
}

/// `a[..n] == b[..n]` for `n <= 32`, with overlapping word reads and no call.
///
/// # Safety
/// Both pointers must be valid for `n` bytes; `n <= 32`.
#[inline(always)]
unsafe fn bytes_eq_32(a: *const u8, b: *const u8, n: usize) -> bool {
    debug_assert!(n <= 32);
    // SAFETY: the caller's promise; `bytes_eq` only calls out above 32 bytes.
    unsafe { bytes_eq(a, b, n.min(32)) }
}

/// `a[..n] == b[..n]` for short `n`, with word-sized overlapping reads.
///
/// # Safety
/// Both pointers must be valid for `n` bytes.
#[inline(always)]
unsafe fn bytes_eq(a: *const u8, b: *const u8, n: usize) -> bool {
    // SAFETY: every read below lies in `[0, n)` of both (the caller's promise).
    unsafe {
        let r64 = |p: *const u8, at: usize| p.add(at).cast::<u64>().read_unaligned();
        let r32 = |p: *const u8, at: usize| p.add(at).cast::<u32>().read_unaligned();
        if n >= 8 {
            if n <= 16 {
                return (r64(a, 0) ^ r64(b, 0)) | (r64(a, n - 8) ^ r64(b, n - 8)) == 0;
            }
            if n <= 32 {
                #[cfg(target_arch = "x86_64")]
                {
                    use std::arch::x86_64::{
                        __m128i, _mm_and_si128, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8,
                    };
                    let r128 = |p: *const u8, at: usize| _mm_loadu_si128(p.add(at).cast::<__m128i>());
                    let lo = _mm_cmpeq_epi8(r128(a, 0), r128(b, 0));
                    let hi = _mm_cmpeq_epi8(r128(a, n - 16), r128(b, n - 16));
                    return _mm_movemask_epi8(_mm_and_si128(lo, hi)) == 0xFFFF;
                }
                #[cfg(not(target_arch = "x86_64"))]
                return (r64(a, 0) ^ r64(b, 0))
                    | (r64(a, 8) ^ r64(b, 8))
                    | (r64(a, n - 16) ^ r64(b, n - 16))
                    | (r64(a, n - 8) ^ r64(b, n - 8))
                    == 0;
            }
            return std::slice::from_raw_parts(a, n) == std::slice::from_raw_parts(b, n);
        }
        if n >= 4 {
            return (r32(a, 0) ^ r32(b, 0)) | (r32(a, n - 4) ^ r32(b, n - 4)) == 0;
        }
        if n == 0 {
            return true;
        }
        (*a ^ *b) | (*a.add(n / 2) ^ *b.add(n / 2)) | (*a.add(n - 1) ^ *b.add(n - 1)) == 0
    }
}

/// Copies `n` bytes from `src` to `dst` with word-sized overlapping moves when short.
///
/// # Safety
/// `src` valid for reading and `dst` for writing `n` bytes; no overlap.
#[inline(always)]
unsafe fn copy_short(src: *const u8, dst: *mut u8, n: usize) {
    // SAFETY: every access lies in `[0, n)` of its side (the caller's promise).
    unsafe {
        let r64 = |at: usize| src.add(at).cast::<u64>().read_unaligned();
        let w64 = |at: usize, v: u64| dst.add(at).cast::<u64>().write_unaligned(v);
        if (8..=16).contains(&n) {
            let (a, b) = (r64(0), r64(n - 8));
            w64(0, a);
            w64(n - 8, b);
        } else if (4..8).contains(&n) {
            let a = src.cast::<u32>().read_unaligned();
            let b = src.add(n - 4).cast::<u32>().read_unaligned();
            dst.cast::<u32>().write_unaligned(a);
            dst.add(n - 4).cast::<u32>().write_unaligned(b);
        } else if (17..=32).contains(&n) {
            let (a, b, c, d) = (r64(0), r64(8), r64(n - 16), r64(n - 8));
            w64(0, a);
            w64(8, b);
            w64(n - 16, c);
            w64(n - 8, d);
        } else if (1..4).contains(&n) {
            *dst = *src;
            *dst.add(n / 2) = *src.add(n / 2);
            *dst.add(n - 1) = *src.add(n - 1);
        } else {
            std::ptr::copy_nonoverlapping(src, dst, n);
        }
    }
}

impl TextStore {
    pub(crate) fn new() -> TextStore {
        TextStore {
            ends: Vec::new(),
            pages: Vec::new(),
            runs: Chunks::new(),
            longs: Vec::new(),
            long_text: Chunks::new(),
            char_bytes: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.ends.len().saturating_sub(1)
    }

    /// Room for `additional` more strings in the index, or an error (capacity overflow
    /// or a failed allocation) that leaves the store as it was.
    pub(crate) fn try_reserve(&mut self, additional: usize) -> Result<(), std::collections::TryReserveError> {
        if additional == 0 {
            return Ok(());
        }
        if self.ends.is_empty() {
            // The sentinel `ends[0] = 0` comes with the first allocation.
            self.ends.try_reserve_exact(additional.saturating_add(1))?;
            self.ends.push(0);
        } else {
            self.ends.try_reserve_exact(additional)?;
        }
        let pages = self.len().saturating_add(additional).div_ceil(PAGE);
        self.pages.try_reserve_exact(pages.saturating_sub(self.pages.len()))
    }

    /// `(run, start, end)` of string `i`: its run, and its start and raw `ends`
    /// entry (`FLAG` included) relative to the run.
    ///
    /// # Safety
    /// `i < self.len()`.
    #[inline(always)]
    unsafe fn raw(&self, i: usize) -> (*const u8, u16, u16) {
        // SAFETY: `i + 1 < ends.len()` and `i / PAGE < pages.len()` (a page pointer
        // is pushed with its first string).
        unsafe {
            let end = *self.ends.get_unchecked(i + 1);
            let start = *self.ends.get_unchecked(i) & prev_mask(i) & !FLAG;
            let run = *self.pages.get_unchecked(i >> PAGE_BITS);
            (run, start, end)
        }
    }

    /// Text of string `i`.
    ///
    /// # Panics
    /// If `i >= len()`.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &str {
        assert!(i < self.len(), "symbol index {i} out of range (len {})", self.len());
        // SAFETY: checked above; an inline string's bytes lie in its run and were
        // copied from a `&str`.
        unsafe {
            let (run, start, end) = self.raw(i);
            if end & FLAG != 0 {
                return self.long_at(run, start);
            }
            let bytes = std::slice::from_raw_parts(run.add(usize::from(start)), usize::from(end - start));
            std::str::from_utf8_unchecked(bytes)
        }
    }

    /// The out-of-line string whose record is at `run + start`.
    ///
    /// # Safety
    /// `run + start` must be the record of an out-of-line string of this store.
    #[cold]
    unsafe fn long_at(&self, run: *const u8, start: u16) -> &str {
        // SAFETY: the caller's promise; records index `longs`, whose entries point
        // at owned or static UTF-8 text.
        unsafe {
            let k = run.add(usize::from(start)).cast::<u32>().read_unaligned() as usize;
            let l = *self.longs.get_unchecked(k);
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(l.ptr, l.len))
        }
    }

    /// Whether string `i` is inline and equals `q`, which is at most 32 bytes
    /// long (an out-of-line string answers `false`: the caller then looks again
    /// the slow way).
    ///
    /// # Safety
    /// `i < self.len()` and `q.len() <= 32`.
    #[inline(always)]
    pub(crate) unsafe fn eq_short(&self, i: usize, q: &[u8]) -> bool {
        debug_assert!(q.len() <= 32);
        // SAFETY: the caller's promise. An out-of-line entry's `end - start` has
        // `FLAG` set, so it never equals a short length.
        unsafe {
            let (run, start, end) = self.raw(i);
            usize::from(end.wrapping_sub(start)) == q.len()
                && bytes_eq_32(run.add(usize::from(start)), q.as_ptr(), q.len())
        }
    }

    /// Whether string `i` (`< len()`) equals `q`.
    pub(crate) fn eq(&self, i: usize, q: &[u8]) -> bool {
        self.get(i).as_bytes() == q
    }

    /// Appends an entry ending at `end` (relative to its page's run).
    #[inline(always)]
    fn push_end(&mut self, end: u16) {
        if self.ends.len() == self.ends.capacity() {
            self.grow_ends();
        }
        self.ends.push(end);
    }

    #[cold]
    fn grow_ends(&mut self) {
        if self.ends.is_empty() {
            self.ends.reserve_exact(64);
            self.ends.push(0);
        } else {
            self.ends.reserve_exact(Self::growth(self.ends.capacity(), 64));
        }
    }

    /// Growth step of the index vectors: 1/8 of their size, at least `min`
    /// (bounded slack, amortised O(1)).
    fn growth(cap: usize, min: usize) -> usize {
        (cap / 8).max(min)
    }

    /// Length of the current page's run so far (0 when the next string starts a page).
    #[inline(always)]
    fn run_len(&self) -> usize {
        let i = self.len();
        if i.is_multiple_of(PAGE) {
            0
        } else {
            usize::from(self.ends[i] & !FLAG)
        }
    }

    /// Appends `bytes` (a short string or a record) to the current page's run and
    /// returns its end within the run.
    #[inline(always)]
    fn append_run(&mut self, bytes: &[u8]) -> u16 {
        let i = self.len();
        if i.is_multiple_of(PAGE) || self.runs.room() < bytes.len() {
            self.start_run(bytes.len());
        }
        let run = self.run_len();
        let dst = self.runs.tip();
        // SAFETY: `start_run` left room for `bytes` at the open chunk's tip.
        unsafe { copy_short(bytes.as_ptr(), dst, bytes.len()) };
        self.runs.len += bytes.len();
        (run + bytes.len()) as u16
    }

    /// Makes room for `need` more bytes in the current page's run: starts a new
    /// page's run, or moves the current one into a fresh chunk so that it stays
    /// contiguous.
    #[cold]
    fn start_run(&mut self, need: usize) {
        if self.len().is_multiple_of(PAGE) {
            if self.runs.room() < need {
                self.runs.open(need);
            }
            if self.pages.len() == self.pages.capacity() {
                self.pages.reserve_exact(Self::growth(self.pages.capacity(), 8));
            }
            self.pages.push(self.runs.tip());
        } else {
            let run = self.run_len();
            let last = self.pages.len() - 1;
            let old = self.pages[last];
            self.runs.open(run + need);
            let dst = self.runs.tip();
            // SAFETY: `old..old + run` is the run, in an older chunk (or `run` is 0);
            // `dst` has room for it and `need` more bytes.
            unsafe { std::ptr::copy_nonoverlapping(old, dst, run) };
            self.runs.len += run;
            self.pages[last] = dst;
        }
    }

    /// Appends an owned copy of `s` as string `len()`.
    #[inline]
    pub(crate) fn push_owned(&mut self, s: &str) {
        if s.len() <= INLINE_MAX {
            let end = self.append_run(s.as_bytes());
            self.push_end(end);
        } else {
            let ptr = self.long_text.push(s.as_bytes());
            self.push_long(Long { ptr, len: s.len() });
        }
        self.char_bytes += s.len();
    }

    /// Appends `s` without copying it.
    pub(crate) fn push_static(&mut self, s: &'static str) {
        self.push_long(Long { ptr: s.as_ptr(), len: s.len() });
    }

    fn push_long(&mut self, l: Long) {
        let k = u32::try_from(self.longs.len()).expect("fewer out-of-line strings than symbols");
        if self.longs.len() == self.longs.capacity() {
            self.longs.reserve_exact(Self::growth(self.longs.capacity(), 4));
        }
        self.longs.push(l);
        let end = self.append_run(&k.to_le_bytes());
        self.push_end(end | FLAG);
    }

    /// Bytes newly allocated by pushing a string of `len` bytes (upper bound).
    pub(crate) fn push_cost(&self, len: usize, is_static: bool) -> usize {
        let mut cost = 0;
        if self.ends.len() == self.ends.capacity() {
            cost += 2 * Self::growth(self.ends.capacity(), 64);
        }
        let run = self.run_len();
        if self.len().is_multiple_of(PAGE) && self.pages.len() == self.pages.capacity() {
            cost += std::mem::size_of::<*const u8>() * Self::growth(self.pages.capacity(), 8);
        }
        let block = std::mem::size_of::<(NonNull<u8>, usize)>();
        let inline = if is_static || len > INLINE_MAX {
            if self.longs.len() == self.longs.capacity() {
                cost += std::mem::size_of::<Long>() * Self::growth(self.longs.capacity(), 4);
            }
            if !is_static && self.long_text.room() < len {
                cost += self.long_text.next_size(len) + block * (self.long_text.blocks.capacity() + 4);
            }
            RECORD
        } else {
            len
        };
        if self.runs.room() < inline {
            cost += self.runs.next_size(run + inline) + block * (self.runs.blocks.capacity() + 4);
        }
        cost
    }

    /// Owned characters stored.
    pub(crate) fn char_bytes(&self) -> usize {
        self.char_bytes
    }

    /// Chunk bytes not holding characters (free tails, moved runs, records).
    pub(crate) fn slack_bytes(&self) -> usize {
        self.runs.bytes + self.long_text.bytes - self.char_bytes
    }

    /// Index bytes: the end column, page pointers, out-of-line list and block lists.
    pub(crate) fn index_bytes(&self) -> usize {
        let block = std::mem::size_of::<(NonNull<u8>, usize)>();
        self.ends.capacity() * 2
            + self.pages.capacity() * std::mem::size_of::<*const u8>()
            + self.longs.capacity() * std::mem::size_of::<Long>()
            + (self.runs.blocks.capacity() + self.long_text.blocks.capacity()) * block
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.ends.shrink_to_fit();
        self.pages.shrink_to_fit();
        self.longs.shrink_to_fit();
        self.runs.blocks.shrink_to_fit();
        self.long_text.blocks.shrink_to_fit();
        if let Some(mv) = self.runs.shrink_open() {
            // Only the last pages can live in the open chunk.
            for p in self.pages.iter_mut().rev() {
                let q = moved(*p, mv);
                if q == *p {
                    break;
                }
                *p = q;
            }
        }
        if let Some(mv) = self.long_text.shrink_open() {
            for l in &mut self.longs {
                l.ptr = moved(l.ptr, mv);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_stay_contiguous_across_chunks() {
        let mut t = TextStore::new();
        let strs: Vec<String> = (0..20_000).map(|i| format!("{}{i}", "x".repeat(i % 200))).collect();
        for s in &strs {
            t.push_owned(s);
        }
        for (i, s) in strs.iter().enumerate() {
            assert_eq!(t.get(i), s);
            assert!(t.eq(i, s.as_bytes()));
            if s.len() <= 32 {
                // SAFETY: `i < len`; `s` is short.
                assert!(unsafe { t.eq_short(i, s.as_bytes()) });
            }
        }
        assert_eq!(t.char_bytes(), strs.iter().map(|s| s.len()).sum::<usize>());
        t.shrink_to_fit();
        for (i, s) in strs.iter().enumerate() {
            assert_eq!(t.get(i), s);
        }
    }

    #[test]
    fn out_of_line_and_empty_strings() {
        let mut t = TextStore::new();
        let long = "é".repeat(5000);
        let huge = "z".repeat(HUGE + 3);
        t.push_owned("");
        t.push_static("while");
        t.push_owned(&long);
        t.push_owned(&huge);
        t.push_static("");
        t.push_owned("x");
        let want = ["", "while", long.as_str(), huge.as_str(), "", "x"];
        for (i, w) in want.iter().enumerate() {
            assert_eq!(t.get(i), *w);
            assert!(t.eq(i, w.as_bytes()), "{i}");
        }
        // SAFETY: indices below `len`, queries short.
        unsafe {
            assert!(t.eq_short(0, b""));
            assert!(t.eq_short(5, b"x"));
            // Out-of-line strings (here the static "while" and "") answer false.
            assert!(!t.eq_short(1, b"while"));
            assert!(!t.eq_short(4, b""));
            assert!(!t.eq_short(1, b"whilf"));
            assert!(!t.eq_short(0, b"x"));
            assert!(!t.eq_short(5, b""));
        }
        assert_eq!(t.char_bytes(), long.len() + huge.len() + 1);
        t.shrink_to_fit();
        for (i, w) in want.iter().enumerate() {
            assert_eq!(t.get(i), *w);
        }
    }

    #[test]
    fn reserved_store_keeps_its_sentinel() {
        let mut t = TextStore::new();
        t.try_reserve(100).unwrap();
        assert_eq!(t.len(), 0);
        t.push_owned("a");
        t.push_owned("bc");
        assert_eq!((t.len(), t.get(0), t.get(1)), (2, "a", "bc"));
        t.try_reserve(1000).unwrap();
        t.push_owned("d");
        assert_eq!(t.get(2), "d");
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn get_past_the_end_panics() {
        let mut t = TextStore::new();
        t.push_owned("a");
        t.get(1);
    }

    #[test]
    fn bytes_eq_every_length() {
        for n in 0..80usize {
            let a: Vec<u8> = (0..n as u8).collect();
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 1;
                // SAFETY: both `n` bytes long.
                assert!(!unsafe { bytes_eq(a.as_ptr(), b.as_ptr(), n) }, "{n} {i}");
            }
            // SAFETY: as above.
            assert!(unsafe { bytes_eq(a.as_ptr(), a.clone().as_ptr(), n) });
        }
    }
}
