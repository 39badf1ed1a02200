//! `dt_table_*`: the global atom table and independent ones, and their memory reports.

use std::fmt::Write as _;

use dynatom_core::{AtomTable, ByteStr, MemoryReport};

use crate::guard::{guarded, status};
use crate::handles::{atom_to_c, str_ref, str_to_c};
use crate::objects::{self, FreedShells, Opaque, Shell};
use crate::pointers::{bytes, Out};
use crate::{dt_atom, dt_status, dt_str};

/// An atom table: the global one (`dt_table_global`) or an independent one
/// (`dt_table_new`). Atoms of different tables are different atoms, except those of up
/// to 7 bytes, which are stored in the word itself and equal in every table.
///
/// Thread safety: any thread, all calls at once (the table is sharded and locked
/// inside), except `dt_table_free`, which must not race other calls on the table.
pub struct dt_table {
    _opaque: [u8; 0],
}

/// The kind's name: Rust only ever holds a pointer to a `dt_table` (no value of this type
/// is made), and what it points at is read through the `dt_table_*` functions.
impl std::fmt::Debug for dt_table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("dt_table")
    }
}

/// The table behind a `dt_table`.
pub(crate) enum TableRef {
    Global,
    Owned(AtomTable),
}

impl TableRef {
    fn table(&self) -> &AtomTable {
        match self {
            TableRef::Global => AtomTable::global(),
            TableRef::Owned(table) => table,
        }
    }
}

impl Opaque for dt_table {
    const MAGIC: u64 = u64::from_le_bytes(*b"dt_table");
    type Inner = TableRef;
    fn freed() -> &'static FreedShells<TableRef> {
        static FREED: FreedShells<TableRef> = FreedShells::new();
        &FREED
    }
}

static GLOBAL: Shell<TableRef> = Shell::live::<dt_table>(TableRef::Global);

fn table<'a>(t: *const dt_table) -> Result<&'a AtomTable, dt_status> {
    objects::get(t).map(TableRef::table)
}

/// Where a table's memory goes and how its lookups went (a copy, taken at one moment).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct dt_memory_report {
    /// Atoms in use filed in the table (unused ones, kept until a sweep, are not counted).
    pub atoms: usize,
    /// Unused atoms (no handle left) the table keeps for a later intern, until a sweep.
    pub unused_atoms: usize,
    /// The unused atoms' block bytes (headers and text).
    pub unused_bytes: usize,
    /// The bound on `unused_bytes`: the larger of the table's floor (4 MiB by default)
    /// and half the block bytes of the atoms in use.
    pub unused_bytes_limit: usize,
    /// The table's own structures (shards, locks, hash-table storage).
    pub table_bytes: usize,
    /// Headers in front of the atoms' bytes.
    pub header_bytes: usize,
    /// The atoms' bytes on the heap.
    pub char_bytes: usize,
    /// Bytes of static atoms' text, kept in the program's binary rather than the heap.
    pub static_char_bytes: usize,
    /// Static atoms in use (immortal entries whose text stays in the binary), among `atoms`.
    pub static_atoms: usize,
    /// Of `static_atoms`, those of declared static sets (see `dt_static_set_register`).
    pub declared_atoms: usize,
    /// Bytes the allocator gave beyond those requested; -1 when it cannot be known.
    pub slop_bytes: i64,
    /// Lookups on the filing path only: interns that the lock-free probe could not
    /// answer and that took the shard's lock. Lookups answered without the lock are not
    /// counted (counting them would write shared memory on that path).
    pub locked_lookups: u64,
    /// Of `locked_lookups`, those that found the atom under the lock (filed meanwhile by
    /// another thread).
    pub locked_hits: u64,
    /// Of `locked_lookups`, those that found none and filed the atom.
    pub locked_misses: u64,
    /// Atoms filed.
    pub inserts: u64,
    /// Unused atoms (no reference left) freed by sweeps.
    pub removals: u64,
    /// Atoms the global table made permanent (`dt_atom_make_permanent`), among `atoms`:
    /// never unused, never freed.
    pub permanent_atoms: usize,
    /// Their headers and bytes, among `header_bytes` and `char_bytes`.
    pub permanent_bytes: usize,
}

impl From<&MemoryReport> for dt_memory_report {
    fn from(r: &MemoryReport) -> dt_memory_report {
        dt_memory_report {
            atoms: r.atoms,
            unused_atoms: r.unused_atoms,
            unused_bytes: r.unused_bytes,
            unused_bytes_limit: r.unused_bytes_limit,
            table_bytes: r.table_bytes,
            header_bytes: r.header_bytes,
            char_bytes: r.char_bytes,
            static_char_bytes: r.static_char_bytes,
            static_atoms: r.static_atoms,
            declared_atoms: r.declared_atoms,
            slop_bytes: r.slop_bytes.and_then(|slop| i64::try_from(slop).ok()).unwrap_or(-1),
            locked_lookups: r.locked_lookups,
            locked_hits: r.locked_hits,
            locked_misses: r.locked_misses,
            inserts: r.inserts,
            removals: r.removals,
            permanent_atoms: r.permanent_atoms,
            permanent_bytes: r.permanent_bytes,
        }
    }
}

/// The report as one JSON object (numbers only; `slop_bytes` is `null` when unknown).
fn report_json(r: &MemoryReport) -> String {
    let slop = r.slop_bytes.map_or_else(|| "null".to_owned(), |slop| slop.to_string());
    let mut json = String::new();
    // Writing to a String cannot fail.
    let _ = write!(
        json,
        "{{\"atoms\":{},\"unused_atoms\":{},\"unused_bytes\":{},\"unused_bytes_limit\":{},\
         \"table_bytes\":{},\"header_bytes\":{},\"char_bytes\":{},\"static_char_bytes\":{},\"static_atoms\":{},\"declared_atoms\":{},\"slop_bytes\":{},\
         \"total_bytes\":{},\"locked_lookups\":{},\"locked_hits\":{},\"locked_misses\":{},\"inserts\":{},\
         \"removals\":{},\"mean_probe\":{},\"max_probe\":{},\"permanent_atoms\":{},\"permanent_bytes\":{}}}",
        r.atoms,
        r.unused_atoms,
        r.unused_bytes,
        r.unused_bytes_limit,
        r.table_bytes,
        r.header_bytes,
        r.char_bytes,
        r.static_char_bytes,
        r.static_atoms,
        r.declared_atoms,
        slop,
        r.total_bytes(),
        r.locked_lookups,
        r.locked_hits,
        r.locked_misses,
        r.inserts,
        r.removals,
        r.mean_probe,
        r.max_probe,
        r.permanent_atoms,
        r.permanent_bytes
    );
    json
}

/// The global table, shared with the Rust API (`ByteAtom::new`). Never NULL; it cannot
/// be freed.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_global() -> *mut dt_table {
    guarded(|| GLOBAL.static_ptr())
}

/// A new, empty, independent table in `*out` (free it with `dt_table_free`).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_new(out: *mut *mut dt_table) -> dt_status {
    status(|| {
        let out = Out::new(out)?;
        out.write(objects::new::<dt_table>(TableRef::Owned(AtomTable::try_new()?))?);
        Ok(())
    })
}

/// Frees an independent table. Atoms still held stay valid (they keep what they need
/// alive) but can no longer be found by lookups. The global table cannot be freed:
/// `DT_ERR_INVALID_HANDLE`. A second free of the same pointer is `DT_ERR_RELEASED`, until
/// the memory is reused (see "Freed objects" at the top of the header).
///
/// Thread safety: any thread, with no other call on this table running.
#[no_mangle]
pub extern "C" fn dt_table_free(t: *mut dt_table) -> dt_status {
    status(|| {
        if std::ptr::eq(t, GLOBAL.static_ptr::<dt_table>()) {
            return Err(dt_status::DT_ERR_INVALID_HANDLE);
        }
        objects::free(t).map(drop)
    })
}

/// The atom of the `len` bytes at `data` in table `t`, in `*out` (a copy is filed if new).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_intern_bytes(t: *mut dt_table, data: *const u8, len: usize, out: *mut dt_atom) -> dt_status {
    status(|| {
        let (table, out) = (table(t)?, Out::new(out)?);
        let atom = table.try_intern_bytes(bytes(data, len)?)?;
        out.write(atom_to_c(atom));
        Ok(())
    })
}

/// The atom of `*s`'s bytes in table `t`, in `*out`. The table (global or independent)
/// adopts `*s`'s block when the bytes are new and `*s` is a whole block no table has
/// adopted yet (no copy); otherwise it files a copy. `*s` stays valid.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_intern_str(t: *mut dt_table, s: *const dt_str, out: *mut dt_atom) -> dt_status {
    status(|| {
        let (table, out) = (table(t)?, Out::new(out)?);
        let atom = str_ref(s)?.try_intern_in(table)?;
        out.write(atom_to_c(atom));
        Ok(())
    })
}

/// The atom of the bytes if table `t` holds it, in `*out`; never inserts.
/// `DT_ERR_NOT_FOUND` if absent.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_lookup_bytes(t: *mut dt_table, data: *const u8, len: usize, out: *mut dt_atom) -> dt_status {
    status(|| {
        let (table, out) = (table(t)?, Out::new(out)?);
        let atom = table.lookup_bytes(bytes(data, len)?).ok_or(dt_status::DT_ERR_NOT_FOUND)?;
        out.write(atom_to_c(atom));
        Ok(())
    })
}

/// `DT_OK` if an atom of the bytes is in use in table `t` (atoms of up to 7 bytes always
/// are), else `DT_ERR_NOT_FOUND`; makes no atom, so nothing is to be released (what
/// `dt_table_lookup_bytes` then `dt_atom_release` answers, without taking and giving back
/// a reference).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_contains_bytes(t: *mut dt_table, data: *const u8, len: usize) -> dt_status {
    status(|| {
        let table = table(t)?;
        if table.contains_bytes(bytes(data, len)?) {
            Ok(())
        } else {
            Err(dt_status::DT_ERR_NOT_FOUND)
        }
    })
}

/// The number of atoms filed in `t` (atoms of up to 7 bytes never are); 0 for NULL or
/// an invalid table.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_len(t: *const dt_table) -> usize {
    guarded(|| table(t).map_or(0, AtomTable::len))
}

/// Fills `*out` with `t`'s memory report (it walks the table: O(atoms)).
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_memory_report(t: *const dt_table, out: *mut dt_memory_report) -> dt_status {
    status(|| {
        let (table, out) = (table(t)?, Out::new(out)?);
        out.write(dt_memory_report::from(&table.memory_report()));
        Ok(())
    })
}

/// `t`'s memory report as a JSON object in a new string `*out` (release it): the fields
/// of `dt_memory_report` plus `total_bytes`, `mean_probe` and `max_probe`.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_table_memory_report_json(t: *const dt_table, out: *mut dt_str) -> dt_status {
    status(|| {
        let (table, out) = (table(t)?, Out::new(out)?);
        let json = report_json(&table.memory_report());
        out.write(str_to_c(ByteStr::try_copy_from_slice(json.as_bytes())?));
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_report_is_json_with_every_field() {
        let table = AtomTable::new();
        let _kept = table.intern_bytes(b"a string longer than an inline atom");
        let json: serde_json::Value = serde_json::from_str(&report_json(&table.memory_report())).unwrap();
        assert_eq!(json["atoms"], 1);
        for field in [
            "table_bytes",
            "header_bytes",
            "char_bytes",
            "total_bytes",
            "locked_lookups",
            "unused_bytes_limit",
            "inserts",
            "max_probe",
        ] {
            assert!(json[field].is_u64(), "{field} in {json}");
        }
        assert!(json["mean_probe"].is_number());
    }
}
