//! The release queue as a runtime uses it: strings over its memory are released on other
//! threads, whose releases only file ids (`dt_release_queue_push` as the `release`
//! callback), and the runtime's own thread drains them, seeing each id exactly once.

use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use dynatom_ffi::{
    dt_release_queue_drain, dt_release_queue_new_tag, dt_release_queue_push, dt_status, dt_str, dt_str_clone,
    dt_str_from_external, dt_str_release,
};

const THREADS: u64 = 4;
const PER_THREAD: u64 = 5_000;

fn new_tag() -> u64 {
    let mut tag = 0;
    assert_eq!(dt_release_queue_new_tag(&mut tag), dt_status::DT_OK);
    tag
}

fn ctx(tag: u64, id: u64) -> *mut c_void {
    usize::try_from(tag | id).unwrap() as *mut c_void
}

/// Drains `tag` into `seen` (one counter per id); returns how many it drained.
fn drain_into(tag: u64, seen: &mut [u32]) -> usize {
    let mut ids = [0u64; 64];
    let mut total = 0;
    loop {
        let mut count = 0;
        assert_eq!(dt_release_queue_drain(tag, ids.as_mut_ptr(), ids.len(), &mut count), dt_status::DT_OK);
        for &id in &ids[..count] {
            seen[usize::try_from(id).unwrap()] += 1;
        }
        total += count;
        if count < ids.len() {
            return total;
        }
    }
}

#[test]
fn pushes_from_four_threads_are_drained_once_each_while_they_run() {
    let tag = new_tag();
    let other = new_tag();
    let done = Arc::new(AtomicBool::new(false));
    let pushers: Vec<_> = (0..THREADS)
        .map(|t| {
            std::thread::spawn(move || {
                for k in 0..PER_THREAD {
                    dt_release_queue_push(ctx(tag, t * PER_THREAD + k));
                    if k % 1000 == 0 {
                        // Another user's entry, which this tag's drains must leave alone.
                        dt_release_queue_push(ctx(other, t));
                    }
                }
            })
        })
        .collect();
    let watcher = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            for pusher in pushers {
                pusher.join().unwrap();
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let mut seen = vec![0u32; usize::try_from(THREADS * PER_THREAD).unwrap()];
    let mut drained = 0;
    while !done.load(Ordering::SeqCst) {
        drained += drain_into(tag, &mut seen);
    }
    watcher.join().unwrap();
    drained += drain_into(tag, &mut seen);
    assert_eq!(drained, seen.len());
    assert!(seen.iter().all(|&n| n == 1), "every id drained exactly once");
    let mut others = vec![0u32; usize::try_from(THREADS).unwrap()];
    assert_eq!(drain_into(other, &mut others), usize::try_from(THREADS * PER_THREAD / 1000).unwrap());
    assert!(others.iter().all(|&n| u64::from(n) == PER_THREAD / 1000));
}

#[test]
fn strings_released_on_other_threads_queue_their_ids() {
    const STRINGS: u64 = 64;
    let tag = new_tag();
    let text: &'static [u8] = b"memory a runtime owns, longer than fifteen bytes";
    // Each string and a clone of it, released on two different threads.
    let mut handles = Vec::new();
    for id in 0..STRINGS {
        let mut s = dt_str::default();
        let status = dt_str_from_external(text.as_ptr(), text.len(), Some(dt_release_queue_push), ctx(tag, id), &mut s);
        assert_eq!(status, dt_status::DT_OK);
        let mut copy = dt_str::default();
        assert_eq!(dt_str_clone(&s, &mut copy), dt_status::DT_OK);
        handles.push(s);
        handles.push(copy);
    }
    let mut none = vec![0u32; usize::try_from(STRINGS).unwrap()];
    assert_eq!(drain_into(tag, &mut none), 0, "nothing is released while handles live");
    let per_thread = handles.len() / 4;
    let workers: Vec<_> = handles
        .chunks(per_thread)
        .map(|chunk| {
            let mut chunk = chunk.to_vec();
            std::thread::spawn(move || {
                for s in &mut chunk {
                    assert_eq!(dt_str_release(s), dt_status::DT_OK);
                }
            })
        })
        .collect();
    for worker in workers {
        worker.join().unwrap();
    }
    let mut seen = vec![0u32; usize::try_from(STRINGS).unwrap()];
    assert_eq!(drain_into(tag, &mut seen), seen.len());
    assert!(seen.iter().all(|&n| n == 1));
}
