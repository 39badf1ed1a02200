//! How a thread waits for another to finish a short step: spin, then yield, then sleep.
//!
//! The library's waits (a slab class's spin lock, a symbol whose insert is still being
//! finished) are on holders that run a few dozen instructions and never block, so spinning
//! is the common and cheapest wait. Yielding next lets a holder that lost its CPU run again
//! on a fair scheduler. Neither is enough where the scheduler is not fair to the holder:
//! `sched_yield` only gives way to threads of the waiter's own priority, so a real-time
//! waiter on the holder's CPU would spin forever against a normal-priority holder, and
//! valgrind (which runs one thread at a time and by default hands its lock back to the
//! thread that released it) kept a yielding waiter running while the holder waited for
//! minutes. A waiter that has yielded [`YIELDS_BEFORE_SLEEP`] times therefore sleeps,
//! from a microsecond doubling up to [`LONGEST_SLEEP`], which takes it off the CPU whatever
//! the scheduler's policy. The unlock side is untouched: it stays a plain store.
//!
//! The cap is short because a sleeper also wakes late: with sleeps of up to a millisecond,
//! the C fork test (three threads churning while a fourth forks) took 8–51 s under
//! valgrind's unfair scheduling, against 7–10 s with yields alone; with 64 µs, 5–11 s.

use std::time::Duration;

use super::spin_loop;

/// Spins before a waiter starts yielding its time slice.
const SPINS_BEFORE_YIELD: u32 = 64;
/// Yields before a waiter starts sleeping.
const YIELDS_BEFORE_SLEEP: u32 = 16;
/// The first sleep; each later one doubles, up to [`LONGEST_SLEEP`].
const FIRST_SLEEP: Duration = Duration::from_micros(1);
/// The longest sleep.
const LONGEST_SLEEP: Duration = Duration::from_micros(64);

/// One wait's progress through spinning, yielding and sleeping.
#[derive(Debug, Default)]
pub(crate) struct Backoff {
    steps: u32,
    sleep: Option<Duration>,
}

impl Backoff {
    pub(crate) fn new() -> Backoff {
        Backoff::default()
    }

    /// Waits a little, longer as the calls repeat. Under loom every call is one
    /// `spin_loop`, loom's yield, so that models stay finite and deterministic.
    pub(crate) fn wait(&mut self) {
        if cfg!(loom) || self.steps < SPINS_BEFORE_YIELD {
            self.steps += 1;
            spin_loop();
        } else if self.steps < SPINS_BEFORE_YIELD + YIELDS_BEFORE_SLEEP {
            self.steps += 1;
            std::thread::yield_now();
        } else {
            let sleep = self.sleep.map_or(FIRST_SLEEP, |last| (last * 2).min(LONGEST_SLEEP));
            self.sleep = Some(sleep);
            std::thread::sleep(sleep);
        }
    }

    /// Whether the waits so far have reached sleeping.
    #[cfg(all(test, not(loom)))]
    pub(crate) fn is_sleeping(&self) -> bool {
        self.sleep.is_some()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn spins_then_yields_then_sleeps_doubling_up_to_the_longest() {
        let mut backoff = Backoff::new();
        for _ in 0..SPINS_BEFORE_YIELD + YIELDS_BEFORE_SLEEP {
            backoff.wait();
            assert!(!backoff.is_sleeping());
        }
        let mut sleeps = Vec::new();
        for _ in 0..14 {
            backoff.wait();
            sleeps.push(backoff.sleep.expect("sleeping"));
        }
        assert_eq!(sleeps[0], FIRST_SLEEP);
        assert_eq!(sleeps[1], FIRST_SLEEP * 2);
        assert!(sleeps.windows(2).all(|w| w[1] == (w[0] * 2).min(LONGEST_SLEEP)));
        assert_eq!(*sleeps.last().unwrap(), LONGEST_SLEEP);
    }

    /// A waiter on a step that goes on and on reaches the sleeping stage (within seconds
    /// however loaded the machine), and still sees the release that ends its wait.
    #[test]
    fn a_long_hold_sends_the_waiter_to_sleep_and_it_still_sees_the_release() {
        use std::sync::atomic::{AtomicBool, Ordering};
        let held = AtomicBool::new(true);
        let sleeping = AtomicBool::new(false);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let mut backoff = Backoff::new();
                let mut waits = 0u64;
                while held.load(Ordering::Acquire) {
                    backoff.wait();
                    waits += 1;
                    sleeping.store(backoff.is_sleeping(), Ordering::Release);
                }
                waits
            });
            let deadline = std::time::Instant::now() + Duration::from_secs(20);
            while !sleeping.load(Ordering::Acquire) {
                assert!(std::time::Instant::now() < deadline, "the waiter never reached sleeping");
                std::thread::sleep(Duration::from_millis(1));
            }
            held.store(false, Ordering::Release);
            let waits = waiter.join().unwrap();
            assert!(waits > u64::from(SPINS_BEFORE_YIELD + YIELDS_BEFORE_SLEEP));
        });
    }
}
