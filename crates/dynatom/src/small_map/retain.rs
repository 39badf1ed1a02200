//! `retain` that leaves the map whole when the caller's closure panics.
//!
//! A map's entries come with a second structure that must match them slot for slot (the
//! small form's hints, the large form's index). `Vec::retain` alone would keep the entries
//! right on a panic, but whatever was being rebuilt next to them would be left half done:
//! stale hints and index positions, so that lookups miss present keys and inserts add
//! them twice. Here every entry that stays is reported to a [`Placement`] as it moves,
//! and a guard finishes the job on the way out, panic or not: the entries not yet visited
//! stay (the one whose closure panicked included), and the placement is told so.

/// What must follow the entries as `retain` moves them.
pub(crate) trait Placement {
    /// The entry at `from` stays, now at `to` (`to <= from`, called in increasing order).
    fn place(&mut self, from: usize, to: usize);
    /// Every staying entry has been placed and the others removed.
    fn finish(&mut self);
}

/// The state of one `retain`: entries `..kept` stay (in order), `kept..visited` go,
/// `visited..` are not visited yet.
struct Guard<'a, K, V, P: Placement> {
    entries: &'a mut Vec<(K, V)>,
    visited: usize,
    kept: usize,
    placement: P,
}

impl<K, V, P: Placement> Drop for Guard<'_, K, V, P> {
    fn drop(&mut self) {
        for from in self.visited..self.entries.len() {
            self.placement.place(from, self.kept + (from - self.visited));
        }
        // The placement is complete before any removed value is dropped: a value whose
        // drop panics then leaves a map that is already consistent.
        self.placement.finish();
        self.entries.drain(self.kept..self.visited);
    }
}

/// Keeps, in order, the entries for which `keep` returns true, reporting each one that
/// stays to `placement`. If `keep` panics, the entries visited and kept so far and every
/// entry not yet decided stay, and `placement` is finished all the same.
pub(crate) fn retain<K, V, P: Placement>(
    entries: &mut Vec<(K, V)>,
    mut keep: impl FnMut(&K, &mut V) -> bool,
    placement: P,
) {
    let mut guard = Guard { entries, visited: 0, kept: 0, placement };
    while let Some((key, value)) = guard.entries.get_mut(guard.visited) {
        let stays = keep(key, value);
        let from = guard.visited;
        guard.visited += 1;
        if stays {
            // Swapping moves the staying entry down past the removed ones, which collect
            // between `kept` and `visited` until the guard drops them.
            guard.entries.swap(guard.kept, from);
            guard.placement.place(from, guard.kept);
            guard.kept += 1;
        }
    }
}
