//! [`TrieEngine`]: triebench's Transact-compatible Merkle-Radix trie as an [`Engine`].

use triebench_kv::Store;
use triebench_merkle::{verify, Proof, StateChange, TrieState, EMPTY_ROOT};

use crate::{Engine, EngineError, Root};

const NAME: &str = "triebench-trie";

/// The trie ([`TrieState`]) over any store opened with
/// [`triebench_merkle::TABLES`]: roots, reads, proofs and pruning are the trie's own
/// ([`MerkleTrie`](triebench_merkle::MerkleTrie)).
#[derive(Debug)]
pub struct TrieEngine<S> {
    state: TrieState<S>,
    /// Roots of the versions kept, oldest first (a root reached again appears again).
    roots: Vec<String>,
}

impl<S: Store> TrieEngine<S> {
    /// The engine over `store`, at the empty root.
    pub fn new(store: S) -> Result<Self, EngineError> {
        Ok(TrieEngine {
            state: TrieState::new(store)?,
            roots: Vec::new(),
        })
    }

    /// The trie underneath, for what the trait does not offer.
    pub fn state(&self) -> &TrieState<S> {
        &self.state
    }

    fn latest(&self) -> &str {
        self.roots.last().map_or(EMPTY_ROOT, String::as_str)
    }
}

/// A trie root (64 hex characters) as a [`Root`].
fn root_of_hex(hex_root: &str) -> Result<Root, EngineError> {
    hex::decode(hex_root)
        .map(Root)
        .map_err(|e| EngineError::Corrupt {
            engine: NAME,
            what: "root",
            message: e.to_string(),
        })
}

impl<S: Store> Engine for TrieEngine<S> {
    fn name(&self) -> &'static str {
        NAME
    }

    fn root(&self) -> Root {
        // The trie's roots are always 64 hex characters.
        Root(hex::decode(self.latest()).unwrap_or_default())
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        let root = self.state.commit(self.latest(), batch)?;
        let out = root_of_hex(&root)?;
        self.roots.push(root);
        Ok(out)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        Ok(self.state.get(&root.to_string(), address)?)
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        let keep = root.to_string();
        let Some(at) = self.roots.iter().position(|r| *r == keep) else {
            if self.roots.is_empty() && keep == EMPTY_ROOT {
                return Ok(());
            }
            return Err(EngineError::UnknownRoot {
                engine: NAME,
                root: keep,
            });
        };
        // Oldest first, as the trie's pruning expects: each releases what only it held.
        for old in self.roots.drain(..at).collect::<Vec<_>>() {
            self.state.prune(&old)?;
        }
        Ok(())
    }

    fn prove(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        Ok(Some(self.state.prove(&root.to_string(), address)?.encode()))
    }

    fn verify(
        &self,
        root: &Root,
        address: &str,
        value: Option<&[u8]>,
        proof: &[u8],
    ) -> Result<(), EngineError> {
        Ok(verify(
            &root.to_string(),
            address,
            value,
            &Proof::decode(proof)?,
        )?)
    }
}
