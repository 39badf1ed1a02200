//! `dt_atom_*`: atoms from C (made by the tables: `dt_table_intern_bytes`, `dt_table_intern_str`).

use std::ffi::c_int;

use dynatom_core::{ByteAtom, ByteStr};

use crate::guard::{guarded, status};
use crate::handles::{atom_ref, atom_to_c, release_atom, str_to_c};
use crate::pointers::Out;
use crate::{dt_atom, dt_status, dt_str};

/// A new reference to the atom in `*a`, in `*out` (O(1)).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_clone(a: *const dt_atom, out: *mut dt_atom) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let copy = atom_ref(a)?.clone();
        out.write(atom_to_c(copy));
        Ok(())
    })
}

/// Gives back the reference held by `*a` and overwrites it with `DT_RELEASED_MARK`; a
/// second release of the same variable is `DT_ERR_RELEASED`. Releasing the last reference
/// does not remove the atom: it stays in its table, unused (`dt_table_len` no longer
/// counts it), so that a later intern of the same bytes revives it without allocating;
/// the table frees its unused atoms in sweeps.
///
/// Thread safety: any thread, but not while another thread uses this same variable.
#[no_mangle]
pub extern "C" fn dt_atom_release(a: *mut dt_atom) -> dt_status {
    status(|| release_atom(a))
}

/// 1 if `*a` and `*b` are the same atom (one word compare), else 0 (also 0 if either is
/// NULL, invalid or released). Atoms of different tables are different atoms (except
/// those of up to 7 bytes, which live in the word and are equal in every table).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_equal(a: *const dt_atom, b: *const dt_atom) -> c_int {
    guarded(|| match (atom_ref(a), atom_ref(b)) {
        (Ok(a), Ok(b)) => c_int::from(a == b),
        _ => 0,
    })
}

/// The atom's cached 64-bit hash (no bytes are read); 0 for NULL or an invalid handle.
/// Equal atoms (equal words) always have equal hashes. The hash is keyed by a random
/// per-process seed: file atoms in a hash table with it ("Atom-keyed maps" at the top of
/// the header), but do not store it or compare it across processes.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_hash(a: *const dt_atom) -> u64 {
    guarded(|| atom_ref(a).map_or(0, ByteAtom::hash64))
}

/// Makes the atom in `*a` permanent if it is the global table's and the table's budget
/// for permanent atoms allows (`max(1 MiB, in-use bytes / 8)`): from then on its clones,
/// releases and interning hits write nothing shared, and it is never freed. 1 if the atom
/// is permanent now (atoms of up to 7 bytes and static ones always are), else 0 (also for
/// NULL, invalid or released handles, and for atoms of tables made with `dt_table_new`,
/// which can be freed). The global table also makes an atom permanent by itself when two
/// threads raise its count at the same moment.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_make_permanent(a: *const dt_atom) -> c_int {
    guarded(|| atom_ref(a).map_or(0, |a| c_int::from(a.make_permanent())))
}

/// The bytes of `*a`: `*data` (not NUL-terminated) and `*len`. Atoms of up to 7 bytes
/// live in the word itself, so `*data` may point INTO `*a`: valid while `*a` stays put
/// and is not released.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_bytes(a: *const dt_atom, data: *mut *const u8, len: *mut usize) -> dt_status {
    status(|| {
        let (data, len) = (Out::new(data)?, Out::new(len)?);
        let a = atom_ref(a)?;
        let (ptr, n) = (a.as_ptr(), a.len());
        data.write(ptr);
        len.write(n);
        Ok(())
    })
}

/// The atom's bytes as a string in `*out`, in O(1) (a new reference to the same block;
/// no copy).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_atom_to_str(a: *const dt_atom, out: *mut dt_str) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        let s = ByteStr::from(atom_ref(a)?);
        out.write(str_to_c(s));
        Ok(())
    })
}
