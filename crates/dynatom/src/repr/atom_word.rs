//! The 8-byte tagged representation behind [`ByteAtom`](crate::ByteAtom) (and so
//! [`Atom`](crate::Atom), which wraps it), and the raw form a table stores. It holds any
//! bytes; whether they are UTF-8 is the business of [`crate::utf8`].
//!
//! # Memory layout
//!
//! ```text
//!          byte 0             bytes 1..8
//! inline  +-----------------+---------------------------+
//!         | len<<1 | 0b1    | bytes[0..7], zero padded  |   0..=7 bytes
//!         +-----------------+---------------------------+
//! heap    | pointer to a heap block, low bits 0b000     |   one count of the block
//!         +---------------------------------------------+
//! static  | pointer to a StaticEntry | 0b010            |   immortal, bytes in the binary
//!         +---------------------------------------------+
//! declared| 61-bit key of the text (fixed seed) | 0b110|   a value, known at compile time
//!         +---------------------------------------------+
//! ```
//!
//! Equal inline byte strings have equal words (the padding is always zero), a declared
//! text has one word everywhere (see [`super::declared`]), and a table files exactly one
//! heap or static entry per byte string (text or not), so comparing two atoms of one
//! table is comparing two words.
//!
//! The word is an integer, not a pointer, so that declared atoms can be `const` items
//! usable as `match` patterns (only integer-like types are structural). Heap and static
//! entry words expose their pointer's provenance when made and take it back when read.

use std::num::NonZeroUsize;
use std::ptr::NonNull;

use super::declared;
use super::heap::{self, Block, DeadBlock, Header, HitSigns, StaticEntry};
use super::str_word::StrWord;

const TAG_INLINE: usize = 0b001;
const TAG_STATIC: usize = 0b010;
/// A declared atom's word (see [`super::declared`]).
pub(crate) const TAG_DECLARED: usize = 0b110;
const TAG_MASK: usize = 0b111;

/// Texts up to this many bytes are atoms by value and never reach a table.
pub(crate) const INLINE_ATOM_CAPACITY: usize = 7;

#[cfg(not(loom))]
const _: () = assert!(std::mem::align_of::<StaticEntry>() >= 8, "static entries use a 3-bit tag");

/// The word of an inline atom of `bytes`, if they fit: `const`, for declared atoms.
pub(crate) const fn inline_bits(bytes: &[u8]) -> Option<usize> {
    if bytes.len() > INLINE_ATOM_CAPACITY {
        return None;
    }
    let mut raw = [0u8; 8];
    raw[0] = ((bytes.len() << 1) | TAG_INLINE) as u8;
    let mut i = 0;
    while i < bytes.len() {
        raw[i + 1] = bytes[i];
        i += 1;
    }
    Some(u64::from_le_bytes(raw) as usize)
}

/// [`inline_bits`] at run time for up to 7 bytes: two overlapping loads instead of a
/// loop. `None` for longer input.
#[inline]
pub(crate) fn inline_bits_fast(bytes: &[u8]) -> Option<usize> {
    let len = bytes.len();
    // Longer texts, those that go on to a table, leave with one compare.
    if len > INLINE_ATOM_CAPACITY {
        return None;
    }
    let packed: u64 = match len {
        4..=7 => {
            let low = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
            let high = u32::from_le_bytes([bytes[len - 4], bytes[len - 3], bytes[len - 2], bytes[len - 1]]);
            u64::from(low) | (u64::from(high) << ((len - 4) * 8))
        }
        2..=3 => {
            let low = u16::from_le_bytes([bytes[0], bytes[1]]);
            let high = u16::from_le_bytes([bytes[len - 2], bytes[len - 1]]);
            u64::from(low) | (u64::from(high) << ((len - 2) * 8))
        }
        1 => u64::from(bytes[0]),
        0 => 0,
        _ => return None,
    };
    Some(((packed << 8) | ((len as u64) << 1) | TAG_INLINE as u64) as usize)
}

/// Derived equality compares the words: what makes `const` atoms usable as patterns.
#[repr(transparent)]
#[derive(PartialEq, Eq)]
pub(crate) struct AtomWord(NonZeroUsize);

const _: () = {
    assert!(std::mem::size_of::<AtomWord>() == 8);
    assert!(std::mem::size_of::<Option<AtomWord>>() == 8);
};

// SAFETY: inline words are plain data; heap words own a `Block` (Send + Sync); static
// words point at immortal entries whose only mutable state is atomic.
unsafe impl Send for AtomWord {}
// SAFETY: as for `Send`.
unsafe impl Sync for AtomWord {}

impl AtomWord {
    /// Packs short bytes into the word itself: [`inline_bits_fast`]'s two overlapping
    /// loads, rather than a byte copy into a buffer that is then read back as a word (a
    /// call to `memcpy` of a variable length, and a store the load cannot forward from).
    #[inline]
    pub(crate) fn inline(bytes: &[u8]) -> Option<AtomWord> {
        let bits = inline_bits_fast(bytes)?;
        Some(AtomWord(NonZeroUsize::new(bits | TAG_INLINE).expect("inline tag is non-zero")))
    }

    /// The declared word `bits` (a [`super::declared::StaticText`]'s), in `const`
    /// contexts: `static_atoms!`'s items, the only ones, come with its feature.
    #[cfg(feature = "static-atoms")]
    pub(crate) const fn from_declared_bits_const(bits: usize) -> AtomWord {
        match NonZeroUsize::new(bits) {
            Some(bits) => AtomWord(bits),
            None => panic!("declared words carry a non-zero tag"),
        }
    }

    /// The declared word `bits` (from [`super::declared`]).
    #[inline]
    pub(crate) fn from_declared_bits(bits: usize) -> AtomWord {
        debug_assert!(bits & TAG_INLINE != 0 || bits & TAG_MASK == TAG_DECLARED);
        AtomWord(NonZeroUsize::new(bits).expect("declared words are tagged"))
    }

    /// An atom owning one count of an interned block.
    #[inline]
    pub(crate) fn from_block(block: Block) -> AtomWord {
        AtomWord(block.into_raw().expose_provenance())
    }

    /// An atom of an immortal static entry (one not declared: those hand out their
    /// declared word).
    #[inline]
    pub(crate) fn from_static(entry: NonNull<StaticEntry>) -> AtomWord {
        AtomWord(entry.cast::<u8>().map_addr(|addr| addr | TAG_STATIC).expose_provenance())
    }

    /// The pointer a heap or static entry word holds, with its provenance back.
    #[inline]
    fn pointer(&self) -> NonNull<u8> {
        debug_assert!(self.bits() & TAG_MASK == 0 || self.bits() & TAG_MASK == TAG_STATIC);
        NonNull::with_exposed_provenance(self.0)
    }

    #[inline]
    pub(crate) fn bits(&self) -> usize {
        self.0.get()
    }

    #[inline]
    pub(crate) fn is_inline(&self) -> bool {
        self.bits() & TAG_INLINE != 0
    }

    /// Whether this is a declared atom longer than 7 bytes (a value, in no table).
    #[inline]
    pub(crate) fn is_declared_key(&self) -> bool {
        self.bits() & TAG_MASK == TAG_DECLARED
    }

    /// Whether the atom is a value that no table holds (inline or declared): the same
    /// atom in every table.
    #[inline]
    pub(crate) fn is_value(&self) -> bool {
        self.is_inline() || self.is_declared_key()
    }

    /// The word as a table entry (values are never filed in a table).
    #[inline]
    pub(crate) fn raw(&self) -> RawAtom {
        debug_assert!(!self.is_value());
        RawAtom(self.pointer())
    }

    /// A declared word's text.
    #[cold]
    fn declared_bytes(&self) -> &'static [u8] {
        match declared::text_of(self.bits()) {
            Some(text) => text,
            None => {
                panic!("dynatom: a declared atom whose set is not registered (was the crate that declared it linked?)")
            }
        }
    }

    #[inline]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        if self.is_inline() {
            // SAFETY: the inline form is 8 bytes of plain data borrowed from `self`.
            let raw = unsafe { &*(self as *const AtomWord).cast::<[u8; 8]>() };
            let len = (raw[0] >> 1) as usize;
            return &raw[1..=len];
        }
        if self.bits() & TAG_MASK == 0 {
            // SAFETY: a heap atom owns a count of its block: alive for the borrow of `self`.
            return unsafe { heap::entry_bytes(self.pointer().cast()) };
        }
        self.entry_or_declared_bytes()
    }

    /// The bytes of a static entry's atom or a declared one: out of the heap and inline
    /// atoms' way.
    #[inline(never)]
    fn entry_or_declared_bytes(&self) -> &[u8] {
        if self.is_declared_key() {
            return self.declared_bytes();
        }
        // SAFETY: the word points at an immortal static entry.
        unsafe { StaticEntry::text(self.static_entry()) }
    }

    /// The hash the owning table filed this atom under (a heap block's or a static
    /// entry's: both begin with a [`Header`] caching it), after one tag test and with one
    /// load and no call; `None` for the atoms that are values (inline and declared).
    #[inline]
    pub(crate) fn table_hash(&self) -> Option<u64> {
        // Heap (0b000) and static (0b010) words; inline ones have bit 0 set, declared
        // ones bit 2.
        if self.bits() & (TAG_INLINE | 0b100) != 0 {
            return None;
        }
        let header = self.pointer().as_ptr().map_addr(|addr| addr & !TAG_MASK).cast::<Header>();
        // SAFETY: the entry's address is non-null and 8-aligned, so clearing the tag bits
        // leaves it non-null. A heap atom owns a count of its block, alive for the borrow
        // of `self`; a static entry is immortal. Both start with their `Header` (a
        // `StaticEntry` is `repr(C)` with the header first, asserted in `heap`), which
        // `entry_hash` reads.
        Some(unsafe { heap::entry_hash(NonNull::new_unchecked(header)) })
    }

    /// Makes a heap atom of the global table permanent (see
    /// [`Block::make_permanent_if_global`]): its block's bytes (header and text) if this
    /// call did; `None` for other atoms, and atoms already permanent.
    pub(crate) fn make_permanent_if_global(&self) -> Option<usize> {
        let block = self.heap_block()?;
        block.make_permanent_if_global().then(|| heap::HEADER_SIZE + block.len())
    }

    /// Whether no handle of this atom counts: inline, declared and static atoms, and heap
    /// atoms their table made permanent.
    #[inline]
    pub(crate) fn is_permanent(&self) -> bool {
        self.heap_block().is_none_or(|block| block.is_permanent())
    }

    /// Whether the atom is the global table's entry (heap or static); false for inline
    /// atoms, which belong to no table.
    #[inline]
    pub(crate) fn is_global_entry(&self) -> bool {
        match self.bits() & TAG_MASK {
            TAG_STATIC | TAG_DECLARED => true,
            0 => self.block().is_global_entry(),
            _ => false,
        }
    }

    /// An atom for a block made by [`Block::copy_filed`], and the table's entry holding
    /// the block's second count.
    #[inline]
    pub(crate) fn filed_copy(block: Block, entry: NonNull<Header>) -> (AtomWord, RawAtom) {
        debug_assert_eq!(block.bytes_ptr(), heap::entry_bytes_ptr(entry));
        (AtomWord::from_block(block), RawAtom(entry.cast()))
    }

    /// The entry a table files for this atom, with the table's own count of it taken
    /// (inline atoms are never filed). Give it back with [`RawAtom::release`] or
    /// [`RawAtom::reclaim_unused`].
    #[inline]
    pub(crate) fn counted_entry(&self) -> RawAtom {
        if let Some(block) = self.heap_block() {
            std::mem::forget(Block::clone(&block));
        }
        self.raw()
    }

    /// The atom's bytes as a string handle, without copying.
    #[inline]
    pub(crate) fn to_str_word(&self) -> StrWord {
        match self.bits() & TAG_MASK {
            TAG_STATIC => {
                // SAFETY: the word points at an immortal static entry.
                let bytes = unsafe { StaticEntry::text(self.static_entry()) };
                StrWord::from_static(bytes)
            }
            TAG_DECLARED => StrWord::from_static(self.declared_bytes()),
            0 => StrWord::heap_whole(Block::clone(&self.block())),
            _ => StrWord::inline_packed((self.bits() & 0xFF) >> 1, (self.bits() >> 8) as u64),
        }
    }

    #[inline]
    fn static_entry(&self) -> NonNull<StaticEntry> {
        self.pointer().map_addr(|addr| NonZeroUsize::new(addr.get() & !TAG_MASK).expect("entry pointer")).cast()
    }

    /// The block of a heap atom, borrowed: the word owns a count of it, which the
    /// `ManuallyDrop` keeps from being given back twice.
    #[inline]
    fn block(&self) -> std::mem::ManuallyDrop<Block> {
        debug_assert_eq!(self.bits() & TAG_MASK, 0);
        // SAFETY: a heap atom's word is a block pointer (provenance exposed when made)
        // owning a count; the result never drops it.
        std::mem::ManuallyDrop::new(unsafe { Block::from_raw(self.pointer().cast()) })
    }

    /// The block of a heap atom, if this is one (clone it with `Block::clone(&block)`).
    #[inline]
    pub(crate) fn heap_block(&self) -> Option<std::mem::ManuallyDrop<Block>> {
        (self.bits() & TAG_MASK == 0).then(|| self.block())
    }
}

impl AtomWord {
    /// Gives the atom up as one plain word (its count, for a heap atom, goes with it). The
    /// pointer's provenance is exposed so [`AtomWord::from_raw_word`] can take it back.
    #[inline]
    pub(crate) fn into_raw_word(self) -> usize {
        let word = self.bits();
        std::mem::forget(self);
        word
    }

    /// # Safety
    /// `word` came from [`AtomWord::into_raw_word`], and the count it stands for (heap
    /// atom) is handed to the result exactly once.
    #[inline]
    pub(crate) unsafe fn from_raw_word(word: usize) -> AtomWord {
        // SAFETY: the caller guarantees the word came from `into_raw_word`: never zero.
        AtomWord(unsafe { NonZeroUsize::new_unchecked(word) })
    }

    /// A cheap test that a word could be an atom: non-zero; inline with a length of at
    /// most 7 and zero padding; or an 8-aligned block pointer; or a static-entry pointer
    /// with its tag. It cannot tell a live entry from a freed or forged one.
    #[inline]
    pub(crate) fn raw_word_plausible(word: usize) -> bool {
        if word == 0 {
            return false;
        }
        if word & TAG_INLINE != 0 {
            let len = (word & 0xFF) >> 1;
            return len <= INLINE_ATOM_CAPACITY && (len == 7 || word >> (8 * (len + 1)) == 0);
        }
        match word & TAG_MASK {
            0b000 | TAG_STATIC => true,
            TAG_DECLARED => declared::text_of(word).is_some(),
            _ => false,
        }
    }
}

impl Clone for AtomWord {
    #[inline]
    fn clone(&self) -> AtomWord {
        match self.heap_block() {
            Some(block) => AtomWord::from_block(Block::clone(&block)),
            None => AtomWord(self.0),
        }
    }
}

impl AtomWord {
    /// Drops this handle, returning the cached hash and bytes of a global atom it left
    /// unused instead of reporting it (see [`Block::release_noting_unused`]).
    #[cfg(feature = "small-map")]
    #[inline]
    pub(crate) fn release_noting_unused(self) -> Option<(u64, usize)> {
        let this = std::mem::ManuallyDrop::new(self);
        if this.bits() & TAG_MASK != 0 {
            return None;
        }
        // SAFETY: a heap atom owns one count of its block, given up here once (`this` is
        // never dropped).
        unsafe { Block::from_raw(this.pointer().cast()) }.release_noting_unused()
    }
}

impl Drop for AtomWord {
    #[inline]
    fn drop(&mut self) {
        if self.bits() & TAG_MASK == 0 {
            // SAFETY: a heap atom owns one count of its block, given up here once.
            drop(unsafe { Block::from_raw(self.pointer().cast()) });
        }
    }
}

/// A table's record of an atom: a heap-block word holding the table's count of the block
/// (taken by [`AtomWord::counted_entry`]), or a static-entry word.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct RawAtom(NonNull<u8>);

// SAFETY: a raw atom is an address; every access to what it points at is unsafe and
// carries its own contract.
unsafe impl Send for RawAtom {}
// SAFETY: as for `Send`.
unsafe impl Sync for RawAtom {}

impl RawAtom {
    /// The entry a table's slot holds (what [`RawAtom::as_slot`] gave it).
    #[inline]
    pub(crate) fn from_slot(entry: NonNull<u8>) -> RawAtom {
        RawAtom(entry)
    }

    /// The entry as a slot stores it: a block pointer (8-aligned) or a static-entry
    /// pointer with its tag in bits 0..2.
    #[inline]
    pub(crate) fn as_slot(self) -> NonNull<u8> {
        self.0
    }

    #[inline]
    pub(crate) fn is_static(self) -> bool {
        self.0.as_ptr().addr() & TAG_STATIC != 0
    }

    #[inline]
    fn static_entry(self) -> NonNull<StaticEntry> {
        self.0.map_addr(|addr| NonZeroUsize::new(addr.get() & !TAG_MASK).expect("entry pointer")).cast()
    }

    #[inline]
    pub(crate) fn block_ptr(self) -> Option<NonNull<Header>> {
        (!self.is_static()).then(|| self.0.cast())
    }

    /// # Safety
    /// The entry is alive for `'a`: it is static, or the caller's table holds its count and
    /// neither gives it up nor frees it while the slice is used.
    #[inline(always)]
    pub(crate) unsafe fn bytes<'a>(self) -> &'a [u8] {
        match self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            Some(block) => unsafe { heap::entry_bytes(block) },
            // SAFETY: static entries are never freed.
            None => unsafe { StaticEntry::text(self.static_entry()) },
        }
    }

    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline(always)]
    pub(crate) unsafe fn hash(self) -> u64 {
        match self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            Some(block) => unsafe { heap::entry_hash(block) },
            // SAFETY: static entries are never freed.
            None => unsafe { StaticEntry::hash(self.static_entry()) },
        }
    }

    /// A new handle to this entry if it is in use; with `revive`, also if it is unused
    /// (held by its table alone). A block being freed (count 0) is never revived.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn acquire(self, revive: bool) -> Option<AtomWord> {
        let mut signs = HitSigns::default();
        // SAFETY: forwarded from this function's contract.
        unsafe { self.acquire_noting(revive, &mut signs) }
    }

    /// [`RawAtom::acquire`], also noting in `signs` what the raise saw of the entry's
    /// count (see [`Block::acquire_entry_noting`]).
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn acquire_noting(self, revive: bool, signs: &mut HitSigns) -> Option<AtomWord> {
        // SAFETY: forwarded from this function's contract.
        let in_use = unsafe { self.acquire_in_use_noting(signs) };
        if !revive || in_use.is_some() {
            return in_use;
        }
        // SAFETY: as above.
        unsafe { self.revive_noting(signs) }
    }

    /// [`RawAtom::acquire_noting`] of an entry in use (the hit's usual case).
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    unsafe fn acquire_in_use_noting(self, signs: &mut HitSigns) -> Option<AtomWord> {
        match self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            Some(block) => unsafe { Block::acquire_entry_noting(block, 2, signs) }.map(AtomWord::from_block),
            None => Some(self.static_atom()),
        }
    }

    /// [`RawAtom::acquire_noting`] of an entry no handle held: out of line, so that a hit
    /// of an atom in use tests for this case once and pays nothing more. Notes the return
    /// in `signs` when it succeeds.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[cold]
    #[inline(never)]
    unsafe fn revive_noting(self, signs: &mut HitSigns) -> Option<AtomWord> {
        let block = self.block_ptr()?;
        // SAFETY: forwarded from this function's contract.
        let revived = unsafe { Block::acquire_entry_noting(block, 1, signs) }.map(AtomWord::from_block);
        if revived.is_some() {
            signs.note_revived();
        }
        revived
    }

    /// Whether a reader with no pin may follow this entry from a slot: a static entry
    /// (never freed) or a slab block (see [`Block::raise_unpinned`]); not a block of its
    /// own allocation (an adopted `Str` buffer, a long text), which the allocator may
    /// reuse for anything once it is freed.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn reachable_unpinned(self) -> bool {
        // SAFETY: forwarded from this function's contract.
        self.block_ptr().is_none_or(|block| unsafe { Block::entry_is_in_slab(block) })
    }

    /// A new handle to this entry for a reader with no pin (see [`Block::raise_unpinned`]:
    /// it may be another atom than the one looked for, which the caller checks, then
    /// drops the handle if it differs). Static entries are handed out as they are.
    ///
    /// # Safety
    /// The entry was filed in the caller's table, which is alive, and
    /// [`RawAtom::reachable_unpinned`] held for it.
    #[inline]
    pub(crate) unsafe fn raise_unpinned(self, signs: &mut HitSigns) -> Option<AtomWord> {
        match self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            Some(block) => unsafe { Block::raise_unpinned(block, signs) }.map(AtomWord::from_block),
            None => Some(self.static_atom()),
        }
    }

    /// Whether this entry, just made by its table, waits for [`RawAtom::publish`].
    ///
    /// # Safety
    /// The caller made the entry and holds its table's lock.
    #[inline]
    pub(crate) unsafe fn is_unpublished(self) -> bool {
        // SAFETY: forwarded from this function's contract.
        self.block_ptr().is_some_and(|block| unsafe { Block::entry_is_unpublished(block) })
    }

    /// Makes an entry takeable as its table lists it (see [`Block::publish_entry`]);
    /// nothing for one that already is.
    ///
    /// # Safety
    /// As for [`Block::publish_entry`].
    #[inline]
    pub(crate) unsafe fn publish(self) {
        if let Some(block) = self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            unsafe { Block::publish_entry(block) };
        }
    }

    /// Frees an unpublished entry its table could not list, with `atom`, the handle made
    /// with it (see [`Block::discard_unpublished`]).
    ///
    /// # Safety
    /// [`RawAtom::is_unpublished`] holds, and `atom` is the handle made with this entry.
    pub(crate) unsafe fn discard_unpublished(self, atom: AtomWord) {
        std::mem::forget(atom);
        if let Some(block) = self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            unsafe { Block::discard_unpublished(block) };
        }
    }

    /// Whether the entry is permanent: static, or a block made permanent.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn is_permanent(self) -> bool {
        // SAFETY: forwarded from this function's contract (the count is only read).
        self.block_ptr().is_none_or(|block| unsafe { Block::entry_is_permanent(block) })
    }

    /// The atom a static entry hands out: its declared word, or its own address. Out of
    /// line, so that the probe loops that inline [`RawAtom::acquire`] stay as small as
    /// for heap entries alone.
    #[inline(never)]
    fn static_atom(self) -> AtomWord {
        // SAFETY: static entries are never freed.
        match unsafe { StaticEntry::declared_bits(self.static_entry()) } {
            0 => AtomWord(self.0.expose_provenance()),
            bits => AtomWord::from_declared_bits(bits),
        }
    }

    /// Whether a handle holds this entry besides its table (static entries always are):
    /// the entries [`RawAtom::acquire`] without `revive` takes a count of, told apart
    /// without taking one.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn is_in_use(self) -> bool {
        // SAFETY: forwarded from this function's contract (the count is only read).
        self.block_ptr().is_none_or(|block| unsafe { Block::entry_count(block) } >= 2)
    }

    /// Whether only the table holds this entry (static entries are never unused).
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn is_unused(self) -> bool {
        // SAFETY: forwarded from this function's contract.
        self.block_ptr().is_some_and(|block| unsafe { Block::entry_count(block) } == 1)
    }

    /// Takes the table's count back if it is the only one left (count 1 -> 0 in one step,
    /// so a handle raised at the same moment keeps the block): the block is then the
    /// caller's to free. `None` for entries in use and for static entries.
    ///
    /// # Safety
    /// The caller's table holds this entry's count and removes the entry on success.
    #[inline]
    pub(crate) unsafe fn reclaim_unused(self) -> Option<DeadBlock> {
        // SAFETY: forwarded from this function's contract.
        self.block_ptr().and_then(|block| unsafe { Block::reclaim_unused(block) })
    }

    /// Gives up the table's count for good (the table is going away); the block lives on
    /// while handles remain.
    ///
    /// # Safety
    /// The caller's table holds this entry's count and never uses the entry again.
    #[inline]
    pub(crate) unsafe fn release(self) {
        if let Some(block) = self.block_ptr() {
            // SAFETY: forwarded from this function's contract.
            unsafe { Block::release_entry(block) };
        }
    }

    /// Heap bytes this entry occupies (header and characters), and its block pointer.
    ///
    /// # Safety
    /// As for [`RawAtom::bytes`].
    #[inline]
    pub(crate) unsafe fn footprint(self) -> EntryFootprint {
        // SAFETY: forwarded from this function's contract.
        let len = unsafe { self.bytes() }.len();
        match self.block_ptr() {
            Some(block) => EntryFootprint {
                header: heap::HEADER_SIZE,
                chars: len,
                static_chars: 0,
                declared: false,
                block: Some(block.cast()),
                // SAFETY: forwarded from this function's contract.
                slab_block: unsafe { heap::entry_slab_block(block) },
            },
            None => EntryFootprint {
                header: std::mem::size_of::<StaticEntry>(),
                chars: 0,
                static_chars: len,
                // SAFETY: static entries are never freed.
                declared: unsafe { StaticEntry::declared_bits(self.static_entry()) } != 0,
                block: None,
                slab_block: None,
            },
        }
    }
}

/// What one table entry costs in memory.
pub(crate) struct EntryFootprint {
    pub(crate) header: usize,
    pub(crate) chars: usize,
    /// Characters kept in the binary (a static entry's).
    pub(crate) static_chars: usize,
    /// Whether this is a declared (static set) text's entry.
    pub(crate) declared: bool,
    /// The allocation, for asking the allocator about slop.
    pub(crate) block: Option<NonNull<u8>>,
    /// The size of the block if it lies in a table's slab (then no allocator owns it).
    pub(crate) slab_block: Option<usize>,
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn equal_inline_bytes_have_equal_words() {
        for bytes in [&b""[..], b"a", b"abc", b"seven!!", b"\xff\x00\xfe"] {
            let (a, b) = (AtomWord::inline(bytes).unwrap(), AtomWord::inline(bytes).unwrap());
            assert_eq!(a.bits(), b.bits());
            assert_eq!(a.as_bytes(), bytes);
            assert!(a.is_inline());
            assert_eq!(a.to_str_word().as_bytes(), bytes);
        }
        assert_ne!(AtomWord::inline(b"ab").unwrap().bits(), AtomWord::inline(b"ab\0").unwrap().bits());
        assert!(AtomWord::inline(b"eight!!!").is_none());
    }

    #[test]
    fn the_fast_inline_word_is_the_const_one() {
        for bytes in [&b""[..], b"a", b"ab", b"abc", b"abcd", b"abcde", b"abcdef", b"seven!!", b"\xff\x00\xfe\x01"] {
            assert_eq!(inline_bits_fast(bytes), inline_bits(bytes), "{bytes:?}");
            assert_eq!(inline_bits_fast(bytes), AtomWord::inline(bytes).map(|word| word.bits()));
        }
        assert_eq!(inline_bits_fast(b"eight!!!"), None);
    }

    #[test]
    fn heap_words_hand_out_the_same_bytes() {
        let block = Block::copy_from(b"an atom's heap block", crate::repr::heap::Fallibility::Infallible).unwrap();
        block.cache_hash(42 << 5);
        let ptr = block.bytes_ptr();
        let word = AtomWord::from_block(block);
        assert_eq!(word.as_bytes().as_ptr(), ptr);
        assert_eq!(word.to_str_word().as_bytes().as_ptr(), ptr);
        assert_eq!(word.table_hash(), Some(42 << 5));
        assert_eq!(word.clone().bits(), word.bits());
    }
}
