//! Every integration test of `triebench-merkle`, in one test binary: each file under `tests/`
//! stays a module of its own, with its own `mod common;` (hence `duplicate_mod`), so a file
//! reads as it did when it was a binary of its own. One binary instead of one per file: each
//! of those linked every dependency again, most of the test command's build time.
//! `scripts/check-test-suites.py` fails when a file here is not named below.
#![allow(clippy::duplicate_mod)]

#[path = "changelog_versions.rs"]
mod changelog_versions;
#[path = "codec_props.rs"]
mod codec_props;
#[path = "commit_and_prune.rs"]
mod commit_and_prune;
#[path = "corruption.rs"]
mod corruption;
#[path = "expected_commits.rs"]
mod expected_commits;
#[path = "node_cache.rs"]
mod node_cache;
#[path = "parallel_finish.rs"]
mod parallel_finish;
#[path = "proof_vectors.rs"]
mod proof_vectors;
#[path = "proofs.rs"]
mod proofs;
#[path = "properties.rs"]
mod properties;
#[path = "prune_reached_again.rs"]
mod prune_reached_again;
#[path = "pruning.rs"]
mod pruning;
#[path = "round_trips.rs"]
mod round_trips;
#[path = "store_layout.rs"]
mod store_layout;
#[path = "vectors.rs"]
mod vectors;
#[path = "vectors_every_profile.rs"]
mod vectors_every_profile;
