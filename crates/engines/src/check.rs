//! [`check_roots`]: an engine run beside its reference, batch by batch.

use triebench_merkle::StateChange;

use crate::{Engine, EngineError, Root};

/// Applies each batch to `engine` and to `reference` and compares the roots after every batch:
/// the first difference is [`EngineError::WrongRoot`] (an engine whose roots are wrong is not
/// measured). Returns the engine's roots, one per batch.
///
/// The references: [`ModelTrie`](crate::ModelTrie) for [`TrieEngine`](crate::TrieEngine) (whose
/// roots are also Transact's, see `triebench-merkle`'s vectors), [`MockJmt`](crate::MockJmt)
/// (JMT on its own in-memory mock store) for a [`JmtEngine`](crate::JmtEngine) on a kv store,
/// [`ModelMpt`](crate::ModelMpt) (roots built from scratch) for an
/// [`MptEngine`](crate::MptEngine), whose own check against Ethereum's published vectors is
/// [`mpt::vectors::check`](crate::mpt::vectors::check); the trie for Transact's own state
/// (feature `transact`), where Transact is right; `ModelNomt` (roots built from scratch by
/// nomt-core) for a `NomtEngine` (feature `nomt`).
pub fn check_roots<E: Engine, R: Engine>(
    engine: &mut E,
    reference: &mut R,
    batches: &[Vec<StateChange>],
) -> Result<Vec<Root>, EngineError> {
    let mut roots = Vec::with_capacity(batches.len());
    for (batch, changes) in batches.iter().enumerate() {
        let expected = reference.apply(changes)?;
        let found = engine.apply(changes)?;
        if found != expected {
            return Err(EngineError::WrongRoot {
                engine: engine.name(),
                reference: reference.name(),
                batch,
                expected: expected.to_string(),
                found: found.to_string(),
            });
        }
        roots.push(found);
    }
    Ok(roots)
}
