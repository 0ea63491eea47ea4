//! [`Engine`]: what every authenticated state engine offers the benchmarks, and [`Root`].

use std::fmt;

use triebench_merkle::StateChange;

use crate::EngineError;

/// A state root as the engine defines it (its hash bytes; 32 for every engine here), shown
/// as lowercase hex.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Root(pub Vec<u8>);

impl fmt::Display for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&hex::encode(&self.0))
    }
}

impl fmt::Debug for Root {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Root({self})")
    }
}

/// An authenticated key-value state that commits batches into versions, each named by its
/// root.
///
/// Keys are trie addresses (lowercase hex of even length, as [`StateChange`] holds them), so
/// one workload drives every engine; an engine that hashes its keys (JMT) hashes the address's
/// bytes, the MPT takes them as they are. A batch applies in order and a later change to the
/// same address wins (Transact 0.4.7's own state differs: there a delete wins). Deleting an
/// address that holds no value is refused by the trie
/// ([`MerkleError::DeleteAbsent`](triebench_merkle::MerkleError::DeleteAbsent)) and by
/// Transact, and a no-op for JMT and the MPT; the workloads never do it. For the MPT an empty
/// value is absence (Ethereum's rule).
pub trait Engine {
    /// The engine's name, as reports and errors show it.
    fn name(&self) -> &'static str;

    /// The root of the latest version (the empty state's root before the first batch).
    fn root(&self) -> Root;

    /// Commits `batch` on top of the latest version, as one storage transaction, and returns
    /// the new version's root.
    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError>;

    /// The value at `address` in the version named `root` (`None`: no value).
    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError>;

    /// Drops every version committed before the first kept one named `root` (a root can name
    /// several versions: a batch that changes nothing, a revert), which stays readable with
    /// every later one; the storage only the dropped versions used is released.
    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError>;

    /// Whether versions before the latest stay readable until pruned. `false` for an engine
    /// that keeps its latest version only (NOMT): there a read at an older root is
    /// [`EngineError::UnknownRoot`], and workloads skip such reads.
    fn keeps_versions(&self) -> bool {
        true
    }

    /// A proof of what `address` holds at `root`, in the engine's wire form, or `None` if the
    /// engine makes no proofs.
    fn prove(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        let _ = (root, address);
        Ok(None)
    }

    /// Checks a proof [`prove`](Self::prove) made: `value` (`None`: absence) at `address`
    /// under `root`. [`EngineError::NoProofs`] for an engine that makes none.
    fn verify(
        &self,
        root: &Root,
        address: &str,
        value: Option<&[u8]>,
        proof: &[u8],
    ) -> Result<(), EngineError> {
        let _ = (root, address, value, proof);
        Err(EngineError::NoProofs {
            engine: self.name(),
        })
    }
}

/// An address's bytes (its hex decoded), after [`triebench_merkle::check_address`]: the key
/// an engine that takes bytes (JMT hashes them, the MPT takes them as they are) is given.
pub(crate) fn address_bytes(address: &str) -> Result<Vec<u8>, EngineError> {
    triebench_merkle::check_address(address)?;
    hex::decode(address).map_err(|e| {
        triebench_merkle::MerkleError::InvalidAddress {
            address: address.to_string(),
            reason: if matches!(e, hex::FromHexError::OddLength) {
                "odd length (tokens are two hex characters)"
            } else {
                "not lowercase hex (0-9, a-f)"
            },
        }
        .into()
    })
}
