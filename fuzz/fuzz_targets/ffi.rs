//! The C ABI (`dt_*`, called through Rust as C would) and the byte handles behind it,
//! against `Vec<u8>`: strings from bytes (NULL data included), clones, releases (twice),
//! never-initialised handles, slices in and out of range, concatenation, equality,
//! interning into the global and a local table, lookups, builders, piece lists, the
//! interner with its UTF-8 rule and symbols from anywhere, and status messages for any
//! code. Every call must return the status the model predicts.

#![no_main]

use std::ffi::CStr;

use arbitrary::Arbitrary;
use dynatom::ByteStr;
use dynatom_ffi::{
    dt_atom, dt_atom_bytes, dt_atom_equal, dt_atom_release, dt_atom_to_str, dt_builder, dt_builder_append_bytes,
    dt_builder_append_str, dt_builder_finish, dt_builder_free, dt_builder_len, dt_builder_new, dt_interner,
    dt_interner_free, dt_interner_intern_bytes, dt_interner_len, dt_interner_lookup_bytes, dt_interner_new,
    dt_interner_resolve, dt_pieces, dt_pieces_append_atom, dt_pieces_append_bytes, dt_pieces_append_str,
    dt_pieces_count, dt_pieces_free, dt_pieces_len, dt_pieces_new, dt_pieces_to_str, dt_status, dt_status_message,
    dt_str, dt_str_bytes, dt_str_clone, dt_str_concat, dt_str_equal, dt_str_from_bytes, dt_str_is_utf8, dt_str_len,
    dt_str_release, dt_str_slice, dt_table, dt_table_free, dt_table_global, dt_table_intern_bytes, dt_table_intern_str,
    dt_table_len, dt_table_lookup_bytes, dt_table_new,
};
use libfuzzer_sys::fuzz_target;

use dt_status::*;

#[derive(Arbitrary, Debug)]
enum Op {
    FromBytes(Vec<u8>),
    FromNull(u8),
    Clone(u8),
    Release(u8),
    UseZeroed,
    Slice(u8, u16, u16),
    Concat(Vec<u8>),
    Equal(u8, u8),
    InternGlobal(u8),
    InternLocal(Vec<u8>),
    LookupLocal(Vec<u8>),
    AtomBytes(u8),
    AtomToStr(u8),
    ReleaseAtom(u8),
    BuilderAppend(Vec<u8>),
    BuilderAppendStr(u8),
    BuilderFinish,
    PiecesAppendBytes(Vec<u8>),
    PiecesAppendStr(u8),
    PiecesAppendAtom(u8),
    PiecesToStr,
    InternerIntern(Vec<u8>),
    InternerGet(Vec<u8>),
    InternerResolve(u32),
    StatusMessage(i32),
    Compare(u8, u8),
}

/// A handle C holds and what it should contain (`None`: released); `local` for atoms of
/// the local table.
struct Held<H> {
    handle: H,
    bytes: Option<Vec<u8>>,
    local: bool,
}

fn pick<T>(items: &[T], at: u8) -> Option<usize> {
    (!items.is_empty()).then(|| usize::from(at) % items.len())
}

fn str_bytes(s: &dt_str) -> Vec<u8> {
    let (mut data, mut len) = (std::ptr::null(), 0usize);
    assert_eq!(dt_str_bytes(s, &mut data, &mut len), DT_OK);
    assert_eq!(dt_str_len(s), len);
    // SAFETY: DT_OK means `data` points at `len` bytes of the live handle `s`.
    unsafe { std::slice::from_raw_parts(data, len) }.to_vec()
}

fn atom_bytes(a: &dt_atom) -> Vec<u8> {
    let (mut data, mut len) = (std::ptr::null(), 0usize);
    assert_eq!(dt_atom_bytes(a, &mut data, &mut len), DT_OK);
    // SAFETY: DT_OK means `data` points at `len` bytes of the live atom `a`.
    unsafe { std::slice::from_raw_parts(data, len) }.to_vec()
}

/// A string that a few ops feed back into themselves (concatenating, appending a string
/// made from the builder or the piece list to it again) doubles with each round: past
/// this size such an op is skipped, so that an input cannot grow the models until the
/// fuzzer runs out of memory.
const MAX_GROWN: usize = 1 << 16;

/// Whether appending `more` to `model` would pass [`MAX_GROWN`].
fn grown_past_cap(model: &[u8], more: &Option<Vec<u8>>) -> bool {
    model.len() + more.as_ref().map_or(0, Vec::len) > MAX_GROWN
}

struct State {
    strs: Vec<Held<dt_str>>,
    atoms: Vec<Held<dt_atom>>,
    table: *mut dt_table,
    builder: *mut dt_builder,
    builder_model: Vec<u8>,
    pieces: *mut dt_pieces,
    pieces_model: Vec<u8>,
    /// Non-empty pieces pushed (empty ones are dropped on push).
    piece_count: usize,
    interner: *mut dt_interner,
    interner_model: Vec<Vec<u8>>,
}

impl State {
    fn new() -> State {
        let mut state = State {
            strs: Vec::new(),
            atoms: Vec::new(),
            table: std::ptr::null_mut(),
            builder: std::ptr::null_mut(),
            builder_model: Vec::new(),
            pieces: std::ptr::null_mut(),
            pieces_model: Vec::new(),
            piece_count: 0,
            interner: std::ptr::null_mut(),
            interner_model: Vec::new(),
        };
        assert_eq!(dt_table_new(&mut state.table), DT_OK);
        assert_eq!(dt_builder_new(0, &mut state.builder), DT_OK);
        assert_eq!(dt_pieces_new(&mut state.pieces), DT_OK);
        assert_eq!(dt_interner_new(&mut state.interner), DT_OK);
        state
    }

    fn push_str(&mut self, handle: dt_str, bytes: Vec<u8>) {
        assert_eq!(str_bytes(&handle), bytes);
        assert_eq!(dt_str_is_utf8(&handle), i32::from(std::str::from_utf8(&bytes).is_ok()));
        self.strs.push(Held { handle, bytes: Some(bytes), local: false });
    }

    fn push_atom(&mut self, handle: dt_atom, bytes: Vec<u8>, local: bool) {
        assert_eq!(atom_bytes(&handle), bytes);
        self.atoms.push(Held { handle, bytes: Some(bytes), local });
    }

    fn apply(&mut self, op: Op) {
        match op {
            Op::FromBytes(bytes) => {
                let mut out = dt_str::default();
                assert_eq!(dt_str_from_bytes(bytes.as_ptr(), bytes.len(), &mut out), DT_OK);
                self.push_str(out, bytes);
            }
            Op::FromNull(len) => {
                let mut out = dt_str::default();
                let expected = if len == 0 { DT_OK } else { DT_ERR_NULL };
                assert_eq!(dt_str_from_bytes(std::ptr::null(), usize::from(len), &mut out), expected);
                if len == 0 {
                    self.push_str(out, Vec::new());
                }
                assert_eq!(dt_str_from_bytes(b"x".as_ptr(), 1, std::ptr::null_mut()), DT_ERR_NULL);
            }
            Op::Clone(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let mut out = dt_str::default();
                let status = dt_str_clone(&self.strs[i].handle, &mut out);
                match self.strs[i].bytes.clone() {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.push_str(out, bytes);
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
            }
            Op::Release(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let held = &mut self.strs[i];
                let expected = if held.bytes.is_some() { DT_OK } else { DT_ERR_RELEASED };
                assert_eq!(dt_str_release(&mut held.handle), expected);
                held.bytes = None;
                assert_eq!(dt_str_len(&held.handle), 0);
            }
            Op::UseZeroed => {
                let mut zero = dt_str::default();
                let mut out = dt_str::default();
                assert_eq!(dt_str_clone(&zero, &mut out), DT_ERR_INVALID_HANDLE);
                assert_eq!(dt_str_slice(&zero, 0, 0, &mut out), DT_ERR_INVALID_HANDLE);
                assert_eq!(dt_str_release(&mut zero), DT_ERR_INVALID_HANDLE);
                assert_eq!(dt_str_clone(std::ptr::null(), &mut out), DT_ERR_NULL);
                let mut atom = dt_atom::default();
                assert_eq!(dt_atom_release(&mut atom), DT_ERR_INVALID_HANDLE);
            }
            Op::Slice(at, start, end) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let Some(bytes) = self.strs[i].bytes.clone() else { return };
                let (start, end) = (usize::from(start) % (bytes.len() + 2), usize::from(end) % (bytes.len() + 2));
                let mut out = dt_str::default();
                let status = dt_str_slice(&self.strs[i].handle, start, end, &mut out);
                match bytes.get(start..end) {
                    Some(part) => {
                        assert_eq!(status, DT_OK);
                        self.push_str(out, part.to_vec());
                    }
                    None => assert_eq!(status, DT_ERR_RANGE, "{start}..{end} of {}", bytes.len()),
                }
            }
            Op::Concat(picks) => {
                let chosen: Vec<usize> = picks.iter().filter_map(|&p| pick(&self.strs, p)).collect();
                let total: usize = chosen.iter().map(|&i| self.strs[i].bytes.as_ref().map_or(0, Vec::len)).sum();
                if total > MAX_GROWN {
                    return;
                }
                let parts: Vec<dt_str> = chosen.iter().map(|&i| self.strs[i].handle).collect();
                let mut out = dt_str::default();
                let status = dt_str_concat(parts.as_ptr(), parts.len(), &mut out);
                if chosen.iter().any(|&i| self.strs[i].bytes.is_none()) {
                    assert_eq!(status, DT_ERR_RELEASED);
                } else {
                    assert_eq!(status, DT_OK);
                    let joined = chosen.iter().flat_map(|&i| self.strs[i].bytes.clone().unwrap()).collect();
                    self.push_str(out, joined);
                }
            }
            Op::Equal(a, b) => {
                let (Some(i), Some(j)) = (pick(&self.strs, a), pick(&self.strs, b)) else { return };
                let (x, y) = (&self.strs[i], &self.strs[j]);
                let expected = match (&x.bytes, &y.bytes) {
                    (Some(p), Some(q)) => i32::from(p == q),
                    _ => 0,
                };
                assert_eq!(dt_str_equal(&x.handle, &y.handle), expected);
            }
            Op::InternGlobal(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                let mut out = dt_atom::default();
                let status = dt_table_intern_str(dt_table_global(), &self.strs[i].handle, &mut out);
                match self.strs[i].bytes.clone() {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.push_atom(out, bytes, false);
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
            }
            Op::InternLocal(bytes) => {
                let mut out = dt_atom::default();
                assert_eq!(dt_table_intern_bytes(self.table, bytes.as_ptr(), bytes.len(), &mut out), DT_OK);
                let mut again = dt_atom::default();
                assert_eq!(dt_table_lookup_bytes(self.table, bytes.as_ptr(), bytes.len(), &mut again), DT_OK);
                assert_eq!(dt_atom_equal(&out, &again), 1);
                self.push_atom(again, bytes.clone(), true);
                self.push_atom(out, bytes, true);
            }
            Op::LookupLocal(bytes) => {
                let live = self.atoms.iter().any(|a| a.local && a.bytes.as_deref() == Some(&bytes[..]));
                let mut out = dt_atom::default();
                let status = dt_table_lookup_bytes(self.table, bytes.as_ptr(), bytes.len(), &mut out);
                if status == DT_OK {
                    self.push_atom(out, bytes, true);
                } else {
                    assert_eq!(status, DT_ERR_NOT_FOUND);
                    // Atoms of up to 7 bytes are values, always found; so is a live atom.
                    assert!(bytes.len() > 7, "short atoms are always found");
                    assert!(!live, "a live local atom was not found");
                }
            }
            Op::AtomBytes(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                if let Some(bytes) = &self.atoms[i].bytes {
                    assert_eq!(&atom_bytes(&self.atoms[i].handle), bytes);
                }
            }
            Op::AtomToStr(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                let mut out = dt_str::default();
                let status = dt_atom_to_str(&self.atoms[i].handle, &mut out);
                match self.atoms[i].bytes.clone() {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.push_str(out, bytes);
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
            }
            Op::ReleaseAtom(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                let held = &mut self.atoms[i];
                let expected = if held.bytes.is_some() { DT_OK } else { DT_ERR_RELEASED };
                assert_eq!(dt_atom_release(&mut held.handle), expected);
                held.bytes = None;
            }
            Op::BuilderAppend(bytes) => {
                assert_eq!(dt_builder_append_bytes(self.builder, bytes.as_ptr(), bytes.len()), DT_OK);
                self.builder_model.extend_from_slice(&bytes);
                assert_eq!(dt_builder_len(self.builder), self.builder_model.len());
            }
            Op::BuilderAppendStr(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                if grown_past_cap(&self.builder_model, &self.strs[i].bytes) {
                    return;
                }
                let status = dt_builder_append_str(self.builder, &self.strs[i].handle);
                match &self.strs[i].bytes {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.builder_model.extend_from_slice(bytes);
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
                assert_eq!(dt_builder_len(self.builder), self.builder_model.len());
            }
            Op::BuilderFinish => {
                let mut out = dt_str::default();
                assert_eq!(dt_builder_finish(self.builder, &mut out), DT_OK);
                let bytes = std::mem::take(&mut self.builder_model);
                self.push_str(out, bytes);
                assert_eq!(dt_builder_new(0, &mut self.builder), DT_OK);
            }
            Op::PiecesAppendBytes(bytes) => {
                assert_eq!(dt_pieces_append_bytes(self.pieces, bytes.as_ptr(), bytes.len()), DT_OK);
                self.pieces_model.extend_from_slice(&bytes);
                self.piece_count += usize::from(!bytes.is_empty());
            }
            Op::PiecesAppendStr(at) => {
                let Some(i) = pick(&self.strs, at) else { return };
                if grown_past_cap(&self.pieces_model, &self.strs[i].bytes) {
                    return;
                }
                let status = dt_pieces_append_str(self.pieces, &self.strs[i].handle);
                match &self.strs[i].bytes {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.pieces_model.extend_from_slice(bytes);
                        self.piece_count += usize::from(!bytes.is_empty());
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
            }
            Op::PiecesAppendAtom(at) => {
                let Some(i) = pick(&self.atoms, at) else { return };
                if grown_past_cap(&self.pieces_model, &self.atoms[i].bytes) {
                    return;
                }
                let status = dt_pieces_append_atom(self.pieces, &self.atoms[i].handle);
                match &self.atoms[i].bytes {
                    Some(bytes) => {
                        assert_eq!(status, DT_OK);
                        self.pieces_model.extend_from_slice(bytes);
                        self.piece_count += usize::from(!bytes.is_empty());
                    }
                    None => assert_eq!(status, DT_ERR_RELEASED),
                }
            }
            Op::PiecesToStr => {
                assert_eq!(dt_pieces_len(self.pieces), self.pieces_model.len());
                assert_eq!(dt_pieces_count(self.pieces), self.piece_count);
                let mut out = dt_str::default();
                assert_eq!(dt_pieces_to_str(self.pieces, &mut out), DT_OK);
                let bytes = self.pieces_model.clone();
                self.push_str(out, bytes);
            }
            Op::InternerIntern(bytes) => {
                let mut sym = 0u32;
                let status = dt_interner_intern_bytes(self.interner, bytes.as_ptr(), bytes.len(), &mut sym);
                if std::str::from_utf8(&bytes).is_err() {
                    assert_eq!(status, DT_ERR_UTF8);
                    return;
                }
                assert_eq!(status, DT_OK);
                let index = match self.interner_model.iter().position(|t| *t == bytes) {
                    Some(index) => index,
                    None => {
                        self.interner_model.push(bytes);
                        self.interner_model.len() - 1
                    }
                };
                assert_eq!(sym as usize, index + 1, "symbols are 1-based indices in C");
                assert_eq!(dt_interner_len(self.interner), self.interner_model.len());
            }
            Op::InternerGet(bytes) => {
                let mut sym = 0u32;
                let status = dt_interner_lookup_bytes(self.interner, bytes.as_ptr(), bytes.len(), &mut sym);
                match (std::str::from_utf8(&bytes), self.interner_model.iter().position(|t| *t == bytes)) {
                    (Err(_), _) => assert_eq!(status, DT_ERR_UTF8),
                    (Ok(_), Some(index)) => assert_eq!((status, sym as usize), (DT_OK, index + 1)),
                    (Ok(_), None) => assert_eq!(status, DT_ERR_NOT_FOUND),
                }
            }
            Op::InternerResolve(sym) => {
                let (mut data, mut len) = (std::ptr::null(), 0usize);
                let status = dt_interner_resolve(self.interner, sym, &mut data, &mut len);
                match (sym as usize).checked_sub(1).and_then(|i| self.interner_model.get(i)) {
                    Some(text) => {
                        assert_eq!(status, DT_OK);
                        // SAFETY: DT_OK: `data` points at `len` bytes owned by the interner.
                        assert_eq!(unsafe { std::slice::from_raw_parts(data, len) }, &text[..]);
                    }
                    None => assert_eq!(status, DT_ERR_INVALID_SYMBOL, "symbol {sym}"),
                }
            }
            Op::StatusMessage(code) => {
                let message = dt_status_message(code);
                assert!(!message.is_null());
                // SAFETY: dt_status_message returns a static NUL-terminated string.
                let text = unsafe { CStr::from_ptr(message) };
                assert!(!text.to_bytes().is_empty());
            }
            Op::Compare(a, b) => {
                // The byte handles themselves, against `Vec<u8>`'s order and equality.
                let (Some(i), Some(j)) = (pick(&self.strs, a), pick(&self.strs, b)) else { return };
                let (Some(p), Some(q)) = (&self.strs[i].bytes, &self.strs[j].bytes) else { return };
                let (x, y) = (ByteStr::copy_from_slice(p), ByteStr::copy_from_slice(q));
                assert_eq!(x.cmp(&y), p.cmp(q));
                assert_eq!(x == y, p == q);
                assert_eq!(x.as_bytes(), &p[..]);
                if p == q {
                    assert_eq!(x.intern(), y.intern());
                }
            }
        }
    }

    fn finish(mut self) {
        // Pieces and builders may hold the atoms' blocks: free them first.
        assert_eq!(dt_builder_free(self.builder), DT_OK);
        assert_eq!(dt_pieces_free(self.pieces), DT_OK);
        assert_eq!(dt_interner_free(self.interner), DT_OK);
        for held in &mut self.strs {
            if held.bytes.is_some() {
                assert_eq!(dt_str_release(&mut held.handle), DT_OK);
            }
        }
        for held in &mut self.atoms {
            if held.bytes.is_some() {
                assert_eq!(dt_atom_release(&mut held.handle), DT_OK);
            }
        }
        assert_eq!(dt_table_len(self.table), 0, "the local table outlived its atoms");
        assert_eq!(dt_table_free(self.table), DT_OK);
    }
}

fuzz_target!(|ops: Vec<Op>| {
    let mut state = State::new();
    for op in ops {
        state.apply(op);
    }
    state.finish();
    // Atoms whose handles are gone stay in the global table, unused, until a sweep, held
    // only by the table's tagged slot words, which LeakSanitizer cannot follow: sweep them
    // before it checks this input for leaks, and check that the sweep left none behind.
    dynatom::AtomTable::global().shrink();
    assert_eq!(dynatom::AtomTable::global().memory_report().unused_atoms, 0);
});
