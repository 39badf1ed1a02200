//! Packed text storage for the single-threaded [`Interner`](super::Interner).
//!
//! Characters live in chunks of at most [`SLOT`] bytes that are allocated once and
//! never grown (sizes double from 4 KiB up to 64 KiB, then stay there); strings
//! longer than [`HUGE`] get a block of their own. Each chunk owns one 64 KiB "slot"
//! of a 32-bit virtual address space (a huge block owns as many slots as it needs),
//! so a virtual offset finds its chunk with one shift.
//!
//! The per-symbol index is a single `u32` per string: its virtual *end*. A string
//! starts where the previous one ended, or at the start of its chunk when the
//! previous one lives in an earlier chunk, so no start offset or length is stored.
//! A zero-length entry is either `""` or a `&'static str` from `intern_static`,
//! which is kept (uncopied) in a small side list sorted by symbol.

use super::error::InternerError;

/// log2 of the virtual slot size.
const SLOT_BITS: u32 = 16;
/// Virtual slot size and largest normal chunk: 64 KiB.
pub(crate) const SLOT: usize = 1 << SLOT_BITS;
/// First chunk size (chunks double up to [`SLOT`]).
const FIRST_CHUNK: usize = 4096;
/// Strings longer than this get a block of their own.
pub(crate) const HUGE: usize = SLOT / 4;

struct Chunk {
    /// Virtual offset of `text[0]`.
    base: u32,
    /// Never grows past its initial capacity.
    text: String,
}

/// Symbol index → text, for the single-threaded interner.
pub(crate) struct TextStore {
    /// `ends[i]`: virtual end offset of string `i`.
    ends: Vec<u32>,
    /// Indexed by virtual slot; a huge block's earlier slots hold empty placeholders.
    chunks: Vec<Chunk>,
    /// The chunk taking small strings, if any.
    cur: Option<usize>,
    next_chunk: usize,
    /// `(symbol index, text)` for `intern_static`, sorted by index.
    statics: Vec<(u32, &'static str)>,
    char_bytes: usize,
    chunk_bytes: usize,
}

impl TextStore {
    pub(crate) fn new() -> TextStore {
        TextStore {
            ends: Vec::new(),
            chunks: Vec::new(),
            cur: None,
            next_chunk: FIRST_CHUNK,
            statics: Vec::new(),
            char_bytes: 0,
            chunk_bytes: 0,
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        self.ends.reserve_exact(additional);
    }

    fn last_end(&self) -> u32 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Text of string `i` (`i < len()`).
    #[inline]
    pub(crate) fn get(&self, i: usize) -> &str {
        let end = self.ends[i];
        let prev = if i == 0 { 0 } else { self.ends[i - 1] };
        if end == prev {
            return self.static_at(i);
        }
        let chunk = &self.chunks[((end - 1) >> SLOT_BITS) as usize];
        let start = prev.max(chunk.base);
        &chunk.text[(start - chunk.base) as usize..(end - chunk.base) as usize]
    }

    #[cold]
    fn static_at(&self, i: usize) -> &str {
        match self.statics.binary_search_by_key(&i, |&(s, _)| s as usize) {
            Ok(k) => self.statics[k].1,
            Err(_) => "",
        }
    }

    /// Growth step of the index: 1/4 of its size (bounded slack, amortised O(1)).
    fn ends_growth(&self) -> usize {
        if self.ends.len() < self.ends.capacity() {
            0
        } else {
            (self.ends.capacity() / 4).max(64)
        }
    }

    /// Bytes newly allocated by pushing a string of `len` bytes (upper bound).
    pub(crate) fn push_cost(&self, len: usize, is_static: bool) -> usize {
        let mut cost = self.ends_growth() * 4;
        if is_static {
            cost += if self.statics.len() == self.statics.capacity() {
                (self.statics.capacity().max(4)) * std::mem::size_of::<(u32, &str)>()
            } else {
                0
            };
        } else if len > 0 && !self.fits_current(len) {
            let slots = len.div_ceil(SLOT).max(1);
            let cap = if len > HUGE { len } else { self.next_chunk.max(len) };
            cost += cap + (slots + self.chunks.len()) * std::mem::size_of::<Chunk>();
        }
        cost
    }

    fn fits_current(&self, len: usize) -> bool {
        self.cur.is_some_and(|c| {
            let t = &self.chunks[c].text;
            t.capacity() - t.len() >= len
        })
    }

    fn push_end(&mut self, end: u32) {
        let grow = self.ends_growth();
        if grow > 0 {
            self.ends.reserve_exact(grow);
        }
        self.ends.push(end);
    }

    /// Appends an owned copy of `s` as string `len()`.
    pub(crate) fn push_owned(&mut self, s: &str) -> Result<(), InternerError> {
        if s.is_empty() {
            self.push_end(self.last_end());
            return Ok(());
        }
        if !self.fits_current(s.len()) {
            self.open_chunk(s.len())?;
        }
        let c = self.cur.expect("open_chunk sets cur");
        let chunk = &mut self.chunks[c];
        chunk.text.push_str(s);
        let end = u64::from(chunk.base) + chunk.text.len() as u64;
        let end = u32::try_from(end).expect("open_chunk keeps chunks inside the u32 space");
        self.char_bytes += s.len();
        if s.len() > HUGE {
            // A huge block is full; the next small string opens a new chunk.
            self.cur = None;
        }
        self.push_end(end);
        Ok(())
    }

    /// Opens a chunk (or huge block) with room for `len` bytes at the next free slot.
    fn open_chunk(&mut self, len: usize) -> Result<(), InternerError> {
        let too_big = InternerError::TextSpaceExhausted { len };
        let base = u32::try_from(self.chunks.len() << SLOT_BITS).map_err(|_| too_big.clone())?;
        let room = (u32::MAX - base) as usize;
        let cap = if len > HUGE { len } else { self.next_chunk.max(len).min(room) };
        if cap < len || len > room {
            return Err(too_big);
        }
        let slots = len.div_ceil(SLOT).max(1);
        for _ in 1..slots {
            self.chunks.push(Chunk { base, text: String::new() });
        }
        self.chunks.push(Chunk { base, text: String::with_capacity(cap) });
        self.chunk_bytes += cap;
        if len <= HUGE {
            self.next_chunk = (self.next_chunk * 2).min(SLOT);
        }
        self.cur = Some(self.chunks.len() - 1);
        Ok(())
    }

    /// Appends `s` without copying it.
    pub(crate) fn push_static(&mut self, s: &'static str) {
        let idx = u32::try_from(self.len()).expect("caller checked the symbol space");
        if !s.is_empty() {
            self.statics.push((idx, s));
        }
        self.push_end(self.last_end());
    }

    /// Owned characters stored.
    pub(crate) fn char_bytes(&self) -> usize {
        self.char_bytes
    }

    /// Unused chunk capacity.
    pub(crate) fn slack_bytes(&self) -> usize {
        self.chunk_bytes - self.char_bytes
    }

    /// Index bytes: the end column, the chunk directory and the static list.
    pub(crate) fn index_bytes(&self) -> usize {
        self.ends.capacity() * 4
            + self.chunks.capacity() * std::mem::size_of::<Chunk>()
            + self.statics.capacity() * std::mem::size_of::<(u32, &str)>()
    }

    pub(crate) fn shrink_to_fit(&mut self) {
        self.ends.shrink_to_fit();
        self.chunks.shrink_to_fit();
        self.statics.shrink_to_fit();
        if let Some(c) = self.cur.take() {
            let t = &mut self.chunks[c].text;
            self.chunk_bytes -= t.capacity() - t.len();
            t.shrink_to_fit();
            // Keep the accounting exact even if the allocator kept more.
            self.chunk_bytes += t.capacity() - t.len();
        }
    }
}
