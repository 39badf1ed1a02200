//! A tokenizer for a tiny language: identifiers go into an `Interner` (4-byte `Copy`
//! symbols for the parser), keywords are compared as atoms, and an `AtomMap` counts how
//! often each keyword appears.
//!
//! `cargo run -p dynatom --example tokenizer`

use dynatom::interner::{Interner, Symbol};
use dynatom::{Atom, AtomMap, atom};

/// What the tokenizer hands the parser: every token is 8 bytes or less.
#[derive(Clone, Debug, PartialEq)]
enum Token {
    Keyword(Atom),
    Ident(Symbol),
    Number(i64),
    Punct(char),
}

/// The keywords, as atoms made once per call site by `atom!` (their bytes stay in the
/// binary).
fn keyword(word: &str) -> Option<Atom> {
    // `Atom::lookup` never inserts: a word that no atom has cannot be a keyword, and
    // the answer comes from the table without comparing any text.
    let candidate = Atom::lookup(word)?;
    [atom!("let"), atom!("fn"), atom!("return"), atom!("if"), atom!("else")].into_iter().find(|kw| *kw == candidate)
}

fn tokenize(source: &str, names: &mut Interner) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut rest = source.trim_start();
    while let Some(first) = rest.chars().next() {
        let len = if first.is_alphabetic() || first == '_' {
            let len = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let word = &rest[..len];
            tokens.push(match keyword(word) {
                Some(kw) => Token::Keyword(kw),
                None => Token::Ident(names.intern(word)),
            });
            len
        } else if first.is_ascii_digit() {
            let len = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
            tokens.push(Token::Number(rest[..len].parse().expect("digits")));
            len
        } else {
            tokens.push(Token::Punct(first));
            first.len_utf8()
        };
        rest = rest[len..].trim_start();
    }
    tokens
}

fn main() {
    let source = "fn area(width, height) { let w = width; let h = height; return w * h }\n\
                  fn main() { if area(3, 4) { return area(3, 4) } else { return 0 } }";
    let mut names = Interner::new();
    let tokens = tokenize(source, &mut names);

    let mut keyword_counts: AtomMap<usize> = AtomMap::new();
    for token in &tokens {
        if let Token::Keyword(kw) = token {
            *keyword_counts.entry(kw).or_insert(0) += 1;
        }
    }

    println!("{} tokens, {} distinct identifiers", tokens.len(), names.len());
    for (sym, name) in &names {
        println!("  {sym}  {name}");
    }
    for (kw, count) in &keyword_counts {
        println!("  keyword {kw:<8} x{count}");
    }

    // The checks that make this example a test when `scripts/test` runs it.
    assert_eq!(tokens.len(), 23 + 27, "counted by hand, line by line");
    assert_eq!(names.len(), 6, "area, width, height, w, h, main");
    let area = names.get("area").expect("interned");
    assert_eq!(&names[area], "area");
    assert_eq!(tokens.iter().filter(|t| **t == Token::Ident(area)).count(), 3);
    assert_eq!(keyword_counts.get(&atom!("return")), Some(&3));
    assert_eq!(keyword_counts["let"], 2);
    assert_eq!(keyword_counts.get("while"), None);
}
