#!/usr/bin/env bash
# The project's test command: setup, formatting, lints, then every test on every backend.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
echo "== [${SECONDS}s] cargo fmt --check"
cargo fmt --all -- --check
echo "== [${SECONDS}s] cargo clippy (all targets, all features, -D warnings)"
cargo clippy --workspace --all-targets --all-features -- -D warnings
echo "== [${SECONDS}s] module cycles (no module imports one that imports it back)"
scripts/check-module-cycles.py
echo "== [${SECONDS}s] cargo doc (no broken links or HTML in the docs)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --all-features --quiet
echo "== [${SECONDS}s] cargo test (workspace, all features)"
# A hung test (a deadlock, a server that never answers) must fail CI, not eat its 90 minutes.
timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test --workspace --all-features
echo "== [${SECONDS}s] Transact comparator (crates/transact-compare, a workspace of its own): fmt, clippy, tests"
# Release and in this workspace's target directory, so benches/transact.rs (below) finds its
# transact-runner already built there instead of building it a second time.
transact=(--manifest-path crates/transact-compare/Cargo.toml --target-dir "${CARGO_TARGET_DIR:-target}")
cargo fmt --manifest-path crates/transact-compare/Cargo.toml -- --check
cargo clippy "${transact[@]}" --release --all-targets -- -D warnings
timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test "${transact[@]}" --release
echo "== [${SECONDS}s] criterion benches in test mode (each benchmark once, quick sizes)"
TRIEBENCH_SCALE=quick timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" \
  cargo test --benches --all-features
echo "== [${SECONDS}s] filesystem lab (scripts/fs-lab.sh on a private lab: mounts, idempotence, crash clean-up)"
if [[ $(id -u) -eq 0 ]]; then
  # The debug slowfs the tests above built; the lab script would otherwise build a release one.
  TRIEBENCH_SLOWFS="$(realpath -m "${CARGO_TARGET_DIR:-target}")/debug/slowfs" scripts/test-fs-lab.sh
elif [[ ${CI:-} == true ]]; then
  echo "test: the filesystem lab test needs root (loop devices, mounts), and CI must run it" >&2
  exit 1
else
  echo "test: skipped the filesystem lab test: it needs root (loop devices, mounts)"
fi
echo "== [${SECONDS}s] done"
