//! Large atoms swept while other threads are pinned in lock-free lookups: their memory
//! waits for those readers, in the memory report's `retired_bytes`, and is then freed by
//! the table's later activity on any shard (here, the readers' own lookups and the next
//! atoms' filing), not kept until the swept atom's shard happens to be touched again.
//!
//! The scenario is the one that was measured: 24 distinct 32 MiB atoms interned and
//! dropped one at a time in the global table while two threads look up other atoms in a
//! loop left 180 to 468 MiB resident, with the report's unused bytes at 0.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

mod valgrind;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use dynatom::{Atom, AtomTable, Str};

const ATOMS: usize = 24;
const ATOM_BYTES: usize = 32 << 20;
const READERS: usize = 2;
/// What the process may keep resident above its baseline once the atoms are gone.
const END_ROOM: usize = 64 << 20;
/// Resident memory above the baseline that the report need not account for: the heap's
/// own growth, the readers' stacks, the small atoms, malloc's arenas.
const UNREPORTED_ROOM: usize = 16 << 20;

/// The process's resident bytes, after malloc gives back what it can.
fn resident_bytes() -> usize {
    unsafe extern "C" {
        fn malloc_trim(pad: usize) -> std::ffi::c_int;
        fn sysconf(name: std::ffi::c_int) -> std::ffi::c_long;
    }
    const SC_PAGESIZE: std::ffi::c_int = 30;
    // SAFETY: glibc's; `malloc_trim` only returns free heap memory to the system, and
    // `sysconf` reads a constant.
    let page = unsafe {
        malloc_trim(0);
        sysconf(SC_PAGESIZE)
    };
    let statm = std::fs::read_to_string("/proc/self/statm").expect("/proc/self/statm");
    let pages: usize =
        statm.split_whitespace().nth(1).and_then(|field| field.parse().ok()).expect("statm's resident field");
    pages * usize::try_from(page).expect("a page size")
}

/// Sets its flag when dropped, panicking or not.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

fn mib(bytes: usize) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// The checkers' builds keep freed memory in quarantine (ASan) or run one thread at a
/// time (valgrind): resident figures mean nothing there, and 768 MiB of text is slow.
fn scale() -> (usize, usize, bool) {
    let checked = cfg!(any(dynatom_asan, dynatom_valgrind)) || valgrind::running();
    if checked { (4, 1 << 20, false) } else { (ATOMS, ATOM_BYTES, true) }
}

/// Only this test uses the global table in this binary, so its report is this test's.
#[test]
fn large_atoms_swept_beside_pinned_readers_are_reported_then_freed() {
    let (atoms, atom_bytes, measure_resident) = scale();
    let table = AtomTable::global();
    let looked: Vec<Atom> = (0..64).map(|i| Atom::from(format!("an atom the readers look up, number {i}"))).collect();
    let texts: Vec<String> = looked.iter().map(ToString::to_string).collect();
    let stop = AtomicBool::new(false);
    let lookups = AtomicUsize::new(0);
    let mut baseline = 0;
    let mut most_retired = 0;
    let mut most_above = 0;
    let mut worst_unreported = 0isize;
    let (waited, after) = std::thread::scope(|scope| {
        for _ in 0..READERS {
            // Flat out, never yielding: a reader is then pinned at nearly any moment, as
            // when the memory was measured.
            scope.spawn(|| {
                let mut done = 0;
                while !stop.load(Ordering::Relaxed) {
                    for text in &texts {
                        assert!(Atom::lookup(text).is_some(), "held, so found");
                    }
                    done += texts.len();
                }
                lookups.fetch_add(done, Ordering::Relaxed);
            });
        }
        // A failed assertion below must stop the readers too, or the scope waits for them.
        let _stop_readers = StopOnDrop(&stop);
        // One buffer, its prefix rewritten for each atom: each atom's one copy of it is
        // the only large write. It is in the baseline, with the readers' stacks and the
        // small atoms.
        let mut text = "x".repeat(atom_bytes);
        std::thread::sleep(Duration::from_millis(50));
        if measure_resident {
            baseline = resident_bytes();
        }
        for i in 0..atoms {
            let prefix = format!("large atom number {i:03}: ");
            text.replace_range(..prefix.len(), &prefix);
            let atom = Str::from(text.as_str()).intern();
            assert_eq!(atom.len(), atom_bytes);
            drop(atom);
            // The report first, then the resident size: memory freed in between only
            // lowers the second, and only this thread sweeps.
            let report = table.memory_report();
            most_retired = most_retired.max(report.retired_bytes);
            if measure_resident {
                let above = resident_bytes().saturating_sub(baseline);
                most_above = most_above.max(above);
                let unreported = above as isize - (report.retired_bytes + report.unused_bytes) as isize;
                worst_unreported = worst_unreported.max(unreported);
                assert!(
                    unreported <= UNREPORTED_ROOM as isize,
                    "after atom {i}: {:.1} MiB resident above the baseline, {:.1} MiB of it in no report\n{report}",
                    mib(above),
                    mib(unreported.max(0) as usize),
                );
            }
        }
        // Nothing is written from here on: the readers' lookups alone must free what waits.
        let started = Instant::now();
        while table.memory_report().retired_bytes > 0 && started.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        let waited = started.elapsed();
        let after = table.memory_report();
        stop.store(true, Ordering::Relaxed);
        (waited, after)
    });
    let end_above = if measure_resident { resident_bytes().saturating_sub(baseline) } else { 0 };
    eprintln!(
        "{atoms} atoms of {:.0} MiB beside {READERS} readers ({} lookups): at most {:.1} MiB resident above the \
         baseline and {:.1} MiB retired at once, at most {:.1} MiB resident in no report; retired {:.1} MiB after \
         {waited:?} of lookups alone; {:.1} MiB resident above the baseline at the end",
        mib(atom_bytes),
        lookups.load(Ordering::Relaxed),
        mib(most_above),
        mib(most_retired),
        mib(worst_unreported.max(0) as usize),
        mib(after.retired_bytes),
        mib(end_above),
    );
    assert_eq!(after.retired_bytes, 0, "the readers' lookups free what waits\n{after}");
    assert_eq!((after.unused_atoms, after.unused_bytes), (0, 0), "each large atom is swept at once\n{after}");
    assert!(
        end_above <= END_ROOM,
        "{:.1} MiB resident above the baseline once every large atom is gone\n{after}",
        mib(end_above)
    );
    drop(looked);
}
