//! The release queue: a `release` callback for `dt_str_from_external` that runs no code
//! of the caller's. [`dt_release_queue_push`] files its `ctx` under a lock and returns;
//! the owner of the memory collects the filed values later, on a thread and at a moment
//! of its choosing, with [`dt_release_queue_drain`]. A garbage-collected runtime (the
//! LuaJIT module) needs this: a string's last handle may be released by a finaliser, by
//! compiled code or by another thread, none of which may call back into the runtime.
//!
//! One queue per process, shared by every user. A `ctx` is a tag (its high 32 bits) and
//! an id (its low 32 bits); each user takes a tag of its own ([`dt_release_queue_new_tag`])
//! and drains only the entries that carry it, so several users in one process (several Lua
//! states, a C program beside them) never see each other's ids. Tag 0 is for a program
//! that is the queue's only user and passes plain ids as `ctx`.

use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::dt_status;
use crate::guard::{guarded, status};
use crate::objects::lock_across_fork;
use crate::pointers::{array_mut, Out};

/// The largest id a `ctx` for `dt_release_queue_push` may carry: ids live in the low 32
/// bits of `ctx`, tags in the high 32.
pub const DT_RELEASE_QUEUE_MAX_ID: u64 = u32::MAX as u64;

/// The tag part of a `ctx`.
const TAG_MASK: u64 = !DT_RELEASE_QUEUE_MAX_ID;

/// The filed `ctx` values, oldest first. Only ever locked while [`lock_across_fork`]'s
/// guard is held, so no thread holds it at a `fork()` and a child can drain.
static QUEUE: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// The next tag's high half; tag 0 is never handed out.
static NEXT_TAG: AtomicU64 = AtomicU64::new(1);

/// Runs `body` on the locked queue. Nothing under the lock panics (pushes that cannot
/// allocate are refused, not aborted), so a poisoned lock still guards a consistent queue.
fn with_queue<R>(body: impl FnOnce(&mut Vec<u64>) -> R) -> R {
    let _fork = lock_across_fork();
    let mut queue = QUEUE.lock().unwrap_or_else(PoisonError::into_inner);
    body(&mut queue)
}

/// A `dt_release_fn` for `dt_str_from_external` and `dt_str_from_external_utf8`: files
/// `ctx` (a tag from `dt_release_queue_new_tag` plus an id of at most
/// `DT_RELEASE_QUEUE_MAX_ID`, cast to a pointer; it is never dereferenced) on the
/// library's release queue and returns, calling no code of the caller's. Collect it with
/// `dt_release_queue_drain`. Should the queue fail to grow (allocation failure), the
/// entry is dropped: its memory is then never given back, which leaks it but never frees
/// it early.
///
/// Thread safety: any thread, at any time (it takes a short lock, which `fork()` holds
/// across the fork, so a child can push and drain).
#[no_mangle]
pub extern "C" fn dt_release_queue_push(ctx: *mut c_void) {
    guarded(|| {
        let entry = ctx.addr() as u64;
        with_queue(|queue| {
            if queue.try_reserve(1).is_ok() {
                queue.push(entry);
            }
        });
    });
}

/// Writes a tag of the release queue's to `*tag`: a value whose low 32 bits are zero,
/// different on every call in this process (never 0). Build each `ctx` for
/// `dt_release_queue_push` as `(void *)(uintptr_t)(tag | id)` and collect them with
/// `dt_release_queue_drain(tag, ...)`. Every user of the queue in a process (each Lua
/// state of the LuaJIT module, say) takes its own tag, so that none drains another's ids.
/// `DT_ERR_NULL` for a NULL `tag`; `DT_ERR_LIMIT` once 2^32 - 1 tags were handed out.
///
/// Thread safety: any thread.
#[no_mangle]
pub extern "C" fn dt_release_queue_new_tag(tag: *mut u64) -> dt_status {
    status(|| {
        let tag = Out::new(tag)?;
        let high = NEXT_TAG
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |next| {
                (next <= u64::from(u32::MAX)).then_some(next + 1)
            })
            .map_err(|_| dt_status::DT_ERR_LIMIT)?;
        tag.write(high << 32);
        Ok(())
    })
}

/// Moves up to `cap` entries filed by `dt_release_queue_push` whose `ctx` carries `tag`
/// (its high 32 bits) from the queue to `ids`, oldest first, as the ids alone (the low 32
/// bits), and writes how many to `*count`. Entries of other tags stay queued. When
/// `*count == cap` more may be waiting: call again. Each pushed entry is drained exactly
/// once. `DT_ERR_NULL` for a NULL `count`, or a NULL `ids` with a non-zero `cap`;
/// `DT_ERR_RANGE` for a `tag` with any of its low 32 bits set (not a tag); on an error
/// nothing is drained.
///
/// Thread safety: any thread. Drains of one tag may run at once (each entry goes to one
/// of them); a drain runs no code of the caller's.
#[no_mangle]
pub extern "C" fn dt_release_queue_drain(tag: u64, ids: *mut u64, cap: usize, count: *mut usize) -> dt_status {
    status(|| {
        let count = Out::new(count)?;
        let ids = array_mut(ids, cap)?;
        if tag & DT_RELEASE_QUEUE_MAX_ID != 0 {
            return Err(dt_status::DT_ERR_RANGE);
        }
        let taken = with_queue(|queue| {
            let mut taken = 0;
            queue.retain(|&entry| {
                if taken < ids.len() && entry & TAG_MASK == tag {
                    ids[taken] = entry & DT_RELEASE_QUEUE_MAX_ID;
                    taken += 1;
                    return false;
                }
                true
            });
            taken
        });
        count.write(taken);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(tag: u64, id: u64) -> *mut c_void {
        (tag | id) as usize as *mut c_void
    }

    fn drain(tag: u64, cap: usize) -> Vec<u64> {
        let mut ids = vec![0; cap];
        let mut count = usize::MAX;
        assert_eq!(dt_release_queue_drain(tag, ids.as_mut_ptr(), cap, &mut count), dt_status::DT_OK);
        ids.truncate(count);
        ids
    }

    #[test]
    fn each_tag_drains_its_own_ids_in_order() {
        let (mut mine, mut theirs) = (0, 0);
        assert_eq!(dt_release_queue_new_tag(&mut mine), dt_status::DT_OK);
        assert_eq!(dt_release_queue_new_tag(&mut theirs), dt_status::DT_OK);
        assert!(mine != theirs && mine & DT_RELEASE_QUEUE_MAX_ID == 0 && mine != 0);
        for id in [3, DT_RELEASE_QUEUE_MAX_ID, 0, 7] {
            dt_release_queue_push(ctx(mine, id));
            dt_release_queue_push(ctx(theirs, id ^ 1));
        }
        assert_eq!(drain(mine, 3), [3, DT_RELEASE_QUEUE_MAX_ID, 0]);
        assert_eq!(drain(mine, 3), [7]);
        assert_eq!(drain(mine, 3), [] as [u64; 0]);
        assert_eq!(drain(theirs, 0), [] as [u64; 0]);
        assert_eq!(drain(theirs, 8), [2, DT_RELEASE_QUEUE_MAX_ID - 1, 1, 6]);
    }

    #[test]
    fn bad_arguments_give_a_status_and_drain_nothing() {
        let mut tag = 0;
        assert_eq!(dt_release_queue_new_tag(std::ptr::null_mut()), dt_status::DT_ERR_NULL);
        assert_eq!(dt_release_queue_new_tag(&mut tag), dt_status::DT_OK);
        dt_release_queue_push(ctx(tag, 9));
        let mut count = 0;
        let mut ids = [0u64; 2];
        assert_eq!(dt_release_queue_drain(tag, ids.as_mut_ptr(), 2, std::ptr::null_mut()), dt_status::DT_ERR_NULL);
        assert_eq!(dt_release_queue_drain(tag, std::ptr::null_mut(), 2, &mut count), dt_status::DT_ERR_NULL);
        assert_eq!(dt_release_queue_drain(tag | 1, ids.as_mut_ptr(), 2, &mut count), dt_status::DT_ERR_RANGE);
        assert_eq!(dt_release_queue_drain(tag, std::ptr::null_mut(), 0, &mut count), dt_status::DT_OK);
        assert_eq!(count, 0);
        assert_eq!(drain(tag, 2), [9]);
    }
}
