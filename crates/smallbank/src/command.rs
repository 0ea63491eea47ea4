//! A seeded workload of Transact's command family: `keys` transactions each creating one key,
//! then transactions that each read one key drawn uniformly and write it a new 16-byte value
//! (a `GetState` then a `SetState` command). Keys are addresses in the family's namespace
//! (`06abbc`), then the first 64 hex characters of SHA-512 of the key's number.

use sha2::{Digest, Sha512};
use transact::protocol::command::{BytesEntry, Command, CommandPayload, GetState, SetState};
use transact::protos::IntoBytes;
use triebench_workloads::rng::XorShift64Star;

use crate::error::SmallbankError;
use crate::transaction::Transaction;

/// Transact's command family's namespace.
pub const NAMESPACE: &str = "06abbc";

/// The address of key `n`.
pub fn key_address(n: u64) -> String {
    let digest = hex::encode(Sha512::digest(n.to_le_bytes()));
    format!("{NAMESPACE}{}", &digest[..64])
}

/// The command family's transactions at `keys` keys, seeded (endless: take as many as wanted).
#[derive(Debug)]
pub struct CommandWorkload {
    keys: u64,
    created: u64,
    rng: XorShift64Star,
}

impl CommandWorkload {
    /// `keys` creations first (at least 1), then reads-and-writes.
    pub fn new(keys: u64, seed: u64) -> Self {
        CommandWorkload {
            keys: keys.max(1),
            created: 0,
            rng: XorShift64Star::new(seed),
        }
    }

    fn value(&mut self) -> Vec<u8> {
        let (a, b) = (self.rng.next_u64(), self.rng.next_u64());
        [a.to_le_bytes(), b.to_le_bytes()].concat()
    }
}

impl Iterator for CommandWorkload {
    type Item = Result<Transaction, SmallbankError>;

    fn next(&mut self) -> Option<Self::Item> {
        let (address, commands) = if self.created < self.keys {
            let address = key_address(self.created);
            self.created += 1;
            let write = BytesEntry::new(address.clone(), self.value());
            (address, vec![Command::SetState(SetState::new(vec![write]))])
        } else {
            let address = key_address(self.rng.next_u64() % self.keys);
            let write = BytesEntry::new(address.clone(), self.value());
            let commands = vec![
                Command::GetState(GetState::new(vec![address.clone()])),
                Command::SetState(SetState::new(vec![write])),
            ];
            (address, commands)
        };
        let payload = CommandPayload::new(commands)
            .into_bytes()
            .map_err(|e| SmallbankError::Protocol(e.to_string()));
        Some(payload.map(|payload| Transaction {
            family: "command",
            version: "1",
            payload,
            addresses: vec![address],
        }))
    }
}
