//! The checked-in `include/dynatom.h` must be what cbindgen generates from the sources
//! today. `DYNATOM_BLESS=1` rewrites it instead of failing.

use std::path::Path;

#[test]
fn checked_in_header_matches_a_fresh_generation() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml parses");
    let bindings = cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let fresh = String::from_utf8(fresh).expect("the header is UTF-8");

    let path = crate_dir.join("include/dynatom.h");
    if std::env::var_os("DYNATOM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&path, &fresh).expect("include/dynatom.h is writable");
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == fresh,
        "include/dynatom.h is stale: regenerate it with \
         `DYNATOM_BLESS=1 cargo test -p dynatom-ffi --test header` and commit it"
    );
}
