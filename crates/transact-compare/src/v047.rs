//! Transact 0.4.7 (`transact` on crates.io, feature `state-merkle-sql` for the SQL state): any
//! store implementing its `Write`, `Read` and `Prune` traits over string roots and addresses.

crate::transact_adapter!(
    V047,
    transact,
    "A Transact 0.4.7 state (key-value `MerkleState` or `SqlMerkleState`) and its empty root."
);

impl<S> V047<S>
where
    S: triebench_smallbank::FullState + Clone + 'static,
{
    /// The same state as Transact's own traits see it, for Transact's executor
    /// (`transact-runner smallbank`).
    pub fn full_state(&self) -> Box<dyn triebench_smallbank::FullState> {
        Box::new(self.state.clone())
    }
}
