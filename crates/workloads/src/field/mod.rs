//! The field's published benchmark workloads, as their authors specify them, over Transact's
//! 35-byte addresses: Firewood's benchmark set ([`firewood`]: `create`, `tenkrandom`, `zipf`,
//! `single`), IAVL-bench's bank shape ([`iavl`]) and Merk's inserts, updates and reads
//! ([`merk`]). Each is a stream of [`FieldCommit`]s,
//! those that build the starting state ([`Phase::Setup`]) then those a run times
//! ([`Phase::Timed`]); sizes scale with one parameter. How keys become addresses is in
//! [`address`]; [`digest`] hashes a run's commits, so two programs can show they ran the same.

pub mod address;
pub mod commit;
pub mod digest;
pub mod firewood;
pub mod iavl;
pub mod merk;
pub mod workload;

pub use commit::{FieldCommit, OpKind, Phase};
pub use digest::CommitsDigest;
pub use workload::{FieldWorkload, UnknownFieldWorkload, FIELD_WORKLOADS};
