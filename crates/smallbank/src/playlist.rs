//! Transact 0.4.7's seeded SmallBank playlist generator (`SmallbankGeneratingIter` in
//! `families/smallbank/workload/playlist.rs`, Copyright 2021 Cargill Incorporated, Apache-2.0),
//! carried over draw for draw: the same rand 0.8 `StdRng` seeded with `seed_from_u64`, the same
//! draws in the same order, so a seed gives the payloads Transact's generator gives. It is a
//! copy rather than a dependency because Transact's `family-smallbank-workload` feature pulls
//! an HTTP client with native TLS, a signing library, YAML and chrono along with it.
//!
//! The playlist is `accounts` CREATE_ACCOUNT payloads, then transactions drawn uniformly from
//! DEPOSIT_CHECKING, WRITE_CHECK, TRANSACT_SAVINGS, SEND_PAYMENT and AMALGAMATE over the
//! created accounts.

use rand::prelude::*;
use sha2::{Digest, Sha512};
use transact::protos::smallbank::{
    SmallbankTransactionPayload, SmallbankTransactionPayload_AmalgamateTransactionData,
    SmallbankTransactionPayload_CreateAccountTransactionData,
    SmallbankTransactionPayload_DepositCheckingTransactionData,
    SmallbankTransactionPayload_PayloadType as PayloadType,
    SmallbankTransactionPayload_SendPaymentTransactionData,
    SmallbankTransactionPayload_TransactSavingsTransactionData,
    SmallbankTransactionPayload_WriteCheckTransactionData,
};

/// The first 6 hex characters of SHA-512("smallbank"): every SmallBank address starts so.
pub const NAMESPACE: &str = "332514";

/// An endless seeded stream of SmallBank payloads: `accounts` account creations, then
/// transactions over those accounts (take as many as wanted).
#[derive(Debug)]
pub struct Playlist {
    accounts_wanted: usize,
    rng: StdRng,
    accounts: Vec<u32>,
}

impl Playlist {
    /// A playlist of `accounts` accounts drawn from `seed`. `accounts` must be at least 2 (a
    /// payment needs two different accounts; the caller checks).
    pub fn new(accounts: usize, seed: u64) -> Self {
        Playlist {
            accounts_wanted: accounts,
            rng: StdRng::seed_from_u64(seed),
            accounts: Vec::with_capacity(accounts),
        }
    }
}

impl Iterator for Playlist {
    type Item = SmallbankTransactionPayload;

    fn next(&mut self) -> Option<Self::Item> {
        let mut payload = SmallbankTransactionPayload::new();
        if self.accounts.len() < self.accounts_wanted {
            payload.set_payload_type(PayloadType::CREATE_ACCOUNT);
            let mut create = SmallbankTransactionPayload_CreateAccountTransactionData::new();
            let customer_id: u32 = self.rng.gen_range(0..u32::MAX);
            self.accounts.push(customer_id);
            create.set_customer_id(customer_id);
            create.set_customer_name(
                std::iter::repeat(())
                    .map(|()| self.rng.sample(rand::distributions::Alphanumeric))
                    .map(char::from)
                    .take(20)
                    .collect(),
            );
            create.set_initial_savings_balance(1_000_000);
            create.set_initial_checking_balance(1_000_000);
            payload.set_create_account(create);
            return Some(payload);
        }
        let n = self.accounts.len();
        let rng = &mut self.rng;
        let accounts = &self.accounts;
        match rng.gen_range(2..7) {
            2 => {
                payload.set_payload_type(PayloadType::DEPOSIT_CHECKING);
                let mut data = SmallbankTransactionPayload_DepositCheckingTransactionData::new();
                data.set_customer_id(accounts[rng.gen_range(0..n)]);
                data.set_amount(rng.gen_range(10..200));
                payload.set_deposit_checking(data);
            }
            3 => {
                payload.set_payload_type(PayloadType::WRITE_CHECK);
                let mut data = SmallbankTransactionPayload_WriteCheckTransactionData::new();
                data.set_customer_id(accounts[rng.gen_range(0..n)]);
                data.set_amount(rng.gen_range(10..200));
                payload.set_write_check(data);
            }
            4 => {
                payload.set_payload_type(PayloadType::TRANSACT_SAVINGS);
                let mut data = SmallbankTransactionPayload_TransactSavingsTransactionData::new();
                data.set_customer_id(accounts[rng.gen_range(0..n)]);
                data.set_amount(rng.gen_range(10..200));
                payload.set_transact_savings(data);
            }
            5 => {
                payload.set_payload_type(PayloadType::SEND_PAYMENT);
                let mut data = SmallbankTransactionPayload_SendPaymentTransactionData::new();
                let source = rng.gen_range(0..n);
                let dest = other_than(rng, n, source);
                data.set_source_customer_id(accounts[source]);
                data.set_dest_customer_id(accounts[dest]);
                data.set_amount(rng.gen_range(10..200));
                payload.set_send_payment(data);
            }
            _ => {
                payload.set_payload_type(PayloadType::AMALGAMATE);
                let mut data = SmallbankTransactionPayload_AmalgamateTransactionData::new();
                let source = rng.gen_range(0..n);
                let dest = other_than(rng, n, source);
                data.set_source_customer_id(accounts[source]);
                data.set_dest_customer_id(accounts[dest]);
                payload.set_amalgamate(data);
            }
        }
        Some(payload)
    }
}

/// An index in `0..n` other than `exclude`, drawn again until it differs (as Transact does;
/// `n >= 2`, so it ends).
fn other_than(rng: &mut StdRng, n: usize, exclude: usize) -> usize {
    let mut selected = exclude;
    while selected == exclude {
        selected = rng.gen_range(0..n);
    }
    selected
}

/// The addresses a payload reads and writes (its transaction's inputs and outputs), as
/// Transact's `make_addresses` gives them.
pub fn addresses(payload: &SmallbankTransactionPayload) -> Vec<String> {
    match payload.get_payload_type() {
        PayloadType::CREATE_ACCOUNT => {
            vec![customer_address(
                payload.get_create_account().get_customer_id(),
            )]
        }
        PayloadType::DEPOSIT_CHECKING => {
            vec![customer_address(
                payload.get_deposit_checking().get_customer_id(),
            )]
        }
        PayloadType::WRITE_CHECK => {
            vec![customer_address(
                payload.get_write_check().get_customer_id(),
            )]
        }
        PayloadType::TRANSACT_SAVINGS => {
            vec![customer_address(
                payload.get_transact_savings().get_customer_id(),
            )]
        }
        PayloadType::SEND_PAYMENT => vec![
            customer_address(payload.get_send_payment().get_source_customer_id()),
            customer_address(payload.get_send_payment().get_dest_customer_id()),
        ],
        PayloadType::AMALGAMATE => vec![
            customer_address(payload.get_amalgamate().get_source_customer_id()),
            customer_address(payload.get_amalgamate().get_dest_customer_id()),
        ],
        PayloadType::PAYLOAD_TYPE_UNSET => Vec::new(),
    }
}

/// A customer's account address: the namespace, then the first 64 hex characters of
/// SHA-512 of the decimal customer id (35 bytes in all).
pub fn customer_address(customer_id: u32) -> String {
    let digest = Sha512::digest(customer_id.to_string().as_bytes());
    format!("{NAMESPACE}{}", &hex::encode(digest)[..64])
}
