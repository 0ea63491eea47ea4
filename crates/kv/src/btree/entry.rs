//! [`Entry`]: one stored key and its value in a single allocation, ordered by the key's bytes,
//! and [`Probe`], a borrowed key to look entries up by with the same fast comparison.
//!
//! The module's `unsafe` (an entry owns its bytes through a raw pointer) passes Miri under both
//! Stacked and Tree Borrows: `MIRIFLAGS=-Zmiri-disable-isolation cargo +nightly miri test -p
//! triebench-kv --lib --no-default-features btree` (add `-Zmiri-tree-borrows` for the latter).
//! `scripts/test.sh` runs this module's tests and the store's fold tests so whenever a nightly
//! toolchain with Miri is installed (~25 s; the three model proptests take many minutes).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::marker::PhantomData;
use std::ptr::NonNull;

/// A key's first 8 bytes as a big-endian integer, zero-padded, next to where its bytes are:
/// what a search compares. `a.head < b.head` implies `a < b` in byte order, whatever the
/// lengths, so only keys with equal heads compare bytes (the trie's keys are 64-byte hashes,
/// which almost always differ in their first 8). Comparing an [`Entry`] therefore rarely
/// follows its pointer, and a lookup by [`Probe`] compares the same way (a lookup by `&[u8]`
/// would read every entry's heap bytes it passes).
///
/// Only ever seen behind a reference borrowed from an [`Entry`] or a [`Probe`], which keep
/// `ptr` valid (and the bytes unchanged) for as long as that reference lives: it is neither
/// `Clone` nor constructible outside this module.
#[derive(Debug)]
pub(super) struct KeyRef {
    head: u64,
    /// The key's bytes (in an entry, followed by the value's).
    ptr: NonNull<u8>,
    key_len: u32,
    /// In an entry, the value's length (its bytes follow the key's); 0 in a probe.
    value_len: u32,
}

impl KeyRef {
    fn of(key: &[u8], key_len: u32, value_len: u32, ptr: NonNull<u8>) -> KeyRef {
        let mut head = [0u8; 8];
        let n = key.len().min(8);
        head[..n].copy_from_slice(&key[..n]);
        KeyRef {
            head: u64::from_be_bytes(head),
            ptr,
            key_len,
            value_len,
        }
    }

    /// The key's bytes.
    pub(super) fn key(&self) -> &[u8] {
        // SAFETY: `ptr` points at `key_len` initialised bytes that outlive `self` (see the type's
        // docs: every `KeyRef` lives inside an `Entry` or a `Probe` that guarantees it).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.key_len as usize) }
    }
}

impl Ord for KeyRef {
    fn cmp(&self, other: &Self) -> Ordering {
        self.head
            .cmp(&other.head)
            .then_with(|| self.key().cmp(other.key()))
    }
}

impl PartialOrd for KeyRef {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for KeyRef {
    fn eq(&self, other: &Self) -> bool {
        self.head == other.head && self.key() == other.key()
    }
}

impl Eq for KeyRef {}

/// A key and its value stored back to back in one heap allocation, so a put allocates once and
/// a lookup finds the value beside the key it compared. Ordered (and equal) by the key alone,
/// exactly as the key's bytes are, so lookups by `&[u8]` or by [`Probe`] agree.
#[derive(Debug)]
pub(super) struct Entry {
    /// `key.ptr` is the start of a leaked `Box<[u8]>` of `key_len + value_len` bytes, which
    /// `drop` frees.
    key: KeyRef,
}

// The size the table's B-tree nodes are laid out for (see `Entry::new`).
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<Entry>() == 24);

// SAFETY: an entry owns its allocation outright (as a `Box<[u8]>` would) and hands out only
// shared references to its bytes.
unsafe impl Send for Entry {}
// SAFETY: as above; nothing mutates the bytes through `&Entry`.
unsafe impl Sync for Entry {}

impl Entry {
    /// `key` holding `value`; `None` if either is over 4 GiB (an entry keeps their lengths
    /// as `u32`, which keeps it 24 bytes: a third more of them in each B-tree node's cache
    /// lines than at 32).
    pub(super) fn new(key: &[u8], value: &[u8]) -> Option<Entry> {
        let key_len = u32::try_from(key.len()).ok()?;
        let value_len = u32::try_from(value.len()).ok()?;
        Some(Entry::of_lengths(key, value, key_len, value_len))
    }

    /// `key` holding `value`, whose lengths are `key_len` and `value_len`.
    fn of_lengths(key: &[u8], value: &[u8], key_len: u32, value_len: u32) -> Entry {
        let mut bytes = Vec::with_capacity(key.len() + value.len());
        bytes.extend_from_slice(key);
        bytes.extend_from_slice(value);
        let raw = Box::into_raw(bytes.into_boxed_slice());
        // SAFETY: `Box::into_raw` never returns null (an empty box's pointer is dangling but
        // non-null).
        let ptr = unsafe { NonNull::new_unchecked(raw.cast::<u8>()) };
        Entry {
            key: KeyRef::of(key, key_len, value_len, ptr),
        }
    }

    fn len(&self) -> usize {
        self.key.key_len as usize + self.key.value_len as usize
    }

    fn bytes(&self) -> &[u8] {
        // SAFETY: the allocation `Entry::new` leaked: `len` initialised bytes, freed only by
        // `drop`.
        unsafe { std::slice::from_raw_parts(self.key.ptr.as_ptr(), self.len()) }
    }

    pub(super) fn key(&self) -> &[u8] {
        self.key.key()
    }

    pub(super) fn value(&self) -> &[u8] {
        &self.bytes()[self.key.key_len as usize..]
    }
}

impl Drop for Entry {
    fn drop(&mut self) {
        let raw = std::ptr::slice_from_raw_parts_mut(self.key.ptr.as_ptr(), self.len());
        // SAFETY: rebuilds the box `Entry::new` leaked, once: `drop` runs once and nothing
        // else frees it.
        drop(unsafe { Box::from_raw(raw) });
    }
}

impl Clone for Entry {
    fn clone(&self) -> Self {
        Entry::of_lengths(
            self.key(),
            self.value(),
            self.key.key_len,
            self.key.value_len,
        )
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key.cmp(&other.key)
    }
}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Equal keys, whatever the values: the order's equality, as `Ord` requires.
impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key
    }
}

impl Eq for Entry {}

/// For range bounds given as byte slices (scans); point lookups use [`Probe`].
impl Borrow<[u8]> for Entry {
    fn borrow(&self) -> &[u8] {
        self.key()
    }
}

impl Borrow<KeyRef> for Entry {
    fn borrow(&self) -> &KeyRef {
        &self.key
    }
}

/// A key to look entries up by (`set.get(probe.key())`): compared head first, as
/// entries compare among themselves, where a lookup by `&[u8]` compares whole slices and so
/// reads the heap bytes of every entry it passes.
#[derive(Debug)]
pub(super) struct Probe<'k> {
    key: KeyRef,
    _borrows: PhantomData<&'k [u8]>,
}

impl<'k> Probe<'k> {
    /// A probe for `key`; `None` if it is over 4 GiB, which no entry's key is.
    pub(super) fn new(key: &'k [u8]) -> Option<Probe<'k>> {
        let key_len = u32::try_from(key.len()).ok()?;
        let ptr = NonNull::from(key).cast::<u8>();
        Some(Probe {
            key: KeyRef::of(key, key_len, 0, ptr),
            _borrows: PhantomData,
        })
    }

    /// The key, as entries borrow theirs.
    pub(super) fn key(&self) -> &KeyRef {
        &self.key
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// An entry's order is the order of its key's bytes, whatever their lengths and values,
        /// and a probe finds exactly the entries with its key.
        #[test]
        fn entry_order_is_key_byte_order(
            a in proptest::collection::vec(0u8..2, 0..12),
            b in proptest::collection::vec(0u8..2, 0..12),
            va in proptest::collection::vec(any::<u8>(), 0..4),
            vb in proptest::collection::vec(any::<u8>(), 0..4),
        ) {
            let (ea, eb) = (Entry::new(&a, &va).unwrap(), Entry::new(&b, &vb).unwrap());
            prop_assert_eq!(ea.cmp(&eb), a.cmp(&b));
            prop_assert_eq!(ea == eb, a == b);
            prop_assert_eq!((ea.key(), ea.value()), (&a[..], &va[..]));
            prop_assert_eq!(Probe::new(&a).unwrap().key().cmp(eb.borrow()), a.cmp(&b));
            let clone = ea.clone();
            prop_assert_eq!((clone.key(), clone.value()), (&a[..], &va[..]));
        }

        /// Looking a key up by probe and by slice agree, in a set of entries.
        #[test]
        fn probe_and_slice_lookups_agree(
            keys in proptest::collection::vec(proptest::collection::vec(0u8..3, 0..10), 0..60),
            wanted in proptest::collection::vec(0u8..3, 0..10),
        ) {
            let set: BTreeSet<Entry> = keys.iter().map(|k| Entry::new(k, &[k.len() as u8]).unwrap()).collect();
            let by_probe = set.get(Probe::new(&wanted).unwrap().key()).map(Entry::value);
            let by_slice = set.get(&wanted[..]).map(Entry::value);
            prop_assert_eq!(by_probe, by_slice);
            prop_assert_eq!(by_probe.is_some(), keys.contains(&wanted));
        }
    }
}
