//! Links the shared library `-z nodelete` on ELF targets: `dlclose` then leaves it mapped.
//! The library keeps process-wide state in statics (the global atom table, the freed
//! opaque objects, the exit-time sweep it registers): unmapping it would lose that
//! memory (valgrind: "definitely lost") and leave atoms that C still holds pointing at
//! a table that is gone. `tests/c/unload_dlclose.c` checks it, under valgrind.

fn main() {
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if matches!(
        os.as_str(),
        "linux" | "android" | "freebsd" | "netbsd" | "openbsd" | "dragonfly" | "illumos" | "solaris"
    ) {
        println!("cargo:rustc-cdylib-link-arg=-Wl,-z,nodelete");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
