#!/usr/bin/env bash
# The project's test command: setup, formatting, lints, then every test on every backend.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (all targets, all features, -D warnings)"
cargo clippy --workspace --all-targets --all-features -- -D warnings
echo "== module cycles (no module imports one that imports it back)"
scripts/check-module-cycles.py
echo "== cargo doc (no broken links or HTML in the docs)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --all-features --quiet
echo "== cargo test (workspace, all features)"
# A hung test (a deadlock, a server that never answers) must fail CI, not eat its 90 minutes.
timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test --workspace --all-features
echo "== Transact comparator (crates/transact-compare, a workspace of its own): fmt, clippy, tests"
# Release, so benches/transact.rs (below) finds its transact-runner already built.
transact=(--manifest-path crates/transact-compare/Cargo.toml)
cargo fmt "${transact[@]}" -- --check
cargo clippy "${transact[@]}" --release --all-targets -- -D warnings
timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test "${transact[@]}" --release
echo "== criterion benches in test mode (each benchmark once, quick sizes)"
TRIEBENCH_SCALE=quick timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" \
  cargo test --benches --all-features
echo "== filesystem lab (scripts/fs-lab.sh on a private lab: mounts, idempotence, crash clean-up)"
if [[ $(id -u) -eq 0 ]]; then
  # The debug slowfs the tests above built; the lab script would otherwise build a release one.
  TRIEBENCH_SLOWFS="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/slowfs" scripts/test-fs-lab.sh
elif [[ ${CI:-} == true ]]; then
  echo "test: the filesystem lab test needs root (loop devices, mounts), and CI must run it" >&2
  exit 1
else
  echo "test: skipped the filesystem lab test: it needs root (loop devices, mounts)"
fi
