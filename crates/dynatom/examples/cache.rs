//! A response cache: keys are `Str`s formatted with `str_format!` (one buffer, no
//! intermediate `String`), cached bodies are built with a `StrBuilder`, and responses
//! are assembled as `Pieces` that are written with vectored I/O and never joined.
//!
//! `cargo run -p dynatom --example cache`

use std::collections::HashMap;

use dynatom::{Atom, Pieces, Str, StrBuilder, str_format};

struct Cache {
    bodies: HashMap<Str, Str>,
    misses: usize,
}

impl Cache {
    fn new() -> Cache {
        Cache { bodies: HashMap::new(), misses: 0 }
    }

    /// The body for a user's page, rendered on the first request only.
    fn body(&mut self, user: u32, page: &str) -> Str {
        let key = str_format!("user:{user}:page:{page}");
        if let Some(body) = self.bodies.get(&key) {
            return body.clone(); // O(1): shares the buffer
        }
        self.misses += 1;
        let mut html = StrBuilder::new();
        html.push_str("<html><body><h1>");
        html.push_str(page);
        html.push_str("</h1>");
        for item in 0..3 {
            html.push_fmt(format_args!("<p>item {item} for user {user}</p>"));
        }
        html.push_str("</body></html>");
        let body = html.finish(); // the builder's buffer becomes the Str: no copy
        self.bodies.insert(key, body.clone());
        body
    }
}

/// A response as pieces: static header text and atoms are not copied, the body is shared.
fn response(status: &Atom, content_type: &Atom, body: &Str) -> Pieces {
    let mut out = Pieces::new();
    out.push("HTTP/1.1 ");
    out.push(status);
    out.push("\r\nContent-Type: ");
    out.push(content_type);
    out.push_copy(&format!("\r\nContent-Length: {}\r\n\r\n", body.len()));
    out.push(body);
    out
}

fn main() {
    let mut cache = Cache::new();
    let ok = Atom::from("200 OK");
    let html = Atom::from("text/html; charset=utf-8");

    let mut wire = Vec::new();
    for (user, page) in [(7, "home"), (7, "settings"), (7, "home"), (8, "home"), (7, "home")] {
        let body = cache.body(user, page);
        let written = response(&ok, &html, &body).write_to(&mut wire).expect("a Vec never fails");
        println!("user {user} {page:<8} {written} bytes");
    }

    assert_eq!(cache.misses, 3, "three distinct (user, page) pairs");
    assert_eq!(cache.bodies.len(), 3);
    // Cached bodies are handed out without copying.
    let again = cache.body(7, "home");
    assert_eq!(again.as_ptr(), cache.body(7, "home").as_ptr());
    let one = response(&ok, &html, &again);
    assert_eq!(one.to_text().matches("<p>").count(), 3);
    assert!(String::from_utf8(wire).expect("UTF-8").starts_with("HTTP/1.1 200 OK\r\n"));
}
