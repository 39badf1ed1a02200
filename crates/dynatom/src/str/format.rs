//! Formatting straight into a [`Str`]: [`str_format!`](crate::str_format).

use std::fmt;

use super::Str;
use super::byte_str::ByteStr;
use crate::error::{BuildError, Fallibility, StrError};
use crate::repr::growable::GrowableBlock;
use crate::utf8::Utf8;

/// Formats into a [`Str`] the way `format!` formats into a `String`, but
/// without the intermediate `String`: the text is written into a buffer laid out as the
/// string's heap block, which becomes the string (as [`StrBuilder::finish`](crate::StrBuilder::finish) does).
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
/// [`BuildError`] instead of a panic.
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
        match format(args, Fallibility::Infallible) {
            Ok(s) => s,
            Err(BuildError::Format) => {
                panic!("a formatting trait implementation returned an error when the underlying stream did not")
            }
            Err(err) => panic!("{err}"),
        }
    }

    /// Like [`Str::from_fmt`], but reports a failing formatting implementation, an
    /// over-long result or an allocation failure.
    ///
    /// ```
    /// let s = dynatom::Str::try_from_fmt(format_args!("{:?}", "q")).unwrap();
    /// assert_eq!(s, "\"q\"");
    /// ```
    pub fn try_from_fmt(args: fmt::Arguments<'_>) -> Result<Str, BuildError> {
        format(args, Fallibility::Fallible)
    }
}

/// Formats into a growable block laid out as a heap string, which then becomes the
/// string: the same buffer [`StrBuilder`](crate::StrBuilder) finishes in place. Appends
/// always report failure (a formatting call cannot abort halfway); `fallibility` is the
/// final trim's.
fn format(args: fmt::Arguments<'_>, fallibility: Fallibility) -> Result<Str, BuildError> {
    if let Some(text) = args.as_str() {
        return Ok(literal(text));
    }
    let mut sink = TextSink { buf: Utf8::empty_buffer(), error: None };
    if fmt::write(&mut sink, args).is_err() {
        return Err(sink.error.map_or(BuildError::Format, BuildError::Str));
    }
    let text = sink.buf.into_same_bytes(|buf| ByteStr::from_buffer(buf, fallibility))?;
    Ok(Str::from_utf8_handle(text))
}

/// `fmt::Write` into a text buffer, keeping the real cause of a failed write, which
/// `fmt::Error` cannot carry.
struct TextSink {
    buf: Utf8<GrowableBlock>,
    error: Option<StrError>,
}

impl TextSink {
    fn keep(&mut self, result: Result<(), StrError>) -> fmt::Result {
        result.map_err(|err| {
            self.error = Some(err);
            fmt::Error
        })
    }
}

impl fmt::Write for TextSink {
    fn write_str(&mut self, text: &str) -> fmt::Result {
        let result = self.buf.append(text, |buf, bytes| buf.push_bytes(bytes, Fallibility::Fallible));
        self.keep(result)
    }

    /// ASCII (what formatting pads with) skips the generic copy.
    fn write_char(&mut self, c: char) -> fmt::Result {
        let mut utf8 = [0; 4];
        let text = c.encode_utf8(&mut utf8);
        let result = self.buf.append(text, |buf, bytes| match bytes {
            [byte] => buf.push_byte(*byte, Fallibility::Fallible),
            _ => buf.push_bytes(bytes, Fallibility::Fallible),
        });
        self.keep(result)
    }
}

/// The string for a format that is all literal text: inline if short (like every other
/// result of at most 15 bytes), else the static text itself.
fn literal(text: &'static str) -> Str {
    if text.len() <= Str::INLINE_CAPACITY { Str::from(text) } else { Str::from_static(text) }
}
