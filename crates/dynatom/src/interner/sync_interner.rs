//! [`SyncInterner`]: an interner shared across threads.

use super::arena::{Arena, ChunkSizes};
use super::column::Column;
use super::shard_table::{ShardTable, hash32};
use super::{InternerError, InternerMemoryReport, Limits, Symbol};
use crate::counters::Counters;
use crate::hash::{DETERMINISTIC_SEED, hash_bytes, random_seed};
// `lock` ignores poisoning: a panic while holding a shard lock leaves the shard
// consistent (entries are published last).
use crate::sync::{AtomicUsize, Backoff, Mutex, Ordering, lock};

/// Keeps read-mostly and written data on separate cache lines.
#[repr(align(128))]
struct Padded<T>(T);

struct Shard {
    table: Padded<ShardTable>,
    writer: Padded<Mutex<Writer>>,
}

/// A shard's characters: chunks doubling from 4 KiB to 64 KiB.
#[cfg(not(loom))]
const CHUNKS: ChunkSizes = ChunkSizes { first: 4096, max: 64 * 1024 };
/// Tiny chunks under loom, so models open new chunks and huge blocks with short
/// strings.
#[cfg(loom)]
const CHUNKS: ChunkSizes = ChunkSizes { first: 8, max: 32 };

/// What a shard's lock guards.
struct Writer {
    arena: Arena,
    /// Characters copied into `arena`.
    chars: usize,
    /// Entries in the shard's table.
    len: usize,
    counts: Counters,
}

/// A string interner that many threads can use at once through `&self`.
///
/// * Looking up a present string (`get`, or `intern` of a known string) and
///   `resolve` take **no lock and write no shared memory**: a symbol column of
///   never-moving segments, and per-shard open-addressing tables that are only
///   ever appended to (growth publishes a new generation; old ones are kept until
///   `&mut` access, so readers never see freed memory).
/// * Inserting a new string locks one of several shards (chosen by hash), copies
///   the characters into that shard's never-moving chunks, and takes the next
///   symbol from a shared atomic counter, so symbols stay contiguous (`0..len`).
/// * [`freeze`](SyncInterner::freeze) turns it into a wait-free [`Resolver`](super::Resolver).
///
/// Symbols are numbered in the order inserts complete their counter step, which
/// depends on thread timing; a `deterministic` interner used from one thread
/// numbers like [`Interner`](super::Interner).
///
/// ```
/// use dynatom::interner::SyncInterner;
/// let names = SyncInterner::new();
/// let ids: Vec<_> = std::thread::scope(|s| {
///     let hs: Vec<_> = (0..4).map(|_| s.spawn(|| names.intern("shared"))).collect();
///     hs.into_iter().map(|h| h.join().unwrap()).collect()
/// });
/// assert!(ids.iter().all(|&id| id == ids[0]));
/// assert_eq!(names.resolve(ids[0]), "shared");
/// ```
pub struct SyncInterner {
    seed: u64,
    shards: Box<[Shard]>,
    column: Column,
    next: AtomicUsize,
    limits: Limits,
    /// Bytes allocated, for `Limits::max_bytes` (approximate under races).
    bytes: AtomicUsize,
}

#[cfg(not(loom))]
fn default_shards() -> usize {
    let cpus = std::thread::available_parallelism().map_or(4, |n| n.get());
    (cpus * 4).next_power_of_two().clamp(4, 256)
}

/// Two shards under loom: enough for inserts under different locks to race.
#[cfg(loom)]
fn default_shards() -> usize {
    2
}

fn make_shards(n: usize) -> Box<[Shard]> {
    (0..n)
        .map(|_| Shard {
            table: Padded(ShardTable::new()),
            writer: Padded(Mutex::new(Writer {
                arena: Arena::new(CHUNKS),
                chars: 0,
                len: 0,
                counts: Counters::default(),
            })),
        })
        .collect()
}

impl Default for SyncInterner {
    /// Same as [`SyncInterner::new`].
    ///
    /// ```
    /// assert!(dynatom::interner::SyncInterner::default().is_empty());
    /// ```
    fn default() -> SyncInterner {
        SyncInterner::new()
    }
}

impl std::fmt::Debug for SyncInterner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SyncInterner").field("len", &self.len()).field("shards", &self.shards.len()).finish()
    }
}

impl SyncInterner {
    /// An empty interner with a random seed and a shard count from the CPU count.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// assert_eq!(i.len(), 0);
    /// ```
    #[must_use]
    pub fn new() -> SyncInterner {
        SyncInterner::with_seed(random_seed())
    }

    /// An empty interner with a fixed seed (reproducible layout; see
    /// [`Interner::deterministic`](super::Interner::deterministic)).
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::deterministic();
    /// assert_eq!(i.intern("a").to_usize(), 0);
    /// ```
    #[must_use]
    pub fn deterministic() -> SyncInterner {
        SyncInterner::with_seed(DETERMINISTIC_SEED)
    }

    /// An empty interner hashing with `seed`.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::with_seed(9);
    /// assert!(i.is_empty());
    /// ```
    #[must_use]
    pub fn with_seed(seed: u64) -> SyncInterner {
        SyncInterner {
            seed,
            shards: make_shards(default_shards()),
            column: Column::new(),
            next: AtomicUsize::new(0),
            limits: Limits::default(),
            bytes: AtomicUsize::new(0),
        }
    }

    /// Uses `n` insert shards (rounded up to a power of two, 1..=65536).
    ///
    /// # Errors
    /// If the interner already holds strings (which live in the shards it has): a
    /// [`ShardsError`](super::ShardsError) that says so
    /// ([`InternerError::NotEmpty`]) and gives the interner back unchanged.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new().with_shards(1)?;
    /// i.intern("one lock");
    /// # Ok::<(), dynatom::interner::InternerError>(())
    /// ```
    pub fn with_shards(mut self, n: usize) -> Result<SyncInterner, super::ShardsError> {
        if !self.is_empty() {
            return Err(super::ShardsError { interner: Box::new(self) });
        }
        self.shards = make_shards(n.clamp(1, 1 << 16).next_power_of_two());
        Ok(self)
    }

    /// An empty interner like `self` (seed, shard count and limits).
    fn empty_like(&self) -> SyncInterner {
        SyncInterner {
            seed: self.seed,
            shards: make_shards(self.shards.len()),
            column: Column::new(),
            next: AtomicUsize::new(0),
            limits: self.limits,
            bytes: AtomicUsize::new(0),
        }
    }

    /// Sets the limits that make [`try_intern`](SyncInterner::try_intern) fail. The
    /// byte limit is checked per insert against a shared running total, so racing
    /// inserts may overshoot it by a chunk each.
    ///
    /// ```
    /// use dynatom::interner::{Limits, SyncInterner};
    /// let i = SyncInterner::new().with_limits(Limits { max_symbols: 1, ..Limits::default() });
    /// i.intern("a");
    /// assert!(i.try_intern("b").is_err());
    /// ```
    #[must_use = "a `with_` method consumes the interner and returns the configured one"]
    pub fn with_limits(mut self, limits: Limits) -> SyncInterner {
        self.limits = limits;
        self
    }

    /// Number of symbols handed out (including inserts still finishing on other
    /// threads).
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.len(), 1);
    /// ```
    pub fn len(&self) -> usize {
        // Acquire: pairs with the counter step in `intern_impl`. (Entries below the
        // value may still be unpublished; `try_resolve` waits for those.)
        self.next.load(Ordering::Acquire)
    }

    /// `len() == 0`.
    ///
    /// ```
    /// assert!(dynatom::interner::SyncInterner::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    #[inline]
    fn shard(&self, h: u64) -> &Shard {
        &self.shards[(h >> 48) as usize & (self.shards.len() - 1)]
    }

    /// Text of a published entry.
    #[inline]
    fn text(&self, index: usize) -> Option<&str> {
        let (ptr, len) = self.column.get(index)?;
        // SAFETY: a published entry points at `len` bytes that were copied from a
        // `&str` into a chunk owned by one of `self`'s arenas (freed only when
        // `self` drops, never written again), or at a `&'static str`'s bytes, or is
        // dangling with `len == 0`. So the bytes are valid UTF-8 and outlive `&self`.
        Some(unsafe { std::str::from_utf8_unchecked(std::slice::from_raw_parts(ptr, len)) })
    }

    #[inline]
    fn lookup(&self, shard: &Shard, h: u64, s: &str) -> (Option<u32>, u32) {
        let q = s.as_bytes();
        shard.table.0.find(hash32(h), |i| self.text_is(i as usize, q))
    }

    /// Whether entry `index` is published and its text is `q` (compared without a
    /// call up to 32 bytes).
    #[inline(always)]
    fn text_is(&self, index: usize, q: &[u8]) -> bool {
        match self.column.get(index) {
            // SAFETY: a published entry's `ptr` is readable for its `len` bytes (see
            // `text`), which equals `q.len()` here.
            Some((ptr, len)) => len == q.len() && unsafe { super::simd::eq_at(ptr, q) },
            None => false,
        }
    }

    /// The symbol of `s` if present; never inserts, takes no lock, writes nothing.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// assert_eq!((i.get("a"), i.get("b")), (Some(a), None));
    /// ```
    pub fn get(&self, s: impl AsRef<str>) -> Option<Symbol> {
        let s = s.as_ref();
        let h = hash_bytes(s.as_bytes(), self.seed);
        let (found, _) = self.lookup(self.shard(h), h, s);
        found.and_then(|i| Symbol::from_usize(i as usize))
    }

    /// `get(s).is_some()`.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// assert!(!i.contains("a"));
    /// ```
    pub fn contains(&self, s: impl AsRef<str>) -> bool {
        let s = s.as_ref();
        self.get(s).is_some()
    }

    /// The symbol of `s`, adding a copy if new.
    ///
    /// # Panics
    /// On any [`InternerError`].
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// assert_eq!(i.intern("a"), i.intern("a"));
    /// ```
    pub fn intern(&self, s: impl AsRef<str>) -> Symbol {
        let s = s.as_ref();
        self.try_intern(s).unwrap_or_else(|e| panic!("SyncInterner::intern: {e}"))
    }

    /// Fallible [`intern`](SyncInterner::intern): the symbol space, the configured
    /// [`Limits`] and a refused allocation ([`InternerError::OutOfMemory`]) are errors,
    /// after which nothing is added and no symbol is used up.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// assert_eq!(i.try_intern("a").unwrap().to_usize(), 0);
    /// ```
    pub fn try_intern(&self, s: impl AsRef<str>) -> Result<Symbol, InternerError> {
        let s = s.as_ref();
        self.intern_impl(s, None)
    }

    /// Like [`intern`](SyncInterner::intern), keeping a reference to `s` instead of
    /// copying it when new.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let kw = i.intern_static("match");
    /// assert_eq!(i.resolve(kw).as_ptr(), "match".as_ptr());
    /// ```
    pub fn intern_static(&self, s: &'static str) -> Symbol {
        self.try_intern_static(s).unwrap_or_else(|e| panic!("SyncInterner::intern_static: {e}"))
    }

    /// Fallible [`intern_static`](SyncInterner::intern_static).
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// assert!(i.try_intern_static("if").is_ok());
    /// ```
    pub fn try_intern_static(&self, s: &'static str) -> Result<Symbol, InternerError> {
        self.intern_impl(s, Some(s))
    }

    fn intern_impl(&self, s: &str, stat: Option<&'static str>) -> Result<Symbol, InternerError> {
        let h = hash_bytes(s.as_bytes(), self.seed);
        let shard = self.shard(h);
        if let (Some(i), _) = self.lookup(shard, h, s) {
            return Ok(Symbol::from_usize(i as usize).expect("stored indices are valid"));
        }
        let mut w = lock(&shard.writer.0);
        let (found, probes) = self.lookup(shard, h, s);
        w.counts.record_lookup(u64::from(probes));
        if let Some(i) = found {
            w.counts.hits += 1;
            return Ok(Symbol::from_usize(i as usize).expect("stored indices are valid"));
        }
        w.counts.misses += 1;
        // Relaxed (here and on `bytes`): an estimate for the byte limit, which orders
        // nothing; racing inserts may overshoot it, as documented on `with_limits`.
        let cost = if stat.is_some() { 0 } else { w.arena.cost(s.len()) }
            + shard.table.0.grow_cost(w.len)
            + self.column.cost_of(self.next.load(Ordering::Relaxed));
        let total = self.bytes.fetch_add(cost, Ordering::Relaxed).saturating_add(cost);
        let inserted = self.limits.check_bytes(total).and_then(|()| self.insert_locked(&mut w, shard, h, s, stat));
        if inserted.is_err() {
            self.bytes.fetch_sub(cost, Ordering::Relaxed);
        }
        inserted
    }

    /// Adds `s` (absent) to `shard`, whose lock `w` is. Everything that can fail comes
    /// before the counter step that hands out the symbol: a symbol once handed out must
    /// be published, or readers waiting for it would wait forever.
    fn insert_locked(
        &self,
        w: &mut Writer,
        shard: &Shard,
        h: u64,
        s: &str,
        stat: Option<&'static str>,
    ) -> Result<Symbol, InternerError> {
        let max = self.limits.symbol_cap();
        // Relaxed: an early answer that saves a copy; the counter step below decides.
        if self.next.load(Ordering::Relaxed) >= max {
            return Err(InternerError::SymbolsExhausted { max });
        }
        shard.table.0.try_reserve(w.len)?;
        let ptr = match stat {
            Some(st) => st.as_ptr(),
            // A copy left behind by a failure below stays as unused chunk space.
            None => w.arena.try_copy(s.as_bytes())?,
        };
        // The counter step, once the column has the new symbol's segment. AcqRel/Acquire:
        // the counter only hands out indices (the entry itself is published by the
        // column's Release store); the release/acquire pair orders `len()` readers
        // after the steps they count.
        let mut n = self.next.load(Ordering::Acquire);
        let index = loop {
            if n >= max {
                return Err(InternerError::SymbolsExhausted { max });
            }
            self.column.try_ensure(n)?;
            match self.next.compare_exchange_weak(n, n + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => break n,
                Err(now) => n = now,
            }
        };
        let sym = Symbol::from_usize(index).expect("index < symbol_cap <= MAX_COUNT");
        self.column.publish(index, ptr, s.len());
        shard.table.0.insert(hash32(h), sym.index_u32());
        w.len += 1;
        if stat.is_none() {
            w.chars += s.len();
        }
        w.counts.inserts += 1;
        Ok(sym)
    }

    /// The text of `sym`. Takes no lock and writes nothing.
    ///
    /// # Panics
    /// If `sym` is not from this interner.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let s = i.intern("txt");
    /// assert_eq!(i.resolve(s), "txt");
    /// ```
    #[inline]
    pub fn resolve(&self, sym: Symbol) -> &str {
        self.try_resolve(sym).expect("SyncInterner::resolve: symbol not from this interner")
    }

    /// The text of `sym`, or `None` if no such symbol was handed out. If the symbol
    /// was handed out but its insert is still finishing on another thread (only
    /// possible when it reached this thread without synchronisation), waits for it.
    ///
    /// ```
    /// use dynatom::interner::{Symbol, SyncInterner};
    /// let i = SyncInterner::new();
    /// assert_eq!(i.try_resolve(Symbol::from_usize(5).unwrap()), None);
    /// ```
    pub fn try_resolve(&self, sym: Symbol) -> Option<&str> {
        let i = sym.to_usize();
        let mut backoff = Backoff::new();
        loop {
            if let Some(t) = self.text(i) {
                return Some(t);
            }
            if i >= self.len() {
                return None;
            }
            // Under loom this yields, so models of a racing insert stay finite.
            backoff.wait();
        }
    }

    /// `(symbol, text)` pairs in symbol order, up to the `len()` seen at the call.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("a"); i.intern("b");
    /// assert_eq!(i.iter().map(|(_, t)| t).collect::<Vec<_>>(), ["a", "b"]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Symbol, &str)> + '_ {
        (0..self.len()).map(move |i| {
            let sym = Symbol::from_usize(i).expect("i < len <= MAX_COUNT");
            (sym, self.resolve(sym))
        })
    }

    /// Sizes and counters. Briefly locks each shard to read its counters; lookups
    /// that found their string without a lock are not counted.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// i.intern("abc");
    /// assert_eq!(i.memory_report().char_bytes, 3);
    /// ```
    pub fn memory_report(&self) -> InternerMemoryReport {
        let mut r = InternerMemoryReport {
            strings: self.len(),
            index_bytes: self.column.bytes() + std::mem::size_of_val(&*self.shards),
            ..InternerMemoryReport::default()
        };
        let mut counts = Counters::default();
        for shard in self.shards.iter() {
            r.table_bytes += shard.table.0.bytes();
            let w = lock(&shard.writer.0);
            r.char_bytes += w.chars;
            r.slack_bytes += w.arena.bytes() - w.chars;
            r.index_bytes += w.arena.directory_bytes();
            counts.add(&w.counts);
        }
        r.set_counters(&counts);
        r
    }

    /// Frees superseded hash-table generations (kept while readers might use them).
    ///
    /// ```
    /// let mut i = dynatom::interner::SyncInterner::new();
    /// for n in 0..1000 { i.intern(&n.to_string()); }
    /// let before = i.memory_report().table_bytes;
    /// i.shrink_to_fit();
    /// assert!(i.memory_report().table_bytes < before);
    /// ```
    pub fn shrink_to_fit(&mut self) {
        for shard in self.shards.iter_mut() {
            shard.table.0.drop_old();
        }
    }

    /// Ends inserting: returns a read-only, `Send + Sync`, wait-free [`Resolver`](super::Resolver)
    /// with the same symbols. The strings are copied into the single-threaded
    /// interner's layout (faster lookups, about 8 bytes per string beyond the
    /// characters); this interner's memory is freed.
    ///
    /// ```
    /// let i = dynatom::interner::SyncInterner::new();
    /// let a = i.intern("a");
    /// let r = i.freeze();
    /// assert_eq!((r.resolve(a), r.get("a")), ("a", Some(a)));
    /// ```
    #[must_use = "freeze consumes the interner; the resolver holds its strings"]
    pub fn freeze(self) -> super::Resolver {
        let rebuild = super::resolver::Rebuild { seed: self.seed, shards: self.shards.len(), limits: self.limits };
        super::Resolver::freeze(self.iter(), rebuild)
    }
}

impl Clone for SyncInterner {
    /// A copy with the same symbols, hash seed, shard count and limits: the strings are
    /// interned again in symbol order (O(total characters)). Strings that other threads
    /// add while the copy is made may or may not be in it.
    fn clone(&self) -> SyncInterner {
        let copy = SyncInterner { limits: Limits::default(), ..self.empty_like() };
        for (sym, text) in self.iter() {
            let again = copy.intern(text);
            debug_assert_eq!(again, sym, "cloned symbol of {text:?}");
        }
        copy.with_limits(self.limits)
    }
}

impl SyncInterner {
    /// Forgets every string and frees the memory, keeping the hash seed, shard count
    /// and limits. Symbols handed out before no longer resolve (or resolve to new
    /// strings: see [`Symbol`] on foreign symbols).
    ///
    /// ```
    /// let mut i = dynatom::interner::SyncInterner::new();
    /// i.intern("gone");
    /// i.clear();
    /// assert!(i.is_empty());
    /// ```
    pub fn clear(&mut self) {
        *self = self.empty_like();
    }
}
