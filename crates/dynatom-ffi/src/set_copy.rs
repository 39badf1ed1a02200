//! A static set's copy, for `dt_static_set_register`: C's names and texts copied into
//! memory that the library keeps for the life of the process once it registers the set,
//! and that goes back to the allocator when the library refuses the set.
//!
//! The copy is two blocks: the bytes (the set's name first, then each entry's name and
//! text) and the `StaticText`s that point into them. The registration needs them as
//! `&'static`; this module alone turns the blocks into such references and, on a refusal,
//! back into boxes. That is sound because `AtomTable::register_static_set` keeps nothing
//! of a set it refuses: its error says that nothing was registered.

use dynatom_core::{AtomTable, StaticSetError, StaticText};

use crate::dt_status;

/// The set's name, names and texts copied, and registered, or given back on refusal.
///
/// `Ok(Err(err))`: the library refused the set, and the copy is freed. `Err`: the copy
/// itself failed (allocation, or a name that is not UTF-8) and nothing was registered.
pub(crate) fn register_copy(set: &str, entries: &[(&str, &[u8])]) -> Result<Result<(), StaticSetError>, dt_status> {
    let total = entries.iter().fold(set.len(), |sum, (name, text)| sum.saturating_add(name.len() + text.len()));
    let mut arena: Vec<u8> = Vec::new();
    arena.try_reserve_exact(total).map_err(|_| dt_status::DT_ERR_ALLOC)?;
    let mut texts: Vec<StaticText> = Vec::new();
    texts.try_reserve_exact(entries.len()).map_err(|_| dt_status::DT_ERR_ALLOC)?;
    arena.extend_from_slice(set.as_bytes());
    for (name, text) in entries {
        arena.extend_from_slice(name.as_bytes());
        arena.extend_from_slice(text);
    }
    let arena: *mut [u8] = Box::into_raw(arena.into_boxed_slice());
    // SAFETY: a box just given up: valid, and not freed unless the set is refused, after
    // the last use of this reference.
    let kept: &'static [u8] = unsafe { &*arena };
    let (set_name, mut rest) = kept.split_at(set.len());
    for (name, text) in entries {
        let (kept_name, after_name) = rest.split_at(name.len());
        let (kept_text, after_text) = after_name.split_at(text.len());
        rest = after_text;
        let name = std::str::from_utf8(kept_name).expect("copied from a checked `&str`");
        texts.push(StaticText::new(name, kept_text));
    }
    let texts: *mut [StaticText] = Box::into_raw(texts.into_boxed_slice());
    let set_name = std::str::from_utf8(set_name).expect("copied from a checked `&str`");
    // SAFETY: as for `kept`.
    let result = AtomTable::register_static_set(set_name, unsafe { &*texts });
    if result.is_err() {
        // SAFETY: refused, the library kept no reference into either block (see the
        // module's docs); both came from `Box::into_raw` above and are freed once, the
        // `StaticText`s (which point into the bytes) first.
        unsafe {
            drop(Box::from_raw(texts));
            drop(Box::from_raw(arena));
        }
    }
    Ok(result)
}
