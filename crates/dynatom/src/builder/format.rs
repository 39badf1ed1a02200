//! Formatting straight into a [`Str`]: [`str_format!`](crate::str_format).

use std::fmt;

use super::error::BuildError;
use super::str_builder::StrBuilder;
use crate::str::Str;

/// Formats into a [`Str`](crate::Str) the way `format!` formats into a `String`, but
/// without the intermediate `String`: the text is written into a [`StrBuilder`]
/// whose buffer becomes the string (see [`StrBuilder::finish`](crate::StrBuilder::finish)).
/// A format string without arguments (after the compiler folds literal arguments in)
/// allocates nothing: up to 15 bytes inline, longer ones point at the `'static` text.
///
/// # Panics
/// As `format!`: if a `Display` implementation returns an error. Use
/// [`try_str_format!`](crate::try_str_format) to get an error instead.
///
/// ```
/// use dynatom::{str_format, Str};
///
/// let user = 42;
/// let key: Str = str_format!("session:{user}:profile:{}", "settings");
/// assert_eq!(key, "session:42:profile:settings");
/// assert!(str_format!("{}", 7).is_inline());
/// ```
#[macro_export]
macro_rules! str_format {
    ($($arg:tt)*) => {
        $crate::Str::from_fmt(::std::format_args!($($arg)*))
    };
}

/// Like [`str_format!`](crate::str_format), but a `Result` with a
/// [`BuildError`](crate::BuildError) instead of a panic.
///
/// ```
/// use dynatom::try_str_format;
///
/// let s = try_str_format!("{:>5}|{:<5}|", "r", "l").unwrap();
/// assert_eq!(s, "    r|l    |");
/// ```
#[macro_export]
macro_rules! try_str_format {
    ($($arg:tt)*) => {
        $crate::Str::try_from_fmt(::std::format_args!($($arg)*))
    };
}

impl Str {
    /// The string `args` format to, built without an intermediate `String` (what
    /// [`str_format!`](crate::str_format) expands to).
    ///
    /// # Panics
    /// If a formatting implementation returns an error, or the text would exceed
    /// [`Str::MAX_LEN`] bytes.
    ///
    /// ```
    /// let s = dynatom::Str::from_fmt(format_args!("{}{}", "ab", 12));
    /// assert_eq!(s, "ab12");
    /// ```
    #[must_use]
    pub fn from_fmt(args: fmt::Arguments<'_>) -> Str {
        if let Some(text) = args.as_str() {
            return literal(text);
        }
        let mut builder = StrBuilder::new();
        builder.push_fmt(args);
        builder.finish()
    }

    /// Like [`Str::from_fmt`], but reports a failing formatting implementation, an
    /// over-long result or an allocation failure.
    ///
    /// ```
    /// let s = dynatom::Str::try_from_fmt(format_args!("{:?}", "q")).unwrap();
    /// assert_eq!(s, "\"q\"");
    /// ```
    pub fn try_from_fmt(args: fmt::Arguments<'_>) -> Result<Str, BuildError> {
        if let Some(text) = args.as_str() {
            return Ok(literal(text));
        }
        let mut builder = StrBuilder::new();
        builder.try_push_fmt(args)?;
        Ok(builder.try_finish()?)
    }
}

/// The string for a format that is all literal text: inline if short (like every other
/// result of at most 15 bytes), else the static text itself.
fn literal(text: &'static str) -> Str {
    if text.len() <= Str::INLINE_CAPACITY {
        Str::from(text)
    } else {
        Str::from_static(text)
    }
}
