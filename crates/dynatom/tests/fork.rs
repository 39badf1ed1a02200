//! `fork()` in a program whose threads intern: every child exits, whether it touches
//! nothing of the crate or interns itself.
//!
//! A lock held by another thread at the fork stays held in the child, where that thread
//! does not exist; the global table takes its locks across `fork()` so that the child finds
//! them free (its exit-time sweep locks every shard). Each child must exit within the
//! deadline; one that does not is killed and counted as hung.
#![cfg(unix)]

mod valgrind;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use dynatom::{Atom, AtomTable, ByteAtom, StaticText, Str};

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
    valgrind::running()
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
    pids.into_iter().filter(|&pid| !matches!(wait_or_kill(pid, deadline), Some(0))).count()
}

/// The exit status of our child `pid` (0 for a clean exit with code 0), or `None` if it
/// was still running at `deadline` and so was killed.
fn wait_or_kill(pid: i32, deadline: Instant) -> Option<i32> {
    let mut status = 0;
    loop {
        // SAFETY: `pid` is our child; `status` is a valid out-parameter.
        if unsafe { waitpid(pid, &mut status, WNOHANG) } == pid {
            // Signalled (low bits) or exited with a code (next byte): 0 only for exit(0).
            return Some(status & 0xffff);
        }
        if Instant::now() > deadline {
            // SAFETY: killing and reaping our own hung child.
            unsafe {
                kill(pid, SIGKILL);
                waitpid(pid, &mut status, 0);
            }
            return None;
        }
        thread::sleep(Duration::from_millis(2));
    }
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

/// A set registered at run time, its texts made up and leaked (registered sets live for
/// the process).
fn leaked_set(n: u64) -> &'static [StaticText] {
    let texts: Vec<StaticText> = (0..8)
        .map(|k| {
            let text: &'static str = Box::leak(format!("text {k} of the set registered at run time number {n}").into());
            StaticText::new("T", text.as_bytes())
        })
        .collect();
    Box::leak(texts.into_boxed_slice())
}

dynatom::static_atoms! {
    mod compiled_in { CONTENT_TYPE = "content-type", USER_AGENT = "user-agent", LONGER = "a longer compiled-in text" }
}

/// While other threads register sets (each registration locks every shard and writes
/// the registry), children read sets by name and text, read declared atoms' texts and
/// intern: none may find the registry locked for good.
#[test]
fn a_child_forked_while_sets_register_exits() {
    if under_valgrind() {
        return;
    }
    static FIRST: [StaticText; 2] = [
        StaticText::new("FIRST", b"the first set registered beside the forks"),
        StaticText::new("AGENT", b"user-agent"),
    ];
    AtomTable::register_static_set("first", &FIRST).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let registrars: Vec<_> = (0..2u64)
        .map(|t| {
            let stop = stop.clone();
            thread::spawn(move || {
                let mut n = t;
                while !stop.load(Ordering::Relaxed) {
                    let name: &'static str = Box::leak(format!("set {n}").into());
                    AtomTable::register_static_set(name, leaked_set(n)).unwrap();
                    let _ = ByteAtom::from_static_name(name, "T");
                    n += 2;
                }
            })
        })
        .collect();
    let failed = failed_children(|| {
        let first = ByteAtom::from_static_name("first", "FIRST").expect("registered before the fork");
        assert_eq!(first.as_bytes(), b"the first set registered beside the forks");
        assert_eq!(ByteAtom::from_static_text("first", b"user-agent"), Some(ByteAtom::new(b"user-agent")));
        assert_eq!(Atom::from("the first set registered beside the forks").as_byte_atom(), &first);
        assert_eq!(compiled_in::LONGER.as_str(), "a longer compiled-in text");
        static IN_CHILD: [StaticText; 1] = [StaticText::new("CHILD", b"a set the child registers itself")];
        AtomTable::register_static_set("in the child", &IN_CHILD).unwrap();
        assert!(Atom::from("a set the child registers itself").is_declared());
    });
    stop.store(true, Ordering::Relaxed);
    for registrar in registrars {
        registrar.join().unwrap();
    }
    assert_eq!(failed, 0, "children hung or failed");
}

/// The start-up half: a fresh process (this test binary again, running only
/// `forked_while_starting_up` with `DYNATOM_FORK_STARTUP` set) forks while another of its
/// threads makes the global table and the compiled-in sets' index, as a program may on
/// its first line. Each process forks a few children at once; every child must exit.
#[test]
fn a_child_forked_while_the_global_table_is_made_exits() {
    if under_valgrind() {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let mut hung = 0;
    for round in 0..20 {
        let output = std::process::Command::new(&exe)
            .args(["--exact", "forked_while_starting_up", "--nocapture", "--test-threads=1"])
            .env("DYNATOM_FORK_STARTUP", round.to_string())
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "round {round}: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
        hung += stdout
            .lines()
            .filter_map(|line| line.strip_prefix("hung children: "))
            .map(|n| n.parse::<usize>().unwrap())
            .sum::<usize>();
        assert!(stdout.contains("hung children: "), "round {round} ran nothing: {stdout}");
    }
    assert_eq!(hung, 0, "children forked during start-up hung");
}

/// Run by [`a_child_forked_while_the_global_table_is_made_exits`] in a process of its own.
#[test]
fn forked_while_starting_up() {
    let Ok(round) = std::env::var("DYNATOM_FORK_STARTUP") else { return };
    let round: u64 = round.parse().unwrap();
    static STARTING: AtomicBool = AtomicBool::new(false);
    let starter = thread::spawn(move || {
        STARTING.store(true, Ordering::SeqCst);
        // The compiled-in sets' index first or the global table first, by turns.
        if round.is_multiple_of(2) {
            let _ = compiled_in::SET.get("user-agent");
        }
        drop(Atom::from("the first atom of a process"));
    });
    // Fork as the starter begins, after a varying few microseconds, then back to back, so
    // that the forks spread over its start-up.
    while !STARTING.load(Ordering::SeqCst) {
        std::hint::spin_loop();
    }
    for _ in 0..(round % 4) * 50 {
        std::hint::spin_loop();
    }
    let mut pids = Vec::new();
    for _ in 0..12 {
        // SAFETY: the child only uses the crate and leaves through `_exit`.
        let pid = unsafe { fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let ok = std::panic::catch_unwind(|| {
                assert_eq!(compiled_in::SET.get("a longer compiled-in text"), Some(compiled_in::LONGER));
                assert_eq!(Atom::from("user-agent"), compiled_in::USER_AGENT);
                drop(Atom::from("interned in a child forked at start-up"));
            })
            .is_ok();
            // SAFETY: leaving the child process without running the parent's exit code.
            unsafe { _exit(if ok { 0 } else { 3 }) }
        }
        pids.push(pid);
    }
    starter.join().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut hung = 0;
    for pid in pids {
        match wait_or_kill(pid, deadline) {
            Some(0) => {}
            Some(status) => panic!("a child failed: status {status}"),
            None => hung += 1,
        }
    }
    println!("hung children: {hung}");
}
