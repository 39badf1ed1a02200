//! Lookup counters for the small (hint) form, like Ruby's `artable_hint_*` debug
//! counters. Compiled in with the `stats` feature; without it every bump is an empty
//! inline function and the counters read zero.

/// How the small-form lookups of the calling thread went (see
/// [`SmallMapStats::current_thread`]).
///
/// * `lookups`: searches of a map in its small form (by `get`, `insert`, `remove`,
///   `entry` and friends).
/// * `hint_hits`: a hint matched and so did the key. (A small map of at most four
///   [`Atom`](crate::Atom) keys compares them directly, with no hint: its lookups count
///   only in `lookups` and `not_found`.)
/// * `false_matches`: a hint matched but the key did not (one wasted key compare).
/// * `not_found`: searches that found no key (most touch no entry at all).
/// * `unknown_texts`: [`AtomMap`](crate::AtomMap) lookups by text (or bytes) that found
///   no key. They are searched for in the map, by the hash their atom would have, and
///   never ask the atom table.
///
/// The counters are per thread: plain increments, no atomics, and no interference
/// between threads (or between tests running in parallel).
///
/// ```
/// use dynatom::{SmallMap, SmallMapStats, Str};
///
/// let before = SmallMapStats::current_thread();
/// let map: SmallMap<Str, u32> = [(Str::from("one"), 1), (Str::from("two"), 2)].into_iter().collect();
/// assert_eq!(map.get("one"), Some(&1));
/// assert_eq!(map.get("three"), None);
/// let delta = SmallMapStats::current_thread().since(&before);
/// if SmallMapStats::ENABLED {
///     assert_eq!(delta.hint_hits, 1);
///     assert_eq!(delta.not_found, 3); // two while collecting (new keys), one miss
/// } else {
///     assert_eq!(delta, SmallMapStats::default());
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SmallMapStats {
    /// Small-form searches.
    pub lookups: u64,
    /// Hint matched, key equal.
    pub hint_hits: u64,
    /// Hint matched, key different.
    pub false_matches: u64,
    /// Searches that found nothing.
    pub not_found: u64,
    /// `AtomMap` lookups by text that found no key.
    pub unknown_texts: u64,
}

impl SmallMapStats {
    /// Whether the counters are compiled in (the `stats` feature).
    ///
    /// ```
    /// assert_eq!(dynatom::SmallMapStats::ENABLED, cfg!(feature = "stats"));
    /// ```
    pub const ENABLED: bool = cfg!(feature = "stats");

    /// The calling thread's counts since it started (or since its last
    /// [`SmallMapStats::reset_current_thread`]); all zero without the `stats` feature.
    ///
    /// ```
    /// let stats = dynatom::SmallMapStats::current_thread();
    /// assert!(stats.hint_hits + stats.false_matches <= stats.lookups || !dynatom::SmallMapStats::ENABLED);
    /// ```
    pub fn current_thread() -> SmallMapStats {
        imp::snapshot()
    }

    /// Sets the calling thread's counters to zero.
    ///
    /// ```
    /// use dynatom::SmallMapStats;
    ///
    /// SmallMapStats::reset_current_thread();
    /// assert_eq!(SmallMapStats::current_thread(), SmallMapStats::default());
    /// ```
    pub fn reset_current_thread() {
        imp::reset();
    }

    /// The counts that happened between `earlier` and `self`.
    ///
    /// ```
    /// use dynatom::SmallMapStats;
    ///
    /// let now = SmallMapStats::current_thread();
    /// assert_eq!(now.since(&now), SmallMapStats::default());
    /// ```
    pub fn since(&self, earlier: &SmallMapStats) -> SmallMapStats {
        SmallMapStats {
            lookups: self.lookups.wrapping_sub(earlier.lookups),
            hint_hits: self.hint_hits.wrapping_sub(earlier.hint_hits),
            false_matches: self.false_matches.wrapping_sub(earlier.false_matches),
            not_found: self.not_found.wrapping_sub(earlier.not_found),
            unknown_texts: self.unknown_texts.wrapping_sub(earlier.unknown_texts),
        }
    }
}

pub(crate) use imp::{false_match, hint_hit, lookup, not_found, unknown_text};

#[cfg(feature = "stats")]
mod imp {
    use std::cell::Cell;

    use super::SmallMapStats;

    thread_local! {
        // One thread's counts, in the public type itself: only their own thread
        // touches them. `const` initialisation: no lazy-init check on each bump.
        static COUNTS: Cell<SmallMapStats> = const {
            Cell::new(SmallMapStats { lookups: 0, hint_hits: 0, false_matches: 0, not_found: 0, unknown_texts: 0 })
        };
    }

    fn bump(pick: fn(&mut SmallMapStats) -> &mut u64) {
        // During thread teardown the counters may be gone: the count is then dropped.
        let _ = COUNTS.try_with(|counts| {
            let mut now = counts.get();
            let count = pick(&mut now);
            *count = count.wrapping_add(1);
            counts.set(now);
        });
    }

    pub(crate) fn lookup() {
        bump(|c| &mut c.lookups);
    }
    pub(crate) fn hint_hit() {
        bump(|c| &mut c.hint_hits);
    }
    pub(crate) fn false_match() {
        bump(|c| &mut c.false_matches);
    }
    pub(crate) fn not_found() {
        bump(|c| &mut c.not_found);
    }
    pub(crate) fn unknown_text() {
        bump(|c| &mut c.unknown_texts);
    }

    pub(super) fn snapshot() -> SmallMapStats {
        COUNTS.try_with(Cell::get).unwrap_or_default()
    }

    pub(super) fn reset() {
        let _ = COUNTS.try_with(|counts| counts.set(SmallMapStats::default()));
    }
}

#[cfg(not(feature = "stats"))]
mod imp {
    use super::SmallMapStats;

    #[inline(always)]
    pub(crate) fn lookup() {}
    #[inline(always)]
    pub(crate) fn hint_hit() {}
    #[inline(always)]
    pub(crate) fn false_match() {}
    #[inline(always)]
    pub(crate) fn not_found() {}
    #[inline(always)]
    pub(crate) fn unknown_text() {}

    pub(super) fn snapshot() -> SmallMapStats {
        SmallMapStats::default()
    }

    pub(super) fn reset() {}
}
