//! Suite `owned-buffers`: strings over memory the program already owns.
//!
//! *Request heads*: HTTP/1.1 request heads (about 20 headers each, from a fixed seed) are
//! read into fixed-size buffers from a pool (a buffer goes back to the pool when its
//! owner drops) and parsed three ways that share one parser and differ only in how a
//! part becomes a value: dynatom (`ByteStr::from_owner` of the buffer, header names as
//! `ByteAtom`s, values and the target as `slice_ref`s), `String` copies, and `Bytes`
//! slices (`Bytes::from_owner` of the buffer, names and values as `Bytes::slice_ref`).
//! Then 1% of the values are kept after their requests are gone (dynatom detaches them
//! with `slice`) and the resident memory they hold is read.
//!
//! *Mapped file*: a generated log file, mapped with memmap2 and wrapped with
//! `ByteStr::from_owner` (and `Str::from_owner`), split into line handles with
//! `slice_ref`, against reading it into one `String` per line.

use super::{median, time_ns, ChildOutput, Ctx, Job, Results, SuiteDef};
use crate::alloc_count::{counting, Snapshot};
use crate::corpus::{Rng, Scale};
use crate::report::{cell, combine, fmt_num, fmt_ratio, Report, Table};
use crate::resident::{prefault_spare_capacity, resident_anon_bytes, resident_file_bytes};
use bytes::Bytes;
use dynatom::{ByteAtom, ByteStr, Str};
use std::hint::black_box;
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub const SUITE: SuiteDef = SuiteDef {
    name: "owned-buffers",
    about: "strings over owned memory: request heads in pooled buffers, a mapped log file",
    reps_full: 5,
    reps_quick: 2,
    jobs,
    child,
    report,
};

const REQUESTS: &str = "requests";
const LOG: &str = "log";
/// The request cells' two measurements, each in its own child so that the resident
/// reading starts from a fresh process.
const TIME: &str = "time";
const KEEP: &str = "keep";

pub(crate) const DYNATOM_HEADS: &str = "dynatom ByteAtom + slice_ref";
pub(crate) const STRING_HEADS: &str = "String copies";
pub(crate) const BYTES_HEADS: &str = "Bytes slices";
const HEAD_WAYS: [&str; 3] = [DYNATOM_HEADS, STRING_HEADS, BYTES_HEADS];

const DYNATOM_LOG: &str = "dynatom ByteStr::from_owner(mmap)";
const DYNATOM_TEXT_LOG: &str = "dynatom Str::from_owner(mmap)";
const STRING_LOG: &str = "String per line";
const LOG_WAYS: [&str; 3] = [DYNATOM_LOG, DYNATOM_TEXT_LOG, STRING_LOG];

/// Every how many header values one is kept for long.
const KEEP_EVERY: usize = 100;
/// A pooled read buffer's size: 4 KiB holds every generated head, and is large enough
/// for `slice`'s retention policy (parts under 1/8 of a parent of 1 KiB or more are
/// copied out) to detach every kept value.
const BUFFER_SIZE: usize = 4096;
/// Timed passes over all requests in one child; the median is its figure.
const ROUNDS: usize = 5;

fn jobs(_: &Ctx) -> Vec<Job> {
    let mut v = Vec::new();
    for way in HEAD_WAYS {
        v.push(Job::new(way, REQUESTS, TIME));
        v.push(Job::new(way, REQUESTS, KEEP));
    }
    for way in LOG_WAYS {
        v.push(Job::new(way, LOG, "-"));
    }
    v
}

fn request_count(scale: Scale) -> usize {
    match scale {
        Scale::Full => 20_000,
        Scale::Quick => 500,
    }
}

fn log_bytes(scale: Scale) -> usize {
    match scale {
        Scale::Full => 100 << 20,
        Scale::Quick => 4 << 20,
    }
}

// ---------------------------------------------------------------------------------------
// Request heads: generation and the one parser every way shares.

/// The generated request heads, end to end: what the "socket" delivers.
pub(crate) struct Wire {
    bytes: Vec<u8>,
    ends: Vec<usize>,
}

impl Wire {
    pub(crate) fn requests(&self) -> impl Iterator<Item = &[u8]> + '_ {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(start, &end)| &self.bytes[start..end])
    }
}

const METHODS: &[&str] =
    &["GET", "GET", "GET", "GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"];
const HOSTS: &[&str] = &["api.example.com", "www.example.com", "cdn.example.net", "shop.example.org:8443"];
const USER_AGENTS: &[&str] = &[
    "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0",
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
    "curl/8.11.0",
    "okhttp/4.12.0",
];
const ACCEPTS: &[&str] = &[
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8",
    "application/json",
    "*/*",
    "image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8",
];
const LANGUAGES: &[&str] = &["en-US,en;q=0.9", "de-DE,de;q=0.9,en;q=0.8", "fr-FR,fr;q=0.9,en-US;q=0.7", "ja"];
/// Headers a request may carry beyond the six every one has.
const OPTIONAL_HEADERS: &[&str] = &[
    "Cookie",
    "Referer",
    "Origin",
    "Cache-Control",
    "Pragma",
    "Upgrade-Insecure-Requests",
    "Sec-Fetch-Dest",
    "Sec-Fetch-Mode",
    "Sec-Fetch-Site",
    "Sec-Fetch-User",
    "Sec-Ch-Ua",
    "Sec-Ch-Ua-Mobile",
    "Sec-Ch-Ua-Platform",
    "DNT",
    "If-None-Match",
    "If-Modified-Since",
    "X-Request-Id",
    "X-Forwarded-For",
    "X-Forwarded-Proto",
    "X-Real-IP",
    "Authorization",
    "Traceparent",
    "Priority",
];

fn hex(rng: &mut Rng, digits: usize) -> String {
    let mut s = String::with_capacity(digits + 16);
    while s.len() < digits {
        s.push_str(&format!("{:016x}", rng.next_u64()));
    }
    s.truncate(digits);
    s
}

fn alnum(rng: &mut Rng, len: usize) -> String {
    let mut b = vec![0u8; len];
    rng.fill_alnum(&mut b);
    String::from_utf8(b).expect("alphanumeric")
}

fn pick<'a>(rng: &mut Rng, from: &[&'a str]) -> &'a str {
    from[rng.below(from.len())]
}

fn request_target(rng: &mut Rng) -> String {
    match rng.below(6) {
        0 => format!("/api/v2/users/{}/orders?page={}&limit=50", rng.below(1_000_000), rng.below(40)),
        1 => format!("/static/js/app.{}.js", hex(rng, 8)),
        2 => format!(
            "/images/products/{}/thumb_{}x{}.webp",
            rng.below(100_000),
            100 + rng.below(400),
            100 + rng.below(400)
        ),
        3 => "/".to_string(),
        4 => {
            let (first, second) = (3 + rng.below(8), 2 + rng.below(8));
            format!("/search?q={}+{}&lang=en", alnum(rng, first), alnum(rng, second))
        }
        _ => "/healthz".to_string(),
    }
}

fn header_value(rng: &mut Rng, name: &str) -> String {
    match name {
        "Cookie" => format!(
            "session={}; _ga=GA1.2.{}.{}; theme=dark",
            alnum(rng, 32),
            rng.below(1_000_000_000),
            1_700_000_000 + rng.below(100_000_000)
        ),
        "Referer" => format!("https://www.example.com{}", request_target(rng)),
        "Origin" => "https://www.example.com".into(),
        "Cache-Control" => pick(rng, &["no-cache", "max-age=0"]).into(),
        "Pragma" => "no-cache".into(),
        "Upgrade-Insecure-Requests" | "DNT" => "1".into(),
        "Sec-Fetch-Dest" => pick(rng, &["document", "empty", "image", "script"]).into(),
        "Sec-Fetch-Mode" => pick(rng, &["navigate", "cors", "no-cors"]).into(),
        "Sec-Fetch-Site" => pick(rng, &["same-origin", "cross-site", "none"]).into(),
        "Sec-Fetch-User" => "?1".into(),
        "Sec-Ch-Ua" => "\"Chromium\";v=\"131\", \"Not_A Brand\";v=\"24\"".into(),
        "Sec-Ch-Ua-Mobile" => "?0".into(),
        "Sec-Ch-Ua-Platform" => pick(rng, &["\"Linux\"", "\"Windows\"", "\"macOS\""]).into(),
        "If-None-Match" => format!("W/\"{}\"", hex(rng, 16)),
        "If-Modified-Since" => format!("Wed, {:02} Oct 2026 07:{:02}:00 GMT", 1 + rng.below(28), rng.below(60)),
        "X-Request-Id" => {
            let h = hex(rng, 32);
            format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..])
        }
        "X-Forwarded-For" => format!("203.0.113.{}, 10.0.{}.{}", rng.below(256), rng.below(256), rng.below(256)),
        "X-Forwarded-Proto" => "https".into(),
        "X-Real-IP" => format!("198.51.100.{}", rng.below(256)),
        "Authorization" => format!("Bearer {}", alnum(rng, 40)),
        "Traceparent" => format!("00-{}-{}-01", hex(rng, 32), hex(rng, 16)),
        "Priority" => "u=0, i".into(),
        other => unreachable!("no value for {other}"),
    }
}

/// `count` request heads from a fixed seed: a request line, 16 to 24 headers (20 on
/// average; six every request has, the rest drawn from common ones), and the blank line.
pub(crate) fn wire(count: usize) -> Wire {
    let mut rng = Rng::new(0x0B5E_55ED);
    let mut w = Wire { bytes: Vec::new(), ends: Vec::with_capacity(count) };
    let mut optional: Vec<&str> = OPTIONAL_HEADERS.to_vec();
    for _ in 0..count {
        let method = pick(&mut rng, METHODS);
        let mut head = format!("{method} {} HTTP/1.1\r\n", request_target(&mut rng));
        let mut headers: Vec<(&str, String)> = vec![
            ("Host", pick(&mut rng, HOSTS).into()),
            ("User-Agent", pick(&mut rng, USER_AGENTS).into()),
            ("Accept", pick(&mut rng, ACCEPTS).into()),
            ("Accept-Language", pick(&mut rng, LANGUAGES).into()),
            ("Accept-Encoding", "gzip, deflate, br, zstd".into()),
            ("Connection", "keep-alive".into()),
        ];
        if matches!(method, "POST" | "PUT" | "PATCH") {
            headers.push((
                "Content-Type",
                pick(&mut rng, &["application/json", "application/x-www-form-urlencoded"]).into(),
            ));
            headers.push(("Content-Length", rng.below(20_000).to_string()));
        }
        let total = 16 + rng.below(9);
        rng.shuffle(&mut optional);
        for name in optional.iter().take(total.saturating_sub(headers.len())) {
            headers.push((name, header_value(&mut rng, name)));
        }
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        assert!(head.len() <= BUFFER_SIZE, "a generated head outgrew the read buffer");
        w.bytes.extend_from_slice(head.as_bytes());
        w.ends.push(w.bytes.len());
    }
    w.bytes.shrink_to_fit();
    w
}

/// The one parser: calls `header` with each header's name and value (optional
/// whitespace trimmed) as parts of `head`, and returns the request line's method and
/// target; `None` for a head it cannot read. Every way runs exactly this code and differs
/// only in how it turns a part into a value.
fn parse_head<'a>(head: &'a [u8], mut header: impl FnMut(&'a [u8], &'a [u8])) -> Option<(&'a [u8], &'a [u8])> {
    let mut lines = memchr::memchr_iter(b'\n', head);
    let first_end = lines.next()?;
    let request_line = head[..first_end].strip_suffix(b"\r")?;
    let method_end = memchr::memchr(b' ', request_line)?;
    let rest = &request_line[method_end + 1..];
    let target_end = memchr::memchr(b' ', rest)?;
    let (method, target) = (&request_line[..method_end], &rest[..target_end]);
    let mut start = first_end + 1;
    for end in lines {
        let line = head[start..end].strip_suffix(b"\r")?;
        start = end + 1;
        if line.is_empty() {
            return Some((method, target));
        }
        let colon = memchr::memchr(b':', line)?;
        header(&line[..colon], line[colon + 1..].trim_ascii());
    }
    None
}

// ---------------------------------------------------------------------------------------
// The buffer pool.

type IdleBuffers = Arc<Mutex<Vec<Box<[u8]>>>>;

/// Fixed-size read buffers handed out and taken back, as a server's connection buffers
/// are: in steady state a request allocates no buffer.
pub(crate) struct BufferPool {
    idle: IdleBuffers,
}

impl BufferPool {
    pub(crate) fn new() -> BufferPool {
        // Room for the idle list up front, so that giving a buffer back never allocates.
        BufferPool { idle: Arc::new(Mutex::new(Vec::with_capacity(64))) }
    }

    fn take(&self) -> PooledBuffer {
        let bytes = self.idle.lock().expect("pool lock").pop();
        let bytes = bytes.unwrap_or_else(|| vec![0u8; BUFFER_SIZE].into_boxed_slice());
        PooledBuffer { bytes, len: 0, pool: Arc::clone(&self.idle) }
    }

    /// Frees the idle buffers (what a server does when it shrinks its pool), so that a
    /// resident reading sees only the buffers something still holds.
    fn free_idle(&self) {
        let idle = std::mem::take(&mut *self.idle.lock().expect("pool lock"));
        drop(idle);
    }
}

/// One buffer of the pool: its owner, whose `Drop` gives it back. Its bytes are the whole
/// buffer (`len` says how much a read filled), so a part is small against its parent.
pub(crate) struct PooledBuffer {
    bytes: Box<[u8]>,
    len: usize,
    pool: IdleBuffers,
}

impl PooledBuffer {
    /// The "read": the request's bytes copied in from the wire, as a `recv` would.
    fn fill(&mut self, from: &[u8]) {
        self.bytes[..from.len()].copy_from_slice(from);
        self.len = from.len();
    }
}

impl AsRef<[u8]> for PooledBuffer {
    fn as_ref(&self) -> &[u8] {
        &self.bytes
    }
}

impl Drop for PooledBuffer {
    fn drop(&mut self) {
        // An empty boxed slice allocates nothing; a poisoned pool just lets the buffer go.
        let bytes = std::mem::take(&mut self.bytes);
        if let Ok(mut idle) = self.pool.lock() {
            idle.push(bytes);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The three ways.

/// How a way holds a filled buffer and turns its parts into names and values.
pub(crate) trait HeadWay {
    type Buffer;
    type Name;
    type Value;
    /// A value kept after its request is gone.
    type Kept;
    fn wrap(buffer: PooledBuffer) -> Self::Buffer;
    /// The filled part of the buffer.
    fn head(buffer: &Self::Buffer) -> &[u8];
    fn name(buffer: &Self::Buffer, part: &[u8]) -> Self::Name;
    fn value(buffer: &Self::Buffer, part: &[u8]) -> Self::Value;
    fn name_bytes(name: &Self::Name) -> &[u8];
    fn value_bytes(value: &Self::Value) -> &[u8];
    fn keep(value: &Self::Value) -> Self::Kept;
    fn kept_bytes(kept: &Self::Kept) -> &[u8];
}

/// The buffer as one owner-backed `ByteStr`; names are atoms, values `slice_ref`s of it
/// (up to 15 bytes inline), kept values detached with `slice`.
pub(crate) struct DynatomWay;

impl HeadWay for DynatomWay {
    type Buffer = (ByteStr, usize);
    type Name = ByteAtom;
    type Value = ByteStr;
    type Kept = ByteStr;
    fn wrap(buffer: PooledBuffer) -> (ByteStr, usize) {
        let len = buffer.len;
        (ByteStr::from_owner(buffer), len)
    }
    fn head(buffer: &(ByteStr, usize)) -> &[u8] {
        &buffer.0[..buffer.1]
    }
    fn name(_: &(ByteStr, usize), part: &[u8]) -> ByteAtom {
        ByteAtom::new(part)
    }
    fn value(buffer: &(ByteStr, usize), part: &[u8]) -> ByteStr {
        buffer.0.slice_ref(part)
    }
    fn name_bytes(name: &ByteAtom) -> &[u8] {
        name.as_bytes()
    }
    fn value_bytes(value: &ByteStr) -> &[u8] {
        value
    }
    fn keep(value: &ByteStr) -> ByteStr {
        value.slice(..)
    }
    fn kept_bytes(kept: &ByteStr) -> &[u8] {
        kept
    }
}

/// The dynatom way without atoms: names, like values, are `slice_ref`s of the buffer.
/// Not a way a server would choose (names compare by bytes), it splits the dynatom
/// way's cost into the zero-copy parts and the interning (the counted request heads).
pub(crate) struct DynatomSlicedNamesWay;

impl HeadWay for DynatomSlicedNamesWay {
    type Buffer = (ByteStr, usize);
    type Name = ByteStr;
    type Value = ByteStr;
    type Kept = ByteStr;
    fn wrap(buffer: PooledBuffer) -> (ByteStr, usize) {
        DynatomWay::wrap(buffer)
    }
    fn head(buffer: &(ByteStr, usize)) -> &[u8] {
        DynatomWay::head(buffer)
    }
    fn name(buffer: &(ByteStr, usize), part: &[u8]) -> ByteStr {
        buffer.0.slice_ref(part)
    }
    fn value(buffer: &(ByteStr, usize), part: &[u8]) -> ByteStr {
        DynatomWay::value(buffer, part)
    }
    fn name_bytes(name: &ByteStr) -> &[u8] {
        name
    }
    fn value_bytes(value: &ByteStr) -> &[u8] {
        value
    }
    fn keep(value: &ByteStr) -> ByteStr {
        DynatomWay::keep(value)
    }
    fn kept_bytes(kept: &ByteStr) -> &[u8] {
        kept
    }
}

/// The counted harness: the same read and parse, no handles (every part becomes `()`).
pub(crate) struct NoHandlesWay;

impl HeadWay for NoHandlesWay {
    type Buffer = PooledBuffer;
    type Name = ();
    type Value = ();
    type Kept = ();
    fn wrap(buffer: PooledBuffer) -> PooledBuffer {
        buffer
    }
    fn head(buffer: &PooledBuffer) -> &[u8] {
        &buffer.bytes[..buffer.len]
    }
    fn name(_: &PooledBuffer, _: &[u8]) {}
    fn value(_: &PooledBuffer, _: &[u8]) {}
    fn name_bytes(_: &()) -> &[u8] {
        b""
    }
    fn value_bytes(_: &()) -> &[u8] {
        b""
    }
    fn keep(_: &()) {}
    fn kept_bytes(_: &()) -> &[u8] {
        b""
    }
}

/// Names and values copied into `String`s (UTF-8 checked, as a `String` must be); the
/// buffer goes back to the pool as soon as the head is parsed.
pub(crate) struct StringWay;

impl HeadWay for StringWay {
    type Buffer = PooledBuffer;
    type Name = String;
    type Value = String;
    type Kept = String;
    fn wrap(buffer: PooledBuffer) -> PooledBuffer {
        buffer
    }
    fn head(buffer: &PooledBuffer) -> &[u8] {
        &buffer.bytes[..buffer.len]
    }
    fn name(_: &PooledBuffer, part: &[u8]) -> String {
        std::str::from_utf8(part).expect("generated heads are ASCII").to_owned()
    }
    fn value(_: &PooledBuffer, part: &[u8]) -> String {
        std::str::from_utf8(part).expect("generated heads are ASCII").to_owned()
    }
    fn name_bytes(name: &String) -> &[u8] {
        name.as_bytes()
    }
    fn value_bytes(value: &String) -> &[u8] {
        value.as_bytes()
    }
    fn keep(value: &String) -> String {
        value.clone()
    }
    fn kept_bytes(kept: &String) -> &[u8] {
        kept.as_bytes()
    }
}

/// The buffer as one `Bytes` (`Bytes::from_owner`); names and values are `Bytes`
/// slices of it (`slice_ref`), and a kept value is a clone that keeps the whole buffer.
pub(crate) struct BytesWay;

impl HeadWay for BytesWay {
    type Buffer = (Bytes, usize);
    type Name = Bytes;
    type Value = Bytes;
    type Kept = Bytes;
    fn wrap(buffer: PooledBuffer) -> (Bytes, usize) {
        let len = buffer.len;
        (Bytes::from_owner(buffer), len)
    }
    fn head(buffer: &(Bytes, usize)) -> &[u8] {
        &buffer.0[..buffer.1]
    }
    fn name(buffer: &(Bytes, usize), part: &[u8]) -> Bytes {
        buffer.0.slice_ref(part)
    }
    fn value(buffer: &(Bytes, usize), part: &[u8]) -> Bytes {
        buffer.0.slice_ref(part)
    }
    fn name_bytes(name: &Bytes) -> &[u8] {
        name
    }
    fn value_bytes(value: &Bytes) -> &[u8] {
        value
    }
    fn keep(value: &Bytes) -> Bytes {
        value.clone()
    }
    fn kept_bytes(kept: &Bytes) -> &[u8] {
        kept
    }
}

/// One parsed head, reused from request to request (as a server reuses its header
/// array), so that the headers' vector is not an allocation per request.
pub(crate) struct ParsedHead<W: HeadWay> {
    method: Option<W::Name>,
    target: Option<W::Value>,
    headers: Vec<(W::Name, W::Value)>,
}

impl<W: HeadWay> ParsedHead<W> {
    pub(crate) fn new() -> ParsedHead<W> {
        ParsedHead { method: None, target: None, headers: Vec::with_capacity(64) }
    }

    /// Drops the previous request's parts, and with them (dynatom, `Bytes`) its buffer's
    /// owner, which gives the buffer back to the pool.
    fn clear(&mut self) {
        self.method = None;
        self.target = None;
        self.headers.clear();
    }
}

/// One request: a buffer from the pool, the read, the parse into `head`. `before_parse`
/// runs between the read and the parse (the allocation count splits there).
pub(crate) fn serve<W: HeadWay>(
    pool: &BufferPool,
    request: &[u8],
    head: &mut ParsedHead<W>,
    before_parse: impl FnOnce(),
) {
    head.clear();
    let mut buffer = pool.take();
    buffer.fill(request);
    let buffer = W::wrap(buffer);
    before_parse();
    let headers = &mut head.headers;
    let (method, target) =
        parse_head(W::head(&buffer), |name, value| headers.push((W::name(&buffer, name), W::value(&buffer, value))))
            .expect("generated heads parse");
    head.method = Some(W::name(&buffer, method));
    head.target = Some(W::value(&buffer, target));
}

/// What a handler does with a head, the same for every way: finds the `Host` header.
pub(crate) fn handle<W: HeadWay>(head: &ParsedHead<W>) -> usize {
    let host = head.headers.iter().find(|(name, _)| W::name_bytes(name) == b"Host");
    head.headers.len() + host.map_or(0, |(_, value)| W::value_bytes(value).len())
}

/// Whether `head` holds exactly the parts of `request` (read with the parser over the
/// plain bytes).
pub(crate) fn same_parts<W: HeadWay>(head: &ParsedHead<W>, request: &[u8]) -> bool {
    let mut expected = Vec::new();
    let Some((method, target)) = parse_head(request, |n, v| expected.push((n, v))) else {
        return false;
    };
    head.method.as_ref().is_some_and(|m| W::name_bytes(m) == method)
        && head.target.as_ref().is_some_and(|t| W::value_bytes(t) == target)
        && head.headers.len() == expected.len()
        && head
            .headers
            .iter()
            .zip(&expected)
            .all(|((n, v), (en, ev))| W::name_bytes(n) == *en && W::value_bytes(v) == *ev)
}

fn headers_in(wire: &Wire) -> usize {
    let mut headers = 0;
    for request in wire.requests() {
        parse_head(request, |_, _| headers += 1);
    }
    headers
}

fn time_heads<W: HeadWay>(wire: &Wire) -> ChildOutput {
    let mut out = ChildOutput::default();
    let pool = BufferPool::new();
    let mut head = ParsedHead::<W>::new();
    let requests = wire.ends.len() as f64;
    let headers = headers_in(wire) as f64;
    // First pass: checks every head, fills the pool and files the header names, so the
    // counted and timed passes see the steady state of a server that has run a while.
    for (i, request) in wire.requests().enumerate() {
        serve(&pool, request, &mut head, || ());
        if !same_parts(&head, request) {
            out.fail(format!("request {i} parsed into other parts"));
            return out;
        }
    }
    let mut parse_allocs = 0u64;
    let ((), snap) = counting(|| {
        for request in wire.requests() {
            let mut at_parse = Snapshot::default();
            serve(&pool, request, &mut head, || at_parse = Snapshot::now());
            parse_allocs += Snapshot::now().alloc_calls - at_parse.alloc_calls;
            black_box(handle(&head));
        }
    });
    out.fig("allocs_per_request", snap.alloc_calls as f64 / requests);
    out.fig("parse_allocs_per_request", parse_allocs as f64 / requests);
    out.fig("parse_allocs_per_header", parse_allocs as f64 / headers);
    let mut rounds: Vec<f64> = (0..ROUNDS)
        .map(|_| {
            let ((), ns) = time_ns(|| {
                for request in wire.requests() {
                    serve(&pool, request, &mut head, || ());
                    black_box(handle(&head));
                }
            });
            ns / requests
        })
        .collect();
    out.fig("ns_per_request", median(&mut rounds).unwrap_or(f64::NAN));
    out.fig("headers_per_request", headers / requests);
    out.fig("bytes_per_request", wire.bytes.len() as f64 / requests);
    out
}

/// Every request served once, every `KEEP_EVERY`th header value kept; then the rest is
/// dropped (the last head, the pool's idle buffers) and the resident memory read.
fn keep_values<W: HeadWay>(wire: &Wire) -> ChildOutput {
    let mut out = ChildOutput::default();
    // What the kept values must be, read before the first reading from the plain bytes.
    let (mut expected_count, mut expected_bytes, mut k) = (0usize, 0usize, 0usize);
    for request in wire.requests() {
        parse_head(request, |_, value| {
            if k.is_multiple_of(KEEP_EVERY) {
                expected_count += 1;
                expected_bytes += value.len();
            }
            k += 1;
        });
    }
    let mut kept: Vec<W::Kept> = Vec::with_capacity(expected_count);
    prefault_spare_capacity(&mut kept);
    let pool = BufferPool::new();
    let before = resident_anon_bytes();
    {
        let mut head = ParsedHead::<W>::new();
        let mut k = 0usize;
        for request in wire.requests() {
            serve(&pool, request, &mut head, || ());
            for (_, value) in &head.headers {
                if k.is_multiple_of(KEEP_EVERY) {
                    kept.push(W::keep(value));
                }
                k += 1;
            }
        }
    }
    pool.free_idle();
    let after = resident_anon_bytes();
    let kept_bytes: usize = kept.iter().map(|v| W::kept_bytes(v).len()).sum();
    if kept.len() != expected_count || kept_bytes != expected_bytes {
        out.fail(format!(
            "kept {} values of {kept_bytes} bytes, expected {expected_count} of {expected_bytes}",
            kept.len()
        ));
    }
    out.fig("kept_values", kept.len() as f64);
    out.fig("kept_value_bytes", kept_bytes as f64);
    // Buffers out of the pool once the last head is gone: each owner holds the pool.
    out.fig("buffers_held", Arc::strong_count(&pool.idle) as f64 - 1.0);
    if let (Some(before), Some(after)) = (before, after) {
        out.fig("resident_kept_bytes", after as f64 - before as f64);
    }
    drop(kept);
    out
}

// ---------------------------------------------------------------------------------------
// The mapped log file.

/// The log file of this size for the run whose parent process is `run`: generated by
/// the first child that needs it, removed by the parent's report step. Named after the
/// run, so that two runs side by side (the main job and the test suite) never remove or
/// rewrite each other's file.
fn log_path(bytes: usize, run: u32) -> PathBuf {
    std::env::temp_dir().join(format!("dynatom-bench-owned-buffers-{run}-{bytes}.log"))
}

/// Writes the log under a private name and renames it into place, so that a child never
/// maps a half-written file.
fn ensure_log(bytes: usize) -> std::io::Result<PathBuf> {
    let path = log_path(bytes, std::os::unix::process::parent_id());
    if std::fs::metadata(&path).is_ok_and(|m| m.len() == bytes as u64) {
        return Ok(path);
    }
    let partial = path.with_extension(format!("{}.partial", std::process::id()));
    let mut w = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&partial)?);
    let mut rng = Rng::new(0x106F11E);
    const LEVELS: &[&str] = &["INFO ", "INFO ", "INFO ", "INFO ", "INFO ", "INFO ", "INFO ", "INFO ", "DEBUG", "WARN "];
    const PARTS: &[&str] = &["http", "db::pool", "cache", "auth", "scheduler", "mailer"];
    let mut written = 0usize;
    let mut line = String::with_capacity(512);
    let mut ms = 0u64;
    while written < bytes {
        line.clear();
        ms += rng.below(5) as u64;
        let (s, milli) = (ms / 1000, ms % 1000);
        let stamp = format!("2026-11-29T{:02}:{:02}:{:02}.{milli:03}Z", 8 + s / 3600 % 12, s / 60 % 60, s % 60);
        let level = if rng.below(50) == 0 { "ERROR" } else { pick(&mut rng, LEVELS) };
        let part = pick(&mut rng, PARTS);
        let body = match part {
            "http" => format!(
                "{} {} {} {}.{:03} ms req_id={} peer=203.0.113.{}:{}",
                pick(&mut rng, METHODS),
                request_target(&mut rng),
                pick(&mut rng, &["200", "200", "200", "304", "404", "500"]),
                rng.below(300),
                rng.below(1000),
                hex(&mut rng, 16),
                rng.below(256),
                1024 + rng.below(60000)
            ),
            "db::pool" => format!(
                "checked out connection {} after {} us (idle {}, busy {})",
                rng.below(64),
                rng.below(5000),
                rng.below(32),
                rng.below(32)
            ),
            "cache" => format!(
                "{} key=user:{}:profile ttl={}s",
                pick(&mut rng, &["hit", "miss", "evict"]),
                rng.below(1_000_000),
                rng.below(3600)
            ),
            "auth" => format!("token refreshed for user {} scope=\"read write\" expires_in=3600", rng.below(1_000_000)),
            "scheduler" => {
                format!("job {} ran in {} ms, next run at +{}s", alnum(&mut rng, 12), rng.below(10_000), rng.below(600))
            }
            _ => format!(
                "queued mail to user{}@example.com (template {}, {} bytes)",
                rng.below(100_000),
                alnum(&mut rng, 8),
                rng.below(50_000)
            ),
        };
        line.push_str(&format!("{stamp} {level} [{part}] {body}\n"));
        // The last line is cut to the exact size, still ending with a newline.
        let room = bytes - written;
        if line.len() > room {
            line.truncate(room - 1);
            line.push('\n');
        }
        w.write_all(line.as_bytes())?;
        written += line.len();
    }
    w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// Start and end of every line of `bytes` (without its `\n`).
fn line_spans(bytes: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut start = 0;
    memchr::memchr_iter(b'\n', bytes).map(move |end| {
        let span = (start, end);
        start = end + 1;
        span
    })
}

fn map(path: &std::path::Path) -> std::io::Result<memmap2::Mmap> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the file is this suite's own, written once and renamed into place before
    // any child maps it, and never written again; nothing truncates it while it is mapped.
    unsafe { memmap2::Mmap::map(&file) }
}

/// The lines as each way holds them, kept alive while the resident memory is read.
enum LogLines {
    Bytes(Vec<ByteStr>),
    Text(Vec<Str>),
    Strings(Vec<String>),
}

impl LogLines {
    fn len(&self) -> usize {
        match self {
            LogLines::Bytes(v) => v.len(),
            LogLines::Text(v) => v.len(),
            LogLines::Strings(v) => v.len(),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            LogLines::Bytes(v) => v.iter().map(ByteStr::len).sum(),
            LogLines::Text(v) => v.iter().map(Str::len).sum(),
            LogLines::Strings(v) => v.iter().map(String::len).sum(),
        }
    }
}

/// An empty vector of handles for `lines` lines, allocated and touched.
fn empty_lines(way: &str, lines: usize) -> LogLines {
    fn touched<T>(lines: usize) -> Vec<T> {
        let mut v = Vec::with_capacity(lines);
        prefault_spare_capacity(&mut v);
        v
    }
    match way {
        DYNATOM_LOG => LogLines::Bytes(touched(lines)),
        DYNATOM_TEXT_LOG => LogLines::Text(touched(lines)),
        _ => LogLines::Strings(touched(lines)),
    }
}

fn read_log(held: &mut LogLines, path: &std::path::Path) -> std::io::Result<()> {
    match held {
        LogLines::Bytes(v) => {
            let whole = ByteStr::from_owner(map(path)?);
            v.extend(line_spans(&whole).map(|(start, end)| whole.slice_ref(&whole[start..end])));
        }
        LogLines::Text(v) => {
            let whole = Str::from_owner(map(path)?).map_err(|e| std::io::Error::other(e.to_string()))?;
            v.extend(line_spans(whole.as_bytes()).map(|(start, end)| whole.slice_ref(&whole[start..end])));
        }
        LogLines::Strings(v) => {
            let file = std::io::BufReader::with_capacity(64 << 10, std::fs::File::open(path)?);
            for line in file.lines() {
                v.push(line?);
            }
        }
    }
    Ok(())
}

fn split_log(way: &str, ctx: &Ctx) -> ChildOutput {
    let mut out = ChildOutput::default();
    let size = log_bytes(ctx.scale);
    let path = match ensure_log(size) {
        Ok(p) => p,
        Err(e) => {
            out.fail(format!("writing the log: {e}"));
            return out;
        }
    };
    // The line count sizes every way's vector of handles up front (allocated and touched
    // before the first reading, so it stays out of the figures); counting also brings the
    // file into the page cache, so every way reads a warm file.
    let lines = match map(&path) {
        Ok(m) => memchr::memchr_iter(b'\n', &m).count(),
        Err(e) => {
            out.fail(format!("mapping the log: {e}"));
            return out;
        }
    };
    let mut held = empty_lines(way, lines);
    let (anon_before, file_before) = (resident_anon_bytes(), resident_file_bytes());
    let (read, ns) = time_ns(|| read_log(&mut held, &path));
    if let Err(e) = read {
        out.fail(format!("reading the log: {e}"));
        return out;
    }
    let (anon_after, file_after) = (resident_anon_bytes(), resident_file_bytes());
    if held.len() != lines || held.bytes() + lines != size {
        out.fail(format!("{} lines of {} bytes, expected {lines} lines of {}", held.len(), held.bytes(), size - lines));
    }
    out.fig("ms_total", ns / 1e6);
    out.fig("ns_per_line", ns / lines as f64);
    out.fig("lines", lines as f64);
    if let (Some(before), Some(after)) = (anon_before, anon_after) {
        out.fig("anon_growth_mib", (after as f64 - before as f64) / (1 << 20) as f64);
    }
    if let (Some(before), Some(after)) = (file_before, file_after) {
        out.fig("file_growth_mib", (after as f64 - before as f64) / (1 << 20) as f64);
    }
    drop(held);
    out
}

fn child(job: &Job, ctx: &Ctx) -> ChildOutput {
    if job.corpus == LOG {
        return split_log(&job.peer, ctx);
    }
    let wire = wire(request_count(ctx.scale));
    match (job.peer.as_str(), job.param.as_str()) {
        (DYNATOM_HEADS, TIME) => time_heads::<DynatomWay>(&wire),
        (STRING_HEADS, TIME) => time_heads::<StringWay>(&wire),
        (BYTES_HEADS, TIME) => time_heads::<BytesWay>(&wire),
        (DYNATOM_HEADS, KEEP) => keep_values::<DynatomWay>(&wire),
        (STRING_HEADS, KEEP) => keep_values::<StringWay>(&wire),
        (BYTES_HEADS, KEEP) => keep_values::<BytesWay>(&wire),
        (peer, param) => panic!("unknown cell {peer} {param}"),
    }
}

// ---------------------------------------------------------------------------------------
// The report.

fn report(r: &Results, ctx: &Ctx, rep: &mut Report) {
    // The children are done with the log file; it is regenerated by the next run.
    let _ = std::fs::remove_file(log_path(log_bytes(ctx.scale), std::process::id()));
    let requests = request_count(ctx.scale);
    let time = |way: &str| Job::new(way, REQUESTS, TIME);
    let keep = |way: &str| Job::new(way, REQUESTS, KEEP);
    let log = |way: &str| Job::new(way, LOG, "-");
    let ours = time(DYNATOM_HEADS);
    rep.begin_suite(
        "owned-buffers",
        "Strings over memory the program owns",
        &format!(
            "Two workloads over buffers the program owns. **Request heads**: {requests} generated HTTP/1.1 request heads ({} headers and {} bytes each on \
             average), each copied into a 4 KiB buffer from a pool (its owner's `Drop` gives it back) and parsed \
             by one parser three ways: *dynatom* wraps the buffer with `ByteStr::from_owner`, interns header \
             names (`ByteAtom::new`) and takes the target and values with `slice_ref`; *String* copies names and \
             values into `String`s (UTF-8 checked) and gives the buffer back at once; *Bytes* wraps it with \
             `Bytes::from_owner` and takes names and values (both as `Bytes`) with `Bytes::slice_ref`. The \
             handler looks up `Host`. A first untimed pass checks every part and warms the pool and the atom \
             table; allocations are counted over one pass (*parse* = request line and headers, after the read); \
             ns per request is the median of {ROUNDS} passes. **Kept values**: in a fresh process every \
             {KEEP_EVERY}th header value is kept (dynatom: `slice`, which copies a part under 1/8 of its 4 KiB \
             parent; String: a clone; Bytes: a clone, which holds its whole buffer), then the last head and the \
             pool's idle buffers are dropped: *resident* is the `RssAnon` growth over that (after \
             `malloc_trim(0)`), the kept handles' vector touched beforehand and not counted. Timings on a shared, \
             noisy machine.",
            fmt_num(r.median(&ours, "headers_per_request")),
            fmt_num(r.median(&ours, "bytes_per_request")),
        ),
    );
    let mut t = Table::new(&[
        "way",
        "allocations/request",
        "in the parse",
        "per header",
        "ns/request",
        "vs dynatom",
        "kept values",
        "resident KiB",
        "vs dynatom",
        "buffers held",
    ]);
    let kib = |j: &Job| r.median(j, "resident_kept_bytes").map(|b| b / 1024.0);
    for way in HEAD_WAYS {
        t.row(vec![
            way.to_string(),
            cell(r, &time(way), "allocs_per_request"),
            cell(r, &time(way), "parse_allocs_per_request"),
            cell(r, &time(way), "parse_allocs_per_header"),
            cell(r, &time(way), "ns_per_request"),
            fmt_ratio(r.median(&time(way), "ns_per_request"), r.median(&ours, "ns_per_request")),
            cell(r, &keep(way), "kept_values"),
            if r.error(&keep(way)).is_some() { "wrong ✗".into() } else { fmt_num(kib(&keep(way))) },
            fmt_ratio(kib(&keep(way)), kib(&keep(DYNATOM_HEADS))),
            cell(r, &keep(way), "buffers_held"),
        ]);
    }
    rep.table(&t);

    let allocs = r.median(&ours, "allocs_per_request");
    let per_header = r.median(&ours, "parse_allocs_per_header");
    let mut met = Some(true);
    combine(&mut met, allocs.map(|a| a <= 1.0));
    combine(&mut met, per_header.map(|a| a == 0.0));
    rep.target(
        "dynatom heads: ≤1 allocation per request (the owner's control block; the pool reuses buffers), 0 per header",
        format!("{} per request, {} per header", fmt_num(allocs), fmt_num(per_header)),
        met,
    );
    for (peer, bar) in [(STRING_HEADS, 1.5), (BYTES_HEADS, 1.0)] {
        let (theirs, mine) = (r.median(&time(peer), "ns_per_request"), r.median(&ours, "ns_per_request"));
        let met = theirs.zip(mine).map(|(t, m)| t / m >= bar);
        rep.target(
            &format!("dynatom heads: ≥{bar:.1}× faster per request than {peer}"),
            format!("{} ({} vs {} ns)", fmt_ratio(theirs, mine), fmt_num(theirs), fmt_num(mine)),
            met,
        );
    }
    rep.para(
        "The dynatom way does one thing the Bytes way does not: it interns every header name (a hash, a \
         probe, a count taken and given back, and, since each request's names go unused when its head is \
         dropped, the note to the table that they did). The counted section's `request-heads` table splits \
         its cost: the same requests served with names taken as `slice_ref`s (no atoms) against the dynatom \
         way and the two peers, in instructions and locked instructions per request.",
    );
    let (ours_kept, bytes_kept) = (kib(&keep(DYNATOM_HEADS)), kib(&keep(BYTES_HEADS)));
    rep.target(
        "dynatom's kept values (`slice`): resident no more than Bytes slices'",
        format!("{} vs {} KiB", fmt_num(ours_kept), fmt_num(bytes_kept)),
        ours_kept.zip(bytes_kept).map(|(o, b)| o <= b),
    );

    rep.heading("A mapped log file");
    rep.para(&format!(
        "A generated log file of {} MiB (~100-byte lines) in the temp folder, in the page \
         cache (every way reads a warm file), read into one handle per line, the handles kept while the \
         memory is read: *dynatom* maps it with memmap2, wraps the map with `ByteStr::from_owner` (or \
         `Str::from_owner`, which checks UTF-8 once) and takes each line with `slice_ref`; *String* reads it \
         with `BufRead::lines` (64 KiB buffer). The time covers open, map or read, and the split. \
         *Anon* is the `RssAnon` growth (after `malloc_trim(0)`): heap and other private memory; *file* is \
         the `RssFile` growth: mapped file pages, which belong to the page cache and which the kernel can \
         drop and read back at will. The handles' vector is allocated and touched first and counted in \
         neither (16 B a line for dynatom, 24 for `String`).",
        log_bytes(ctx.scale) >> 20
    ));
    let reference = log(DYNATOM_LOG);
    let mut t = Table::new(&["way", "ms", "vs dynatom", "ns/line", "anon MiB", "file MiB"]);
    for way in LOG_WAYS {
        let j = log(way);
        t.row(vec![
            way.to_string(),
            cell(r, &j, "ms_total"),
            fmt_ratio(r.median(&j, "ms_total"), r.median(&reference, "ms_total")),
            cell(r, &j, "ns_per_line"),
            cell(r, &j, "anon_growth_mib"),
            cell(r, &j, "file_growth_mib"),
        ]);
    }
    rep.table(&t);
    rep.para(&format!("{} lines.", fmt_num(r.median(&reference, "lines"))));
}
