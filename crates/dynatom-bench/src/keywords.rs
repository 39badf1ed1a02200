//! The `static-atoms` suite's keyword set and token stream, shared by its timed suite and
//! its counted rows: 50 keywords of JavaScript/TypeScript, Rust and Python declared with
//! `static_atoms!` (ten of them longer than the 7 bytes of an inline atom, so they are
//! declared keys filed in the global table), the same dispatch written as a `match` on
//! the static atoms and as a `match` on the text, and a lexer-like token stream in which
//! 30% of the tokens are keywords and the rest identifiers.
//!
//! This is the only declared set of the report's binary: it stays small, so that filing
//! it when the global table is made does not move the other suites' figures.

use crate::corpus::{self, Rng};
use dynatom::Atom;

/// Declares the set, the token kinds (one per keyword, `Ident` for the rest) and the two
/// dispatch functions from one list, so the two `match`es cannot disagree.
macro_rules! keyword_set {
    ($($name:ident = $text:literal),* $(,)?) => {
        dynatom::static_atoms! {
            /// The benchmark's keyword set.
            pub mod kw { $($name = $text),* }
        }

        /// The keywords' texts, in declaration order (rough frequency order: the first
        /// ones are drawn most often).
        pub const TEXTS: &[&str] = &[$($text),*];

        /// What a lexer would hand a parser: the keyword, or an identifier.
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Kind {
            Ident,
            $($name),*
        }

        /// Dispatch on an atom: a `match` on the static atoms (integer compares).
        #[inline(never)]
        pub fn kind_of_atom(atom: &Atom) -> Kind {
            match *atom {
                $(kw::$name => Kind::$name,)*
                _ => Kind::Ident,
            }
        }

        /// Dispatch on text: a `match` on the `&str` (what `atom.as_str()` dispatch is).
        #[inline(never)]
        pub fn kind_of_str(text: &str) -> Kind {
            match text {
                $($text => Kind::$name,)*
                _ => Kind::Ident,
            }
        }
    };
}

keyword_set! {
    THIS = "this", CONST = "const", RETURN = "return", IF = "if", FUNCTION = "function",
    LET = "let", ELSE = "else", NEW = "new", FOR = "for", IMPORT = "import",
    FN = "fn", DEF = "def", MATCH = "match", CLASS = "class", EXPORT = "export",
    IMPL = "impl", WHILE = "while", CASE = "case", BREAK = "break", STRUCT = "struct",
    TRY = "try", CATCH = "catch", CONTINUE = "continue", TYPEOF = "typeof", DEFAULT = "default",
    INTERFACE = "interface", ASYNC = "async", AWAIT = "await", THROW = "throw", ENUM = "enum",
    SWITCH = "switch", EXTENDS = "extends", SUPER = "super", ELIF = "elif", LAMBDA = "lambda",
    INSTANCEOF = "instanceof", IMPLEMENTS = "implements", YIELD = "yield", TRAIT = "trait", WHERE = "where",
    DELETE = "delete", FINALLY = "finally", LOOP = "loop", UNSAFE = "unsafe", PASS = "pass",
    ABSTRACT = "abstract", PROTECTED = "protected", NAMESPACE = "namespace", NONLOCAL = "nonlocal",
    DEBUGGER = "debugger",
}

/// Share of keywords in the token stream.
pub const KEYWORD_SHARE: f64 = 0.3;
/// Distinct identifiers the stream draws from (Zipf-distributed, like the keywords).
pub const IDENTIFIERS: usize = 2_000;

/// The keywords longer than an inline atom (declared keys, filed in the global table).
pub fn long_keywords() -> Vec<&'static str> {
    TEXTS.iter().copied().filter(|t| t.len() > 7).collect()
}

/// One text per long keyword, of the same length and declared nowhere (its last byte
/// changed), for the held-atom hits the declared texts are compared with.
pub fn undeclared_twins() -> Vec<String> {
    long_keywords()
        .iter()
        .map(|k| {
            let mut s = k[..k.len() - 1].to_string();
            s.push(if k.ends_with('Z') { 'Y' } else { 'Z' });
            s
        })
        .collect()
}

/// A lexer's output: its distinct texts (keywords first) and `len` tokens as indices
/// into them, 30% keywords.
pub struct Stream {
    pub distinct: Vec<String>,
    pub tokens: Vec<u32>,
}

impl Stream {
    pub fn new(len: usize) -> Stream {
        let mut rng = Rng::new(0x0057_471C);
        let mut distinct: Vec<String> = TEXTS.iter().map(|t| t.to_string()).collect();
        let idents = corpus::distinct_from(IDENTIFIERS, &mut rng, |r| loop {
            let s = corpus::identifier(r);
            if !TEXTS.contains(&s.as_str()) {
                break s;
            }
        });
        distinct.extend(idents);
        let keywords = zipf_table(TEXTS.len());
        let identifiers = zipf_table(IDENTIFIERS);
        let tokens = (0..len)
            .map(|_| {
                if rng.f64() < KEYWORD_SHARE {
                    draw(&keywords, &mut rng) as u32
                } else {
                    (TEXTS.len() + draw(&identifiers, &mut rng)) as u32
                }
            })
            .collect();
        Stream { distinct, tokens }
    }

    /// The tokens as text (slices of the distinct texts, as a lexer's slices of its source).
    pub fn texts(&self) -> Vec<&str> {
        self.tokens.iter().map(|&t| self.distinct[t as usize].as_str()).collect()
    }
}

/// Cumulative Zipf(s = 1) weights over `n` ranks.
fn zipf_table(n: usize) -> Vec<f64> {
    let mut total = 0.0;
    (0..n)
        .map(|r| {
            total += 1.0 / (r as f64 + 1.0);
            total
        })
        .collect()
}

fn draw(cdf: &[f64], rng: &mut Rng) -> usize {
    let x = rng.f64() * cdf.last().copied().unwrap_or(0.0);
    cdf.partition_point(|&c| c < x).min(cdf.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifty_keywords_ten_long_and_both_dispatches_agree() {
        assert_eq!(TEXTS.len(), 50);
        assert_eq!(long_keywords().len(), 10);
        assert_eq!(kw::SET.len(), 50);
        for (i, text) in TEXTS.iter().enumerate() {
            let atom = Atom::from(*text);
            assert_eq!(kind_of_atom(&atom), kind_of_str(text), "{text}");
            assert_ne!(kind_of_str(text), Kind::Ident, "{text}");
            assert_eq!(kw::SET.get(text), Some(atom.clone()));
            assert_eq!(kw::SET.index_of(&atom), Some(i));
        }
        for twin in undeclared_twins() {
            assert_eq!(kw::SET.get(&twin), None);
            assert!(!Atom::from(twin.as_str()).is_declared(), "{twin}");
        }
    }

    #[test]
    fn the_stream_is_thirty_percent_keywords() {
        let s = Stream::new(100_000);
        let keywords = s.tokens.iter().filter(|&&t| (t as usize) < TEXTS.len()).count();
        let share = keywords as f64 / s.tokens.len() as f64;
        assert!((0.28..0.32).contains(&share), "{share}");
        for text in s.texts().iter().take(1000) {
            assert_eq!(kind_of_atom(&Atom::from(*text)), kind_of_str(text));
        }
    }
}
