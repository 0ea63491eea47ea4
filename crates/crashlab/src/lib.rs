//! `triebench-crashlab`: the crash lab. It kills a committing process, cuts its power, explores
//! the crash states a filesystem allows, or loses the primary of a replicated pair, and then
//! checks every root the store acknowledged: it opens, its leaves read back and recompute it,
//! and one more commit succeeds.
//!
//! The lab drives the binary that links it: the rounds start the committing child and the
//! power-loss mount server as processes of their own through the binary's hidden commands
//! `crash-child` ([`run_child`]) and `crash-mount` ([`serve_mount`]), which `triebench` routes
//! here. The caller makes the folders it was given ([`Folders`]) and prints the summaries.
//!
//! # Modules, in data order
//!
//! - `batches`: random commits shaped like production (70-hex addresses, values up to 4 KiB,
//!   sets, updates and deletes), resumable from any surviving root.
//! - `child`: the child process's loop: open the store, commit, acknowledge each
//!   root on stdout, repeat until killed ([`run_child`]).
//! - `mount`: the power-loss mount server, a slowfs mount in a process of its own
//!   ([`serve_mount`]).
//! - `round`: one round's process work: start the child, collect its roots, SIGKILL it, reap
//!   what it left.
//! - `power`: the power-loss mount as the rounds use it: mount, cut, unmount.
//! - `verify`: the check of every acknowledged root (lost, corrupt, the loss window).
//! - `check`: reopen the store, check the roots, commit once more.
//! - `cleanup`: the managed servers' socket directories a killed store leaves.
//! - `rounds`: the process-kill and power-cut rounds ([`crash_rounds`]).
//! - `recording`: a crash-state round recorded through slowfs with an op log, and the check
//!   of one of its states; `owners`: the owners and modes a state gets back.
//! - `explore`: crash states explored under a model ([`explore_states`]).
//! - `fsync_eio`: one fsync failed with EIO mid-workload ([`fsync_eio()`]).
//! - `models_file`: the lines those two runs are summed up in ([`model_summary`],
//!   [`eio_summary`]) and `crash-models.md`.
//! - `pair`: one failover round on a replicated pair: commit, lose the primary, promote the
//!   standby, check; `failover`: the rounds of a profile with a standby
//!   ([`failover_rounds`]).
//! - `folders`: [`Folders`], how `--dir` and `--out` are made ([`SafeFolders`]: as every
//!   command makes them); `seed`: the clock
//!   seed of a run given none.
//! - `results`: the output folder checked before a run and the run merged into its result file
//!   after ([`triebench_record::results`], the one writer), with `env.json`.
//! - `error`: [`CrashError`], every way the above fails.

mod batches;
mod check;
mod child;
mod cleanup;
mod error;
mod explore;
mod failover;
mod folders;
mod fsync_eio;
mod models_file;
mod mount;
mod owners;
mod pair;
mod power;
mod recording;
mod results;
mod round;
mod rounds;
mod seed;
mod verify;

pub use child::{run_child, ChildOptions};
pub use error::CrashError;
pub use explore::{explore_states, ExploreOptions};
pub use failover::{failover_rounds, failover_summary, standby_damage, FailoverOptions};
pub use folders::{Folders, SafeFolders};
pub use fsync_eio::{fsync_eio, save_fsync_eio, FsyncEioOptions};
pub use models_file::{eio_summary, model_summary};
pub use mount::{serve_mount, MountOptions};
pub use rounds::{crash_rounds, crash_summary, RoundsOptions};
