//! The store-counting build (`RUSTFLAGS="--cfg dynatom_count_stores"`, run by
//! `scripts/store-count-tests`): the atomics every shared structure takes from
//! [`crate::sync`] become these, which note the address of every write they make (a store,
//! a swap, a read-modify-write, a compare-and-swap whether it succeeds or not, since a
//! failed `lock cmpxchg` still claims its cache line) in a list of the writing thread's own
//! while [`record`] runs. Tests then say where a path wrote: a hit of a permanent atom must
//! write nothing to the atom or its table, which no wall-clock or instruction count shows.
//!
//! Loads, `get_mut` and `into_inner` write nothing shared and are not noted.

use std::cell::RefCell;
use std::fmt;
use std::sync::atomic as std_atomic;

pub(crate) use std_atomic::{Ordering, fence};

std::thread_local! {
    static WRITES: RefCell<Option<Vec<usize>>> = const { RefCell::new(None) };
}

/// Runs `work` and returns what it returned with the addresses its thread's atomics wrote
/// to, in order, one entry per write.
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn record<R>(work: impl FnOnce() -> R) -> (R, Vec<usize>) {
    WRITES.with(|writes| *writes.borrow_mut() = Some(Vec::new()));
    let result = work();
    let written = WRITES.with(|writes| writes.borrow_mut().take()).unwrap_or_default();
    (result, written)
}

#[inline]
fn note<T>(atomic: &T) {
    let address = std::ptr::from_ref(atomic).addr();
    // A thread whose locals are gone records nothing.
    let _ = WRITES.try_with(|writes| {
        if let Ok(mut writes) = writes.try_borrow_mut()
            && let Some(list) = writes.as_mut()
        {
            list.push(address);
        }
    });
}

/// The methods every noted atomic has, over a value of type `$value`.
macro_rules! noted_methods {
    ($value:ty) => {
        #[inline]
        pub(crate) fn load(&self, order: Ordering) -> $value {
            self.0.load(order)
        }

        #[inline]
        pub(crate) fn store(&self, value: $value, order: Ordering) {
            note(self);
            self.0.store(value, order)
        }

        #[inline]
        pub(crate) fn swap(&self, value: $value, order: Ordering) -> $value {
            note(self);
            self.0.swap(value, order)
        }

        #[inline]
        pub(crate) fn compare_exchange(
            &self,
            current: $value,
            new: $value,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$value, $value> {
            note(self);
            self.0.compare_exchange(current, new, success, failure)
        }

        #[inline]
        pub(crate) fn compare_exchange_weak(
            &self,
            current: $value,
            new: $value,
            success: Ordering,
            failure: Ordering,
        ) -> Result<$value, $value> {
            note(self);
            self.0.compare_exchange_weak(current, new, success, failure)
        }

        #[inline]
        pub(crate) fn get_mut(&mut self) -> &mut $value {
            self.0.get_mut()
        }

        #[inline]
        pub(crate) fn into_inner(self) -> $value {
            self.0.into_inner()
        }

        #[inline]
        pub(crate) fn as_ptr(&self) -> *mut $value {
            self.0.as_ptr()
        }
    };
}

/// Read-modify-write methods `$op(value, order)` over a value of type `$value`.
macro_rules! noted_read_modify_writes {
    ($value:ty; $($op:ident),*) => {
        $(
            #[inline]
            pub(crate) fn $op(&self, value: $value, order: Ordering) -> $value {
                note(self);
                self.0.$op(value, order)
            }
        )*
    };
}

/// A noted atomic named as `std`'s, over `$value`; integers get the arithmetic too.
macro_rules! noted_atomic {
    ($name:ident, $value:ty $(, $op:ident)*) => {
        /// As the `std` atomic of the same name, noting each write (see the module docs).
        #[repr(transparent)]
        #[derive(Default)]
        pub(crate) struct $name(std_atomic::$name);

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.0, f)
            }
        }

        #[allow(dead_code)]
        impl $name {
            pub(crate) const fn new(value: $value) -> Self {
                Self(std_atomic::$name::new(value))
            }

            noted_methods!($value);
            noted_read_modify_writes!($value; $($op),*);
        }
    };
}

noted_atomic!(AtomicBool, bool);
noted_atomic!(AtomicU32, u32, fetch_add, fetch_sub, fetch_or, fetch_and, fetch_max);
noted_atomic!(AtomicU64, u64, fetch_add, fetch_sub, fetch_or, fetch_and, fetch_max);
noted_atomic!(AtomicUsize, usize, fetch_add, fetch_sub, fetch_or, fetch_and, fetch_max);

/// As `std`'s `AtomicPtr`, noting each write (see the module docs).
#[repr(transparent)]
pub(crate) struct AtomicPtr<T>(std_atomic::AtomicPtr<T>);

impl<T> Default for AtomicPtr<T> {
    fn default() -> Self {
        Self(std_atomic::AtomicPtr::default())
    }
}

impl<T> fmt::Debug for AtomicPtr<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

#[allow(dead_code)]
impl<T> AtomicPtr<T> {
    pub(crate) const fn new(value: *mut T) -> Self {
        Self(std_atomic::AtomicPtr::new(value))
    }

    noted_methods!(*mut T);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_of_write_is_noted_and_loads_are_not() {
        let count = AtomicU32::new(1);
        let pointer = AtomicPtr::<u8>::new(std::ptr::null_mut());
        let ((), written) = record(|| {
            count.load(Ordering::Relaxed);
            count.fetch_add(1, Ordering::Relaxed);
            let _ = count.compare_exchange(7, 8, Ordering::Relaxed, Ordering::Relaxed);
            pointer.store(std::ptr::null_mut(), Ordering::Relaxed);
            pointer.load(Ordering::Relaxed);
        });
        let count_at = std::ptr::from_ref(&count).addr();
        let pointer_at = std::ptr::from_ref(&pointer).addr();
        assert_eq!(written, vec![count_at, count_at, pointer_at], "the failed compare-and-swap counts");
        let ((), outside) = record(|| {});
        assert!(outside.is_empty());
    }
}
