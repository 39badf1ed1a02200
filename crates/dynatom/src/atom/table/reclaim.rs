//! Epoch-based reclamation: lets a writer free what it unlinked (a swept block, a slot
//! array left behind by growth) only once no lock-free reader can still be looking at it.
//!
//! # How it works
//!
//! One process-wide epoch counter, and one record per thread that has ever read. A reader
//! [`pin`]s before it loads a shared pointer: it copies the epoch into its record, marked
//! active, then issues a `SeqCst` fence; dropping the [`Guard`] clears the record. A writer
//! that unlinks something [`Retired::retire`]s it, stamped with the epoch it read after the
//! unlink; [`Retired::collect`] tries to move the epoch one step (allowed only when every
//! active record shows the current epoch) and frees what was stamped at least two steps
//! back. A reader that could still hold an item is active with an epoch at most its stamp,
//! so the epoch cannot pass stamp + 1 until that reader is done.
//!
//! # Cost to a reader
//!
//! A pin writes nothing shared: it loads the epoch and stores into the thread's own record
//! (a thread-local announcement, on a cache line no other thread writes), then a fence; a
//! nested pin reads that record and writes nothing. A pin and its unpin touch the
//! thread-local once. The `SeqCst` fence is the price (on x86-64 LLVM emits a locked `or`
//! of zero to the stack, not an `mfence`; a `dmb ish` on aarch64): it orders the
//! announcement before the reader's loads without any store to a line that other threads
//! write. It is a real share of an intern's time, and the two ways around it lose: an
//! asymmetric pair (a compiler fence in the reader, Linux `membarrier` in the advance)
//! interrupts every running thread at each of the frequent advances, and a `SeqCst` swap of
//! the record is one locked instruction too. docs/design-history.md has the figures.
//!
//! # Why written here rather than taken from crossbeam-epoch or seize
//!
//! The project model-checks its lock-free paths with loom, through the `crate::sync` shim.
//! The reclaimer is the piece whose mistakes would be use-after-free, so it must be inside
//! the models ("lock-free hit vs last drop vs sweep"): crossbeam-epoch only supports loom
//! through its own `crossbeam_loom` cfg and loom build, and seize not at all. What the
//! table needs is small (one global epoch, no per-thread garbage bags: writers already hold
//! a shard lock and keep their own [`Retired`] list), so some 300 lines on `crate::sync` (comments included) that
//! loom checks were preferred to a dependency that the models could not see into.

use std::cell::{Cell, OnceCell};
use std::marker::PhantomData;
use std::ptr::NonNull;

use crate::error::StrError;
#[cfg(loom)]
use crate::sync::Arc;
use crate::sync::{AtomicUsize, Mutex, Ordering, fence, lock};

/// The epoch counter and every thread's record.
struct Domain {
    epoch: AtomicUsize,
    /// Every record ever made; a record is never freed while the domain lives (a thread
    /// that exits gives its record back for reuse), so a guard may point at one.
    records: Mutex<Vec<RecordRef>>,
}

/// A record, kept for as long as the domain lives: outside the models the domain is a
/// static, and its records are allocated once and never freed (made without `Arc` so
/// that running out of memory is an error, not an abort).
#[cfg(not(loom))]
type RecordRef = &'static Record;
#[cfg(loom)]
type RecordRef = Arc<Record>;

/// A new record, owned by its caller; `None` if memory ran out.
#[cfg(not(loom))]
fn new_record() -> Option<RecordRef> {
    let layout = std::alloc::Layout::new::<Record>();
    // SAFETY: `Record` is not zero-sized.
    let raw = NonNull::new(unsafe { std::alloc::alloc(layout) }.cast::<Record>())?;
    // SAFETY: a fresh allocation with `Record`'s layout, initialised here and never freed
    // (the domain that lists it lives as long as the process), so a shared reference to
    // it is valid for `'static`.
    unsafe {
        raw.as_ptr().write(Record { state: AtomicUsize::new(0), owned: AtomicUsize::new(1) });
        Some(&*raw.as_ptr())
    }
}

#[cfg(loom)]
fn new_record() -> Option<RecordRef> {
    Some(Arc::new(Record { state: AtomicUsize::new(0), owned: AtomicUsize::new(1) }))
}

/// What a failed registration reports.
const RECORD_ALLOC_FAILED: StrError = StrError::AllocFailed { size: std::mem::size_of::<Record>() };

/// One thread's announcement.
///
/// Aligned to a cache line so that a reader's store does not disturb its neighbours.
#[repr(align(64))]
struct Record {
    /// 0 when not pinned, else `epoch << 1 | ACTIVE`.
    state: AtomicUsize,
    /// 1 while a thread (or a guard) owns the record.
    owned: AtomicUsize,
}

const ACTIVE: usize = 1;

/// Taken by the tests that wait for the epoch to move and by the test whose readers stay
/// pinned nearly all the time, so that no waiting test runs beside those readers: under
/// valgrind, which runs one thread at a time, a waiting test ran out of its 20 s once.
#[cfg(all(test, not(loom)))]
pub(crate) fn long_pins_serial() -> std::sync::MutexGuard<'static, ()> {
    static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    SERIAL.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(not(loom))]
static DOMAIN: Domain = Domain { epoch: AtomicUsize::new(0), records: Mutex::new(Vec::new()) };

#[cfg(loom)]
loom::lazy_static! {
    static ref DOMAIN: Domain = Domain { epoch: AtomicUsize::new(0), records: Mutex::new(Vec::new()) };
}

/// The calling thread's record (null until its first pin). Every pin reads it, so it is
/// const-initialised and has no destructor: such a thread-local needs no liveness check
/// on access. Whether a pin is nested is read from the record itself (only its owner
/// thread writes its state), so a pin and its unpin touch the thread-local once.
struct Hot {
    record: Cell<*const Record>,
}

/// Owns the calling thread's record, and gives it back when the thread exits.
struct Owner {
    record: OnceCell<RecordRef>,
}

impl Drop for Owner {
    fn drop(&mut self) {
        let Some(record) = self.record.get() else { return };
        // A thread that exits with a guard still alive (only possible through another
        // thread-local's destructor) keeps its record for good: the guard will unpin it.
        // Otherwise later pins on this thread (from other destructors) take a record of
        // their own. The record goes back without the domain, which may be gone already
        // (loom drops its statics before the main thread's locals).
        let idle = record.state.load(Ordering::Relaxed) == 0;
        if idle {
            let _ = HOT.try_with(|hot| hot.record.set(std::ptr::null()));
        }
        if idle {
            record.owned.store(0, Ordering::Release);
        }
    }
}

#[cfg(not(loom))]
std::thread_local! {
    static HOT: Hot = const { Hot { record: Cell::new(std::ptr::null()) } };
    static OWNER: Owner = const { Owner { record: OnceCell::new() } };
}

#[cfg(loom)]
loom::thread_local! {
    static HOT: Hot = Hot { record: Cell::new(std::ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static OWNER: Owner = Owner { record: OnceCell::new() };
}

impl Domain {
    /// A record for a new owner: a free one if any, else a new one; `None` if memory for
    /// a new one ran out.
    fn try_register(&self) -> Option<RecordRef> {
        let mut records = lock(&self.records);
        // Acquire: the previous owner's last unpin happens before our use.
        let free = records
            .iter()
            .find(|record| record.owned.compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed).is_ok());
        if let Some(record) = free {
            return Some(RecordRef::clone(record));
        }
        records.try_reserve(1).ok()?;
        let record = new_record()?;
        records.push(RecordRef::clone(&record));
        Some(record)
    }

    /// [`try_register`](Self::try_register), aborting as any allocation does if memory
    /// ran out (fallible callers made sure of a record first, with [`ensure_registered`]).
    fn register(&self) -> RecordRef {
        self.try_register().unwrap_or_else(|| std::alloc::handle_alloc_error(std::alloc::Layout::new::<Record>()))
    }

    fn announce(&self, record: &Record) {
        // Acquire: if this load sees an epoch that a writer's advance produced, everything
        // that writer unlinked before advancing is visible to the loads after the pin.
        let epoch = self.epoch.load(Ordering::Acquire);
        record.state.store(epoch << 1 | ACTIVE, Ordering::Relaxed);
        // Orders the announcement before every load of a shared pointer that follows: a
        // writer whose unlink this reader misses sees the announcement (fence-fence rule).
        fence(Ordering::SeqCst);
    }

    fn withdraw(&self, record: &Record) {
        // Release: the reader's loads of retired memory happen before the writer that sees
        // the record clear (with Acquire) frees it.
        record.state.store(0, Ordering::Release);
    }

    /// The epoch after trying to move it one step forward.
    fn try_advance(&self) -> usize {
        let epoch = self.epoch.load(Ordering::SeqCst);
        // Pairs with the readers' fence: a reader pinned before this point is seen active.
        fence(Ordering::SeqCst);
        if !Self::all_at(&lock(&self.records), epoch) {
            return epoch;
        }
        self.advance_from(epoch)
    }

    /// Whether every active record shows `epoch`.
    fn all_at(records: &[RecordRef], epoch: usize) -> bool {
        records.iter().all(|record| {
            let state = record.state.load(Ordering::Acquire);
            state & ACTIVE == 0 || state >> 1 == epoch
        })
    }

    /// The epoch after moving it from `epoch` (unless another advance did first).
    fn advance_from(&self, epoch: usize) -> usize {
        match self.epoch.compare_exchange(epoch, epoch + 1, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => epoch + 1,
            Err(now) => now,
        }
    }

    /// The stamp for something unlinked before this call.
    fn stamp(&self) -> usize {
        // The unlink (any ordering) is sequenced before this fence; a reader whose pin is
        // later in the fence order sees the unlink, one earlier is seen by the advance.
        fence(Ordering::SeqCst);
        self.epoch.load(Ordering::SeqCst)
    }
}

/// Proof that the calling thread is pinned: shared pointers loaded while it lives stay
/// allocated (if their writers retire them through [`Retired`]) until it is dropped.
///
/// Not `Send`: the pin belongs to the thread's record. Keep guards short: while one lives,
/// nothing retired after its pin can be freed, in any table (memory waits; nothing
/// blocks).
pub(crate) struct Guard {
    /// The record it pinned (the domain keeps every record allocated).
    record: NonNull<Record>,
    /// What dropping the guard undoes.
    scope: Scope,
    _not_send: PhantomData<*const ()>,
}

/// Which pin a guard made.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// Inside another guard of the same thread: dropping it changes nothing.
    Nested,
    /// The thread's outermost pin: dropping it clears the announcement.
    Outermost,
    /// A record taken just for this guard, because the thread's locals are already being
    /// destroyed: dropping it clears the announcement and gives the record back.
    OwnRecord,
}

/// Pins the calling thread; see [`Guard`]. Nested pins are cheap (they read the thread's
/// own record and write nothing). A thread drops its guards in the reverse order of their
/// pins (every guard in the crate is a scoped local): the outermost unpin withdraws the
/// announcement.
#[inline]
pub(crate) fn pin() -> Guard {
    let Some(record) = NonNull::new(HOT.with(|hot| hot.record.get()).cast_mut()) else { return pin_first() };
    // SAFETY: the domain keeps every record allocated, and it outlives its users.
    let owned = unsafe { record.as_ref() };
    // Only this thread writes its record's state (its pins), so this reads its own last
    // store: non-zero while an outer guard of the thread lives.
    let scope = if owned.state.load(Ordering::Relaxed) == 0 {
        DOMAIN.announce(owned);
        Scope::Outermost
    } else {
        Scope::Nested
    };
    Guard { record, scope, _not_send: PhantomData }
}

/// The thread's first pin (or one made while its locals are being destroyed).
#[cold]
fn pin_first() -> Guard {
    let Some(registered) = register_thread() else { return pin_with_own_record() };
    HOT.with(|hot| hot.record.set(registered.as_ptr()));
    pin()
}

/// The thread's own record, taken on its first pin; `None` once its locals are gone.
#[cold]
fn register_thread() -> Option<NonNull<Record>> {
    OWNER.try_with(|owner| NonNull::from(&**owner.record.get_or_init(|| DOMAIN.register()))).ok()
}

/// Makes sure the calling thread's next pin allocates nothing: what the fallible paths
/// call before they pin, so that running out of memory for the thread's first record
/// is an error rather than an abort. Reads one thread-local once the thread has a record.
#[inline]
pub(crate) fn ensure_registered() -> Result<(), StrError> {
    if HOT.with(|hot| hot.record.get()).is_null() { register_fallibly() } else { Ok(()) }
}

#[cold]
fn register_fallibly() -> Result<(), StrError> {
    let registered = OWNER.try_with(|owner| {
        if owner.record.get().is_none() {
            let record = DOMAIN.try_register().ok_or(RECORD_ALLOC_FAILED)?;
            let _ = owner.record.set(record);
        }
        owner.record.get().map(|record| NonNull::from(&**record)).ok_or(RECORD_ALLOC_FAILED)
    });
    match registered {
        Ok(record) => {
            let record = record?;
            HOT.with(|hot| hot.record.set(record.as_ptr()));
            Ok(())
        }
        // The thread's locals are being destroyed: each pin takes a free record for
        // itself. Make sure there is one (another thread may still take it first).
        Err(_) => {
            let spare = DOMAIN.try_register().ok_or(RECORD_ALLOC_FAILED)?;
            spare.owned.store(0, Ordering::Release);
            Ok(())
        }
    }
}

/// A guard with a record of its own, for a thread whose locals are already destroyed.
#[cold]
// `RecordRef` is a plain reference outside loom and an `Arc` under it: one spelling for both.
#[allow(clippy::needless_borrow, clippy::borrow_deref_ref)]
fn pin_with_own_record() -> Guard {
    let own = DOMAIN.register();
    DOMAIN.announce(&own);
    Guard { record: NonNull::from(&*own), scope: Scope::OwnRecord, _not_send: PhantomData }
}

impl Drop for Guard {
    #[inline]
    fn drop(&mut self) {
        if self.scope == Scope::Nested {
            return;
        }
        // SAFETY: the domain keeps every record allocated, and it outlives its users.
        let record = unsafe { self.record.as_ref() };
        DOMAIN.withdraw(record);
        if self.scope == Scope::OwnRecord {
            record.owned.store(0, Ordering::Release);
        }
    }
}

/// The reclaimer's lock, held by the thread that forks across `fork()` (see
/// `table::shared`'s fork handlers), so that no record is being registered while the
/// process is copied.
#[cfg(not(loom))]
pub(crate) struct ForkHold {
    records: crate::sync::MutexGuard<'static, Vec<RecordRef>>,
}

#[cfg(not(loom))]
pub(crate) fn hold_for_fork() -> ForkHold {
    ForkHold { records: lock(&DOMAIN.records) }
}

#[cfg(not(loom))]
impl ForkHold {
    /// Releases the lock in a forked child, where only the forking thread lives: every
    /// other thread's record is cleared and given back, since its owner will never unpin
    /// (a reader pinned in the parent at the fork would otherwise hold the epoch, and so
    /// every later free in the child, for good). The forking thread holds no guard while
    /// it forks (guards live inside the crate's calls), so its own record is idle too.
    pub(crate) fn release_in_child(self) {
        let own = HOT.try_with(|hot| hot.record.get()).unwrap_or(std::ptr::null());
        for record in self.records.iter() {
            if !std::ptr::eq(&**record, own) {
                record.state.store(0, Ordering::Release);
                record.owned.store(0, Ordering::Release);
            }
        }
    }
}

/// How an item is freed: given the item and its list's context (see
/// [`Retired::with_context`]; null by default).
pub(crate) type Free = unsafe fn(NonNull<()>, *const ());

/// Something unlinked, waiting for readers to move on.
struct Item {
    ptr: NonNull<()>,
    free: Free,
    epoch: usize,
}

/// A writer's list of unlinked items, freed by [`Retired::collect`] once no reader can
/// hold them, and by dropping the list.
///
/// Each writer (a shard, under its lock) keeps its own; nothing here is shared, so the
/// list needs no synchronisation of its own.
pub(crate) struct Retired {
    items: Vec<Item>,
    /// The bytes each weighed burst holds, by stamp, oldest first: what the table reports
    /// and counts against its bound until the burst is freed. A burst is freed whole (one
    /// stamp serves all its items), so a weight per burst, not per item, is exact.
    weights: Vec<Weight>,
    /// The sum of `weights`.
    bytes: usize,
    /// What every item's `free` is given beside the item.
    context: *const (),
}

/// The bytes of the items retired under one stamp.
struct Weight {
    epoch: usize,
    bytes: usize,
}

// SAFETY: an item is only a pointer and a function that frees it; `retire`'s contract
// makes freeing from any thread sound.
unsafe impl Send for Retired {}

impl Default for Retired {
    fn default() -> Retired {
        Retired::with_context(std::ptr::null())
    }
}

impl Retired {
    /// An empty list whose items are each freed as `free(item, context)`.
    pub(crate) fn with_context(context: *const ()) -> Retired {
        Retired { items: Vec::new(), weights: Vec::new(), bytes: 0, context }
    }

    /// Queues `ptr` to be freed by `free(ptr)` once every reader pinned now is done.
    ///
    /// # Safety
    /// - `ptr` is no longer reachable by a reader that pins after this call (it was
    ///   unlinked before it), and is retired once;
    /// - `free(ptr)` is sound from any thread once no reader holds `ptr`;
    /// - this list is dropped only when no reader can hold any of its items (the owner
    ///   of the list outlives every reader of the structure the items were linked into).
    pub(crate) unsafe fn retire(&mut self, ptr: NonNull<()>, free: Free) {
        let epoch = DOMAIN.stamp();
        self.items.push(Item { ptr, free, epoch });
    }

    /// Queues a burst of items, each to be freed by its function once every reader pinned
    /// now is done. One stamp serves them all: each was unlinked before this call, which
    /// is all a stamp says (and a stamp each would cost a sweep a full fence per atom).
    ///
    /// # Safety
    /// As for [`Retired::retire`], for every item.
    ///
    /// `bytes` is what the burst holds, reported by [`Retired::bytes`] until it is freed.
    pub(crate) unsafe fn retire_all(
        &mut self,
        items: impl ExactSizeIterator<Item = (NonNull<()>, Free)>,
        bytes: usize,
    ) {
        if items.len() == 0 {
            return;
        }
        // Room for the burst at once (best effort): `collect` let go of the last one.
        let _ = self.items.try_reserve(items.len());
        let epoch = DOMAIN.stamp();
        self.items.extend(items.map(|(ptr, free)| Item { ptr, free, epoch }));
        match self.weights.last_mut() {
            Some(last) if last.epoch == epoch => last.bytes += bytes,
            _ => self.weights.push(Weight { epoch, bytes }),
        }
        self.bytes += bytes;
    }

    /// Frees what no reader can hold any more; returns how many items are still waiting.
    /// Moves the epoch at most one step, so an item needs two calls at least.
    pub(crate) fn collect(&mut self) -> usize {
        if self.items.is_empty() {
            return 0;
        }
        let epoch = DOMAIN.try_advance();
        self.free_stamped_before(epoch)
    }

    /// Frees what the epoch as it stands allows, without trying to move it: in the models,
    /// a free that relies on another thread's advance.
    #[cfg(all(test, loom))]
    pub(crate) fn collect_without_advancing(&mut self) -> usize {
        let epoch = DOMAIN.epoch.load(Ordering::SeqCst);
        self.free_stamped_before(epoch)
    }

    /// Frees the items stamped at least two steps before `epoch`; returns how many wait.
    fn free_stamped_before(&mut self, epoch: usize) -> usize {
        let context = self.context;
        self.items.retain(|item| {
            if item.epoch + 2 > epoch {
                return true;
            }
            // SAFETY: the epoch moved twice since the stamp, so every reader that could
            // have loaded `ptr` has unpinned (`retire`'s contract covers the rest).
            unsafe { (item.free)(item.ptr, context) };
            false
        });
        let mut freed_bytes = 0;
        self.weights.retain(|weight| {
            let waits = weight.epoch + 2 > epoch;
            if !waits {
                freed_bytes += weight.bytes;
            }
            waits
        });
        self.bytes -= freed_bytes;
        if self.items.is_empty() {
            // A burst of retirements (a big sweep) must not pin its list's peak size.
            self.items = Vec::new();
        }
        self.items.len()
    }

    /// How many items wait.
    pub(crate) fn len(&self) -> usize {
        self.items.len()
    }

    /// The bytes of the bursts that wait (items retired one at a time weigh nothing).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Retired {
    fn drop(&mut self) {
        for item in self.items.drain(..) {
            // SAFETY: `retire`'s contract: the list is dropped only when no reader can
            // hold its items.
            unsafe { (item.free)(item.ptr, self.context) };
        }
    }
}

/// The current epoch, for tests.
#[cfg(all(test, not(loom)))]
fn current_epoch() -> usize {
    DOMAIN.epoch.load(Ordering::SeqCst)
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize as StdCounter;

    static FREED: StdCounter = StdCounter::new(0);

    unsafe fn count_and_free(ptr: NonNull<()>, _: *const ()) {
        // SAFETY: made by `Box::into_raw` in `boxed` below, freed once.
        drop(unsafe { Box::from_raw(ptr.cast::<u64>().as_ptr()) });
        FREED.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    fn boxed(value: u64) -> NonNull<()> {
        NonNull::from(Box::leak(Box::new(value))).cast()
    }

    #[test]
    fn an_item_waits_while_a_reader_is_pinned_and_goes_after() {
        let _serial = long_pins_serial();
        let mut retired = Retired::default();
        let (pinned_tx, pinned_rx) = std::sync::mpsc::channel();
        let (release, release_rx) = std::sync::mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            let guard = pin();
            pinned_tx.send(()).unwrap();
            release_rx.recv().unwrap();
            drop(guard);
        });
        pinned_rx.recv().unwrap();
        // SAFETY: the box is reachable from nowhere; `count_and_free` frees it.
        unsafe { retired.retire(boxed(1), count_and_free) };
        for _ in 0..10 {
            retired.collect();
        }
        assert_eq!(retired.len(), 1, "a reader pinned before the retire holds it back");
        release.send(()).unwrap();
        handle.join().unwrap();
        // Other tests' pins are short, but on a loaded machine their threads may sleep
        // while pinned: give them seconds, not a count of yields.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while retired.collect() > 0 {
            assert!(std::time::Instant::now() < deadline, "other tests' pins are short; the item must go");
            std::thread::yield_now();
        }
        assert_eq!(retired.len(), 0);
    }

    #[test]
    fn dropping_the_list_frees_what_waits() {
        let before = FREED.load(std::sync::atomic::Ordering::SeqCst);
        let mut retired = Retired::default();
        let _guard = pin();
        // SAFETY: as above; this test's own pin is dropped after the list.
        unsafe { retired.retire(boxed(2), count_and_free) };
        // SAFETY: as above.
        unsafe { retired.retire(boxed(3), count_and_free) };
        retired.collect();
        assert_eq!(retired.len(), 2, "our own pin holds them");
        drop(retired);
        assert!(FREED.load(std::sync::atomic::Ordering::SeqCst) >= before + 2);
    }

    #[test]
    fn a_burst_waits_for_a_pin_as_one_and_goes_as_one() {
        let _serial = long_pins_serial();
        let mut retired = Retired::default();
        // SAFETY: an empty burst retires nothing.
        unsafe { retired.retire_all(std::iter::empty(), 0) };
        assert_eq!((retired.len(), retired.bytes()), (0, 0), "an empty burst queues nothing");
        let guard = pin();
        let burst = [boxed(4), boxed(5), boxed(6)].map(|ptr| (ptr, count_and_free as Free));
        // SAFETY: as above: the boxes are reachable from nowhere, each freed once.
        unsafe { retired.retire_all(burst.into_iter(), 24) };
        for _ in 0..5 {
            retired.collect();
        }
        assert_eq!((retired.len(), retired.bytes()), (3, 24), "our pin, older than the burst, holds all of it");
        drop(guard);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while retired.collect() > 0 {
            assert!(std::time::Instant::now() < deadline, "other tests' pins are short; the burst must go");
            std::thread::yield_now();
        }
        assert_eq!(retired.bytes(), 0, "its weight goes with it");
    }

    #[test]
    fn nested_pins_share_one_announcement() {
        let outer = pin();
        let inner = pin();
        assert!(outer.scope == Scope::Outermost && inner.scope == Scope::Nested);
        // SAFETY: records outlive the domain's users.
        let state = || unsafe { outer.record.as_ref() }.state.load(Ordering::Relaxed);
        assert_eq!(state() & ACTIVE, ACTIVE);
        drop(inner);
        assert_eq!(state() & ACTIVE, ACTIVE, "still pinned by the outer guard");
        let record = outer.record;
        drop(outer);
        // SAFETY: as above.
        assert_eq!(unsafe { record.as_ref() }.state.load(Ordering::Relaxed), 0, "the outermost unpin withdraws");
    }

    #[test]
    fn the_epoch_moves_when_nobody_lags() {
        let _serial = long_pins_serial();
        let start = current_epoch();
        let mut moved = false;
        for _ in 0..1000 {
            if DOMAIN.try_advance() > start {
                moved = true;
                break;
            }
            std::thread::yield_now();
        }
        assert!(moved);
    }

    #[test]
    fn exited_threads_give_their_records_back() {
        // Other tests pin on threads of their own and may take a given-back record before
        // this test looks (under valgrind, which runs one thread at a time, that happened):
        // so look for the exited thread's own record being free in any of a few tries.
        // Without the give-back it is never free.
        let given_back = (0..16).any(|_| {
            let record = std::thread::spawn(|| {
                drop(pin());
                HOT.with(|hot| hot.record.get() as usize)
            })
            .join()
            .unwrap();
            let records = lock(&DOMAIN.records);
            records.iter().any(|other| {
                std::ptr::from_ref::<Record>(&**other) as usize == record && other.owned.load(Ordering::Relaxed) == 0
            })
        });
        assert!(given_back, "the record of an exited thread is free for reuse");
        assert!(lock(&DOMAIN.records).len() < 64, "records are reused, not one per thread ever started");
    }
}
