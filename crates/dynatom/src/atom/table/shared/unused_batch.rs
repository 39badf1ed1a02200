//! Many handles dropped at once (a map of atoms going away): the drops that leave global
//! atoms unused are summed per shard and told to each shard once, at the end, instead of
//! one pressure add per drop.
//!
//! Told one by one, a mass drop checks a shard each time its drops fill the room the last
//! check left (half of what it still holds), and every check walks the whole shard: each
//! atom was read by two sweeps or more before it was freed. Told together, each shard is
//! checked once, after every count is given up, and one sweep frees them all.

use super::sweeps::{MAX_BYTES_ROOM, MAX_DROPS_ROOM, one_drop, pressure_bytes, pressure_drops};
use super::{MAX_SHARDS, TableShared};
use crate::repr::atom_word::AtomWord;

/// Drops the handles `words`, telling the global table about the atoms they leave unused
/// once per shard (see the module docs). Atoms of other tables, static and inline atoms,
/// and atoms still held elsewhere are dropped as one by one.
pub(crate) fn drop_together(words: impl IntoIterator<Item = AtomWord>) {
    let mut batch = UnusedBatch { table: None, pressure: [0; MAX_SHARDS] };
    for word in words {
        if let Some((hash, bytes)) = word.release_noting_unused() {
            batch.note(hash, bytes);
        }
    }
}

/// Each shard's pressure not yet added to it.
struct UnusedBatch {
    /// The global table, found at the first unused atom (there is one: a global atom was
    /// filed in it).
    table: Option<&'static TableShared>,
    pressure: [u64; MAX_SHARDS],
}

impl UnusedBatch {
    fn note(&mut self, hash: u64, bytes: usize) {
        let table = *self.table.get_or_insert_with(|| {
            crate::atom::table::global_table_if_made().expect("a global atom's table is made").shared()
        });
        let index = table.shard_index(hash);
        let sum = &mut self.pressure[index];
        *sum += one_drop(bytes);
        // Flushed well before either count could reach its guard bit (the pressure word's
        // fields hold four rooms), as single drops would have been checked by then.
        if pressure_drops(*sum) >= MAX_DROPS_ROOM || pressure_bytes(*sum) >= MAX_BYTES_ROOM {
            table.note_unused_in(index, std::mem::take(sum));
        }
    }
}

impl Drop for UnusedBatch {
    fn drop(&mut self) {
        let Some(table) = self.table else { return };
        for (index, sum) in self.pressure.iter().enumerate() {
            if *sum != 0 {
                table.note_unused_in(index, *sum);
            }
        }
    }
}
