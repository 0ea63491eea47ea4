//! Crash models stricter than the clean cut of [`crate::power`], and the op log they replay.
//!
//! A mount started with an op log ([`oplog::OpLog`]) writes down every change it passes
//! through (writes with their bytes, truncations, creates, renames, unlinks, mkdirs) and every
//! sync-family call (fsync, fdatasync, fsyncdir, and writes through `O_SYNC` handles), in the
//! order they reached the backing directory. A crash state is then rebuilt offline from that
//! log, as ALICE and CrashMonkey do: [`replay`] takes the first `k` operations, keeps what the
//! chosen [`CrashModel`] says must survive, and lets a seeded random choice decide what else
//! does. [`faults`] injects `EIO`/`ENOSPC` into the live mount.
//!
//! - [`kind`]: the models (`clean`, `metadata`, `reordered`, `torn`) and their names.
//! - [`oplog`]: the log format, its writer (used by the mount) and its reader.
//! - [`points`]: which crash points to visit (every sync call, sampled points between).
//! - [`replay`]: crash points, sampling one state a model allows, and writing it to a directory.
//! - [`mod@explore`]: visiting crash points and sampled states, checking each, keeping the
//!   smallest violation of each kind.
//! - [`faults`]: which fsync or write fails, and with which error.
//! - [`rng`]: the small seeded generator the sampling uses (reproducible from a seed).

pub mod explore;
pub mod faults;
pub mod kind;
pub mod oplog;
pub mod points;
pub mod replay;
pub mod rng;

pub use explore::{explore, Exploration, Failure, StateId, Violation};
pub use faults::{FaultPlan, FaultSpec};
pub use kind::CrashModel;
pub use oplog::{LogOp, OpLog};
pub use points::PointPlan;
pub use replay::{crash_points, CrashState, Replay};
