#!/usr/bin/env bash
# The main job: installs what the backends need, builds the release CLI and runs
# `triebench bench`, which measures each filesystem and writes the report (docs/bench.md).
#
#   scripts/bench-fs.sh [NAME=DIR ...] [triebench bench flags]
#
# With no NAME=DIR: tmpfs=/dev/shm (when it is a tmpfs) and disk=<this checkout>/target/bench-disk;
# the first run is the baseline the report divides by. The report goes to
# runs/reports/<date>-<host>-<label>/ (ignored by git: results/ holds only what the docs cite),
# a run folder per filesystem to runs/.
# `triebench bench --help` lists the flags (--scale, --profiles, --load, --iolab, --criterion,
# ...); each also reads the environment variable this script read before (TRIEBENCH_SCALE,
# TRIEBENCH_PROFILES, ...; docs/bench.md maps them).
#
# TRIEBENCH_FEATURES (default all-backends) chooses the CLI's backends and the features of
# criterion's bench build when criterion runs (`transact` is the benches' alone).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

features=${TRIEBENCH_FEATURES:-all-backends}
if [[ $features == *redis* || $features == *postgres* || $features == all-backends ]]; then
  scripts/setup.sh
fi
# The target directory as cargo resolves it (a build.target-dir in a cargo config file
# included), exported so the CLI, criterion's benches and the report agree on it.
target_dir=$(scripts/target-dir.sh)
export CARGO_TARGET_DIR=$target_dir
# `transact` is a feature of the bench crate only (crates/bench/benches/transact.rs), not of
# the CLI.
cli_features=$(tr ',' '\n' <<<"$features" | grep -vx transact | paste -sd, -)
echo "bench-fs: building the CLI (features: $cli_features)"
build_start=$(date +%s)
cargo build --release --features "$cli_features" -p triebench-cli --bin triebench
echo "bench-fs: build took $(($(date +%s) - build_start)) s"
exec "$target_dir/release/triebench" bench "$@"
