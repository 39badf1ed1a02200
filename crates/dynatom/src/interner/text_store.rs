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
//! Runs and long strings live in two [`Arena`]s (chunks that never move, doubling from
//! 4 KiB to 32 KiB; long strings over 8 KiB get a block each). A run must be
//! contiguous, so when the open chunk cannot take the next string of a page, the page's
//! run so far (at most `PAGE * INLINE_MAX` bytes, typically a few hundred) is copied
//! into the new chunk and the page repointed; the old copy stays in place unused.
//!
//! Appending is two-phase: [`TextStore::try_push_owned`] first makes every allocation
//! the string needs (index room, a chunk, the long text's copy), each of which leaves
//! the store as it was when it fails, and then writes without allocating. The
//! interner's common case, a string of at most 32 bytes with room everywhere already,
//! asks [`TextStore::can_push_fast`] and then [`TextStore::push_fast`], which makes no
//! call at all (the index entry and page pointer are written into spare capacity).

use super::arena::{AllocFailed, Arena, ChunkSizes};
use super::simd;

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
/// The chunk sizes of both arenas: the first chunk, doubling up to the largest.
pub(crate) const FIRST_CHUNK: usize = 4096;
const CHUNKS: ChunkSizes = ChunkSizes { first: FIRST_CHUNK, max: 1 << 15 };

// A page's run always fits the `u16` offsets below `FLAG`, and a normal chunk (a run
// never needs a block of its own).
const _: () = assert!(PAGE * INLINE_MAX < FLAG as usize && PAGE * INLINE_MAX <= CHUNKS.max / 4);

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
    runs: Arena,
    /// Out-of-line strings, indexed by the records in the runs.
    longs: Vec<Long>,
    long_text: Arena,
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

impl TextStore {
    pub(crate) fn new() -> TextStore {
        TextStore {
            ends: Vec::new(),
            pages: Vec::new(),
            runs: Arena::new(CHUNKS),
            longs: Vec::new(),
            long_text: Arena::new(CHUNKS),
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
        // `FLAG` set, so it never equals a short length; an inline string's bytes
        // lie in its run, `start..end`, which is `q.len()` long when compared.
        unsafe {
            let (run, start, end) = self.raw(i);
            usize::from(end.wrapping_sub(start)) == q.len() && simd::eq_at(run.add(usize::from(start)), q)
        }
    }

    /// Whether string `i` (`< len()`) equals `q`.
    pub(crate) fn eq(&self, i: usize, q: &[u8]) -> bool {
        self.get(i).as_bytes() == q
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
        if i.is_multiple_of(PAGE) { 0 } else { usize::from(self.ends[i] & !FLAG) }
    }

    /// Makes every allocation that appending an entry with `run_bytes` bytes in its
    /// page's run needs (an out-of-line one if `long`): room in the index, in the
    /// page list and in the open chunk. Each step that fails leaves the store as it
    /// was; one that succeeds leaves it consistent (a run moved to a new chunk has
    /// its page repointed).
    /// Returns whether the entry starts a page.
    #[inline(always)]
    fn try_reserve_entry(&mut self, run_bytes: usize, long: bool) -> Result<bool, AllocFailed> {
        if self.ends.len() == self.ends.capacity() {
            self.try_grow_ends()?;
        }
        if long && self.longs.len() == self.longs.capacity() {
            grow(&mut self.longs, 4)?;
        }
        let starts_page = self.len().is_multiple_of(PAGE);
        if starts_page || self.runs.room() < run_bytes {
            self.try_make_run_room(run_bytes)?;
        }
        Ok(starts_page)
    }

    #[cold]
    fn try_grow_ends(&mut self) -> Result<(), AllocFailed> {
        if self.ends.is_empty() {
            reserve_exact(&mut self.ends, 64)?;
            self.ends.push(0);
            Ok(())
        } else {
            grow(&mut self.ends, 64)
        }
    }

    /// Makes room for `need` more bytes in the current page's run: room for a new
    /// page's run, or the current run moved into a fresh chunk so that it stays
    /// contiguous.
    #[cold]
    fn try_make_run_room(&mut self, need: usize) -> Result<(), AllocFailed> {
        if self.len().is_multiple_of(PAGE) {
            if self.pages.len() == self.pages.capacity() {
                grow(&mut self.pages, 8)?;
            }
            return self.runs.try_make_room(need);
        }
        let run = self.run_len();
        let last = self.pages.len() - 1;
        self.runs.try_open(run + need)?;
        // SAFETY: `pages[last]..+run` is the current page's run, in an older chunk
        // (or `run` is 0), which stays allocated while the store lives.
        let old = unsafe { std::slice::from_raw_parts(self.pages[last], run) };
        self.pages[last] = self.runs.push_within(old);
        Ok(())
    }

    /// Appends `bytes` (a short string or a record) to the current page's run, which
    /// `try_reserve_entry` made room for (and said whether it `starts_page`), and
    /// returns its end within the run.
    #[inline(always)]
    fn append_run(&mut self, bytes: &[u8], starts_page: bool) -> u16 {
        let run = if starts_page {
            self.pages.push(self.runs.tip());
            0
        } else {
            usize::from(self.ends[self.len()] & !FLAG)
        };
        self.runs.push_within(bytes);
        (run + bytes.len()) as u16
    }

    /// Whether [`push_fast`](Self::push_fast) can append a string of `len` bytes: at
    /// most 32, with room in the index, the page list (if it starts a page) and the
    /// open chunk.
    #[inline(always)]
    pub(crate) fn can_push_fast(&self, len: usize) -> bool {
        let room_for_page = !self.len().is_multiple_of(PAGE) || self.pages.len() < self.pages.capacity();
        // `ends` is empty only before its first allocation, which holds the sentinel.
        room_for_page
            && !self.ends.is_empty()
            && self.ends.len() < self.ends.capacity()
            && len <= 32
            && len <= self.runs.room()
    }

    /// Appends a copy of `s` as string `len()` without allocating or calling anything.
    ///
    /// # Panics
    /// Unless [`can_push_fast`](Self::can_push_fast)`(s.len())`.
    #[inline(always)]
    pub(crate) fn push_fast(&mut self, s: &[u8]) {
        assert!(!self.ends.is_empty(), "push_fast before the index's first allocation");
        let i = self.ends.len() - 1;
        let run = if i.is_multiple_of(PAGE) {
            // A plain `push` would keep a call to its growth path (and with it the
            // caller's register saves), though there is room.
            self.pages.spare_capacity_mut()[0].write(self.runs.tip());
            // SAFETY: the element at `len` was just initialised, within the capacity.
            unsafe { self.pages.set_len(self.pages.len() + 1) };
            0
        } else {
            // Not a page's first string, so `ends[i]` is the end of the page's run so far.
            usize::from(self.ends[i] & !FLAG)
        };
        self.runs.push_short_within(s);
        // `run + s.len() <= PAGE * INLINE_MAX < FLAG`.
        let end = (run + s.len()) as u16;
        self.ends.spare_capacity_mut()[0].write(end);
        // SAFETY: the element at `len` was just initialised, within the capacity.
        unsafe { self.ends.set_len(i + 2) };
        self.char_bytes += s.len();
    }

    /// Appends an owned copy of `s` as string `len()`. On failure the store is as it
    /// was (give or take spare capacity).
    #[inline]
    pub(crate) fn try_push_owned(&mut self, s: &str) -> Result<(), AllocFailed> {
        if s.len() <= INLINE_MAX {
            let starts_page = self.try_reserve_entry(s.len(), false)?;
            let end = self.append_run(s.as_bytes(), starts_page);
            self.ends.push(end);
        } else {
            let starts_page = self.try_reserve_entry(RECORD, true)?;
            let ptr = self.long_text.try_copy(s.as_bytes())?;
            self.push_long(Long { ptr, len: s.len() }, starts_page);
        }
        self.char_bytes += s.len();
        Ok(())
    }

    /// Appends `s` without copying it, as [`try_push_owned`](Self::try_push_owned).
    pub(crate) fn try_push_static(&mut self, s: &'static str) -> Result<(), AllocFailed> {
        let starts_page = self.try_reserve_entry(RECORD, true)?;
        self.push_long(Long { ptr: s.as_ptr(), len: s.len() }, starts_page);
        Ok(())
    }

    /// Appends an out-of-line entry; `try_reserve_entry(RECORD, true)` made room.
    fn push_long(&mut self, l: Long, starts_page: bool) {
        let k = u32::try_from(self.longs.len()).expect("fewer out-of-line strings than symbols");
        self.longs.push(l);
        let end = self.append_run(&k.to_le_bytes(), starts_page);
        self.ends.push(end | FLAG);
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
        let inline = if is_static || len > INLINE_MAX {
            if self.longs.len() == self.longs.capacity() {
                cost += std::mem::size_of::<Long>() * Self::growth(self.longs.capacity(), 4);
            }
            if !is_static {
                cost += self.long_text.cost(len);
            }
            RECORD
        } else {
            len
        };
        if self.runs.room() < inline {
            cost += self.runs.open_cost(run + inline);
        }
        cost
    }

    /// Owned characters stored.
    pub(crate) fn char_bytes(&self) -> usize {
        self.char_bytes
    }

    /// Chunk bytes not holding characters (free tails, moved runs, records).
    pub(crate) fn slack_bytes(&self) -> usize {
        self.runs.bytes() + self.long_text.bytes() - self.char_bytes
    }

    /// Index bytes: the end column, page pointers, out-of-line list and block lists.
    pub(crate) fn index_bytes(&self) -> usize {
        self.ends.capacity() * 2
            + self.pages.capacity() * std::mem::size_of::<*const u8>()
            + self.longs.capacity() * std::mem::size_of::<Long>()
            + self.runs.directory_bytes()
            + self.long_text.directory_bytes()
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.ends.shrink_to_fit();
        self.pages.shrink_to_fit();
        self.longs.shrink_to_fit();
        self.runs.shrink_directory();
        self.long_text.shrink_directory();
        if let Some(moved) = self.runs.shrink_open() {
            // Every page is looked at: stopping at the first page found outside the open
            // chunk (only the last pages can be inside it) missed them all when the last
            // page's run was empty and started at the chunk's tip, one past its end, and
            // left them pointing into the freed chunk (found by the interner fuzz target).
            for p in &mut self.pages {
                *p = moved.follow_run_start(*p);
            }
        }
        if let Some(moved) = self.long_text.shrink_open() {
            for l in &mut self.longs {
                l.ptr = moved.follow(l.ptr);
            }
        }
    }
}

/// Grows a full index vector by [`TextStore::growth`].
fn grow<T>(v: &mut Vec<T>, min: usize) -> Result<(), AllocFailed> {
    let additional = TextStore::growth(v.capacity(), min);
    reserve_exact(v, additional)
}

/// `v.try_reserve_exact(additional)`, reporting the bytes asked for.
fn reserve_exact<T>(v: &mut Vec<T>, additional: usize) -> Result<(), AllocFailed> {
    v.try_reserve_exact(additional)
        .map_err(|_| AllocFailed { bytes: additional.saturating_mul(std::mem::size_of::<T>()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_and_general_appends_mix() {
        let mut t = TextStore::new();
        // Lengths 0 to 300: the fast path takes those up to 32 bytes when there is room
        // (page starts included), the general path the rest and every growth.
        let strs: Vec<String> = (0..20_000).map(|i| format!("{i}{}", "é".repeat((i * 7) % 151))).collect();
        let mut fast = 0;
        for s in &strs {
            if t.can_push_fast(s.len()) {
                t.push_fast(s.as_bytes());
                fast += 1;
            } else {
                assert!(
                    s.len() > 32
                        || t.len() == 0
                        || t.ends.len() == t.ends.capacity()
                        || t.runs.room() < s.len()
                        || (t.len().is_multiple_of(PAGE) && t.pages.len() == t.pages.capacity())
                );
                t.try_push_owned(s).unwrap();
            }
        }
        assert!(fast > 1000, "{fast}");
        for (i, s) in strs.iter().enumerate() {
            assert_eq!(t.get(i), s);
        }
        assert_eq!(t.char_bytes(), strs.iter().map(|s| s.len()).sum::<usize>());
        t.shrink_to_fit();
        for (i, s) in strs.iter().enumerate() {
            assert_eq!(t.get(i), s);
        }
    }

    #[test]
    fn runs_stay_contiguous_across_chunks() {
        let mut t = TextStore::new();
        let strs: Vec<String> = (0..20_000).map(|i| format!("{}{i}", "x".repeat(i % 200))).collect();
        for s in &strs {
            t.try_push_owned(s).unwrap();
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

    /// Regression (interner fuzz target, 10-minute run): a page whose run is empty starts at
    /// the open chunk's tip, one past its end; shrinking used to stop repointing pages
    /// there and left the earlier pages in the freed chunk. The realloc moves the chunk
    /// under valgrind and AddressSanitizer, which `scripts/test` runs this under.
    #[test]
    fn shrinking_repoints_pages_before_an_empty_last_run() {
        let mut t = TextStore::new();
        let strs: Vec<String> = (0..PAGE).map(|i| format!("text number {i}")).collect();
        for s in &strs {
            t.try_push_owned(s).unwrap();
        }
        t.try_push_owned("").unwrap();
        t.shrink_to_fit();
        for (i, s) in strs.iter().enumerate() {
            assert_eq!(t.get(i), s);
        }
        assert_eq!(t.get(PAGE), "");
    }

    #[test]
    fn out_of_line_and_empty_strings() {
        let mut t = TextStore::new();
        let long = "é".repeat(5000);
        let huge = "z".repeat(CHUNKS.max / 4 + 3);
        t.try_push_owned("").unwrap();
        t.try_push_static("while").unwrap();
        t.try_push_owned(&long).unwrap();
        t.try_push_owned(&huge).unwrap();
        t.try_push_static("").unwrap();
        t.try_push_owned("x").unwrap();
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
        t.try_push_owned("a").unwrap();
        t.try_push_owned("bc").unwrap();
        assert_eq!((t.len(), t.get(0), t.get(1)), (2, "a", "bc"));
        t.try_reserve(1000).unwrap();
        t.try_push_owned("d").unwrap();
        assert_eq!(t.get(2), "d");
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn get_past_the_end_panics() {
        let mut t = TextStore::new();
        t.try_push_owned("a").unwrap();
        t.get(1);
    }
}
