//! Whether a test runs under valgrind (`scripts/valgrind-tests` preloads its `vgpreload`
//! libraries), for tests that do less work there, where everything runs ~50x slower.

/// Whether valgrind's preload libraries are in this process.
pub(crate) fn running() -> bool {
    std::env::var("LD_PRELOAD").is_ok_and(|preload| preload.contains("vgpreload"))
}
