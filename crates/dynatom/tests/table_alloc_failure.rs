//! Allocation failure in the atom table's small allocations: making a table, and a
//! thread's first reclaimer record (taken by its first intern). The `try_` paths report
//! it; nothing aborts, and the same calls succeed once memory is back.
//!
//! This binary's global allocator (`failing_alloc`) refuses, on the calling thread only,
//! every request of at least a given size.

use std::sync::Barrier;
use std::thread;

use dynatom::{AtomTable, Str, StrError};

mod failing_alloc;
use failing_alloc::failing_from;

/// One test, so that no other test's thread exits (freeing its reclaimer record for the
/// next thread to take without allocating) while the record check runs.
#[test]
fn small_allocations_of_the_table_report_failure() {
    making_a_table_reports_allocation_failure();
    a_threads_first_intern_reports_a_failed_record();
}

fn making_a_table_reports_allocation_failure() {
    for from in [1, 64, 128, 1024, 4096, 1 << 20] {
        match failing_from(from, AtomTable::try_new) {
            Ok(table) => assert!(table.is_empty()),
            Err(err) => assert!(matches!(err, StrError::AllocFailed { .. }), "{err:?} failing from {from}"),
        }
    }
    assert!(matches!(failing_from(1, AtomTable::try_new), Err(StrError::AllocFailed { .. })));
    let table = AtomTable::try_new().expect("memory is back");
    assert_eq!(table.intern("a table made after a failure"), "a table made after a failure");
}

/// A thread's first intern registers it with the reclaimer (a 64-byte record). The text
/// is short enough for its own block to fit under the failing size: only the record fails.
fn a_threads_first_intern_reports_a_failed_record() {
    let local = AtomTable::new();
    let global = AtomTable::global();
    // The global table itself exists before the failing threads start.
    drop(global.intern("the global table is made"));
    // A thread that exited leaves its record free for the next thread to take without
    // allocating: threads that stay registered until the check is over take those first,
    // so the checking thread's record is a new allocation.
    const HOLDERS: usize = 8;
    let registered = Barrier::new(HOLDERS + 1);
    let checked = Barrier::new(HOLDERS + 1);
    thread::scope(|scope| {
        for _ in 0..HOLDERS {
            scope.spawn(|| {
                drop(global.intern("a thread that holds a reclaimer record"));
                registered.wait();
                checked.wait();
            });
        }
        registered.wait();
        let checker = scope.spawn(|| {
            let text = "twenty-four bytes, filed";
            let err = failing_from(64, || local.try_intern(text)).expect_err("no memory for the record");
            assert!(matches!(err, StrError::AllocFailed { .. }), "{err:?}");
            let err = failing_from(64, || global.try_intern(text)).expect_err("no memory for the record");
            assert!(matches!(err, StrError::AllocFailed { .. }), "{err:?}");
            let s = Str::from(text);
            let err = failing_from(64, || s.try_intern_in(&local)).expect_err("no memory for the record");
            assert!(matches!(err, StrError::AllocFailed { .. }), "{err:?}");
            assert_eq!(local.len(), 0, "nothing was filed");
            // Memory is back: the same calls succeed.
            assert_eq!(local.try_intern(text).unwrap(), text);
            assert_eq!(global.try_intern(text).unwrap(), text);
            assert_eq!(s.try_intern_in(&local).unwrap(), local.intern(text));
        });
        let outcome = checker.join();
        checked.wait();
        if let Err(panic) = outcome {
            std::panic::resume_unwind(panic);
        }
    });
}
