//! Counted request heads: the `owned-buffers` suite's parser, counted per request for
//! each way of turning a head's parts into handles, the harness being the same read and
//! parse with no handles. A fourth way, dynatom with header names taken as `slice_ref`s
//! instead of atoms, splits the dynatom way's count into its zero-copy parts and its
//! interning.

use super::recorder::{Recorder, HARNESS};
use crate::suites::owned_buffers::{
    handle, same_parts, serve, wire, BufferPool, BytesWay, DynatomSlicedNamesWay, DynatomWay, HeadWay, NoHandlesWay,
    ParsedHead, StringWay, BYTES_HEADS, DYNATOM_HEADS, STRING_HEADS,
};
use std::hint::black_box;

pub const SUITE: &str = "request-heads";
pub const OP: &str = "serve a request head (read, parse, handles, drop)";
pub const DYNATOM_SLICED_NAMES: &str = "dynatom, names as slice_ref (no atoms)";
pub const PEERS: [&str; 4] = [DYNATOM_HEADS, DYNATOM_SLICED_NAMES, BYTES_HEADS, STRING_HEADS];

fn requests(quick: bool) -> usize {
    if quick {
        50
    } else {
        200
    }
}

pub fn param(quick: bool) -> String {
    format!("{} requests", requests(quick))
}

pub fn child(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    match peer {
        DYNATOM_HEADS => count::<DynatomWay>(rec, peer, quick),
        DYNATOM_SLICED_NAMES => count::<DynatomSlicedNamesWay>(rec, peer, quick),
        BYTES_HEADS => count::<BytesWay>(rec, peer, quick),
        STRING_HEADS => count::<StringWay>(rec, peer, quick),
        HARNESS => count::<NoHandlesWay>(rec, peer, quick),
        other => Err(format!("unknown way {other}")),
    }
}

/// One pass serves every request once (the next request's `serve` drops the previous
/// head, and with it its buffer's handles); the warm-up pass fills the pool and files
/// the header names, as a server that has run a while has.
fn count<W: HeadWay>(rec: &mut Recorder, peer: &str, quick: bool) -> Result<(), String> {
    let wire = wire(requests(quick));
    let pool = BufferPool::new();
    let mut head = ParsedHead::<W>::new();
    let requests = wire.requests().count() as u64;
    rec.warm(OP, &param(quick), peer, requests, || {
        for request in wire.requests() {
            serve(&pool, request, &mut head, || ());
            black_box(handle(&head));
        }
    });
    let last = wire.requests().last().ok_or("no requests")?;
    if peer != HARNESS && !same_parts(&head, last) {
        return Err("the last request parsed into other parts".into());
    }
    Ok(())
}
