//! The errors of fallible constructors ([`StrError`]) and of building ([`BuildError`]).

use std::fmt;

/// The longest string the crate holds (a heap block's header keeps the length in 32
/// bits); public as [`Str::MAX_LEN`](crate::Str::MAX_LEN).
pub(crate) const MAX_LEN: usize = u32::MAX as usize;

/// Whether running out of memory is reported to the caller (the `try_` constructors) or
/// aborts (the others): the one switch every allocating path takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Fallibility {
    Infallible,
    Fallible,
}

/// Why a string could not be made. Nothing is lost: the caller still has its input.
///
/// ```
/// use dynatom::{Str, StrError};
///
/// let err = Str::from_utf8_slice(b"\xff").unwrap_err();
/// assert!(matches!(err, StrError::InvalidUtf8(_)));
/// assert_eq!(err.to_string(), "invalid UTF-8: invalid utf-8 sequence of 1 bytes from index 0");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum StrError {
    /// The text is longer than [`Str::MAX_LEN`](crate::Str::MAX_LEN) bytes.
    TooLong {
        /// The length asked for.
        len: usize,
    },
    /// The allocator could not provide the memory.
    AllocFailed {
        /// Bytes requested.
        size: usize,
    },
    /// The bytes are not UTF-8.
    InvalidUtf8(std::str::Utf8Error),
}

impl fmt::Display for StrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StrError::TooLong { len } => {
                write!(f, "string of {len} bytes exceeds the maximum of {MAX_LEN} bytes")
            }
            StrError::AllocFailed { size } => write!(f, "allocation of {size} bytes failed"),
            StrError::InvalidUtf8(err) => write!(f, "invalid UTF-8: {err}"),
        }
    }
}

impl std::error::Error for StrError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            StrError::InvalidUtf8(err) => Some(err),
            _ => None,
        }
    }
}

impl From<std::str::Utf8Error> for StrError {
    fn from(err: std::str::Utf8Error) -> StrError {
        StrError::InvalidUtf8(err)
    }
}

/// Why building a string failed. The builder keeps what it held before the failed call.
///
/// ```
/// use std::fmt;
/// use dynatom::{BuildError, Str};
///
/// struct Broken;
/// impl fmt::Display for Broken {
///     fn fmt(&self, _: &mut fmt::Formatter<'_>) -> fmt::Result {
///         Err(fmt::Error)
///     }
/// }
///
/// let err = Str::try_from_fmt(format_args!("{}", Broken)).unwrap_err();
/// assert_eq!(err, BuildError::Format);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// The result would be longer than [`Str::MAX_LEN`](crate::Str::MAX_LEN), or the
    /// allocator failed.
    Str(StrError),
    /// A `Display` (or other formatting) implementation returned an error.
    Format,
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Str(err) => fmt::Display::fmt(err, f),
            BuildError::Format => f.write_str("a formatting implementation returned an error"),
        }
    }
}

impl std::error::Error for BuildError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            BuildError::Str(err) => Some(err),
            BuildError::Format => None,
        }
    }
}

impl From<StrError> for BuildError {
    fn from(err: StrError) -> BuildError {
        BuildError::Str(err)
    }
}

/// Turns the error of an infallible method's fallible core into its panic (the same
/// message `Str::from` panics with).
pub(crate) fn or_panic<T>(result: Result<T, StrError>) -> T {
    match result {
        Ok(value) => value,
        Err(err) => panic!("{err}"),
    }
}
