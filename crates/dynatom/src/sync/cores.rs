//! How many cores the process may run on: what the tables size their shards and slab
//! stripes by. Asked of the kernel without allocating (std's `available_parallelism`
//! reads cgroup files into strings), because a table is made by `try_new`, which must
//! report allocation failure rather than abort; the answer is kept for the process.

use std::sync::atomic::{AtomicUsize, Ordering};

/// The answer once asked; 0 before.
static CORES: AtomicUsize = AtomicUsize::new(0);

/// The cores this process may run on: at least 1.
pub(crate) fn available() -> usize {
    let known = CORES.load(Ordering::Relaxed);
    if known != 0 {
        return known;
    }
    let cores = ask().max(1);
    CORES.store(cores, Ordering::Relaxed);
    cores
}

/// The CPUs in the process's affinity mask (1 if the kernel does not say).
#[cfg(target_os = "linux")]
fn ask() -> usize {
    use std::ffi::c_int;

    unsafe extern "C" {
        fn sched_getaffinity(pid: c_int, size: usize, mask: *mut u64) -> c_int;
    }

    // Room for 4,096 CPUs.
    let mut mask = [0u64; 64];
    // SAFETY: the kernel writes at most `size` bytes, the buffer's own size, into it; pid
    // 0 is the calling thread.
    let asked = unsafe { sched_getaffinity(0, std::mem::size_of_val(&mask), mask.as_mut_ptr()) };
    if asked != 0 {
        return 1;
    }
    mask.iter().map(|word| word.count_ones() as usize).sum()
}

#[cfg(not(target_os = "linux"))]
fn ask() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_at_least_one_core_and_agrees_with_std_on_linux() {
        let cores = super::available();
        assert!(cores >= 1);
        assert_eq!(super::available(), cores, "kept for the process");
        if cfg!(target_os = "linux") {
            // std also reads the affinity mask, and lowers it to a cgroup's quota.
            let std_cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
            assert!(std_cores <= cores, "std {std_cores}, affinity {cores}");
        }
    }
}
