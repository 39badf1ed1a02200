//! [`StaticSet`] and [`static_atoms!`](crate::static_atoms): atoms declared at compile
//! time, usable as `const` items and `match` patterns. Built with the `static-atoms`
//! feature only; what serves sets registered at run time as well is in
//! `declared_atoms.rs`.

use std::fmt;
use std::sync::OnceLock;

use super::Atom;
use super::byte_atom::ByteAtom;
use crate::repr::atom_word::{AtomWord, inline_bits_fast};
use crate::repr::declared::{self, StaticText};

/// A set of texts declared with [`static_atoms!`](crate::static_atoms): one `const`
/// [`Atom`] per text, a dense index, and a lookup from text that touches no table.
/// Keywords are declared as raw identifiers (`r#fn`), except `self`, `crate`, `super` and
/// `Self`, which cannot be raw and are named instead (`SELF = "self"`).
///
/// Its atoms are the very atoms [`Atom::from`] gives for the same texts, anywhere in the
/// program and in any table. Using one costs nothing: it is a `const` word, so cloning,
/// comparing and dropping it touch no count, and `match` on it compares integers.
///
/// ```
/// dynatom::static_atoms! {
///     /// The keywords of a tiny language.
///     pub mod keywords { r#let, r#fn, RETURN = "return", WHILE_LOOP = "while" }
/// }
///
/// let set = &keywords::SET;
/// assert_eq!(set.len(), 4);
/// assert_eq!(set.get("return"), Some(keywords::RETURN));
/// assert_eq!(set.index_of(&keywords::r#fn), Some(1));
/// assert!(set.contains(&dynatom::Atom::from("while")));
/// assert_eq!(set.get("loop"), None);
/// ```
pub struct StaticSet {
    name: &'static str,
    texts: &'static [StaticText],
    /// Dense index by declared word, made on first use.
    index: OnceLock<WordIndex>,
}

impl StaticSet {
    /// A set of `texts` (all made from `str`s: checked at compile time). Called by
    /// [`static_atoms!`](crate::static_atoms), which also registers the set.
    #[doc(hidden)]
    #[must_use]
    pub const fn __new(name: &'static str, texts: &'static [StaticText]) -> StaticSet {
        let mut i = 0;
        while i < texts.len() {
            assert!(texts[i].is_text(), "a static set's texts are made with `StaticText::from_str`");
            assert!(texts.len() < u32::MAX as usize, "too many texts in one static set");
            i += 1;
        }
        StaticSet { name, texts, index: OnceLock::new() }
    }

    #[inline]
    fn index(&self) -> &WordIndex {
        match self.index.get() {
            Some(index) => index,
            None => self.make_index(),
        }
    }

    /// Made under the fork gate, so that a child of `fork()` never finds it half made.
    #[cold]
    fn make_index(&self) -> &WordIndex {
        let _gate = crate::sync::fork_gate::enter();
        self.index.get_or_init(|| WordIndex::new(self.texts))
    }

    /// The set's name: the module [`static_atoms!`](crate::static_atoms) made for it.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// assert_eq!(methods::SET.name(), "methods");
    /// ```
    #[must_use]
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// How many texts the set declares.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// assert_eq!(methods::SET.len(), 2);
    /// ```
    #[must_use]
    pub const fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether the set declares no text.
    ///
    /// ```
    /// dynatom::static_atoms! { mod nothing {} }
    /// assert!(nothing::SET.is_empty());
    /// ```
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// The declared texts with the names of their items, in declaration order.
    ///
    /// ```
    /// dynatom::static_atoms! { mod headers { CONTENT_TYPE = "content-type" } }
    /// let text = &headers::SET.texts()[0];
    /// assert_eq!((text.name(), text.bytes()), ("CONTENT_TYPE", &b"content-type"[..]));
    /// ```
    #[must_use]
    pub const fn texts(&self) -> &'static [StaticText] {
        self.texts
    }

    /// The set's atom for `text`, if the set declares it: no table is touched (one hash of
    /// the text under the declared keys' fixed seed, one probe of the set's index).
    ///
    /// ```
    /// dynatom::static_atoms! { mod headers { CONTENT_TYPE = "content-type", ACCEPT = "accept" } }
    /// assert_eq!(headers::SET.get("content-type"), Some(headers::CONTENT_TYPE));
    /// assert_eq!(headers::SET.get("content-length"), None);
    /// ```
    #[must_use]
    #[inline]
    pub fn get(&self, text: &str) -> Option<Atom> {
        let position = self.candidate(text.as_bytes())?;
        Atom::declared_if_text(text, &self.texts[position])
    }

    /// [`get`](Self::get) for bytes.
    ///
    /// ```
    /// dynatom::static_atoms! { mod headers { CONTENT_TYPE = "content-type" } }
    /// assert_eq!(headers::SET.get_bytes(b"content-type"), Some(headers::bytes::CONTENT_TYPE));
    /// ```
    #[must_use]
    #[inline]
    pub fn get_bytes(&self, bytes: &[u8]) -> Option<ByteAtom> {
        let text = &self.texts[self.candidate(bytes)?];
        (text.bytes() == bytes).then(|| ByteAtom::from_word(AtomWord::from_declared_bits(text.bits())))
    }

    /// The position of the one text that may be `bytes`: the key is 61 bits of a hash, so
    /// the caller compares, and a text outside the set with the same key is never taken
    /// for one inside.
    #[inline]
    fn candidate(&self, bytes: &[u8]) -> Option<usize> {
        let index = self.index();
        let bits = match inline_bits_fast(bytes) {
            Some(bits) => bits,
            None if index.may_hold_long(bytes) => declared::declared_bits(bytes),
            None => return None,
        };
        index.position(bits)
    }

    /// The dense index (declaration order, from 0) of `atom` in this set.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST, DELETE } }
    /// assert_eq!(methods::SET.index_of(&methods::DELETE), Some(2));
    /// assert_eq!(methods::SET.index_of(&dynatom::Atom::from("PUT")), None);
    /// ```
    #[must_use]
    #[inline]
    pub fn index_of(&self, atom: &Atom) -> Option<usize> {
        self.index_of_byte_atom(atom.as_byte_atom())
    }

    /// [`index_of`](Self::index_of) for a byte atom.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// assert_eq!(methods::SET.index_of_byte_atom(&dynatom::ByteAtom::new(b"POST")), Some(1));
    /// ```
    #[must_use]
    #[inline]
    pub fn index_of_byte_atom(&self, atom: &ByteAtom) -> Option<usize> {
        let word = atom.word();
        if !word.is_value() {
            return None;
        }
        self.index().position(word.bits())
    }

    /// Whether `atom` is one of the set's.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// assert!(methods::SET.contains(&dynatom::Atom::from("GET")));
    /// assert!(!methods::SET.contains(&dynatom::Atom::from("PUT")));
    /// ```
    #[must_use]
    #[inline]
    pub fn contains(&self, atom: &Atom) -> bool {
        self.index_of(atom).is_some()
    }

    /// The atom at dense index `index`.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// assert_eq!(methods::SET.atom(1), Some(methods::POST));
    /// assert_eq!(methods::SET.atom(2), None);
    /// ```
    #[must_use]
    pub fn atom(&self, index: usize) -> Option<Atom> {
        (index < self.texts.len()).then(|| self.atom_at(index))
    }

    fn atom_at(&self, position: usize) -> Atom {
        let text = &self.texts[position];
        let text_str = std::str::from_utf8(text.bytes()).expect("`__new` checked that the texts are UTF-8");
        Atom::declared_if_text(text_str, text).expect("the entry's own text")
    }

    /// The set's atoms in declaration order.
    ///
    /// ```
    /// dynatom::static_atoms! { mod methods { GET, POST } }
    /// let all: Vec<_> = methods::SET.iter().collect();
    /// assert_eq!(all, [methods::GET, methods::POST]);
    /// ```
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Atom> + '_ {
        (0..self.texts.len()).map(|position| self.atom_at(position))
    }
}

/// A set's texts by declared word: open addressing at most a quarter full, the words in
/// the slots, so a probe reads one slot (rarely two) and no text.
struct WordIndex {
    /// `(word, position + 1)`; an empty slot is `(0, 0)` (no declared word is 0).
    slots: Box<[(usize, u32)]>,
    shift: u32,
    /// One bit per (first eight bytes, length) of the set's texts longer than 7 bytes, so
    /// that most texts outside the set are turned away before they are hashed.
    long_prefixes: [u64; 16],
}

impl WordIndex {
    /// Fibonacci hashing: declared words are hashes already, but inline ones are bytes.
    const MULTIPLIER: usize = 0x9E37_79B9_7F4A_7C15;

    fn new(texts: &[StaticText]) -> WordIndex {
        let capacity = (texts.len() * 4).next_power_of_two().max(8);
        let mut index = WordIndex {
            slots: vec![(0, 0); capacity].into_boxed_slice(),
            shift: usize::BITS - capacity.trailing_zeros(),
            long_prefixes: [0; 16],
        };
        for (position, text) in texts.iter().enumerate() {
            if let Some(bit) = Self::prefix_bit(text.bytes()) {
                index.long_prefixes[bit / 64] |= 1 << (bit % 64);
            }
            let mut slot = index.home(text.bits());
            loop {
                match index.slots[slot] {
                    (0, _) => {
                        index.slots[slot] = (text.bits(), position as u32 + 1);
                        break;
                    }
                    // A text declared twice keeps its first position (registration refuses
                    // such a set when the global table is made).
                    (bits, _) if bits == text.bits() => break,
                    _ => slot = (slot + 1) & (capacity - 1),
                }
            }
        }
        index
    }

    /// Which of the 1024 prefix bits a text longer than 7 bytes sets.
    #[inline]
    fn prefix_bit(bytes: &[u8]) -> Option<usize> {
        declared::prefix_mix(bytes).map(|mixed| (mixed >> 54) as usize)
    }

    /// Whether the set may hold `bytes` (longer than 7 bytes).
    #[inline]
    fn may_hold_long(&self, bytes: &[u8]) -> bool {
        Self::prefix_bit(bytes).is_some_and(|bit| self.long_prefixes[bit / 64] & (1 << (bit % 64)) != 0)
    }

    #[inline]
    fn home(&self, bits: usize) -> usize {
        bits.wrapping_mul(Self::MULTIPLIER) >> self.shift
    }

    #[inline]
    fn position(&self, bits: usize) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut slot = self.home(bits);
        loop {
            let (found, position) = self.slots[slot];
            if found == bits {
                return Some(position as usize - 1);
            }
            if found == 0 {
                return None;
            }
            slot = (slot + 1) & mask;
        }
    }
}

impl fmt::Debug for StaticSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StaticSet").field("name", &self.name).field("len", &self.texts.len()).finish()
    }
}

impl<'a> IntoIterator for &'a StaticSet {
    type Item = Atom;
    type IntoIter = Box<dyn ExactSizeIterator<Item = Atom> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl ByteAtom {
    /// The byte atom of a declared text, for [`static_atoms!`](crate::static_atoms).
    #[doc(hidden)]
    #[must_use]
    pub const fn __declared(text: &StaticText) -> ByteAtom {
        ByteAtom::from_word(AtomWord::from_declared_bits_const(text.bits()))
    }
}

/// Removes the `r#` of a raw identifier's name (`r#if` declares `"if"`).
#[doc(hidden)]
#[must_use]
pub const fn __text_of_name(name: &'static str) -> &'static str {
    match name.as_bytes() {
        [b'r', b'#', ..] => match std::str::from_utf8(name.as_bytes().split_at(2).1) {
            Ok(text) => text,
            Err(_) => panic!("an identifier is UTF-8"),
        },
        _ => name,
    }
}

/// Declares a set of atoms known at compile time: one `const` [`Atom`] per text (usable
/// in `match` patterns), its [`ByteAtom`] twin in a `bytes` submodule, and the set itself
/// as `SET`, a [`StaticSet`].
///
/// Each entry is `NAME = "text"`, or a bare identifier whose name is the text (`div`,
/// `r#if` for a keyword). `self`, `crate`, `super` and `Self` cannot be raw identifiers
/// (`r#self` does not compile), so those keywords take a name: `SELF = "self"`. `SET`
/// names the set, so no entry may be called `SET`. Each text
/// is hashed once, at compile time. The atoms are the same atoms as `Atom::from` of their text, in
/// every table and thread; using them hashes, locks and counts nothing. Every set in the
/// program is found at link time and filed in the global table when it is made, in one
/// pass, once per process.
///
/// ```
/// use dynatom::Atom;
///
/// dynatom::static_atoms! {
///     /// The keywords of a tiny language.
///     pub mod keyword { r#let, r#fn, r#if, r#else, RETURN = "return", FUNCTION = "function" }
/// }
///
/// fn describe(word: &Atom) -> &'static str {
///     match *word {
///         keyword::r#let => "binding",
///         keyword::r#fn | keyword::FUNCTION => "function",
///         keyword::r#if | keyword::r#else => "branch",
///         keyword::RETURN => "exit",
///         _ => "identifier",
///     }
/// }
///
/// let token = Atom::from(String::from("function"));
/// assert_eq!(describe(&token), "function");
/// assert_eq!(describe(&Atom::from("counter")), "identifier");
/// assert_eq!(keyword::FUNCTION.as_str(), "function");
/// assert_eq!(keyword::bytes::RETURN.as_bytes(), b"return");
/// ```
///
/// The keywords that cannot be raw identifiers, named:
///
/// ```
/// dynatom::static_atoms! {
///     /// Rust's path keywords.
///     pub mod path_keyword { SELF = "self", CRATE = "crate", SUPER = "super", SELF_TYPE = "Self", r#in }
/// }
///
/// assert_eq!(path_keyword::SELF.as_str(), "self");
/// assert_eq!(path_keyword::CRATE.as_str(), "crate");
/// assert_eq!(path_keyword::SUPER.as_str(), "super");
/// assert_eq!(path_keyword::SELF_TYPE.as_str(), "Self");
/// assert_eq!(path_keyword::SET.get("super"), Some(path_keyword::SUPER));
/// assert_eq!(dynatom::Atom::from("crate"), path_keyword::CRATE);
/// ```
///
/// What the integer word costs: reading a declared atom's text (`as_str`, `Str::from`)
/// looks its word up in the process's index of sets (one hash-map probe), where other
/// atoms read through a pointer; `==`, `Hash`, clone and drop cost what an inline atom's do.
///
/// The items of one set live in the module the macro makes; a text declared in two sets
/// (a library's and the application's) is one atom, since its word is computed from the
/// text alone. Two different texts whose 61-bit keys collide are refused when the sets are
/// first used (a panic naming both: rename one).
///
/// The set is registered through a link-time list: a crate whose set is used only by its
/// `const` items, with nothing else of it linked, may be left out by the linker, and
/// reading such an atom's text panics. Naming its `SET` anywhere keeps it.
#[cfg_attr(docsrs, doc(cfg(feature = "static-atoms")))]
#[macro_export]
macro_rules! static_atoms {
    (
        $(#[$set_attr:meta])*
        $vis:vis mod $set:ident {
            $( $(#[$attr:meta])* $name:ident $(= $text:literal)? ),* $(,)?
        }
    ) => {
        $(#[$set_attr])*
        #[allow(non_upper_case_globals)]
        $vis mod $set {
            /// Each text once, hashed once at compile time: the items below are made from
            /// these.
            mod declared {
                $(
                    pub(super) const $name: $crate::StaticText = $crate::StaticText::from_str(
                        $crate::__static_text!(@name $name),
                        $crate::__static_text!($name $(= $text)?),
                    );
                )*
            }

            $(
                $(#[$attr])*
                #[doc = concat!("The static atom `", stringify!($name) $(, " = ", stringify!($text))?, "`.")]
                pub const $name: $crate::Atom = $crate::Atom::__declared(&declared::$name);
            )*

            const __TEXTS: &[$crate::StaticText] = &[ $( declared::$name, )* ];

            /// The set, with its dense index and its text lookup.
            pub static SET: $crate::StaticSet = $crate::StaticSet::__new(stringify!($set), __TEXTS);

            #[$crate::__private::linkme::distributed_slice($crate::__private::DECLARED_SETS)]
            #[linkme(crate = $crate::__private::linkme)]
            static __REGISTERED: $crate::__private::DeclaredSet =
                $crate::__private::DeclaredSet { name: stringify!($set), texts: __TEXTS };

            /// The same atoms as [`ByteAtom`]s.
            #[allow(non_upper_case_globals)]
            pub mod bytes {
                $(
                    #[doc = concat!("The static byte atom `", stringify!($name) $(, " = ", stringify!($text))?, "`.")]
                    pub const $name: $crate::ByteAtom = $crate::ByteAtom::__declared(&super::declared::$name);
                )*
            }
        }
    };
}

/// The text of one [`static_atoms!`] entry.
#[doc(hidden)]
#[macro_export]
macro_rules! __static_text {
    (@name $name:ident) => {
        $crate::__private::text_of_name(stringify!($name))
    };
    ($name:ident = $text:literal) => {
        $text
    };
    ($name:ident) => {
        $crate::__private::text_of_name(stringify!($name))
    };
}
