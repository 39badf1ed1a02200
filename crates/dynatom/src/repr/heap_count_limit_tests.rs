//! What happens at the reference-count limit: handles up to [`MAX_COUNT`] work, and the
//! clone (or table acquire) past it aborts the process rather than letting the count wrap
//! round to a block that would be freed while in use (string_cache's bug). The count is
//! set near the limit by hand, as 2^31 clones would take minutes; an abort can only be
//! observed from outside, so the aborting cases run this test binary again as a child.

use std::process::Command;

use super::*;

/// Which aborting case the child runs (unset: not a child).
const CHILD_CASE: &str = "DYNATOM_COUNT_LIMIT_CHILD";

fn block() -> Block {
    Block::copy_from(b"a block whose count is pushed to the limit", Fallibility::Infallible).unwrap()
}

#[test]
fn handles_up_to_the_limit_work_and_give_their_counts_back() {
    let block = block();
    block.set_count_for_test(MAX_COUNT - 2);
    let clones: Vec<Block> = (0..3).map(|_| block.clone()).collect();
    assert_eq!(block.count_for_test(), MAX_COUNT + 1, "the clone at the limit itself is allowed");
    drop(clones);
    // SAFETY: the block is live (`block` holds a count).
    let again = unsafe { Block::acquire_entry(block.ptr, 1) }.expect("a live block can be acquired");
    assert_eq!(block.count_for_test(), MAX_COUNT - 1);
    drop(again);
    block.set_count_for_test(1);
    drop(block);
}

/// Runs the ignored `child` test below in a fresh process with `case` and returns how it
/// ended.
fn run_child(case: &str) -> std::process::Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    let name = format!("{}::child", module_path!().split_once("::").map_or(module_path!(), |(_, rest)| rest));
    Command::new(exe)
        .args([name.as_str(), "--exact", "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_CASE, case)
        .output()
        .expect("the test binary runs again")
}

fn assert_aborted(case: &str) {
    let output = run_child(case);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("running 1 test"), "the child ran no test: {stdout}");
    assert!(!stdout.contains("survived"), "{case}: the count went past the limit: {stdout}");
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(output.status.signal(), Some(6), "{case}: expected SIGABRT, got {:?}", output.status);
    }
    #[cfg(not(unix))]
    assert!(!output.status.success(), "{case}: expected an abort, got {:?}", output.status);
}

#[test]
fn a_clone_past_the_limit_aborts() {
    assert_aborted("clone");
}

#[test]
fn a_table_acquire_past_the_limit_aborts() {
    assert_aborted("acquire");
}

#[test]
#[ignore = "run as a child process by the aborting tests above"]
fn child() {
    let Ok(case) = std::env::var(CHILD_CASE) else { return };
    let block = block();
    block.set_count_for_test(MAX_COUNT + 1);
    match case.as_str() {
        "clone" => std::mem::forget(block.clone()),
        // SAFETY: the block is live (`block` holds a count).
        "acquire" => std::mem::forget(unsafe { Block::acquire_entry(block.ptr, 1) }),
        other => panic!("unknown case {other}"),
    }
    println!("survived: count {}", block.count_for_test());
}
