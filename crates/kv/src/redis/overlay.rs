//! The writer's pending changes: an ordered overlay per table, sent to the server in one script
//! call at commit and simply dropped on rollback.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Bound;

use crate::range::KeyRange;

/// Pending changes of one table.
#[derive(Debug, Default)]
pub(crate) struct TableOverlay {
    /// `Some(value)` = put, `None` = delete; ordered, so scans merge it in key order.
    pub changes: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
    /// Keys put with `insert`: the commit fails if any of them exists on the server.
    pub must_be_absent: BTreeSet<Vec<u8>>,
    /// Preconditions on committed keys (`require_absent`: `None`, `require_value`: the bytes),
    /// checked by the commit script before anything is applied.
    pub required: BTreeMap<Vec<u8>, Option<Vec<u8>>>,
}

/// What `insert` found in the overlay.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Inserted {
    /// Recorded; the key is checked for absence on the server at commit.
    Deferred,
    /// The key had a pending delete in this transaction: a plain put, nothing to check.
    AfterDelete,
    /// The key already has a pending put in this transaction: a duplicate, nothing recorded.
    Duplicate,
}

impl TableOverlay {
    /// The pending change for `key`: `Some(Some(v))` put, `Some(None)` deleted, `None` untouched.
    pub fn get(&self, key: &[u8]) -> Option<Option<&[u8]>> {
        self.changes.get(key).map(|change| change.as_deref())
    }

    /// Put-if-absent, as far as this transaction knows.
    pub fn insert(&mut self, key: &[u8], value: &[u8]) -> Inserted {
        match self.changes.get_mut(key) {
            Some(Some(_)) => Inserted::Duplicate,
            Some(pending @ None) => {
                *pending = Some(value.to_vec());
                Inserted::AfterDelete
            }
            None => {
                self.changes.insert(key.to_vec(), Some(value.to_vec()));
                self.must_be_absent.insert(key.to_vec());
                Inserted::Deferred
            }
        }
    }

    /// Overwrite.
    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        match self.changes.get_mut(key) {
            Some(pending) => *pending = Some(value.to_vec()),
            None => {
                self.changes.insert(key.to_vec(), Some(value.to_vec()));
            }
        }
    }

    /// Delete (whether or not the server holds the key).
    pub fn delete(&mut self, key: &[u8]) {
        match self.changes.get_mut(key) {
            Some(pending) => *pending = None,
            None => {
                self.changes.insert(key.to_vec(), None);
            }
        }
    }

    /// Whether the table has nothing to send at commit.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.must_be_absent.is_empty() && self.required.is_empty()
    }

    /// Pending changes whose keys fall in `range`, in key order.
    pub fn range<'a>(
        &'a self,
        range: &'a KeyRange,
    ) -> impl Iterator<Item = (&'a Vec<u8>, &'a Option<Vec<u8>>)> + 'a {
        let end = match &range.end {
            Some(end) => Bound::Excluded(end.as_slice()),
            None => Bound::Unbounded,
        };
        let bounds = (Bound::Included(range.start.as_slice()), end);
        // `BTreeMap::range` panics on start > end; such a range is simply empty.
        let valid = range
            .end
            .as_deref()
            .is_none_or(|end| range.start.as_slice() <= end);
        valid
            .then(|| self.changes.range::<[u8], _>(bounds))
            .into_iter()
            .flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn insert_put_delete_sequences() {
        let mut t = TableOverlay::default();
        assert_eq!(t.insert(b"k", b"1"), Inserted::Deferred);
        assert_eq!(t.insert(b"k", b"2"), Inserted::Duplicate);
        assert_eq!(t.get(b"k"), Some(Some(&b"1"[..])));
        t.delete(b"k");
        assert_eq!(t.get(b"k"), Some(None));
        assert_eq!(t.insert(b"k", b"3"), Inserted::AfterDelete);
        // The first insert's absence check stays: an eager backend would have refused it.
        assert!(t.must_be_absent.contains(&b"k"[..]));
        t.delete(b"x");
        assert_eq!(t.insert(b"x", b"4"), Inserted::AfterDelete);
        assert!(!t.must_be_absent.contains(&b"x"[..]));
        let reversed = KeyRange::between(b"z", b"a");
        assert_eq!(t.range(&reversed).count(), 0);
        assert_eq!(t.range(&KeyRange::all()).count(), 2);
    }
}
