//! [`InternerError`] and [`Limits`].

use std::fmt;

use super::chunks::FIRST_CHUNK;

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
}

/// `"1 symbol"`, `"2 symbols"`.
pub(crate) fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
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
        if needed > self.max_bytes {
            Err(InternerError::MemoryLimit { needed, limit: self.max_bytes })
        } else {
            Ok(())
        }
    }
}
