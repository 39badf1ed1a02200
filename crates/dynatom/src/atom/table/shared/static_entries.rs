//! Static and declared texts: a `&'static` text interned where it lies, a declared set's
//! texts filed in the global table as immortal entries whose hits hand out their declared
//! words, and the declared atom that a miss in another table gives by value.

use std::ptr::NonNull;

use super::{TableKind, TableShared};
use crate::error::{MAX_LEN, StrError};
use crate::repr::atom_word::{AtomWord, RawAtom};
use crate::repr::declared::{self, DeclareError, StaticText};
use crate::repr::heap::{Fallibility, StaticEntry};
use crate::sync::lock;

impl TableShared {
    /// Interns `bytes`, keeping them where they are if no atom of them exists.
    /// A local table copies them instead: its entries are freed with it, and a static
    /// entry never is.
    pub(crate) fn intern_static(&self, bytes: &'static [u8]) -> AtomWord {
        if self.kind != TableKind::Global {
            return self.intern_copy(bytes, Fallibility::Infallible).expect("a static text fits in a block");
        }
        let hash = self.hash(bytes);
        let filed = self.find_or_file(bytes, hash, |_, _, _| {
            // Refused here, under the lock, as an error rather than a panic (the callers
            // check the length before hashing, so this is not reached).
            if bytes.len() > MAX_LEN {
                return Err(StrError::TooLong { len: bytes.len() });
            }
            let leaked = StaticEntry::leak(bytes, hash, 0);
            lock(&self.static_entries).push(leaked.as_ptr().addr());
            let atom = AtomWord::from_static(leaked);
            let entry = atom.counted_entry();
            Ok((atom, entry))
        });
        filed.expect("filing a static entry cannot fail")
    }

    /// Files a set's declared texts longer than 7 bytes in the global table as immortal
    /// entries (made in one allocation) whose hits hand out their declared words: the
    /// global table's start-up is one pass. A text already filed as an ordinary atom (a set
    /// registered after its text was interned) is an error; the others are filed.
    pub(crate) fn file_declared_set(&self, texts: &[StaticText]) -> Result<(), DeclareError> {
        debug_assert!(self.kind == TableKind::Global);
        let long = || texts.iter().filter(|text| text.bytes().len() > crate::repr::atom_word::INLINE_ATOM_CAPACITY);
        let entries = StaticEntry::leak_all(long().map(|text| (text.bytes(), self.hash(text.bytes()), text.bits())));
        if entries.is_empty() {
            return Ok(());
        }
        lock(&self.static_entries).push(entries.as_ptr().addr());
        let mut result = Ok(());
        for (entry, text) in entries.iter().zip(long()) {
            let entry = NonNull::from(entry);
            // SAFETY: just leaked: immortal.
            let hash = unsafe { StaticEntry::hash(entry) };
            let filed = self.find_or_file(text.bytes(), hash, |_, _, _| {
                let raw = AtomWord::from_static(entry).raw();
                Ok((AtomWord::from_declared_bits(text.bits()), raw))
            });
            if !matches!(&filed, Ok(atom) if atom.bits() == text.bits()) {
                let permanent = matches!(&filed, Ok(atom) if atom.is_permanent());
                result = result.and(Err(DeclareError::InternedBefore { text: text.bytes().to_vec(), permanent }));
            }
        }
        result
    }

    /// The global table's entry for a text of a set registered at run time that is not
    /// filed yet (the registration files them all, unless it ran out of memory doing so,
    /// which [`TableShared::unfiled_published`] records): for texts the prefix filter lets
    /// through.
    #[cold]
    #[inline(never)]
    pub(super) fn late_declared_entry(&self, bytes: &[u8], hash: u64) -> Option<(AtomWord, RawAtom)> {
        if self.kind != TableKind::Global || declared::late_generation() == 0 || !declared::may_be_declared(bytes) {
            return None;
        }
        let bits = declared::word_of(bytes)?;
        let text = declared::text_of(bits)?;
        let entry = StaticEntry::leak(text, hash, bits);
        lock(&self.static_entries).push(entry.as_ptr().addr());
        Some((AtomWord::from_declared_bits(bits), AtomWord::from_static(entry).raw()))
    }

    /// A miss's last look: the declared atom of `bytes` (only tables other than the global
    /// one, which files the declared texts itself).
    #[inline(always)]
    pub(super) fn lookup_declared(&self, bytes: &[u8]) -> Option<AtomWord> {
        if self.kind == TableKind::Global || !declared::may_be_declared(bytes) {
            return None;
        }
        Self::declared_word_of(bytes)
    }

    #[cold]
    #[inline(never)]
    fn declared_word_of(bytes: &[u8]) -> Option<AtomWord> {
        declared::word_of(bytes).map(AtomWord::from_declared_bits)
    }
}
