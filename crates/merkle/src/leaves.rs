//! [`Leaves`]: the values under a prefix, read lazily in address order.
//!
//! A listing of a large state must not hold the whole state in memory, and an owned handle
//! must be able to return one that outlives the call (Transact's leaf reader returns a
//! `'static` iterator). So the walk keeps only its stack of pending nodes, and reads nodes a
//! chunk at a time, each chunk through a read transaction of its own that is closed before the
//! chunk's values are handed out: an iterator left half-read holds no transaction open.
//!
//! Nodes are named by their hash and never change, so chunks read through different
//! transactions still make up the listing of one root. The one thing that can come between two
//! chunks is a prune that releases the root: the walk then ends with
//! [`MerkleError::MissingNode`].

use std::collections::VecDeque;
use std::ops::Deref;

use triebench_kv::Store;

use crate::address;
use crate::descend::descend;
use crate::hash::{hex_string, HexHash};
use crate::node_table::NodeTable;
use crate::update;
use crate::MerkleError;

/// How many nodes one read transaction visits before the walk hands out what it found.
const NODES_PER_CHUNK: usize = 512;

/// A node still to visit: its token path, its hash, and whether it is the start of the walk.
struct Pending {
    path: Vec<u8>,
    hash: HexHash,
    is_start: bool,
}

/// An iterator over the `(address, value)` pairs under a prefix at one root, in ascending
/// address order, read a chunk of nodes at a time (see the module docs).
///
/// `H` is how the iterator holds the store: `&S` from
/// [`MerkleTrie::leaves_iter`](crate::MerkleTrie::leaves_iter), or an `Arc<S>` from
/// [`TrieState::leaves`](crate::TrieState::leaves), which makes the iterator `'static`. After
/// an error it returns `None`.
pub struct Leaves<H> {
    store: H,
    main: NodeTable,
    /// Set when the prefix ends halfway through a token: only children whose first hex digit
    /// is this one are listed below the start node, whose own value is not.
    nibble: Option<u8>,
    stack: Vec<Pending>,
    ready: VecDeque<(String, Vec<u8>)>,
}

impl<H> std::fmt::Debug for Leaves<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Leaves")
            .field("pending_nodes", &self.stack.len())
            .field("ready", &self.ready.len())
            .finish()
    }
}

impl<H, S> Leaves<H>
where
    H: Deref<Target = S>,
    S: Store,
{
    /// The listing of `prefix` (lowercase hex of any length) at `root`: finds the node the
    /// prefix leads to; the walk below it starts on the first `next`.
    pub(crate) fn new(
        store: H,
        main: NodeTable,
        root: &HexHash,
        prefix: &str,
    ) -> Result<Self, MerkleError> {
        let (tokens, nibble) = address::prefix(prefix)?;
        let start = {
            let rx = store.reader()?;
            descend(&rx, store.content_cache(), main, root, &tokens)?
        };
        let stack = match start {
            Some(hash) => vec![Pending {
                path: tokens,
                hash,
                is_start: true,
            }],
            None => Vec::new(),
        };
        Ok(Leaves {
            store,
            main,
            nibble,
            stack,
            ready: VecDeque::new(),
        })
    }

    /// Visits up to [`NODES_PER_CHUNK`] nodes through one reader, queueing their values.
    fn read_chunk(&mut self) -> Result<(), MerkleError> {
        let rx = self.store.reader()?;
        let mut visited = 0;
        while visited < NODES_PER_CHUNK {
            let Some(Pending {
                path,
                hash,
                is_start,
            }) = self.stack.pop()
            else {
                break;
            };
            visited += 1;
            if path.len() > address::MAX_ADDRESS_LEN / 2 {
                // Only a damaged store (a node that is its own ancestor) gets here.
                return Err(MerkleError::CorruptNode {
                    hash: hex_string(&hash),
                    source: crate::codec::DecodeError::TooDeep { depth: path.len() },
                });
            }
            let node = update::load(&rx, self.main, &hash)?;
            let (bytes, layout) = (&node.bytes, &node.layout);
            let skip_own = is_start && self.nibble.is_some();
            if let (Some(range), false) = (layout.value.clone(), skip_own) {
                self.ready
                    .push_back((address::from_tokens(&path), bytes[range].to_vec()));
            }
            // Children pushed in reverse: the stack pops them, and their values come out, in
            // ascending address order.
            for i in (0..layout.count).rev() {
                let (token, child) = (layout.token(bytes, i), layout.hash(bytes, i));
                if skip_own && self.nibble != Some(token >> 4) {
                    continue;
                }
                let mut child_path = Vec::with_capacity(path.len() + 1);
                child_path.extend_from_slice(&path);
                child_path.push(token);
                self.stack.push(Pending {
                    path: child_path,
                    hash: child,
                    is_start: false,
                });
            }
        }
        Ok(())
    }
}

impl<H, S> Iterator for Leaves<H>
where
    H: Deref<Target = S>,
    S: Store,
{
    type Item = Result<(String, Vec<u8>), MerkleError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(leaf) = self.ready.pop_front() {
                return Some(Ok(leaf));
            }
            if self.stack.is_empty() {
                return None;
            }
            if let Err(e) = self.read_chunk() {
                self.stack.clear();
                self.ready.clear();
                return Some(Err(e));
            }
        }
    }
}
