//! Iterators over a [`SmallMap`]'s entries, all in insertion order. They wrap slice and
//! vector iterators, so they are exact-size, double-ended and fused.

use std::iter::FusedIterator;
use std::{slice, vec};

use super::map::SmallMap;

/// Defines an iterator wrapping a slice or vector iterator, with its trait impls.
macro_rules! entry_iterator {
    (
        $(#[$doc:meta])*
        $name:ident<$($lt:lifetime,)? K, V>($inner:ty) -> $item:ty, |$entry:pat_param| $map:expr_2021
    ) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name<$($lt,)? K, V> {
            inner: $inner,
        }

        impl<$($lt,)? K, V> Iterator for $name<$($lt,)? K, V> {
            type Item = $item;

            #[inline]
            fn next(&mut self) -> Option<$item> {
                self.inner.next().map(|$entry| $map)
            }

            fn size_hint(&self) -> (usize, Option<usize>) {
                self.inner.size_hint()
            }
        }

        impl<$($lt,)? K, V> DoubleEndedIterator for $name<$($lt,)? K, V> {
            fn next_back(&mut self) -> Option<$item> {
                self.inner.next_back().map(|$entry| $map)
            }
        }

        impl<$($lt,)? K, V> ExactSizeIterator for $name<$($lt,)? K, V> {}
        impl<$($lt,)? K, V> FusedIterator for $name<$($lt,)? K, V> {}
    };
}

entry_iterator! {
    /// The entries, by reference: from [`SmallMap::iter`].
    ///
    /// ```
    /// let map: dynatom::SmallMap<&str, u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.iter().next(), Some((&"a", &1)));
    /// ```
    Iter<'a, K, V>(slice::Iter<'a, (K, V)>) -> (&'a K, &'a V), |(key, value)| (key, value)
}

entry_iterator! {
    /// The entries with mutable values: from [`SmallMap::iter_mut`].
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<&str, u8> = [("a", 1)].into_iter().collect();
    /// for (_, value) in map.iter_mut() {
    ///     *value = 2;
    /// }
    /// assert_eq!(map.get("a"), Some(&2));
    /// ```
    IterMut<'a, K, V>(slice::IterMut<'a, (K, V)>) -> (&'a K, &'a mut V), |(key, value)| (&*key, value)
}

entry_iterator! {
    /// The keys: from [`SmallMap::keys`].
    ///
    /// ```
    /// let map: dynatom::SmallMap<&str, u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.keys().len(), 1);
    /// ```
    Keys<'a, K, V>(slice::Iter<'a, (K, V)>) -> &'a K, |(key, _)| key
}

entry_iterator! {
    /// The values: from [`SmallMap::values`].
    ///
    /// ```
    /// let map: dynatom::SmallMap<&str, u8> = [("a", 1)].into_iter().collect();
    /// assert_eq!(map.values().next(), Some(&1));
    /// ```
    Values<'a, K, V>(slice::Iter<'a, (K, V)>) -> &'a V, |(_, value)| value
}

entry_iterator! {
    /// The values, mutable: from [`SmallMap::values_mut`].
    ///
    /// ```
    /// let mut map: dynatom::SmallMap<&str, u8> = [("a", 1)].into_iter().collect();
    /// *map.values_mut().next().unwrap() = 5;
    /// assert_eq!(map.get("a"), Some(&5));
    /// ```
    ValuesMut<'a, K, V>(slice::IterMut<'a, (K, V)>) -> &'a mut V, |(_, value)| value
}

entry_iterator! {
    /// The entries, by value: from `SmallMap::into_iter`.
    ///
    /// ```
    /// let map: dynatom::SmallMap<String, u8> = [("a".to_string(), 1)].into_iter().collect();
    /// assert_eq!(map.into_iter().collect::<Vec<_>>(), [("a".to_string(), 1)]);
    /// ```
    IntoIter<K, V>(vec::IntoIter<(K, V)>) -> (K, V), |entry| entry
}

impl<'a, K, V> Iter<'a, K, V> {
    pub(crate) fn new(entries: &'a [(K, V)]) -> Self {
        Iter { inner: entries.iter() }
    }
}

impl<'a, K, V> IterMut<'a, K, V> {
    pub(crate) fn new(entries: &'a mut [(K, V)]) -> Self {
        IterMut { inner: entries.iter_mut() }
    }
}

impl<'a, K, V> Keys<'a, K, V> {
    pub(crate) fn new(entries: &'a [(K, V)]) -> Self {
        Keys { inner: entries.iter() }
    }
}

impl<'a, K, V> Values<'a, K, V> {
    pub(crate) fn new(entries: &'a [(K, V)]) -> Self {
        Values { inner: entries.iter() }
    }
}

impl<'a, K, V> ValuesMut<'a, K, V> {
    pub(crate) fn new(entries: &'a mut [(K, V)]) -> Self {
        ValuesMut { inner: entries.iter_mut() }
    }
}

// Shared iterators can be cloned without `K: Clone` or `V: Clone`.
impl<K, V> Clone for Iter<'_, K, V> {
    fn clone(&self) -> Self {
        Iter { inner: self.inner.clone() }
    }
}

impl<K, V> Clone for Keys<'_, K, V> {
    fn clone(&self) -> Self {
        Keys { inner: self.inner.clone() }
    }
}

impl<K, V> Clone for Values<'_, K, V> {
    fn clone(&self) -> Self {
        Values { inner: self.inner.clone() }
    }
}

impl<K, V> IntoIterator for SmallMap<K, V> {
    type Item = (K, V);
    type IntoIter = IntoIter<K, V>;

    fn into_iter(self) -> IntoIter<K, V> {
        IntoIter { inner: self.into_entries().into_iter() }
    }
}

impl<'a, K, V> IntoIterator for &'a SmallMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = Iter<'a, K, V>;

    fn into_iter(self) -> Iter<'a, K, V> {
        self.iter()
    }
}

impl<'a, K, V> IntoIterator for &'a mut SmallMap<K, V> {
    type Item = (&'a K, &'a mut V);
    type IntoIter = IterMut<'a, K, V>;

    fn into_iter(self) -> IterMut<'a, K, V> {
        self.iter_mut()
    }
}
