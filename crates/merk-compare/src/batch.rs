//! A field commit as Merk's batch: each address turned back into its 16-byte key
//! ([`merk_key`]), sorted by key, as `Merk::apply` requires (it refuses an unsorted batch or a
//! repeated key).

use merk::Op;
use triebench_workloads::field::address::merk_key;
use triebench_workloads::field::FieldCommit;

use crate::error::MerkError;

/// An address's Merk key, or [`MerkError::NotMerkAddress`].
pub fn key_of(address: &str) -> Result<[u8; 16], MerkError> {
    merk_key(address).ok_or_else(|| MerkError::NotMerkAddress(address.to_string()))
}

/// The commit's writes (inserts and updates as puts, deletes as deletes), sorted by key.
pub fn writes(commit: &FieldCommit) -> Result<Vec<(Vec<u8>, Op)>, MerkError> {
    let mut batch = Vec::with_capacity(commit.leaves());
    for (address, value) in commit.inserts.iter().chain(&commit.updates) {
        batch.push((key_of(address)?.to_vec(), Op::Put(value.clone())));
    }
    for address in &commit.deletes {
        batch.push((key_of(address)?.to_vec(), Op::Delete));
    }
    batch.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(batch)
}

/// The commit's reads as keys, in the workload's order (repeats kept: each is one `get`).
pub fn reads(commit: &FieldCommit) -> Result<Vec<[u8; 16]>, MerkError> {
    commit.reads.iter().map(|a| key_of(a)).collect()
}

#[cfg(test)]
mod tests {
    use super::{reads, writes};
    use merk::Op;
    use triebench_workloads::field::address::merk_address;
    use triebench_workloads::field::FieldCommit;

    #[test]
    fn writes_come_sorted_by_key_with_their_values() {
        let commit = FieldCommit {
            inserts: vec![
                (merk_address(&[9; 16]), vec![1]),
                (merk_address(&[2; 16]), vec![2]),
            ],
            updates: vec![(merk_address(&[5; 16]), vec![3])],
            deletes: vec![merk_address(&[1; 16])],
            ..FieldCommit::default()
        };
        let batch = writes(&commit).unwrap();
        let keys: Vec<u8> = batch.iter().map(|(k, _)| k[0]).collect();
        assert_eq!(keys, [1, 2, 5, 9]);
        assert!(matches!(batch[0].1, Op::Delete));
        assert!(matches!(&batch[3].1, Op::Put(v) if v == &[1]));
    }

    #[test]
    fn an_address_of_another_workload_is_refused() {
        let commit = FieldCommit {
            reads: vec![format!("f12e00{}", "ab".repeat(32))],
            ..FieldCommit::default()
        };
        let error = reads(&commit).unwrap_err().to_string();
        assert!(error.contains("not a Merk workload address"), "{error}");
    }
}
