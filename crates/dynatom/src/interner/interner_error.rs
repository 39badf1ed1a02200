//! [`InternerError`] and [`Limits`].

use std::fmt;

use super::arena::AllocFailed;
use super::text_store::FIRST_CHUNK;

/// Why `try_intern` could not add a string.
///
/// ```
/// use dynatom::interner::{Interner, InternerError, Limits};
/// let mut i = Interner::new().with_limits(Limits { max_symbols: 1, ..Limits::default() });
/// i.try_intern("a").unwrap();
/// assert!(matches!(i.try_intern("b"), Err(InternerError::SymbolsExhausted { max: 1 })));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InternerError {
    /// Every symbol allowed by [`Limits::max_symbols`] (or the 32-bit symbol space,
    /// or the hash table's addressable size) is in use.
    SymbolsExhausted {
        /// The number of symbols that could be handed out.
        max: usize,
    },
    /// Adding the string would take the interner's allocations past
    /// [`Limits::max_bytes`].
    MemoryLimit {
        /// Bytes the interner would hold after this insert.
        needed: usize,
        /// The configured limit.
        limit: usize,
    },
    /// The allocator could not provide the index for this many strings
    /// ([`Interner::try_with_capacity`](super::Interner::try_with_capacity)).
    AllocFailed {
        /// The capacity asked for, in strings.
        strings: usize,
    },
    /// The allocator refused memory that adding a string needed (characters, index or
    /// hash table). Nothing was added and nothing was lost: every string already in the
    /// interner still resolves, and the same call can be tried again.
    ///
    /// ```
    /// use dynatom::interner::InternerError;
    /// let e = InternerError::OutOfMemory { bytes: 4096 };
    /// assert_eq!(e.to_string(), "interner could not allocate 4096 bytes");
    /// ```
    OutOfMemory {
        /// The size of the request that failed, in bytes.
        bytes: usize,
    },
    /// [`SyncInterner::with_shards`](super::SyncInterner::with_shards) was called on an
    /// interner that already holds strings (their shards cannot change); the
    /// [`ShardsError`] it returns gives the interner back.
    ///
    /// ```
    /// use dynatom::interner::{InternerError, SyncInterner};
    /// let i = SyncInterner::new();
    /// i.intern("a");
    /// assert_eq!(i.with_shards(2).unwrap_err().error(), InternerError::NotEmpty { len: 1 });
    /// ```
    NotEmpty {
        /// Strings the interner held.
        len: usize,
    },
}

impl From<AllocFailed> for InternerError {
    fn from(e: AllocFailed) -> InternerError {
        InternerError::OutOfMemory { bytes: e.bytes }
    }
}

/// `"1 symbol"`, `"2 symbols"`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

impl fmt::Display for InternerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InternerError::SymbolsExhausted { max } => {
                write!(f, "interner symbol space exhausted ({})", plural(*max, "symbol"))
            }
            InternerError::MemoryLimit { needed, limit } => {
                write!(f, "interner memory limit exceeded ({needed} bytes needed, limit {limit})")?;
                if *limit < FIRST_CHUNK {
                    write!(
                        f,
                        "; copied text is stored in chunks of at least {FIRST_CHUNK} bytes, \
                         so a limit this small admits no copied string"
                    )?;
                }
                Ok(())
            }
            InternerError::AllocFailed { strings } => {
                write!(f, "interner could not allocate an index for {}", plural(*strings, "string"))
            }
            InternerError::OutOfMemory { bytes } => write!(f, "interner could not allocate {bytes} bytes"),
            InternerError::NotEmpty { len } => {
                write!(f, "the shard count of an interner holding {} cannot change", plural(*len, "string"))
            }
        }
    }
}

impl std::error::Error for InternerError {}

/// Caps that make `try_intern` fail instead of growing.
///
/// ```
/// use dynatom::interner::{Interner, Limits};
/// let limits = Limits { max_symbols: 1000, max_bytes: 1 << 20 };
/// let mut i = Interner::new().with_limits(limits);
/// assert!(i.try_intern("ok").is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The most symbols to hand out (clamped to [`Symbol::MAX_COUNT`](super::Symbol::MAX_COUNT)).
    pub max_symbols: usize,
    /// The most bytes the interner may allocate (text chunks, index, hash table),
    /// as reported by `memory_report().total_bytes()`. Text is allocated in chunks (the
    /// first one is 4 KiB, doubling to 32 KiB), so a limit below 4 KiB admits no
    /// copied string at all (only `intern_static` ones), and the error says so.
    pub max_bytes: usize,
}

impl Default for Limits {
    /// No limits beyond the symbol space.
    ///
    /// ```
    /// let l = dynatom::interner::Limits::default();
    /// assert_eq!(l.max_bytes, usize::MAX);
    /// ```
    fn default() -> Limits {
        Limits { max_symbols: super::Symbol::MAX_COUNT, max_bytes: usize::MAX }
    }
}

impl Limits {
    pub(crate) fn symbol_cap(&self) -> usize {
        self.max_symbols.min(super::Symbol::MAX_COUNT)
    }

    pub(crate) fn check_bytes(&self, needed: usize) -> Result<(), InternerError> {
        if needed > self.max_bytes { Err(InternerError::MemoryLimit { needed, limit: self.max_bytes }) } else { Ok(()) }
    }
}

/// The error of [`SyncInterner::with_shards`](super::SyncInterner::with_shards) on an
/// interner that already holds strings: says why ([`InternerError::NotEmpty`]) and gives
/// the interner back unchanged, like std's `IntoInnerError`.
///
/// ```
/// use dynatom::interner::SyncInterner;
/// let names = SyncInterner::new();
/// let a = names.intern("a");
/// let err = names.with_shards(8).unwrap_err();
/// assert_eq!(err.to_string(), "the shard count of an interner holding 1 string cannot change");
/// let names = err.into_interner();
/// assert_eq!(names.resolve(a), "a");
/// ```
pub struct ShardsError {
    /// Boxed: a `SyncInterner` is a few hundred bytes, and the error path should not
    /// make every `Result` that large.
    pub(crate) interner: Box<super::SyncInterner>,
}

impl ShardsError {
    /// Why the call failed.
    ///
    /// ```
    /// use dynatom::interner::{InternerError, SyncInterner};
    /// let names = SyncInterner::new();
    /// names.intern("a");
    /// assert!(matches!(names.with_shards(2).unwrap_err().error(), InternerError::NotEmpty { len: 1 }));
    /// ```
    pub fn error(&self) -> InternerError {
        InternerError::NotEmpty { len: self.interner.len() }
    }

    /// The interner, as it was before the call.
    ///
    /// ```
    /// use dynatom::interner::SyncInterner;
    /// let names = SyncInterner::new();
    /// names.intern("kept");
    /// assert!(names.with_shards(2).unwrap_err().into_interner().contains("kept"));
    /// ```
    pub fn into_interner(self) -> super::SyncInterner {
        *self.interner
    }
}

impl fmt::Debug for ShardsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ShardsError").field("error", &self.error()).finish()
    }
}

impl fmt::Display for ShardsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.error(), f)
    }
}

impl std::error::Error for ShardsError {}

impl From<ShardsError> for InternerError {
    /// The reason, dropping the interner.
    ///
    /// ```
    /// use dynatom::interner::{InternerError, SyncInterner};
    /// let names = SyncInterner::new();
    /// names.intern("a");
    /// let e: InternerError = names.with_shards(2).unwrap_err().into();
    /// assert_eq!(e, InternerError::NotEmpty { len: 1 });
    /// ```
    fn from(e: ShardsError) -> InternerError {
        e.error()
    }
}
