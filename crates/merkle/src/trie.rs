//! [`MerkleTrie`]: a view of the trie at one root over a store.

use std::sync::Mutex;
use triebench_kv::phase::{STORAGE_READ, STORAGE_WRITE, TRIE};

use triebench_kv::{phase_span, KvError, ReadTx, Store, Traced, WriteTx};

use crate::changelog::ChangeLogEntry;
use crate::descend::descend;
use crate::hash::{hex_string, hex_to_raw, parse_hex_hash, HexHash, RawHash};
use crate::leaves::Leaves;
use crate::node::Layout;
use crate::proof::{self, Proof};
use crate::tables::{read_change_log, Tables};
use crate::write::WrittenEntry;
use crate::{
    address, fetch, node_table, prune, store_layout, update, write, MerkleError, StateChange,
    EMPTY_ROOT_HEX,
};

/// A view of the trie at one state root, borrowing the store.
///
/// Reads ([`get`](Self::get), [`contains`](Self::contains), [`leaves`](Self::leaves)) see the
/// state at [`root`](Self::root). [`commit`](Self::commit) writes a batch on top of that root and
/// returns the new root without moving the view; call [`set_root`](Self::set_root) to follow it.
///
/// The store must declare the tables in [`TABLES`](crate::TABLES).
#[derive(Debug)]
pub struct MerkleTrie<'s, S: Store> {
    store: &'s S,
    tables: Tables,
    root: String,
    root_hash: HexHash,
    /// The change-log entry this view's last commit wrote, which its next commit from that
    /// root states as expected rather than reads (see [`commit`](Self::commit)).
    last_written: Mutex<Option<WrittenEntry>>,
}

pub(crate) fn parse_root(root: &str) -> Result<HexHash, MerkleError> {
    parse_hex_hash(root.as_bytes()).ok_or_else(|| MerkleError::InvalidHash {
        hash: root.to_string(),
    })
}

impl<'s, S: Store> MerkleTrie<'s, S> {
    /// A view at the empty root. Stores the empty root node (with overwrite) if it is missing,
    /// with the layout marker on a fresh store; a store laid out otherwise is refused with
    /// [`MerkleError::OldStoreLayout`] or another layout error (see
    /// [`store_layout`]), and nothing is written to it.
    pub fn new(store: &'s S) -> Result<Self, MerkleError> {
        let tables = Tables::resolve(store)?;
        write::ensure_empty_root(store, &tables)?;
        Ok(MerkleTrie {
            store,
            tables,
            root: crate::EMPTY_ROOT.to_string(),
            root_hash: EMPTY_ROOT_HEX,
            last_written: Mutex::new(None),
        })
    }

    /// A view at `root`: [`MerkleError::UnknownRoot`] if its node is not in the store,
    /// [`MerkleError::InvalidHash`] if it is not 64 lowercase hex characters, and
    /// [`MerkleError::OldStoreLayout`] (or another layout error, see
    /// [`store_layout`]) for a store laid out otherwise. The root's node
    /// and the layout marker are read in one request.
    pub fn at_root(store: &'s S, root: &str) -> Result<Self, MerkleError> {
        let tables = Tables::resolve(store)?;
        let root_hash = parse_root(root)?;
        check_root_and_layout(store, &tables, &root_hash)?;
        Ok(MerkleTrie {
            store,
            tables,
            root: root.to_string(),
            root_hash,
            last_written: Mutex::new(None),
        })
    }

    /// A view at `root_hash` whose node the caller has not checked: a read or commit on a root
    /// that is not stored fails with [`MerkleError::MissingNode`] naming the root.
    pub(crate) fn unchecked(store: &'s S, tables: Tables, root_hash: HexHash) -> Self {
        MerkleTrie {
            store,
            tables,
            root: hex_string(&root_hash),
            root_hash,
            last_written: Mutex::new(None),
        }
    }

    /// The current state root, 64 lowercase hex characters.
    pub fn root(&self) -> &str {
        &self.root
    }

    /// Moves the view to another root (same checks as [`at_root`](Self::at_root)).
    ///
    /// The root this view's last commit returned is taken without asking the store again when
    /// the store keeps a node cache ([`Store::content_cache`]) that still holds its node: that
    /// commit stored the node (or found the root's change-log entry, which a root keeps as long
    /// as its node), and a prune by this process would have evicted it. A prune by another
    /// process between the commit and this call is then noticed by the next read or commit
    /// (a missing node, a failed precondition), as one right after the check would be anyway.
    pub fn set_root(&mut self, root: &str) -> Result<(), MerkleError> {
        let root_hash = parse_root(root)?;
        if !self.committed_here(&root_hash) {
            check_root(self.store, &self.tables, &root_hash)?;
        }
        self.root_hash = root_hash;
        self.root.clear();
        self.root.push_str(root);
        Ok(())
    }

    /// Whether `root_hash` is the root this view's last commit wrote an entry for and the
    /// store's node cache still holds its node (see [`set_root`](Self::set_root)).
    fn committed_here(&self, root_hash: &HexHash) -> bool {
        let Some(cache) = self.store.content_cache() else {
            return false;
        };
        let raw = hex_to_raw(root_hash);
        let last = self.last_written.lock().ok();
        let wrote = last.is_some_and(|last| last.as_ref().is_some_and(|e| e.root == raw));
        wrote && cache.contains(root_hash)
    }

    /// The store this view reads.
    pub fn store(&self) -> &'s S {
        self.store
    }

    /// The value at `address`, or `None` if no value is stored there (an address that is only
    /// a prefix of stored addresses holds no value).
    pub fn get(&self, address: &str) -> Result<Option<Vec<u8>>, MerkleError> {
        phase_span!(TRIE);
        let tokens = address::tokens(address)?;
        let rx = Traced(open_reader(self.store)?);
        let cache = self.store.content_cache();
        let Some(hash) = descend(&rx, cache, self.tables.main, &self.root_hash, &tokens)? else {
            return Ok(None);
        };
        let value = fetch::node_with(&rx, cache, self.tables.main, &hash, |bytes| {
            Layout::parse(bytes).map(|l| l.value.map(|r| bytes[r].to_vec()))
        })?;
        match value {
            Some(Ok(value)) => Ok(value),
            Some(Err(source)) => Err(corrupt(&hash, source)),
            None => Err(missing(&hash)),
        }
    }

    /// Whether a value is stored at `address` (same rule as [`get`](Self::get)).
    pub fn contains(&self, address: &str) -> Result<bool, MerkleError> {
        Ok(self.get(address)?.is_some())
    }

    /// A proof of what `address` holds at this root: inclusion if it holds a value, exclusion
    /// if not (see [`proof`](crate::proof)); check it with [`verify`](crate::verify). One read
    /// per level, like [`get`](Self::get).
    pub fn prove(&self, address: &str) -> Result<Proof, MerkleError> {
        phase_span!(TRIE);
        let tokens = address::tokens(address)?;
        let rx = Traced(open_reader(self.store)?);
        let cache = self.store.content_cache();
        proof::build(&rx, cache, self.tables.main, &self.root_hash, &tokens)
    }

    /// Applies `changes` on top of this root in one storage transaction and returns the new
    /// root. The view stays at its root.
    ///
    /// Changes apply in order, and a later change to the same address wins: a set then a
    /// delete of one address is a delete. Deleting an address that holds no value at that
    /// point of the batch fails with [`MerkleError::DeleteAbsent`], and then nothing of the
    /// batch is written. A batch that changes nothing (an empty batch included) returns the
    /// same root and writes no node; if that root has a change-log entry, the commit is counted
    /// there as reaching it again, like a commit that ends at another live root, so that the
    /// next [`prune`](Self::prune) of it releases nothing.
    ///
    /// On a store whose reads are round trips, a commit on the root this view's previous
    /// commit returned is one request in the common case: what it would read (the new root has
    /// no change-log entry, its new nodes are not stored, the parent's entry is as that commit
    /// wrote it) goes with the writes as preconditions the store checks atomically. If another
    /// writer changed any of it, nothing was applied, and the commit reads and writes again;
    /// if another process has pruned this view's root meanwhile (its change-log entry is gone),
    /// the commit fails with [`MerkleError::UnknownRoot`] instead of building on its nodes.
    pub fn commit(&self, changes: &[StateChange]) -> Result<String, MerkleError> {
        self.commit_pruning(changes, None).map(|(root, _)| root)
    }

    /// [`commit`](Self::commit) of `changes`, then [`prune`](Self::prune) of `prune`, in the
    /// commit's one storage transaction; returns the new root and the hashes of the nodes the
    /// prune deleted.
    ///
    /// What it leaves in the store is what the two calls one after the other leave (the prune
    /// reads through the transaction, so it sees the commit's writes), but a crash leaves
    /// both or neither, and a durable store syncs once instead of twice. For a node's loop of
    /// small blocks, each pruning the root it built on (as [`prune`](Self::prune)'s rules
    /// allow), that cut a block's time by a quarter on `lmdb` and by a tenth on
    /// `sqlite-wal-full` (the `keep_one_root` example, docs/findings/grow.md). For commits of
    /// thousands of keys it saves nothing measurable, and on LMDB the prune's page copies can
    /// no longer reuse the pages the commit freed, so the file grows more. An invalid `prune`
    /// root is refused before anything is written; an error in either part writes nothing.
    pub fn commit_and_prune(
        &self,
        changes: &[StateChange],
        prune: &str,
    ) -> Result<(String, Vec<String>), MerkleError> {
        let raw = hex_to_raw(&parse_root(prune)?);
        self.commit_pruning(changes, Some(&raw))
    }

    /// [`commit`](Self::commit), with `prune` pruned in its transaction after its writes.
    fn commit_pruning(
        &self,
        changes: &[StateChange],
        prune: Option<&RawHash>,
    ) -> Result<(String, Vec<String>), MerkleError> {
        phase_span!(TRIE);
        let writer = || {
            phase_span!(STORAGE_WRITE);
            self.store.writer().map(Traced)
        };
        let mut w = writer()?;
        let cache = self.store.content_cache();
        let mut outcome =
            update::apply(&w, cache, self.tables.main, &self.root_hash, changes, true)?;
        // Taken: whatever happens next, it no longer describes the store.
        let expected = self
            .last_written
            .lock()
            .ok()
            .and_then(|mut last| last.take());
        let tables = &self.tables;
        let prune_in = |w: &mut Traced<S::Writer<'s>>| match prune {
            Some(root) => prune::prune_in(w, tables, root).map(|pruned| pruned.deleted),
            None => Ok(Vec::new()),
        };
        let attempt = write::persist(
            &mut w,
            tables,
            &self.root_hash,
            &mut outcome,
            expected.as_ref(),
        )
        .and_then(|persisted| Ok((persisted, prune_in(&mut w)?)))
        .and_then(|done| Ok(w.commit().map(|()| done)?));
        let (persisted, deleted) = match attempt {
            Ok(done) => done,
            Err(MerkleError::Storage(KvError::PreconditionFailed { .. })) if expected.is_some() => {
                let mut w = writer()?;
                // This view wrote the parent's entry, and only a prune that released the parent
                // deletes it: then the nodes this commit would build on may be gone too.
                if !w.contains(tables.change_log, &hex_to_raw(&self.root_hash))? {
                    return Err(MerkleError::UnknownRoot {
                        root: self.root.clone(),
                    });
                }
                let persisted =
                    write::persist(&mut w, tables, &self.root_hash, &mut outcome, None)?;
                let deleted = prune_in(&mut w)?;
                w.commit()?;
                (persisted, deleted)
            }
            Err(e) => return Err(e),
        };
        if let Ok(mut last) = self.last_written.lock() {
            *last = persisted;
        }
        if let Some(cache) = cache {
            // The nodes just stored, named by their hashes: the next commit reads them here.
            for addition in &outcome.additions {
                let hash = &outcome.hashes[addition.node as usize];
                if let Some(encoding) = outcome.encodings.get(addition.range.clone()) {
                    cache.insert(hash, encoding);
                }
            }
            // Last, as a prune after the commit would: a node the prune deleted is gone.
            for hash in &deleted {
                cache.remove(hash.as_bytes());
            }
        }
        let root = hex_string(&outcome.root);
        update::recycle(outcome);
        Ok((root, deleted))
    }

    /// The root [`commit`](Self::commit) would return for `changes`, with nothing written.
    pub fn compute(&self, changes: &[StateChange]) -> Result<String, MerkleError> {
        phase_span!(TRIE);
        let rx = Traced(open_reader(self.store)?);
        let cache = self.store.content_cache();
        let outcome = update::apply(
            &rx,
            cache,
            self.tables.main,
            &self.root_hash,
            changes,
            false,
        )?;
        let root = hex_string(&outcome.root);
        update::recycle(outcome);
        Ok(root)
    }

    /// Every (address, value) whose address starts with `prefix`, sorted by address. The prefix
    /// is lowercase hex of any length; `""` lists the whole state. For a large state, iterate
    /// with [`leaves_iter`](Self::leaves_iter) instead.
    pub fn leaves(&self, prefix: &str) -> Result<Vec<(String, Vec<u8>)>, MerkleError> {
        self.leaves_iter(prefix)?.collect()
    }

    /// The same listing as [`leaves`](Self::leaves), read lazily a chunk of nodes at a time
    /// (see [`Leaves`]). An invalid prefix is an error here; storage errors come from `next`.
    pub fn leaves_iter(&self, prefix: &str) -> Result<Leaves<&'s S>, MerkleError> {
        Leaves::new(self.store, self.tables.main, &self.root_hash, prefix)
    }

    /// The change-log entry of `root` (see [`changelog`](crate::changelog)), if it has one.
    pub fn change_log(store: &S, root: &str) -> Result<Option<ChangeLogEntry>, MerkleError> {
        let tables = Tables::resolve(store)?;
        let raw = hex_to_raw(&parse_root(root)?);
        read_change_log(&store.reader()?, &tables, &raw)
    }

    /// Prunes `root` with Transact's semantics (see [`prune`](crate::prune)) and returns the
    /// hashes of the nodes deleted from storage; empty when the root is kept.
    ///
    /// # Pruning and commits that change nothing
    ///
    /// A commit that changes nothing (an empty batch, values set to what they already are, a
    /// set undone within the batch) returns its parent root, so "the previous root" a node
    /// prunes after each block can be the current head. A commit can also end at another root
    /// that is still live (a revert to an earlier state). Each such commit **reached the root
    /// again**, and the change log counts it
    /// ([`ChangeLogEntry::reached_again`](crate::ChangeLogEntry::reached_again)): a prune of a
    /// root with a count takes one off and releases nothing. Guaranteed:
    ///
    /// * pruning the previous root after every block (or the root of a fixed number of blocks
    ///   back) never releases a root that is still one of the heads kept, whatever the blocks
    ///   do; a root that commits reached again n times is released by its (n + 1)-th prune
    ///   at the earliest;
    /// * a root is released only by a prune that finds it as a fork tip (its additions), or as
    ///   the oldest live root of its line with one successor (what that successor replaced):
    ///   prune out of order or with several successors and it is kept;
    /// * the count is kept in the change log, so it survives reopening the store; stores
    ///   written before it existed read as having no count.
    ///
    /// Transact 0.4.7 keeps such a root through node reference counts, but only for non-empty
    /// batches (an empty batch writes nothing there), and its entry is rewritten so that later
    /// prunes of it release nothing at all; here a root reached again is released by a later
    /// prune like any other, so nothing leaks.
    pub fn prune(store: &'s S, root: &str) -> Result<Vec<String>, MerkleError> {
        let tables = Tables::resolve(store)?;
        let raw = hex_to_raw(&parse_root(root)?);
        let deleted = prune::prune(store, &tables, &raw)?;
        if let Some(cache) = store.content_cache() {
            for hash in &deleted {
                cache.remove(hash.as_bytes());
            }
        }
        Ok(deleted)
    }
}

/// Opens a reader, timed as a storage read.
fn open_reader<S: Store>(store: &S) -> Result<S::Reader<'_>, MerkleError> {
    phase_span!(STORAGE_READ);
    Ok(store.reader()?)
}

fn check_root<S: Store>(store: &S, tables: &Tables, root: &HexHash) -> Result<(), MerkleError> {
    phase_span!(TRIE);
    if tables.main.contains(&Traced(store.reader()?), root)? {
        Ok(())
    } else {
        Err(MerkleError::UnknownRoot {
            root: hex_string(root),
        })
    }
}

/// [`check_root`] for a view just opened: the store's layout marker comes with the root's node
/// in one request; a store without it is refused if it holds anything (see
/// [`store_layout`]), or has no such root if it is empty.
fn check_root_and_layout<S: Store>(
    store: &S,
    tables: &Tables,
    root: &HexHash,
) -> Result<(), MerkleError> {
    phase_span!(TRIE);
    let rx = Traced(store.reader()?);
    let main = tables.main.table();
    let (marked, stored) = store_layout::marker_and_node(&rx, main, &node_table::key(root))?;
    if !marked {
        store_layout::require_unmarked_empty(&rx, main)?;
    }
    if stored {
        Ok(())
    } else {
        Err(MerkleError::UnknownRoot {
            root: hex_string(root),
        })
    }
}

fn corrupt(hash: &HexHash, source: crate::codec::DecodeError) -> MerkleError {
    MerkleError::CorruptNode {
        hash: hex_string(hash),
        source,
    }
}

fn missing(hash: &HexHash) -> MerkleError {
    MerkleError::MissingNode {
        hash: hex_string(hash),
    }
}
