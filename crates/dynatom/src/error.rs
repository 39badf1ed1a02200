//! The errors of fallible constructors ([`StrError`], and [`FromOwnerError`], which hands
//! a refused owner back) and of building ([`BuildError`]).

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

/// Why [`ByteStr::try_from_owner`](crate::ByteStr::try_from_owner),
/// [`Str::from_owner`](crate::Str::from_owner) or
/// [`Str::try_from_owner`](crate::Str::try_from_owner) refused an owner, with the owner
/// itself, handed back untouched (not dropped, its bytes not copied).
///
/// The reason is a [`StrError`]: [`StrError::InvalidUtf8`] (text only),
/// [`StrError::TooLong`] (more than [`Str::MAX_LEN`](crate::Str::MAX_LEN) bytes), or
/// [`StrError::AllocFailed`] (the `try_` constructors, when the control block could not
/// be allocated). `?` turns it into that `StrError`, dropping the owner.
///
/// ```
/// use dynatom::{Str, StrError};
///
/// let err = Str::from_owner(vec![b'o', b'k', 0xff]).unwrap_err();
/// assert!(matches!(err.reason(), StrError::InvalidUtf8(e) if e.valid_up_to() == 2));
/// assert_eq!(err.to_string(), "invalid UTF-8: invalid utf-8 sequence of 1 bytes from index 2");
/// assert_eq!(err.into_owner(), vec![b'o', b'k', 0xff]); // nothing lost
/// ```
pub struct FromOwnerError<O> {
    owner: O,
    reason: StrError,
}

impl<O> FromOwnerError<O> {
    pub(crate) fn new(owner: O, reason: StrError) -> FromOwnerError<O> {
        FromOwnerError { owner, reason }
    }

    /// Why the owner was refused.
    ///
    /// ```
    /// let err = dynatom::Str::from_owner(vec![0xc3]).unwrap_err();
    /// assert!(matches!(err.reason(), dynatom::StrError::InvalidUtf8(_)));
    /// ```
    #[must_use]
    pub fn reason(&self) -> &StrError {
        &self.reason
    }

    /// The owner, borrowed.
    ///
    /// ```
    /// let err = dynatom::Str::from_owner(vec![0xc3]).unwrap_err();
    /// assert_eq!(err.owner(), &vec![0xc3]);
    /// ```
    #[must_use]
    pub fn owner(&self) -> &O {
        &self.owner
    }

    /// The owner, given back.
    ///
    /// ```
    /// let err = dynatom::Str::from_owner(Box::<[u8]>::from(&b"\xff not text"[..])).unwrap_err();
    /// let owner: Box<[u8]> = err.into_owner();
    /// assert_eq!(&owner[..], b"\xff not text");
    /// ```
    #[must_use = "dropping the owner is what `drop(err)` does"]
    pub fn into_owner(self) -> O {
        self.owner
    }

    /// The owner and the reason.
    ///
    /// ```
    /// use dynatom::{Str, StrError};
    ///
    /// let (owner, reason) = Str::from_owner(vec![b'a', 0x80]).unwrap_err().into_parts();
    /// assert_eq!(owner, vec![b'a', 0x80]);
    /// assert!(matches!(reason, StrError::InvalidUtf8(_)));
    /// ```
    #[must_use]
    pub fn into_parts(self) -> (O, StrError) {
        (self.owner, self.reason)
    }
}

impl<O> fmt::Debug for FromOwnerError<O> {
    /// Names the owner's type rather than printing it (an owner may hold megabytes, and
    /// need not be `Debug`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FromOwnerError")
            .field("owner", &std::any::type_name::<O>())
            .field("reason", &self.reason)
            .finish()
    }
}

impl<O> fmt::Display for FromOwnerError<O> {
    /// The reason's message (the same as [`StrError`]'s).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.reason, f)
    }
}

impl<O> std::error::Error for FromOwnerError<O> {
    /// The reason's own source (the [`Utf8Error`](std::str::Utf8Error) of invalid text):
    /// the message already is the reason's.
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&self.reason)
    }
}

impl<O> From<FromOwnerError<O>> for StrError {
    /// The reason; the owner is dropped.
    fn from(err: FromOwnerError<O>) -> StrError {
        err.reason
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
