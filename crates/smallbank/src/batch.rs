//! A family's transaction as a one-transaction batch, ready for Transact's scheduler.
//!
//! Each transaction is its own batch, as a SmallBank client submits them: a transaction the
//! handler rejects (an account created twice, an overdraft) then invalidates only itself.
//! Nothing here signs: Transact's scheduler and executor do not check signatures (a validator
//! does, before a batch reaches them), so the ids are unique hex strings and the public keys a
//! fixed placeholder.

use protobuf::Message;
use sha2::{Digest, Sha512};
use transact::protocol::batch::BatchPair;
use transact::protos::batch::{Batch as BatchProto, BatchHeader as BatchHeaderProto};
use transact::protos::transaction::{
    Transaction as TransactionProto, TransactionHeader as TransactionHeaderProto,
};
use transact::protos::IntoNative;

use crate::error::SmallbankError;
use crate::transaction::Transaction;

/// The placeholder signer and batcher public key (33 bytes, hex), as a compressed secp256k1
/// key is long.
const PUBLIC_KEY: &str = "020000000000000000000000000000000000000000000000000000000000000001";

/// The batch holding transaction number `index` of the run.
pub fn batch_of(index: u64, transaction: &Transaction) -> Result<BatchPair, SmallbankError> {
    let proto_err = |e: protobuf::ProtobufError| SmallbankError::Protocol(e.to_string());
    let payload_bytes = transaction.payload.clone();
    let addresses = transaction.addresses.clone();

    let mut header = TransactionHeaderProto::new();
    header.set_batcher_public_key(PUBLIC_KEY.into());
    header.set_family_name(transaction.family.into());
    header.set_family_version(transaction.version.into());
    header.set_inputs(addresses.clone().into());
    header.set_outputs(addresses.into());
    header.set_nonce(format!("{index}"));
    header.set_payload_sha512(hex::encode(Sha512::digest(&payload_bytes)));
    header.set_signer_public_key(PUBLIC_KEY.into());
    let transaction_id = format!("{:0128x}", 2 * index);

    let mut transaction = TransactionProto::new();
    transaction.set_header(header.write_to_bytes().map_err(proto_err)?);
    transaction.set_header_signature(transaction_id.clone());
    transaction.set_payload(payload_bytes);

    let mut batch_header = BatchHeaderProto::new();
    batch_header.set_signer_public_key(PUBLIC_KEY.into());
    batch_header.set_transaction_ids(vec![transaction_id].into());

    let mut batch = BatchProto::new();
    batch.set_header(batch_header.write_to_bytes().map_err(proto_err)?);
    batch.set_header_signature(format!("{:0128x}", 2 * index + 1));
    batch.set_transactions(vec![transaction].into());

    let native: transact::protocol::batch::Batch = batch
        .into_native()
        .map_err(|e| SmallbankError::Protocol(e.to_string()))?;
    native
        .into_pair()
        .map_err(|e| SmallbankError::Protocol(e.to_string()))
}
