//! `fork()` in a program whose threads intern: every child exits, whether it touches
//! nothing of the crate or interns itself.
//!
//! A lock held by another thread at the fork stays held in the child, where that thread
//! does not exist; the global table takes its locks across `fork()` so that the child finds
//! them free (its exit-time sweep locks every shard). Each child must exit within the
//! deadline; one that does not is killed and counted as hung.
#![cfg(unix)]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use dynatom::{Atom, AtomTable, Str};

unsafe extern "C" {
    fn fork() -> i32;
    fn waitpid(pid: i32, status: *mut i32, options: i32) -> i32;
    fn kill(pid: i32, signal: i32) -> i32;
    fn exit(code: i32) -> !;
    fn _exit(code: i32) -> !;
}

const WNOHANG: i32 = 1;
const SIGKILL: i32 = 9;
const CHILDREN: usize = 24;
const DEADLINE: Duration = Duration::from_secs(20);

/// Threads that keep every shard's lock busy: filing new atoms, dropping them (so that
/// sweeps run) and sweeping outright.
struct Busy {
    stop: Arc<AtomicBool>,
    threads: Vec<thread::JoinHandle<()>>,
}

impl Busy {
    fn start(threads: usize) -> Busy {
        let stop = Arc::new(AtomicBool::new(false));
        let threads = (0..threads)
            .map(|t| {
                let stop = stop.clone();
                thread::spawn(move || {
                    let mut i = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        let text = format!("busy thread {t} interns text number {i}");
                        let atom = Atom::from(text.as_str());
                        drop(Str::from(text).intern());
                        drop(atom);
                        if i.is_multiple_of(512) {
                            AtomTable::global().shrink();
                        }
                        i += 1;
                    }
                })
            })
            .collect();
        Busy { stop, threads }
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for handle in self.threads.drain(..) {
            handle.join().unwrap();
        }
    }
}

/// Under valgrind every child would run its own leak check of the copied heap (the
/// parent's threads vanish mid-work in the child) and take seconds: the fork tests are
/// skipped there, as they test locks, not memory.
fn under_valgrind() -> bool {
    std::env::var("LD_PRELOAD").is_ok_and(|preload| preload.contains("vgpreload"))
}

/// Forks `CHILDREN` children that run `child` and then `exit(0)` (which runs the exit-time
/// sweep); returns how many did not exit with status 0 in time.
fn failed_children(child: fn()) -> usize {
    // The table, its exit hook and its fork handlers exist before the busy threads start.
    drop(Atom::from("made before the first fork"));
    let busy = Busy::start(3);
    thread::sleep(Duration::from_millis(50));
    let mut pids = Vec::new();
    for _ in 0..CHILDREN {
        // SAFETY: the child runs `child` and leaves through `exit` or `_exit`, never
        // returning into the test harness.
        let pid = unsafe { fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let ok = std::panic::catch_unwind(child).is_ok();
            // SAFETY: leaving the child process.
            unsafe { if ok { exit(0) } else { _exit(3) } }
        }
        pids.push(pid);
        thread::sleep(Duration::from_millis(2));
    }
    drop(busy);
    let deadline = Instant::now() + DEADLINE;
    let mut failed = 0;
    for pid in pids {
        let mut status = 0;
        loop {
            // SAFETY: `pid` is our child; `status` is a valid out-parameter.
            let done = unsafe { waitpid(pid, &mut status, WNOHANG) };
            if done == pid {
                // Exited (not signalled) with code 0.
                if status & 0x7f != 0 || (status >> 8) & 0xff != 0 {
                    failed += 1;
                }
                break;
            }
            if Instant::now() > deadline {
                // SAFETY: killing and reaping our own hung child.
                unsafe {
                    kill(pid, SIGKILL);
                    waitpid(pid, &mut status, 0);
                }
                failed += 1;
                break;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
    failed
}

#[test]
fn a_child_that_touches_nothing_exits() {
    if under_valgrind() {
        return;
    }
    assert_eq!(failed_children(|| {}), 0, "children hung in exit() or failed");
}

#[test]
fn a_child_that_interns_exits() {
    if under_valgrind() {
        return;
    }
    let failed = failed_children(|| {
        let kept: Vec<Atom> = (0..200).map(|i| Atom::from(format!("interned in the child, number {i}"))).collect();
        assert_eq!(Atom::lookup("interned in the child, number 7"), Some(kept[7].clone()));
        drop(kept);
        AtomTable::global().shrink();
        assert_eq!(AtomTable::global().memory_report().unused_atoms, 0, "the child's sweep frees what it dropped");
    });
    assert_eq!(failed, 0, "children hung or failed");
}
