//! Applying a batch of changes to the trie in memory and computing the new root.
//!
//! The batch opens the nodes on the changed paths into an arena, each read once, and applies
//! the changes in address order (changes to one address in the batch's order), so that the
//! arena holds the nodes in preorder. An opened node keeps its stored encoding and records only
//! its edits (children replaced, added or removed, a new value). Finishing hashes every changed
//! node once, children before parents, re-encoding each by copying its unchanged entries around
//! the edits: nothing is decoded to strings and no hash is converted to or from hex on the way.
//! A batch of at least [`PARALLEL_MIN`] nodes, where rayon has several threads, is finished a
//! run of whole subtrees per task on them ([`finish_subtrees`]); any other in one reverse sweep
//! of the arena. The outcome is the same either way, and however many threads did it.
//!
//! The stored encodings a batch reads are copied back to back into one buffer, and that buffer,
//! the arena and the outcome's vectors are handed back to a per-thread pool when the commit is
//! done, so a run of small commits allocates almost nothing of its own.

use std::cell::RefCell;
use std::ops::{Index, IndexMut, Range};

use smallvec::SmallVec;

use triebench_kv::phase::{ENCODE, HASH, NODE_DECODE};
use triebench_kv::{phase_span, ContentCache, ReadTx};

use crate::fetch::{self, Fetched};
use crate::hash::{hex_string, root_hash, to_hex, HexHash, RawHash, Tally};
use crate::node::{write_entry, Layout};
use crate::node_table::NodeTable;
use crate::scratch::{reusable, StoreScratch};
use crate::subtrees::{AddressOrder, Subtrees};
use crate::{address, codec, MerkleError, StateChange, EMPTY_ROOT_HEX};

/// A change to one child of an opened node: 12 bytes, so that a node's first edits sit in the
/// node itself ([`Edits`]).
#[derive(Clone, Copy)]
struct Edit {
    /// The child, opened into the arena at this index (its hash is known once it is finished);
    /// `None`: the child is removed.
    child: Option<u32>,
    /// Index of this child among the stored entries, or where it would be inserted (a node has
    /// at most 256).
    base_pos: u16,
    token: u8,
    /// Whether the stored node has this child.
    in_base: bool,
}

/// A node's child edits, sorted by token. Most nodes a batch opens or creates lie on one
/// address's path below the trie's branching levels and get one edit, so two are held inline
/// and a large batch does not allocate a list per node.
type Edits = SmallVec<[Edit; 2]>;

/// A node's stored encoding, validated.
pub(crate) struct Stored {
    pub bytes: Vec<u8>,
    pub layout: Layout,
}

/// A stored node opened by the batch: where its encoding sits in the batch's buffer of loaded
/// encodings, its layout (offsets from the start of the encoding) and its hash. Kept apart from
/// [`Work`] so that the nodes a batch creates, most of a large batch's, stay small.
struct Base {
    at: Range<usize>,
    layout: Layout,
    orig: HexHash,
}

/// What the batch did to a node's value.
#[derive(Clone, Copy)]
enum NewValue {
    /// The stored value (or none, for a created node) stands.
    Keep,
    /// Removed.
    Clear,
    /// Replaced by the value of the batch's change at this index (a set).
    Set(usize),
}

/// What a node's encoding is read from: the stored nodes opened, their encodings and the
/// batch's changes.
#[derive(Clone, Copy)]
struct Src<'a> {
    bases: &'a [Base],
    loaded: &'a [u8],
    changes: &'a [StateChange],
}

/// A node opened by the batch.
struct Work {
    /// The stored node, in the batch's list of them; `None` for a node the batch created.
    base: Option<u32>,
    /// Child edits, sorted by token.
    edits: Edits,
    /// The value, as changed by the batch.
    value: NewValue,
    parent: u32,
    token: u8,
    /// Differs (or may differ) from the stored node.
    dirty: bool,
}

impl Work {
    /// The stored encoding and its layout.
    fn base<'a>(&self, src: Src<'a>) -> Option<(&'a [u8], &'a Layout)> {
        let base = src.bases.get(self.base? as usize)?;
        Some((src.loaded.get(base.at.clone())?, &base.layout))
    }

    /// The hash it had in storage, `None` for a node the batch created.
    fn orig<'a>(&self, src: Src<'a>) -> Option<&'a HexHash> {
        Some(&src.bases.get(self.base? as usize)?.orig)
    }

    fn value<'a>(&'a self, src: Src<'a>) -> Option<&'a [u8]> {
        match self.value {
            NewValue::Keep => {
                let (bytes, layout) = self.base(src)?;
                bytes.get(layout.value.clone()?)
            }
            NewValue::Clear => None,
            NewValue::Set(i) => match src.changes.get(i)? {
                StateChange::Set { value, .. } => Some(value),
                StateChange::Delete { .. } => None,
            },
        }
    }

    fn child_count(&self, src: Src<'_>) -> usize {
        let base = self.base(src).map_or(0, |(_, layout)| layout.count);
        self.edits
            .iter()
            .fold(base, |n, e| match (e.in_base, e.child.is_some()) {
                (false, true) => n + 1,
                (true, false) => n - 1,
                _ => n,
            })
    }

    /// Appends the node's encoding; `hashes` holds the hash of every child it points to (every
    /// opened child is finished before its parent).
    fn encode<H>(&self, src: Src<'_>, hashes: &H, out: &mut Vec<u8>)
    where
        H: Index<usize, Output = HexHash> + ?Sized,
    {
        let (bytes, layout) = match self.base(src) {
            Some((bytes, layout)) => (bytes, Some(layout)),
            None => (&[][..], None),
        };
        let copy = |out: &mut Vec<u8>, from: usize, to: usize| {
            if let Some(layout) = layout {
                if from < to {
                    out.extend_from_slice(&bytes[layout.entry_range(from, to)]);
                }
            }
        };
        out.extend_from_slice(&codec::NODE_PREFIX);
        codec::write_children_header(out, self.child_count(src));
        let mut next = 0;
        for edit in &self.edits {
            let base_pos = usize::from(edit.base_pos);
            copy(out, next, base_pos);
            if let Some(child) = edit.child {
                write_entry(out, edit.token, &hashes[child as usize]);
            }
            next = base_pos + usize::from(edit.in_base);
        }
        copy(out, next, layout.map_or(0, |l| l.count));
        match (self.value, layout) {
            (NewValue::Keep, Some(layout)) => {
                out.extend_from_slice(&codec::VALUE_KEY);
                out.extend_from_slice(&bytes[layout.value_item.clone()]);
            }
            (NewValue::Keep, None) => codec::write_value(out, None),
            _ => codec::write_value(out, self.value(src)),
        }
    }
}

/// A node the batch created, at one position; its hash is `Outcome::hashes[node]`.
pub(crate) struct Addition {
    /// Its encoding in [`Outcome::encodings`] (empty when encodings were not kept).
    pub range: Range<usize>,
    /// Its arena index, and its parent's (`u32::MAX` for the root).
    pub node: u32,
    pub parent: u32,
}

/// The result of a batch.
pub(crate) struct Outcome {
    /// The new root.
    pub root: HexHash,
    /// Nodes created, one per changed position, children before parents, root last. The empty
    /// root node is never listed.
    pub additions: Vec<Addition>,
    /// The raw hash of each of `additions`, in the same order: the change-log entry lists
    /// them, and keeping them as hashed spares converting 64 hex digits back per node.
    pub raw_additions: Vec<RawHash>,
    /// Per arena node, its hash after the batch (new, or as stored if unchanged): an
    /// addition's hash is its node's, kept once rather than copied into every addition.
    pub hashes: Vec<HexHash>,
    /// The encodings of `additions`, back to back.
    pub encodings: Vec<u8>,
    /// Hashes of the stored nodes the batch replaced or removed, per position; the old root is
    /// not listed.
    pub deletions: Vec<HexHash>,
    /// A buffer for writing the outcome (empty, pooled).
    pub scratch: Vec<u8>,
    /// Index vectors for storing the new nodes (empty, pooled).
    pub store: StoreScratch,
}

/// Loads and validates a stored node.
pub(crate) fn load<R: ReadTx>(
    rx: &R,
    main: NodeTable,
    hash: &HexHash,
) -> Result<Stored, MerkleError> {
    phase_span!(NODE_DECODE);
    let loaded = main.get_with(rx, hash, |bytes| {
        Layout::parse(bytes).map(|layout| Stored {
            bytes: bytes.to_vec(),
            layout,
        })
    })?;
    match loaded {
        Some(Ok(stored)) => Ok(stored),
        Some(Err(source)) => Err(MerkleError::CorruptNode {
            hash: hex_string(hash),
            source,
        }),
        None => Err(MerkleError::MissingNode {
            hash: hex_string(hash),
        }),
    }
}

struct Batch<'c, 'r, R> {
    rx: &'r R,
    main: NodeTable,
    changes: &'c [StateChange],
    arena: Vec<Work>,
    /// The stored nodes opened.
    bases: Vec<Base>,
    /// The stored encodings of the opened nodes, back to back.
    loaded: Vec<u8>,
    /// The outcome's vectors, taken from the pool.
    spare: Pool,
    /// The nodes on the batch's paths, fetched ahead (see [`fetch`]); `None` on backends where
    /// the batch reads each node as it opens it.
    fetched: Option<Fetched>,
}

impl<R: ReadTx> Batch<'_, '_, R> {
    fn src(&self) -> Src<'_> {
        Src {
            bases: &self.bases,
            loaded: &self.loaded,
            changes: self.changes,
        }
    }

    fn push(&mut self, work: Work) -> u32 {
        // The arena holds at most one node per token of the batch's addresses.
        let index = self.arena.len() as u32;
        self.arena.push(work);
        index
    }

    fn open_stored(&mut self, hash: HexHash, parent: u32, token: u8) -> Result<u32, MerkleError> {
        let start = self.loaded.len();
        let layout = {
            phase_span!(NODE_DECODE);
            let loaded = &mut self.loaded;
            let mut parse =
                |bytes: &[u8]| Layout::parse(bytes).inspect(|_| loaded.extend_from_slice(bytes));
            let layout = match self.fetched.as_ref().and_then(|f| f.get(&hash)) {
                Some(bytes) => Some(parse(bytes)),
                None => self.main.get_with(self.rx, &hash, parse)?,
            };
            match layout {
                Some(Ok(layout)) => layout,
                Some(Err(source)) => {
                    return Err(MerkleError::CorruptNode {
                        hash: hex_string(&hash),
                        source,
                    })
                }
                None => {
                    return Err(MerkleError::MissingNode {
                        hash: hex_string(&hash),
                    })
                }
            }
        };
        let base = self.bases.len() as u32;
        self.bases.push(Base {
            at: start..self.loaded.len(),
            layout,
            orig: hash,
        });
        Ok(self.push(Work {
            base: Some(base),
            edits: Edits::new(),
            value: NewValue::Keep,
            parent,
            token,
            dirty: false,
        }))
    }

    fn new_node(&mut self, parent: u32, token: u8) -> u32 {
        self.push(Work {
            base: None,
            edits: Edits::new(),
            value: NewValue::Keep,
            parent,
            token,
            dirty: true,
        })
    }

    /// The child of node `at` under `token`, opened into the arena. With `create`, a missing
    /// child is created; without, it ends the walk with `None`.
    fn child(&mut self, at: u32, token: u8, create: bool) -> Result<Option<u32>, MerkleError> {
        let work = &self.arena[at as usize];
        match work.edits.binary_search_by_key(&token, |e| e.token) {
            Ok(e) => match work.edits[e].child {
                Some(child) => Ok(Some(child)),
                None if create => {
                    let child = self.new_node(at, token);
                    self.arena[at as usize].edits[e].child = Some(child);
                    Ok(Some(child))
                }
                None => Ok(None),
            },
            Err(e) => {
                let base = work.base(self.src());
                let found = base.map_or(Err(0), |(bytes, layout)| layout.find(bytes, token));
                let (child, in_base, base_pos) = match found {
                    Ok(pos) => {
                        let hash = base
                            .map(|(bytes, layout)| layout.hash(bytes, pos))
                            .ok_or_else(internal)?;
                        (self.open_stored(hash, at, token)?, true, pos)
                    }
                    Err(pos) if create => (self.new_node(at, token), false, pos),
                    Err(_) => return Ok(None),
                };
                self.arena[at as usize].edits.insert(
                    e,
                    Edit {
                        child: Some(child),
                        // A position among at most 256 entries.
                        base_pos: u16::try_from(base_pos).map_err(|_| internal())?,
                        token,
                        in_base,
                    },
                );
                Ok(Some(child))
            }
        }
    }

    fn walk(
        &mut self,
        tokens: impl Iterator<Item = u8>,
        create: bool,
    ) -> Result<Option<u32>, MerkleError> {
        let mut at = 0u32;
        for token in tokens {
            match self.child(at, token, create)? {
                Some(child) => at = child,
                None => return Ok(None),
            }
        }
        Ok(Some(at))
    }

    /// Applies the batch's change at `index`.
    fn apply(&mut self, index: usize) -> Result<(), MerkleError> {
        let changes = self.changes;
        match changes.get(index).ok_or_else(internal)? {
            StateChange::Set { address, value } => {
                let tokens = address::token_iter(address)?;
                let at = self.walk(tokens, true)?.ok_or_else(internal)?;
                let src = Src {
                    bases: &self.bases,
                    loaded: &self.loaded,
                    changes,
                };
                let work = &mut self.arena[at as usize];
                if work.value(src) != Some(value.as_slice()) {
                    work.value = NewValue::Set(index);
                    work.dirty = true;
                }
                Ok(())
            }
            StateChange::Delete { address } => {
                let tokens = address::token_iter(address)?;
                let absent = || MerkleError::DeleteAbsent {
                    address: address.clone(),
                };
                let at = self.walk(tokens, false)?.ok_or_else(absent)?;
                let src = Src {
                    bases: &self.bases,
                    loaded: &self.loaded,
                    changes,
                };
                let work = &mut self.arena[at as usize];
                if work.value(src).is_none() {
                    return Err(absent());
                }
                work.value = NewValue::Clear;
                work.dirty = true;
                Ok(())
            }
        }
    }

    /// Hashes the changed nodes bottom-up (children have higher arena indices than their
    /// parents, so a reverse sweep sees every child first).
    fn finish(mut self, keep_encodings: bool) -> Result<Outcome, MerkleError> {
        let src = Src {
            bases: &self.bases,
            loaded: &self.loaded,
            changes: self.changes,
        };
        // Room for every node re-encoded: its stored encoding, an entry per edit, its new
        // value and headers (a bound: a node that shrinks needs less).
        let capacity = if keep_encodings {
            self.arena
                .iter()
                .map(|w| {
                    w.base(src).map_or(0, |(bytes, _)| bytes.len())
                        + w.edits.len() * crate::node::ENTRY
                        + w.value(src).map_or(0, <[u8]>::len)
                        + 32
                })
                .sum()
        } else {
            0
        };
        let mut out = Outcome {
            root: EMPTY_ROOT_HEX,
            additions: std::mem::take(&mut self.spare.additions),
            raw_additions: std::mem::take(&mut self.spare.raw_additions),
            hashes: Vec::new(),
            encodings: std::mem::take(&mut self.spare.encodings),
            deletions: std::mem::take(&mut self.spare.deletions),
            scratch: std::mem::take(&mut self.spare.scratch),
            store: std::mem::take(&mut self.spare.store),
        };
        out.additions.reserve(self.arena.len());
        out.raw_additions.reserve(self.arena.len());
        out.encodings.reserve(capacity);
        out.deletions.reserve(self.arena.len());
        let mut tally = Tally::default();
        // Each finished node's hash (its new one, or its stored one if unchanged), for its
        // parent's encoding.
        let mut hashes = std::mem::take(&mut self.spare.hashes);
        hashes.clear();
        hashes.resize(self.arena.len(), EMPTY_ROOT_HEX);
        let mut subtrees = std::mem::take(&mut self.spare.subtrees);
        let mut parts = std::mem::take(&mut self.spare.parts);
        let threads = rayon::current_num_threads();
        if self.arena.len() >= PARALLEL_MIN
            && threads > 1
            && subtrees.cut(
                self.arena.iter().map(|w| w.parent),
                (self.arena.len() / (4 * threads)).min(TASK_MAX_NODES),
            )
        {
            finish_subtrees(
                &mut self.arena,
                src,
                &mut hashes,
                &subtrees,
                &mut parts,
                &mut out,
                keep_encodings,
                &mut tally,
            )?;
        } else {
            // One reverse sweep of the arena, each node encoded straight into the outcome
            // (children have higher indices than their parents).
            for node in (1..self.arena.len()).rev() {
                let (present, changed) = finish_in_place(
                    &self.arena[node],
                    node,
                    src,
                    &mut hashes,
                    &mut out,
                    keep_encodings,
                    &mut tally,
                );
                tell_parent(&mut self.arena, node, present, changed)?;
            }
        }
        let root_work = self.arena.first().ok_or_else(internal)?;
        let orig_root = root_work.orig(src).ok_or_else(internal)?;
        out.root = if root_work.dirty {
            let hash = hash_node(
                root_work,
                src,
                &hashes,
                0,
                &mut out,
                keep_encodings,
                &mut tally,
            );
            if hash == *orig_root || hash == EMPTY_ROOT_HEX {
                out.drop_last();
            }
            hash
        } else {
            *orig_root
        };
        if let Some(root) = hashes.first_mut() {
            *root = out.root;
        }
        out.hashes = hashes;
        give_back(|pool| {
            pool.arena = reusable(std::mem::take(&mut self.arena));
            pool.loaded = reusable(std::mem::take(&mut self.loaded));
            pool.bases = reusable(std::mem::take(&mut self.bases));
            pool.order = std::mem::take(&mut self.spare.order).reusable();
            pool.subtrees = subtrees.reusable();
            pool.parts = reusable_parts(parts);
        });
        Ok(out)
    }
}

/// Buffers a batch needs, kept per thread between batches.
#[derive(Default)]
struct Pool {
    arena: Vec<Work>,
    bases: Vec<Base>,
    loaded: Vec<u8>,
    encodings: Vec<u8>,
    additions: Vec<Addition>,
    raw_additions: Vec<RawHash>,
    deletions: Vec<HexHash>,
    /// The finished nodes' hashes.
    hashes: Vec<HexHash>,
    /// The order the changes are applied in.
    order: AddressOrder,
    subtrees: Subtrees,
    /// The subtree tasks' outputs.
    parts: Vec<Part>,
    scratch: Vec<u8>,
    store: StoreScratch,
}

thread_local! {
    static POOL: RefCell<Pool> = RefCell::new(Pool::default());
}

/// This thread's pooled buffers (empty ones if the pool is in use or gone).
fn take_pool() -> Pool {
    POOL.try_with(|cell| {
        cell.try_borrow_mut()
            .map(|mut pool| std::mem::take(&mut *pool))
            .unwrap_or_default()
    })
    .unwrap_or_default()
}

/// Returns buffers to this thread's pool.
fn give_back(f: impl FnOnce(&mut Pool)) {
    // The pool is only an optimisation: if it is gone or in use, the buffers are dropped.
    let _ = POOL.try_with(|cell| {
        if let Ok(mut pool) = cell.try_borrow_mut() {
            f(&mut pool);
        }
    });
}

/// Hands an outcome's buffers back to this thread's pool once it has been written.
pub(crate) fn recycle(outcome: Outcome) {
    give_back(|pool| {
        pool.encodings = reusable(outcome.encodings);
        pool.additions = reusable(outcome.additions);
        pool.raw_additions = reusable(outcome.raw_additions);
        pool.hashes = reusable(outcome.hashes);
        pool.deletions = reusable(outcome.deletions);
        pool.scratch = reusable(outcome.scratch);
        pool.store = outcome.store.reusable();
    });
}

impl Outcome {
    /// An outcome with nothing in it, its vectors unallocated.
    fn empty() -> Outcome {
        Outcome {
            root: EMPTY_ROOT_HEX,
            additions: Vec::new(),
            raw_additions: Vec::new(),
            hashes: Vec::new(),
            encodings: Vec::new(),
            deletions: Vec::new(),
            scratch: Vec::new(),
            store: StoreScratch::default(),
        }
    }

    /// The bytes the vectors a sweep writes have allocated.
    fn capacity_bytes(&self) -> usize {
        self.encodings.capacity()
            + self.additions.capacity() * std::mem::size_of::<Addition>()
            + self.raw_additions.capacity() * std::mem::size_of::<RawHash>()
            + self.deletions.capacity() * std::mem::size_of::<HexHash>()
    }

    /// Empties the vectors a sweep writes, keeping their memory.
    fn clear(&mut self) {
        self.additions.clear();
        self.raw_additions.clear();
        self.encodings.clear();
        self.deletions.clear();
    }

    /// Appends what `part` recorded (its additions, their encodings, its deletions), as if it
    /// had been recorded here.
    fn append(&mut self, part: &Outcome, keep_encodings: bool) {
        let shift = self.encodings.len();
        self.encodings.extend_from_slice(&part.encodings);
        self.additions
            .extend(part.additions.iter().map(|a| Addition {
                range: if keep_encodings {
                    a.range.start + shift..a.range.end + shift
                } else {
                    0..0
                },
                node: a.node,
                parent: a.parent,
            }));
        self.raw_additions.extend_from_slice(&part.raw_additions);
        self.deletions.extend_from_slice(&part.deletions);
    }

    /// Forgets the last addition and its encoding.
    fn drop_last(&mut self) {
        if let Some(addition) = self.additions.pop() {
            self.raw_additions.pop();
            self.encodings.truncate(addition.range.start);
        }
    }
}

/// The fewest nodes a batch needs to be finished on several threads. A 1,000-key commit opens
/// ~31,000; one of 100 keys, ~3,300, is over in a millisecond or two, where handing tasks to
/// other threads and waiting for them (tens of microseconds on a virtual machine, each wake-up
/// an inter-processor interrupt) would eat much of the gain.
const PARALLEL_MIN: usize = 4096;

/// A run of a per-node vector (the arena, the hashes) that starts at arena node `first`,
/// indexed by arena index: a subtree task's own part of the vector.
struct Run<'a, T> {
    first: usize,
    items: &'a mut [T],
}

impl<T> Index<usize> for Run<'_, T> {
    type Output = T;

    fn index(&self, node: usize) -> &T {
        &self.items[node - self.first]
    }
}

impl<T> IndexMut<usize> for Run<'_, T> {
    fn index_mut(&mut self, node: usize) -> &mut T {
        &mut self.items[node - self.first]
    }
}

/// What one subtree task finished: its nodes' outcome, in the order a reverse sweep gives, and
/// for each of its subtrees' roots (the cut's nodes), whether its parent (above the cut,
/// finished later) still points at it and whether what it points at changed.
struct Part {
    out: Outcome,
    roots: Vec<(usize, bool, bool)>,
}

impl Default for Part {
    fn default() -> Self {
        Part {
            out: Outcome::empty(),
            roots: Vec::new(),
        }
    }
}

impl Part {
    /// Finishes the nodes `first..first + arena.len()`, a run of whole subtrees, by a reverse
    /// sweep into this part (emptied first).
    fn sweep(
        &mut self,
        first: usize,
        arena: &mut [Work],
        hashes: &mut [HexHash],
        src: Src<'_>,
        keep_encodings: bool,
    ) -> Result<(), MerkleError> {
        self.out.clear();
        self.roots.clear();
        let end = first + arena.len();
        let mut arena = Run {
            first,
            items: arena,
        };
        let mut hashes = Run {
            first,
            items: hashes,
        };
        let mut tally = Tally::default();
        for node in (first..end).rev() {
            let work = &arena[node];
            let (present, changed) = finish_in_place(
                work,
                node,
                src,
                &mut hashes,
                &mut self.out,
                keep_encodings,
                &mut tally,
            );
            if (work.parent as usize) < first {
                self.roots.push((node, present, changed));
            } else {
                tell_parent(&mut arena, node, present, changed)?;
            }
        }
        Ok(())
    }
}

/// The most nodes in one task: a huge batch (a growth fill's ~1.5 million nodes) is cut into
/// many tasks rather than a few large ones, so that a wave's output is small beside the batch's.
const TASK_MAX_NODES: usize = 16_384;

/// Tasks per wave (see [`finish_subtrees`]): enough for rayon to even out two to four threads'
/// load; a 1,000-key commit's ~31,000 nodes make one wave of eight tasks on two threads.
const WAVE_TASKS: usize = 16;

/// The most bytes of the parts' buffers kept for the next batch: a 1,000-key commit's (~4 MiB)
/// are, so that a run of such commits does not map and fault in fresh pages for each.
const PARTS_KEPT_MAX_BYTES: usize = 8 << 20;

/// The parts a batch used, emptied, kept for the next batch up to [`PARTS_KEPT_MAX_BYTES`] in
/// all (each buffer as [`reusable`] keeps it).
fn reusable_parts(mut parts: Vec<Part>) -> Vec<Part> {
    let mut kept = 0;
    let keep = parts
        .iter()
        .take_while(|part| {
            kept += part.out.capacity_bytes();
            kept <= PARTS_KEPT_MAX_BYTES
        })
        .count();
    parts.truncate(keep);
    for part in &mut parts {
        let out = std::mem::replace(&mut part.out, Outcome::empty());
        part.out.encodings = reusable(out.encodings);
        part.out.additions = reusable(out.additions);
        part.out.raw_additions = reusable(out.raw_additions);
        part.out.deletions = reusable(out.deletions);
        part.roots = reusable(std::mem::take(&mut part.roots));
    }
    parts
}

/// Finishes the batch's nodes below the root a subtree at a time, in waves of [`WAVE_TASKS`]
/// of `cut`'s tasks, the highest first: each wave's tasks on rayon's threads, each into its own
/// part, then, on this thread and in descending arena order, the parts appended to `out` and the
/// nodes above the cut finished as their turn comes, so that `out` comes out as one reverse
/// sweep of the arena would make it. A wave's output is held twice (in its parts and in `out`)
/// only while it is merged: a huge batch's is not held twice whole.
#[allow(clippy::too_many_arguments)]
fn finish_subtrees(
    arena: &mut [Work],
    src: Src<'_>,
    hashes: &mut [HexHash],
    cut: &Subtrees,
    parts: &mut Vec<Part>,
    out: &mut Outcome,
    keep_encodings: bool,
    tally: &mut Tally,
) -> Result<(), MerkleError> {
    use rayon::prelude::*;
    let tasks = cut.tasks();
    let tops = cut.tops();
    let wave_tasks = WAVE_TASKS.min(tasks.len());
    parts.resize_with(wave_tasks.max(parts.len()), Part::default);
    // Tops above `k` are finished; tasks from `end` on are merged.
    let (mut k, mut end) = (tops.len(), tasks.len());
    while end > 0 {
        let start = end.saturating_sub(wave_tasks);
        let wave = &tasks[start..end];
        {
            // Each task's own slices of the arena and the hashes.
            let mut jobs = Vec::with_capacity(wave.len());
            let (mut arena_rest, mut hashes_rest, mut at) = (&mut arena[..], &mut hashes[..], 0);
            for (task, part) in wave.iter().zip(parts.iter_mut()) {
                let skip = task.start.checked_sub(at).ok_or_else(internal)?;
                let arena_task = arena_rest.get_mut(skip..).ok_or_else(internal)?;
                let hashes_task = hashes_rest.get_mut(skip..).ok_or_else(internal)?;
                if arena_task.len() < task.len() || hashes_task.len() < task.len() {
                    return Err(internal());
                }
                let (arena_task, arena_after) = arena_task.split_at_mut(task.len());
                let (hashes_task, hashes_after) = hashes_task.split_at_mut(task.len());
                jobs.push((task.start, arena_task, hashes_task, part));
                (arena_rest, hashes_rest, at) = (arena_after, hashes_after, task.end);
            }
            // The wait for the workers is this thread's time in the subtrees: counted as
            // hashing, encoding included.
            phase_span!(HASH);
            jobs.into_par_iter()
                .try_for_each(|(first, arena, hashes, part)| {
                    part.sweep(first, arena, hashes, src, keep_encodings)
                })?;
        }
        // Descending: the tops above a task's range come before it, each after every task
        // below it.
        for (task, part) in wave.iter().zip(parts.iter()).rev() {
            k = finish_tops(
                arena,
                src,
                hashes,
                &tops[..k],
                task.start,
                out,
                keep_encodings,
                tally,
            )?;
            for &(node, present, changed) in &part.roots {
                tell_parent(arena, node, present, changed)?;
            }
            out.append(&part.out, keep_encodings);
        }
        end = start;
    }
    finish_tops(
        arena,
        src,
        hashes,
        &tops[..k],
        0,
        out,
        keep_encodings,
        tally,
    )?;
    Ok(())
}

/// Finishes, in descending order, the nodes of `tops` (ascending) above `after`, and returns
/// how many of `tops` are left.
#[allow(clippy::too_many_arguments)]
fn finish_tops(
    arena: &mut [Work],
    src: Src<'_>,
    hashes: &mut [HexHash],
    tops: &[usize],
    after: usize,
    out: &mut Outcome,
    keep_encodings: bool,
    tally: &mut Tally,
) -> Result<usize, MerkleError> {
    let mut k = tops.len();
    while let Some(&node) = k
        .checked_sub(1)
        .and_then(|i| tops.get(i))
        .filter(|&&n| n > after)
    {
        k -= 1;
        let (present, changed) =
            finish_in_place(&arena[node], node, src, hashes, out, keep_encodings, tally);
        tell_parent(arena, node, present, changed)?;
    }
    Ok(k)
}

/// How a node comes out without being hashed (see [`unhashed`]).
enum How {
    /// Not changed by the batch: its stored hash stands.
    Unchanged,
    /// Left with no value and no child: its parent drops it.
    Removed,
}

/// How a node comes out without being hashed: unchanged by the batch, or left with no value
/// and no child; `None` when it must be encoded and hashed.
fn unhashed(work: &Work, src: Src<'_>) -> Option<How> {
    if !work.dirty {
        Some(How::Unchanged)
    } else if work.value(src).is_none() && work.child_count(src) == 0 {
        Some(How::Removed)
    } else {
        None
    }
}

/// Records a node that needs no hashing (its stored hash for its parent, or its stored node as
/// removed) and says whether its parent still points at it and whether what it points at
/// changed.
fn settle<H>(
    work: &Work,
    node: usize,
    src: Src<'_>,
    how: How,
    hashes: &mut H,
    out: &mut Outcome,
) -> (bool, bool)
where
    H: IndexMut<usize, Output = HexHash> + ?Sized,
{
    let orig = work.orig(src);
    match how {
        How::Unchanged => {
            if let Some(orig) = orig {
                hashes[node] = *orig;
            }
            (orig.is_some(), false)
        }
        How::Removed => {
            out.deletions.extend(orig);
            (false, orig.is_some())
        }
    }
}

/// Tells `node`'s parent whether it still points at `node` (`present`) and whether what it
/// points at changed.
fn tell_parent<A>(
    arena: &mut A,
    node: usize,
    present: bool,
    changed: bool,
) -> Result<(), MerkleError>
where
    A: IndexMut<usize, Output = Work> + ?Sized,
{
    let work = &arena[node];
    let (parent, token) = (work.parent as usize, work.token);
    let parent_work = &mut arena[parent];
    let e = parent_work
        .edits
        .binary_search_by_key(&token, |e| e.token)
        .map_err(|_| internal())?;
    if !present {
        parent_work.edits[e].child = None;
    }
    if changed {
        parent_work.dirty = true;
    }
    Ok(())
}

/// Finishes `node` (its children finished) straight into the outcome: its hash for its
/// parent, an addition and its encoding when it differs from the stored node, the stored node
/// as replaced. Says, as [`settle`] does, whether its parent still points at it and whether
/// that changed.
fn finish_in_place<H>(
    work: &Work,
    node: usize,
    src: Src<'_>,
    hashes: &mut H,
    out: &mut Outcome,
    keep_encodings: bool,
    tally: &mut Tally,
) -> (bool, bool)
where
    H: IndexMut<usize, Output = HexHash> + ?Sized,
{
    if let Some(how) = unhashed(work, src) {
        return settle(work, node, src, how, hashes, out);
    }
    let orig = work.orig(src);
    let hash = hash_node(work, src, hashes, node, out, keep_encodings, tally);
    hashes[node] = hash;
    if orig == Some(&hash) {
        // Same content as before: not an addition after all.
        out.drop_last();
        return (true, false);
    }
    out.deletions.extend(orig);
    (true, true)
}

/// Encodes a finished node, hashes it and records it as an addition.
fn hash_node<H>(
    work: &Work,
    src: Src<'_>,
    hashes: &H,
    node: usize,
    out: &mut Outcome,
    keep: bool,
    tally: &mut Tally,
) -> HexHash
where
    H: Index<usize, Output = HexHash> + ?Sized,
{
    let is_root = node == 0;
    let start = if keep { out.encodings.len() } else { 0 };
    out.encodings.truncate(start);
    {
        phase_span!(ENCODE);
        work.encode(src, hashes, &mut out.encodings);
    }
    let encoding = &out.encodings[start..];
    let raw = {
        phase_span!(HASH);
        if is_root {
            root_hash(encoding)
        } else {
            tally.node_hash(encoding)
        }
    };
    let hash = to_hex(&raw);
    let range = if keep {
        start..out.encodings.len()
    } else {
        0..0
    };
    out.raw_additions.push(raw);
    out.additions.push(Addition {
        range,
        node: node as u32,
        parent: if is_root { u32::MAX } else { work.parent },
    });
    hash
}

fn internal() -> MerkleError {
    MerkleError::Storage(triebench_kv::KvError::backend(
        "merkle",
        "internal error: batch arena out of step",
    ))
}

/// An upper bound on the nodes a batch opens (one per token), capped to keep the initial
/// allocation reasonable for huge batches.
fn arena_estimate(changes: &[StateChange]) -> usize {
    let tokens: usize = changes
        .iter()
        .map(|c| match c {
            StateChange::Set { address, .. } | StateChange::Delete { address } => address.len() / 2,
        })
        .sum();
    (tokens + 1).min(1 << 16)
}

/// Applies `changes` in order on top of `root`, reading through `rx`, and returns the new root
/// with what changed. Nothing is written.
/// Where the store keeps a `cache` of nodes or its reads are round trips, the nodes on the
/// batch's paths are fetched first, a level per request ([`fetch`]).
pub(crate) fn apply<R: ReadTx>(
    rx: &R,
    cache: Option<&ContentCache>,
    main: NodeTable,
    root: &HexHash,
    changes: &[StateChange],
    keep_encodings: bool,
) -> Result<Outcome, MerkleError> {
    let fetched = if fetch::worth_it(rx, cache) {
        Some(fetch::batch_paths(rx, cache, main, root, changes)?)
    } else {
        None
    };
    let mut spare = take_pool();
    let mut arena = std::mem::take(&mut spare.arena);
    arena.reserve(arena_estimate(changes));
    let mut order = std::mem::take(&mut spare.order);
    let mut batch = Batch {
        rx,
        main,
        changes,
        arena,
        bases: std::mem::take(&mut spare.bases),
        loaded: std::mem::take(&mut spare.loaded),
        spare,
        fetched,
    };
    batch.open_stored(*root, 0, 0)?;
    for index in order.sort(changes) {
        batch.apply(index)?;
    }
    batch.spare.order = order;
    batch.finish(keep_encodings)
}
