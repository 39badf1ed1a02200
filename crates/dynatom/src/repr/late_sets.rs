//! The static sets registered at run time (the C ABI's, and
//! [`AtomTable::register_static_set`](crate::AtomTable::register_static_set)'s): a list of
//! the sets and an index of their texts by declared word.
//!
//! Both are read without a lock and without a locked instruction: an atom of such a set
//! reads its text here on every `as_str`, and a child of `fork()` must be able to read
//! them whatever another thread was doing at the fork. They are written only under the
//! fork gate, so writers never overlap. Nothing is ever removed or freed, since a reader
//! may be anywhere in them: a set's node, and each index array (the index grows by
//! copying into an array twice the size, and the new one keeps a pointer to the old).
//! Every block is reachable from a static through a pointer to its start, which leak
//! checkers follow.

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use super::declared::{DeclaredSet, StaticText};
use crate::sync::fork_gate::Gate;

/// One registered set, in a list newest first.
struct SetNode {
    set: DeclaredSet,
    next: *const SetNode,
}

/// Open addressing by declared word, at most half full.
struct TextIndex {
    slots: Box<[Slot]>,
    /// Texts filed (written under the gate only).
    len: AtomicUsize,
    /// The array this one replaced, kept: readers may still probe it.
    #[expect(dead_code, reason = "never read: it keeps the old array reachable, for leak checkers")]
    previous: *const TextIndex,
}

/// A text's word and the text; a slot is empty while its word is 0 (no declared word is).
struct Slot {
    bits: AtomicUsize,
    text: AtomicPtr<StaticText>,
}

static SETS: AtomicPtr<SetNode> = AtomicPtr::new(std::ptr::null_mut());
static INDEX: AtomicPtr<TextIndex> = AtomicPtr::new(std::ptr::null_mut());
/// Counts the sets published: a table that missed a text and then waited for its
/// shard's lock asks again only when this moved.
static GENERATION: AtomicUsize = AtomicUsize::new(0);

impl TextIndex {
    const MULTIPLIER: usize = 0x9E37_79B9_7F4A_7C15;

    fn with_capacity(capacity: usize, previous: *const TextIndex) -> TextIndex {
        let slots = (0..capacity)
            .map(|_| Slot { bits: AtomicUsize::new(0), text: AtomicPtr::new(std::ptr::null_mut()) })
            .collect();
        TextIndex { slots, len: AtomicUsize::new(0), previous }
    }

    #[inline]
    fn home(&self, bits: usize) -> usize {
        // Declared words are hashes above their tag, inline ones are bytes: mix both.
        (bits.wrapping_mul(Self::MULTIPLIER) >> 20) & (self.slots.len() - 1)
    }

    #[inline]
    fn get(&self, bits: usize) -> Option<&'static StaticText> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(bits);
        loop {
            let slot = &self.slots[at];
            match slot.bits.load(Ordering::Acquire) {
                0 => return None,
                found if found == bits => {
                    // SAFETY: a slot's text is stored, pointing into a registered set's
                    // `'static` texts, before its word is published (Release), and this
                    // read follows the Acquire load of that word.
                    return unsafe { slot.text.load(Ordering::Relaxed).as_ref() };
                }
                _ => at = (at + 1) & mask,
            }
        }
    }

    /// Files `text` (not filed yet). Under the gate, with room left.
    fn insert(&self, text: &'static StaticText) {
        let mask = self.slots.len() - 1;
        let mut at = self.home(text.bits());
        while self.slots[at].bits.load(Ordering::Relaxed) != 0 {
            at = (at + 1) & mask;
        }
        self.slots[at].text.store(std::ptr::from_ref(text).cast_mut(), Ordering::Relaxed);
        self.slots[at].bits.store(text.bits(), Ordering::Release);
        self.len.fetch_add(1, Ordering::Relaxed);
    }

    fn each(&self, mut visit: impl FnMut(&'static StaticText)) {
        for slot in &self.slots {
            // SAFETY: as in `get`: filled slots point into `'static` texts.
            if let Some(text) = unsafe { slot.text.load(Ordering::Acquire).as_ref() } {
                visit(text);
            }
        }
    }
}

fn index() -> Option<&'static TextIndex> {
    // SAFETY: null, or an index leaked by `publish` and never freed.
    unsafe { INDEX.load(Ordering::Acquire).as_ref() }
}

/// The registered text of a declared word, if a set registered at run time has it.
#[inline]
pub(crate) fn text_of(bits: usize) -> Option<&'static [u8]> {
    index()?.get(bits).map(StaticText::bytes)
}

/// The sets registered at run time, newest first.
pub(crate) fn sets() -> impl Iterator<Item = DeclaredSet> {
    // SAFETY: null, or a node leaked by `publish` and never freed.
    let mut node = unsafe { SETS.load(Ordering::Acquire).as_ref() };
    std::iter::from_fn(move || {
        let here = node?;
        // SAFETY: as above: `next` was set, to null or a leaked node, before `here` was
        // published.
        node = unsafe { here.next.as_ref() };
        Some(here.set)
    })
}

/// How many sets were published so far.
#[inline]
pub(crate) fn generation() -> usize {
    GENERATION.load(Ordering::Acquire)
}

/// Publishes `set`, whose `fresh` texts (its texts no registered set declares yet, each
/// once) are filed in the index. The gate keeps writers apart.
pub(crate) fn publish(set: DeclaredSet, fresh: &[&'static StaticText], _gate: &Gate) {
    let mut current = index();
    let filed = current.map_or(0, |index| index.len.load(Ordering::Relaxed));
    let needed = filed + fresh.len();
    if current.is_none_or(|index| needed * 2 > index.slots.len()) {
        let capacity = (needed * 2).next_power_of_two().max(64);
        let previous = current.map_or(std::ptr::null(), std::ptr::from_ref);
        let grown = TextIndex::with_capacity(capacity, previous);
        if let Some(old) = current {
            old.each(|text| grown.insert(text));
        }
        let grown: &'static TextIndex = Box::leak(Box::new(grown));
        INDEX.store(std::ptr::from_ref(grown).cast_mut(), Ordering::Release);
        current = Some(grown);
    }
    let index = current.expect("made above when missing");
    for text in fresh {
        index.insert(text);
    }
    let node = Box::leak(Box::new(SetNode { set, next: SETS.load(Ordering::Relaxed) }));
    SETS.store(node, Ordering::Release);
    GENERATION.fetch_add(1, Ordering::Release);
}
