//! The error of fallible building.

use std::fmt;

use crate::error::StrError;

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
