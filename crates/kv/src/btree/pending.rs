//! [`Pending`]: one table's changes on top of the tables below them (a writer's overlay, or a
//! committed layer that readers still see beneath later commits), and [`apply`], which folds
//! such changes into a table in place.

use std::collections::BTreeSet;

use super::entry::{Entry, KeyRef};

/// A table: its entries, ordered by key.
pub(super) type Map = BTreeSet<Entry>;

/// One table's changes: puts, and deletes. A key is in at most one of the two. A writer only
/// records deletes of keys its snapshot holds; a merged layer may keep a delete of a key that
/// an older layer put and a newer one deleted, which hides nothing and removes nothing.
/// Keeping the puts in a map of their own lets a large commit merge them into the table as
/// they are.
#[derive(Debug, Default, Clone)]
pub(super) struct Pending {
    pub(super) puts: Map,
    /// Value-less entries.
    pub(super) deletes: BTreeSet<Entry>,
}

impl Pending {
    /// Puts `entry`, replacing a pending put of its key and cancelling a pending delete.
    pub(super) fn put(&mut self, entry: Entry) {
        if !self.deletes.is_empty() {
            self.deletes.remove(&entry);
        }
        self.puts.replace(entry);
    }

    /// What these changes say of `key`: `Some(Some(entry))` if put, `Some(None)` if deleted,
    /// `None` if untouched (look further down).
    pub(super) fn find(&self, key: &KeyRef) -> Option<Option<&Entry>> {
        if !self.puts.is_empty() {
            if let Some(e) = self.puts.get(key) {
                return Some(Some(e));
            }
        }
        if !self.deletes.is_empty() && self.deletes.contains(key) {
            return Some(None);
        }
        None
    }

    /// How many changes these are: what a layer costs to look through and to copy.
    pub(super) fn len(&self) -> usize {
        self.puts.len() + self.deletes.len()
    }

    /// Takes `newer`'s changes on top of these: its puts replace, its deletes hide.
    pub(super) fn absorb(&mut self, newer: Pending) {
        for key in newer.deletes {
            self.puts.remove(&key);
            self.deletes.insert(key);
        }
        for e in newer.puts {
            self.put(e);
        }
    }
}

/// Applies one table's pending changes to its committed map. Key by key costs a search per
/// change; merging the puts in one ordered pass (`append`) costs a pass over both, which is
/// cheaper once they are a sizeable fraction of the map (a bulk load). When the map is the far
/// smaller side (a bulk load into a near-empty table), its entries go into the puts instead.
pub(super) fn apply(map: &mut Map, pending: Pending) {
    let Pending { mut puts, deletes } = pending;
    for key in &deletes {
        map.remove(key);
    }
    if puts.len() < 16 || puts.len() < map.len() / 4 {
        for e in puts {
            map.replace(e);
        }
    } else if map.len() <= puts.len() / 16 {
        absorb_small_table(map, puts);
    } else {
        // On equal keys a set's `append` keeps the receiver's element, so the pending puts
        // receive the committed entries: the pending change wins.
        puts.append(map);
        std::mem::swap(map, &mut puts);
    }
}

/// Makes `puts` the table, with the few entries `map` held beside them: each is inserted, which
/// for a table a sixteenth the size of the puts costs less than merging both into a new tree.
/// Kept out of line: single-key commits never come here, and their loop should not be laid out
/// around it.
#[cold]
#[inline(never)]
fn absorb_small_table(map: &mut Map, mut puts: Map) {
    // A set's `insert` keeps the element it holds on equal keys: the pending put wins.
    for e in std::mem::take(map) {
        puts.insert(e);
    }
    *map = puts;
}
