//! Borrowed text into [`Pieces`]: a [`Pieces`] outlives any borrow (its pieces are
//! owned `Str` handles), so text that is not `'static` is copied, and the call says so.

use std::borrow::Cow;

use super::pieces::{Piece, Pieces};
use crate::error::StrError;
use crate::str::Str;

impl Pieces {
    /// Appends a copy of borrowed `text`: inline up to 15 bytes, else one allocation.
    /// (`push` takes `&'static str` without a copy; this is for everything else.)
    ///
    /// # Panics
    /// If `text` is longer than [`Str::MAX_LEN`]; see [`Pieces::try_push_copy`].
    ///
    /// ```
    /// let name = String::from("world");
    /// let mut greeting = dynatom::Pieces::new();
    /// greeting.push("hello, ");
    /// greeting.push_copy(&name[..]);
    /// assert_eq!(greeting.to_text(), "hello, world");
    /// ```
    pub fn push_copy(&mut self, text: &str) {
        self.push(Str::from(text));
    }

    /// Like [`Pieces::push_copy`], but reports over-long text or allocation failure;
    /// on error the list is unchanged.
    ///
    /// ```
    /// let mut p = dynatom::Pieces::new();
    /// p.try_push_copy(&String::from("copied")).unwrap();
    /// assert_eq!(p.len(), 6);
    /// ```
    pub fn try_push_copy(&mut self, text: &str) -> Result<(), StrError> {
        self.push(Str::try_from_str(text)?);
        Ok(())
    }
}

impl From<&String> for Piece {
    /// Copies the text into a [`Str`].
    fn from(text: &String) -> Piece {
        Piece::from(Str::from(text))
    }
}

impl From<Box<str>> for Piece {
    /// Copies the text into a [`Str`].
    fn from(text: Box<str>) -> Piece {
        Piece::from(Str::from(text))
    }
}

impl From<Cow<'static, str>> for Piece {
    /// Borrowed static text without a copy; owned text copied into a [`Str`].
    fn from(text: Cow<'static, str>) -> Piece {
        match text {
            Cow::Borrowed(text) => Piece::from(text),
            Cow::Owned(text) => Piece::from(text),
        }
    }
}
