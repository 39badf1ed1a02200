//! Bytes per distinct string beyond the characters, measured.
//!
//! Theory for the single-threaded `Interner`: a 2-byte end offset (index grown by
//! 1/8 steps) + a page pointer per 32 strings (0.25 bytes) + one 4-byte cuckoo slot
//! at 45–90 % load (4.4–8.9 bytes) + chunk tails and the open chunk's unused
//! part. At 100 000 strings the table has 2^13 buckets × 16 slots (76 % load,
//! 5.2 bytes/string).

use dynatom::interner::Interner;

fn identifiers(n: usize) -> Vec<String> {
    let parts = ["get", "set", "node", "expr", "Type", "id", "value", "parse", "_", "x"];
    (0..n).map(|k| format!("{}{}{k}", parts[k % parts.len()], parts[(k / 10) % parts.len()])).collect()
}

#[test]
fn at_most_12_bytes_per_string_at_100k() {
    let ids = identifiers(100_000);
    let mut i = Interner::deterministic();
    for s in &ids {
        i.intern(s);
    }
    let r = i.memory_report();
    println!("{r}");
    assert_eq!(r.strings, 100_000);
    assert_eq!(r.char_bytes, ids.iter().map(|s| s.len()).sum::<usize>());
    let per = r.overhead_per_string();
    println!("overhead: {per:.2} bytes/string");
    assert!(per <= 12.0, "{per} bytes per string");
    // 5.2 (table) + 2.0 (ends) + 0.25 (pages) + tails.
    assert!(per <= 9.0, "{per} bytes per string");
}

#[test]
fn overhead_across_sizes() {
    // Report-only sweep across a table doubling, plus the bound after shrink_to_fit.
    for n in [1_000, 10_000, 50_000, 60_000, 100_000, 125_000, 200_000, 1_000_000] {
        let mut i = Interner::deterministic();
        for s in identifiers(n) {
            i.intern(&s);
        }
        let grown = i.memory_report().overhead_per_string();
        i.shrink_to_fit();
        let shrunk = i.memory_report().overhead_per_string();
        println!("{n:>9} strings: {grown:6.2} B/string grown, {shrunk:6.2} after shrink_to_fit");
        if n >= 10_000 {
            assert!(shrunk <= 12.5, "{n}: {shrunk}");
        }
    }
}

#[test]
fn sync_interner_overhead_report() {
    let mut i = dynatom::interner::SyncInterner::deterministic();
    for s in identifiers(100_000) {
        i.intern(&s);
    }
    let grown = i.memory_report();
    i.shrink_to_fit();
    let r = i.memory_report();
    println!(
        "SyncInterner, 100k: {:.2} B/string ({:.2} before shrink_to_fit)\n{r}",
        r.overhead_per_string(),
        grown.overhead_per_string()
    );
    assert_eq!(r.strings, 100_000);
}
