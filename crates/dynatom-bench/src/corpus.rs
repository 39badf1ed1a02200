//! Deterministic corpora, generated at run time from a fixed-seed PRNG so the repo
//! carries no large files and every child process rebuilds exactly the same input.

use std::collections::HashSet;

/// A corpus: its distinct strings and the token stream (indices into `distinct`).
pub struct Corpus {
    pub distinct: Vec<String>,
    pub tokens: Vec<u32>,
}

impl Corpus {
    pub fn token_strs(&self) -> Vec<&str> {
        self.tokens.iter().map(|&t| self.distinct[t as usize].as_str()).collect()
    }
}

/// The built-in corpora, in report order.
pub const BUILTIN: &[&str] = &["identifiers", "words", "keys", "similar-long", "unique-long"];

/// Name under which `--corpus FILE` appears in tables.
pub const USER: &str = "user";

/// Sizes: `full` is the report's scale; `--quick` divides by ten.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Full,
    Quick,
}

impl Scale {
    pub fn div(self, n: usize) -> usize {
        match self {
            Scale::Full => n,
            Scale::Quick => (n / 10).max(1),
        }
    }
}

/// splitmix64: tiny, fast, and good enough to make corpora (not for hashing tests).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the tiny modulo bias does not matter here.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }

    pub fn fill_alnum(&mut self, out: &mut [u8]) {
        const ALNUM: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
        for b in out {
            *b = ALNUM[self.below(ALNUM.len())];
        }
    }
}

/// Builds a corpus by name; `user_file` backs the `user` corpus.
pub fn load(name: &str, scale: Scale, user_file: Option<&str>) -> Result<Corpus, String> {
    let corpus = match name {
        "identifiers" => identifiers(scale),
        "words" => words(scale),
        "keys" => keys(scale),
        "similar-long" => similar_long(scale),
        "unique-long" => unique_long(scale),
        USER => user(user_file.ok_or("the user corpus needs --corpus FILE")?)?,
        other => return Err(format!("unknown corpus {other:?}")),
    };
    Ok(corpus)
}

const SYLLABLES: &[&str] = &[
    "ba", "be", "bi", "co", "da", "de", "di", "do", "el", "en", "er", "fa", "ga", "ge", "ha", "in", "ka", "ko", "la",
    "le", "li", "lo", "ma", "me", "mi", "mo", "na", "ne", "ni", "no", "or", "pa", "pe", "po", "qu", "ra", "re", "ri",
    "ro", "sa", "se", "si", "so", "st", "ta", "te", "ti", "to", "tr", "un", "va", "ve", "wa", "we", "xi", "yo", "za",
    "th", "sh", "ch", "ing", "ion", "ter", "ly", "ous", "ment", "able",
];

fn word(rng: &mut Rng, syllables: usize) -> String {
    (0..syllables).map(|_| SYLLABLES[rng.below(SYLLABLES.len())]).collect()
}

/// `n` distinct strings from `make`, in generation order.
pub fn distinct_from(n: usize, rng: &mut Rng, mut make: impl FnMut(&mut Rng) -> String) -> Vec<String> {
    let mut seen = HashSet::with_capacity(n);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let s = make(rng);
        if seen.insert(s.clone()) {
            out.push(s);
        }
    }
    out
}

/// Identifier-like names: snake_case, camelCase, short locals, dunder names.
pub fn identifier(rng: &mut Rng) -> String {
    let parts = 1 + rng.below(3);
    let mut s = String::new();
    match rng.below(6) {
        0 => {
            // short local: `i`, `tmp2`, `x_`
            s.push_str(&word(rng, 1));
            if rng.below(2) == 0 {
                s.push_str(&rng.below(100).to_string());
            }
        }
        1 => {
            for p in 0..parts + 1 {
                let syl = 1 + rng.below(2);
                let w = word(rng, syl);
                let mut c = w.chars();
                if let Some(f) = c.next() {
                    if p == 0 {
                        s.push(f);
                    } else {
                        s.push(f.to_ascii_uppercase());
                    }
                    s.extend(c);
                }
            }
        }
        2 => {
            s.push_str("__");
            s.push_str(&word(rng, 2));
            s.push_str("__");
        }
        _ => {
            for p in 0..parts {
                if p > 0 {
                    s.push('_');
                }
                let syl = 1 + rng.below(3);
                s.push_str(&word(rng, syl));
            }
        }
    }
    s
}

/// Zipf(s = 1) ranks over `n` items, each item at least once, shuffled.
fn zipf_stream(rng: &mut Rng, n: usize, len: usize) -> Vec<u32> {
    // Make sure every distinct string appears at least once, then draw the rest.
    let mut tokens: Vec<u32> = (0..n as u32).collect();
    tokens.extend(zipf_draws(rng, n, len.saturating_sub(n)));
    rng.shuffle(&mut tokens);
    tokens
}

/// `len` ranks drawn Zipf(s = 1) over `0..n` via an inverted cumulative table.
fn zipf_draws(rng: &mut Rng, n: usize, len: usize) -> Vec<u32> {
    let mut cdf = Vec::with_capacity(n);
    let mut total = 0.0;
    for r in 0..n {
        total += 1.0 / (r as f64 + 1.0);
        cdf.push(total);
    }
    (0..len)
        .map(|_| {
            let x = rng.f64() * total;
            cdf.partition_point(|&c| c < x).min(n - 1) as u32
        })
        .collect()
}

fn identifiers(scale: Scale) -> Corpus {
    let mut rng = Rng::new(0x1D);
    let distinct = distinct_from(scale.div(50_000), &mut rng, identifier);
    let tokens = zipf_stream(&mut rng, distinct.len(), scale.div(1_000_000));
    Corpus { distinct, tokens }
}

fn words(scale: Scale) -> Corpus {
    let mut rng = Rng::new(0x30);
    let distinct = distinct_from(scale.div(200_000), &mut rng, |r| {
        let n = 1 + r.below(4);
        word(r, n)
    });
    let mut tokens: Vec<u32> = (0..distinct.len() as u32).collect();
    rng.shuffle(&mut tokens);
    Corpus { distinct, tokens }
}

/// `n` distinct cache-style keys (`user:<id>:<kind>`), the strings of the `keys` corpus.
fn distinct_keys(n: usize, rng: &mut Rng) -> Vec<String> {
    const KINDS: &[&str] = &["profile", "session", "cart", "settings", "avatar", "friends", "inbox", "feed"];
    distinct_from(n, rng, |r| format!("user:{}:{}", r.below(10_000_000), KINDS[r.below(KINDS.len())]))
}

fn keys(scale: Scale) -> Corpus {
    let mut rng = Rng::new(0x4E);
    let n_tokens = scale.div(1_000_000);
    let distinct = distinct_keys(n_tokens / 10, &mut rng);
    let mut tokens: Vec<u32> = (0..distinct.len() as u32).collect();
    while tokens.len() < n_tokens {
        tokens.push(rng.below(distinct.len()) as u32);
    }
    rng.shuffle(&mut tokens);
    Corpus { distinct, tokens }
}

/// The table-size sweep's input: `n` distinct keys (the `keys` corpus's kind of string),
/// each once in generation order (every one a miss), then `n` hits drawn Zipf(s = 1) over
/// the keys, the hot ranks given to keys in a shuffled order so that popularity does not
/// follow insertion order. Fixed seed: every child rebuilds the same stream.
pub fn key_sweep(n: usize) -> Corpus {
    let mut rng = Rng::new(0x5EE9);
    let distinct = distinct_keys(n, &mut rng);
    let mut key_of_rank: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut key_of_rank);
    let mut tokens: Vec<u32> = (0..n as u32).collect();
    tokens.extend(zipf_draws(&mut rng, n, n).into_iter().map(|rank| key_of_rank[rank as usize]));
    Corpus { distinct, tokens }
}

const LONG_LEN: usize = 4096;

/// Every distinct long string is interned this many times (first a miss, then hits).
const LONG_PASSES: usize = 4;

fn long_tokens(rng: &mut Rng, n: usize) -> Vec<u32> {
    let mut tokens = Vec::with_capacity(n * LONG_PASSES);
    for _ in 0..LONG_PASSES {
        let start = tokens.len();
        tokens.extend(0..n as u32);
        rng.shuffle(&mut tokens[start..]);
    }
    tokens
}

fn similar_long(scale: Scale) -> Corpus {
    let mut rng = Rng::new(0x51);
    let n = scale.div(2_000);
    let mut base = vec![0u8; LONG_LEN];
    rng.fill_alnum(&mut base);
    // String i differs from the base in exactly one byte, at its own position, so all
    // are distinct, same length, and equal in their first and last bytes.
    let distinct = (0..n)
        .map(|i| {
            let mut v = base.clone();
            let pos = 8 + (i * 2) % (LONG_LEN - 16);
            v[pos] = if v[pos] == b'#' { b'%' } else { b'#' };
            String::from_utf8(v).expect("ascii")
        })
        .collect();
    let tokens = long_tokens(&mut rng, n);
    Corpus { distinct, tokens }
}

fn unique_long(scale: Scale) -> Corpus {
    let mut rng = Rng::new(0x55);
    let n = scale.div(2_000);
    let distinct = (0..n)
        .map(|_| {
            let mut v = vec![0u8; LONG_LEN];
            rng.fill_alnum(&mut v);
            String::from_utf8(v).expect("ascii")
        })
        .collect();
    let tokens = long_tokens(&mut rng, n);
    Corpus { distinct, tokens }
}

/// The user's file: one token per line when no line holds whitespace, otherwise the
/// identifier tokens (`[A-Za-z_][A-Za-z0-9_]*`) of the text.
fn user(path: &str) -> Result<Corpus, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("--corpus {path}: {e}"))?;
    let one_per_line = text.lines().all(|l| !l.trim_end_matches('\r').contains(char::is_whitespace));
    let raw: Vec<&str> = if one_per_line {
        text.lines().map(|l| l.trim_end_matches('\r')).filter(|l| !l.is_empty()).collect()
    } else {
        identifier_tokens(&text)
    };
    if raw.is_empty() {
        return Err(format!("--corpus {path}: no tokens"));
    }
    let mut index = std::collections::HashMap::new();
    let mut distinct = Vec::new();
    let tokens = raw
        .iter()
        .map(|t| {
            *index.entry(*t).or_insert_with(|| {
                distinct.push(t.to_string());
                distinct.len() as u32 - 1
            })
        })
        .collect();
    Ok(Corpus { distinct, tokens })
}

fn identifier_tokens(text: &str) -> Vec<&str> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_alphabetic() || bytes[i] == b'_' {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
            out.push(&text[start..i]);
        } else {
            i += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corpora_are_deterministic_and_sized() {
        for name in BUILTIN {
            let a = load(name, Scale::Quick, None).unwrap();
            let b = load(name, Scale::Quick, None).unwrap();
            assert_eq!(a.distinct, b.distinct, "{name}");
            assert_eq!(a.tokens, b.tokens, "{name}");
            let set: HashSet<&String> = a.distinct.iter().collect();
            assert_eq!(set.len(), a.distinct.len(), "{name} distinct strings repeat");
        }
        assert_eq!(load("identifiers", Scale::Quick, None).unwrap().tokens.len(), 100_000);
    }

    #[test]
    fn the_key_sweep_interns_each_key_once_then_as_many_skewed_hits() {
        let sweep = key_sweep(1_000);
        assert_eq!(sweep.distinct.len(), 1_000);
        assert_eq!(sweep.tokens.len(), 2_000);
        assert!(sweep.tokens[..1_000].iter().enumerate().all(|(i, &t)| t as usize == i));
        assert_eq!(sweep.tokens, key_sweep(1_000).tokens);
        // Skewed: the hottest key takes far more than a uniform draw's one hit in a thousand.
        let mut hits = vec![0usize; 1_000];
        for &t in &sweep.tokens[1_000..] {
            hits[t as usize] += 1;
        }
        assert!(hits.iter().max().copied().unwrap_or(0) >= 50, "{:?}", &hits[..10]);
        assert!(sweep.distinct[0].starts_with("user:"));
    }

    #[test]
    fn identifier_tokens_split_text() {
        assert_eq!(identifier_tokens("fn main() { let x_1 = 2; }"), ["fn", "main", "let", "x_1"]);
    }
}
