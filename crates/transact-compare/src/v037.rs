//! Transact 0.3.7 (the renamed dependency `transact037`, the code of the published study): any
//! store implementing its `Write`, `Read` and `Prune` traits over string roots and addresses.

crate::transact_adapter!(
    V037,
    transact037,
    "A Transact 0.3.7 key-value `MerkleState` and its empty root."
);
