//! [`TransactOnStore`]: Transact 0.4.7's state on a kv store, with the store still in reach,
//! so a benchmark can count its node rows and measure its space as it does for every other
//! engine (a [`TransactEngine`] holds its database as Transact's boxed `Database`).

use triebench_kv::Store;
use triebench_merkle::StateChange;

use super::{KvDatabase, TransactEngine};
use crate::{Engine, EngineError, Root};

/// [`TransactEngine`] over a [`KvDatabase`] on a store of type `S`, which it keeps a handle to
/// (Transact's database handles share the store).
#[derive(Debug)]
pub struct TransactOnStore<S> {
    engine: TransactEngine,
    db: KvDatabase<S>,
}

impl<S: Store + 'static> TransactOnStore<S> {
    /// Transact's state on `store`, which must declare
    /// [`TRANSACT_TABLES`](super::TRANSACT_TABLES) and be empty.
    pub fn new(store: S) -> Result<Self, EngineError> {
        let db = KvDatabase::new(store)?;
        Ok(TransactOnStore {
            engine: TransactEngine::on(Box::new(db.clone()))?,
            db,
        })
    }

    /// Transact's state on a `store` an earlier run committed `root` to (a store reopened, as
    /// a restarted node's): `root` is its latest version, and reads at it go to the store.
    pub fn reopen(store: S, root: &Root) -> Result<Self, EngineError> {
        let mut on = Self::new(store)?;
        on.engine.assume_latest(root);
        Ok(on)
    }

    /// The kv store underneath.
    pub fn store(&self) -> &S {
        self.db.store()
    }
}

impl<S: Store + 'static> Engine for TransactOnStore<S> {
    fn name(&self) -> &'static str {
        self.engine.name()
    }

    fn root(&self) -> Root {
        self.engine.root()
    }

    fn apply(&mut self, batch: &[StateChange]) -> Result<Root, EngineError> {
        self.engine.apply(batch)
    }

    fn get(&self, root: &Root, address: &str) -> Result<Option<Vec<u8>>, EngineError> {
        self.engine.get(root, address)
    }

    fn prune_before(&mut self, root: &Root) -> Result<(), EngineError> {
        self.engine.prune_before(root)
    }
}
