//! The byte accessors that [`Str`](crate::Str), [`ByteStr`](crate::ByteStr),
//! [`Atom`](crate::Atom) and [`ByteAtom`](crate::ByteAtom) share, written once.
//!
//! The four handles hold their bytes in two layouts (a string word, an atom word) and two
//! promises (text, bytes), but read them the same way: every accessor here follows from
//! `as_bytes`, and `as_bytes` from the handle's one field. So each handle's file expands
//! [`handle_accessors!`] inside its own inherent `impl` (the methods stay in the type's
//! folder), and a fix to one accessor lands in all four.
//!
//! The methods are inherent, not left to `Deref`: `ByteStr::len` and friends are named as
//! paths (`map_or(0, ByteStr::len)` in the C ABI), which deref cannot serve, and each
//! handle documents them on its own page.
//!
//! This module is a leaf: the expansion names only the invoking type's fields (`text`, a
//! [`Utf8`](crate::utf8::Utf8) over the byte handle, for the text handles; `word` for the
//! byte handles) and `std`.

/// Expands, inside `impl $Ty { ... }`, the accessors that follow from the handle's bytes,
/// each with its documentation and an example (built with `$Ty::from(&str)` for the text
/// handles and `$Ty::from(&[u8])` for the byte handles, which all four have):
///
/// * `text $Ty`: `as_str`, `as_bytes`, `as_ptr`, `len`, `is_empty`;
/// * `bytes $Ty`: `as_bytes`, `as_ptr`, `len`, `is_empty`, `is_utf8`;
/// * `byte_at $Ty`: `byte_at` (the owned strings have it, atoms do not).
macro_rules! handle_accessors {
    (text $Ty:ident) => {
        /// The text.
        ///
        /// ```
        #[doc = concat!("let s = dynatom::", stringify!($Ty), "::from(\"text\");")]
        /// assert_eq!(s.as_str(), "text");
        /// ```
        #[must_use]
        #[inline]
        pub fn as_str(&self) -> &str {
            self.text.as_str()
        }

        /// The text's bytes.
        ///
        /// ```
        #[doc = concat!("let s = dynatom::", stringify!($Ty), "::from(\"héllo\");")]
        /// assert_eq!(s.as_bytes(), "héllo".as_bytes());
        /// ```
        #[must_use]
        #[inline]
        pub fn as_bytes(&self) -> &[u8] {
            self.text.get().as_bytes()
        }

        $crate::accessors::handle_accessors!(@derived $Ty, ")");
    };
    (bytes $Ty:ident) => {
        /// The bytes.
        ///
        /// ```
        #[doc = concat!("let s = dynatom::", stringify!($Ty), "::from(&b\"\\xff\\x00\"[..]);")]
        /// assert_eq!(s.as_bytes(), b"\xff\x00");
        /// ```
        #[must_use]
        #[inline]
        pub fn as_bytes(&self) -> &[u8] {
            self.word.as_bytes()
        }

        $crate::accessors::handle_accessors!(@derived $Ty, ".as_bytes())");

        /// Whether the bytes are UTF-8 (one check, O(n)).
        ///
        /// ```
        #[doc = concat!("use dynatom::", stringify!($Ty), ";")]
        ///
        #[doc = concat!("assert!(", stringify!($Ty), "::from(\"é\".as_bytes()).is_utf8());")]
        #[doc = concat!("assert!(!", stringify!($Ty), "::from(&b\"\\xc3\"[..]).is_utf8());")]
        /// ```
        #[inline]
        pub fn is_utf8(&self) -> bool {
            std::str::from_utf8(self.as_bytes()).is_ok()
        }
    };
    (byte_at $Ty:ident) => {
        /// The byte at `index`, or `None` past the end. No allocation (Lua's
        /// `string.byte`, where `string.sub` would make a string).
        ///
        /// ```
        #[doc = concat!("let s = dynatom::", stringify!($Ty), "::from(\"héllo\");")]
        /// assert_eq!(s.byte_at(1), Some(0xc3));
        /// assert_eq!(s.byte_at(6), None);
        /// ```
        #[must_use]
        #[inline]
        pub fn byte_at(&self, index: usize) -> Option<u8> {
            self.as_bytes().get(index).copied()
        }
    };
    // `$close` ends the example's constructor: `)` for text, `.as_bytes())` for bytes.
    (@derived $Ty:ident, $close:literal) => {
        /// Pointer to the first byte (inside the handle itself when the bytes are stored
        /// inline). Clones share it when the bytes live on the heap.
        ///
        /// ```
        #[doc = concat!(
            "let s = dynatom::", stringify!($Ty), "::from(\"a text on the heap, longer than 15 bytes\"",
            $close, ";"
        )]
        /// assert_eq!(s.as_ptr(), s.as_bytes().as_ptr());
        /// assert_eq!(s.as_ptr(), s.clone().as_ptr());
        /// ```
        #[inline]
        pub fn as_ptr(&self) -> *const u8 {
            self.as_bytes().as_ptr()
        }

        /// Length in bytes.
        ///
        /// ```
        #[doc = concat!("let s = dynatom::", stringify!($Ty), "::from(\"héllo\"", $close, ";")]
        /// assert_eq!(s.len(), 6);
        /// ```
        #[inline]
        pub fn len(&self) -> usize {
            self.as_bytes().len()
        }

        /// Whether there are no bytes.
        ///
        /// ```
        #[doc = concat!("assert!(dynatom::", stringify!($Ty), "::from(\"\"", $close, ".is_empty());")]
        #[doc = concat!("assert!(!dynatom::", stringify!($Ty), "::from(\"a\"", $close, ".is_empty());")]
        /// ```
        #[inline]
        pub fn is_empty(&self) -> bool {
            self.len() == 0
        }
    };
}

pub(crate) use handle_accessors;
