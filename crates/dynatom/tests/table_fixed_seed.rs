//! No code can fix the seeds that the whole process shares (the global table's and
//! `AtomTable::new()` tables', and the word seed of inline atoms and `SmallMap` keys):
//! `AtomTable::fix_process_seed` and `small_map::fix_word_seed` are gone (the crate docs'
//! `compile_fail` example keeps them gone), and `DYNATOM_FIXED_SEED` fixes them only in a
//! build with `--cfg dynatom_fixed_seed`, such as the benchmark's counted children.
//!
//! The seeds are chosen once per process, so each case runs in a child process of this
//! test binary (the test `child_prints_its_hashes`, which does nothing elsewhere) and
//! compares what two children print.

use std::process::Command;

use dynatom::{Atom, AtomTable};

/// Set in the children, which print their hashes.
const CHILD_ENV: &str = "DYNATOM_TABLE_FIXED_SEED_CHILD";
const FIXED_SEED_ENV: &str = "DYNATOM_FIXED_SEED";
const TEXT: &str = "a text long enough for the heap";

/// The hashes one process gives: the global table's, a new table's, an inline atom's
/// (the word seed) and a `with_seed(7)` table's.
#[derive(Debug, PartialEq)]
struct Hashes {
    global: u64,
    new_table: u64,
    inline: u64,
    own_seed: u64,
}

fn hashes_here() -> Hashes {
    Hashes {
        global: Atom::from(TEXT).hash64(),
        new_table: AtomTable::new().intern(TEXT).hash64(),
        inline: Atom::from("inline").hash64(),
        own_seed: AtomTable::with_seed(7).intern(TEXT).hash64(),
    }
}

#[test]
fn child_prints_its_hashes() {
    if std::env::var_os(CHILD_ENV).is_some() {
        let h = hashes_here();
        println!("HASHES= {} {} {} {}", h.global, h.new_table, h.inline, h.own_seed);
    }
}

/// A child's hashes, with `DYNATOM_FIXED_SEED` set to `fixed` or unset.
fn child_hashes(fixed: Option<&str>) -> Hashes {
    let mut command = Command::new(std::env::current_exe().expect("the test binary"));
    command.args(["--exact", "child_prints_its_hashes", "--nocapture", "--test-threads=1"]).env(CHILD_ENV, "1");
    match fixed {
        Some(seed) => command.env(FIXED_SEED_ENV, seed),
        None => command.env_remove(FIXED_SEED_ENV),
    };
    let output = command.output().expect("the child runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed: {stdout}{}", String::from_utf8_lossy(&output.stderr));
    // libtest may print the line after its own "test ... " on the same line.
    let line = stdout.lines().find_map(|l| l.split_once("HASHES= ")).expect("the child printed its hashes").1;
    let n: Vec<u64> = line.split_whitespace().take(4).map(|v| v.parse().expect("a hash")).collect();
    Hashes { global: n[0], new_table: n[1], inline: n[2], own_seed: n[3] }
}

#[test]
fn the_environment_fixes_the_process_seeds_only_in_a_fixed_seed_build() {
    let (a, b) = (child_hashes(Some("7")), child_hashes(Some("7")));
    let reference = AtomTable::with_seed(7).intern(TEXT).hash64();
    if cfg!(dynatom_fixed_seed) {
        assert_eq!(a, b, "the same fixed seed in two processes");
        assert_eq!((a.global, a.new_table), (reference, reference), "the process seed is the variable's value");
        assert_ne!(child_hashes(Some("0x8")).global, reference);
    } else {
        assert_ne!(a.global, b.global, "without the cfg the variable must not fix the process seed");
        assert_ne!(a.inline, b.inline, "without the cfg the variable must not fix the word seed");
        assert_ne!(a.global, reference);
        assert_eq!(a.global, a.new_table, "the global table and new tables share the process seed");
    }
}

#[test]
fn processes_without_the_variable_choose_their_own_seeds_even_in_a_fixed_seed_build() {
    let (a, b) = (child_hashes(None), child_hashes(None));
    assert_ne!(a.global, b.global);
    assert_ne!(a.inline, b.inline);
}

/// A table's own seed is the one way to fix a seed, and it fixes that table's alone.
#[test]
fn a_table_with_its_own_seed_hashes_alike_in_every_process() {
    let reference = AtomTable::with_seed(7).intern(TEXT).hash64();
    assert_eq!(child_hashes(None).own_seed, reference);
    assert_eq!(child_hashes(Some("9")).own_seed, reference);
    assert_ne!(AtomTable::with_seed(8).intern(TEXT).hash64(), reference);
}
