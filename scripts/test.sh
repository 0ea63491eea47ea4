#!/usr/bin/env bash
# The project's test command: setup, formatting, lints, then every test on every backend.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# The report.html test opens the page in Chromium (setup.sh installs it): here it must run, not skip.
export TRIEBENCH_REQUIRE_BROWSER=1
echo "== [${SECONDS}s] cargo fmt --check"
cargo fmt --all -- --check
echo "== [${SECONDS}s] clippy, as the crates are built (scripts/lint-as-built.sh; -D warnings, every target)"
# shellcheck source=scripts/lint-as-built.sh
source scripts/lint-as-built.sh
# The wrapper must still catch a lint: a scratch crate with one planted must fail to build.
planted=$(mktemp -d)
mkdir "$planted/src"
printf '[package]\nname = "planted"\nversion = "0.0.0"\nedition = "2021"\n[workspace]\n' >"$planted/Cargo.toml"
printf 'fn main() {\n    let v = vec![1];\n    println!("{}", v.len());\n}\n' >"$planted/src/main.rs"
if planted_out=$(cargo build -q --manifest-path "$planted/Cargo.toml" --target-dir "$planted/target" 2>&1) ||
  [[ $planted_out != *"clippy::useless-vec"* ]]; then
  echo "test: clippy-driver around the build did not reject a planted lint: $planted_out" >&2
  exit 1
fi
rm -rf "$planted"
echo "== [${SECONDS}s] module cycles (no module imports one that imports it back)"
scripts/check-module-cycles.py
echo "== [${SECONDS}s] crate layers (no workspace crate depends on one above it; scripts/check-crate-layers.py has the table)"
scripts/check-crate-layers.py
echo "== [${SECONDS}s] test suites (every integration test file of a one-binary crate is in its tests/suite.rs)"
scripts/check-test-suites.py
echo "== [${SECONDS}s] docs (every results/ folder cited and indexed, every link and anchor resolves)"
scripts/check-docs.sh
# Where cargo builds (a build.target-dir in a cargo config file included): the debug slowfs the
# lab test runs is found there.
target=$(scripts/target-dir.sh)
# The tests make hundreds of small stores (a PostgreSQL cluster, a SQLite file, an LMDB map) and
# fsync them; they check behaviour, not speed, so they run with TMPDIR on a tmpfs when one with
# room is there (/dev/shm with at least 4 GiB free): on this VM's disk the workspace tests took
# about twice as long. What a real filesystem does is the filesystem lab's test below (ext4, xfs,
# btrfs on loop devices) and the power-cut emulation's (slowfs, on any backing directory).
# TRIEBENCH_TEST_TMPDIR chooses the directory; `disk` keeps the default TMPDIR.
test_tmp=${TRIEBENCH_TEST_TMPDIR:-}
made_test_tmp=
if [[ -z $test_tmp ]] && [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
  (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') >= 4 * 1024 * 1024)); then
  test_tmp=$(mktemp -d /dev/shm/triebench-test.XXXXXX)
  made_test_tmp=$test_tmp
fi
if [[ $test_tmp == disk ]]; then test_tmp=; fi
test_env=()
if [[ -n $test_tmp ]]; then
  test_env=(env "TMPDIR=$test_tmp")
  echo "test: TMPDIR=$test_tmp for the tests and benches in test mode"
fi
# Two jobs need nothing the tests build, and run beside them (at the lowest CPU priority,
# nice 19, unless said below), each in a target directory of its own (in the shared one, cargo's build-directory
# lock would make the tests' build wait for them): they take the CPU the tests leave idle (most
# tests wait on servers, fsyncs and child processes) and are waited for where their result is
# needed, their output printed then (in the foreground, the lints alone took 172 s of a cold
# run on the project's two-core VM).
declare -A job_pid=() job_log=()
background_job() { # NAME FUNCTION [NICENESS, 19 by default]
  local name=$1 job=$2 niceness=${3:-19}
  echo "== [${SECONDS}s] $name: started in the background"
  job_log[$name]=$(mktemp)
  (
    set -euo pipefail
    renice -n "$niceness" -p "$BASHPID" >/dev/null
    "$job"
  ) >"${job_log[$name]}" 2>&1 &
  job_pid[$name]=$!
}
wait_job() { # NAME
  local name=$1 status=0
  echo "== [${SECONDS}s] $name: waiting for the background run"
  wait "${job_pid[$name]}" || status=$?
  unset "job_pid[$name]"
  cat "${job_log[$name]}"
  rm -f "${job_log[$name]}"
  if ((status != 0)); then
    echo "test: $name failed (above)" >&2
    exit "$status"
  fi
}
# Never leave a background job running when this script stops early.
cleanup() {
  local pid
  for pid in "${job_pid[@]}"; do
    pkill -P "$pid" 2>/dev/null || true
    kill "$pid" 2>/dev/null || true
  done
  [[ -z $made_test_tmp ]] || rm -rf "$made_test_tmp"
}
trap cleanup EXIT

lints() {
  export CARGO_TARGET_DIR=$target/lints
  echo "== [${SECONDS}s] cargo clippy on triebench-kv with one server backend at a time (what a library user building one compiles)"
  for backend in postgres-db redis-db; do
    cargo clippy -p triebench-kv --no-default-features --features "$backend" --all-targets -- -D warnings
  done
  echo "== [${SECONDS}s] cargo package (the library crates are ready for crates.io: metadata, READMEs, versions)"
  cargo package --no-verify --allow-dirty --quiet -p triebench-record -p triebench-netdelay -p triebench-kv \
    -p triebench-merkle -p triebench-transact-state
  echo "== [${SECONDS}s] cargo doc (no broken links or HTML in the docs)"
  RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --all-features --quiet
  echo "== [${SECONDS}s] the macOS build check (scripts/check-macos.sh: every crate, test and bench for x86_64-apple-darwin)"
  # In the lints' target directory, after them: the proc-macros and build scripts it runs on
  # the host are the ones clippy built (a cold check on its own cost 210 CPU-seconds on the
  # project's VM, after a workspace clippy 140).
  scripts/check-macos.sh
  echo "== [${SECONDS}s] lints and the macOS check: done"
}
background_job "lints and the macOS check" lints

# The Transact comparator (crates/transact-compare, a workspace of its own): fmt, clippy,
# tests. The dev profile, as the workspace's tests (its Cargo.toml optimizes SHA-512 there):
# the benches' test mode below drives the transact-runner built here
# (TRIEBENCH_TRANSACT_RUNNER); a release build of Transact's stack cost this script minutes of
# the VM's two cores for tests that run in under a second.
transact_target=$target/transact-compare
transact_comparator() {
  local transact=(--manifest-path crates/transact-compare/Cargo.toml --target-dir "$transact_target")
  cargo fmt --manifest-path crates/transact-compare/Cargo.toml -- --check
  # Clippy lints it as its tests build (its lib, bin and tests are every target it has).
  "${test_env[@]}" timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test "${transact[@]}"
}
# Merk's comparator (crates/merk-compare, a workspace of its own on the nightly Rust its
# rust-toolchain.toml pins, linking the system's RocksDB): fmt, then clippy as its crates build
# and its tests (the dev profile with Merk and the hashes optimized; the workload at scale 1).
# Cargo runs in its directory, where rustup picks that toolchain and .cargo/config.toml points
# librocksdb-sys at the system's library; in a target directory of its own. Nothing else waits
# for it.
merk_target=$target/merk-compare
merk_comparator() {
  cd crates/merk-compare
  cargo fmt --all -- --check
  # That nightly's clippy-driver around the build (lint-as-built's is the pinned stable's, which
  # cannot read what the nightly compiled); CLIPPY_ARGS (-D warnings) as lint-as-built sets it.
  RUSTC_WORKSPACE_WRAPPER=$(rustup which clippy-driver) CARGO_TARGET_DIR=$merk_target \
    "${test_env[@]}" timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test --workspace
}
# Every bench target is built as the tests were (the workspace, all features): with
# `--features all-backends` on the bench crate alone, cargo resolved other features for the
# crates below it and compiled them all again (80 s of a bench step on the project's VM).
bench_build=(--workspace --all-features)
# The checks after the tests (doctests, the example, the lab, the benches in test mode) need
# nothing the tests make but their build: they run beside them, at normal priority (most tests
# wait on servers and fsyncs; on the project's two-core VM these took 200 s one after the other
# once the tests had ended). Their first cargo command waits on cargo's lock while nextest
# builds.
side_checks() {
  echo "== [${SECONDS}s] doctests (nextest does not run them)"
  # First, untimed, the tests' build (nextest's, below; this waits on cargo's lock while it
  # runs): where nothing was built before (the README's order, bench-fs.sh builds only the
  # release CLI), that build took ~800 s of a loaded run on the project's VM, and the doctests'
  # 600 s limit, counting the wait, killed them before they started.
  cargo test -q --workspace --all-features --no-run
  "${test_env[@]}" timeout --kill-after=30 600 cargo test --workspace --all-features --doc -q
  echo "== [${SECONDS}s] the ledger example (crates/transact-state/examples/ledger.rs) on a profile of each backend"
  # What a Splinter-like project would copy: blocks committed through Transact's traits, the
  # previous root pruned after each, blocks that change nothing included. The example checks
  # itself (supply conserved, head readable) and exits non-zero otherwise.
  # Built as the tests built it (the workspace, all features: nextest built the examples), so
  # nothing compiles again; `cargo run -p` would resolve features for one package and rebuild
  # the crates under it. The lab's debug slowfs too, in case nextest has not built it yet.
  cargo build -q --workspace --all-features --example ledger --bin slowfs
  ledger_dir=$(mktemp -d "${TMPDIR:-/tmp}/triebench-ledger.XXXXXX")
  for profile in btree lmdb sqlite-wal-full redis-aof postgres; do
    "${test_env[@]}" timeout --kill-after=30 600 "$target/debug/examples/ledger" \
      --profile "$profile" --dir "$ledger_dir/$profile" --blocks 120 | tail -n 1
  done
  rm -rf "$ledger_dir"
  echo "== [${SECONDS}s] filesystem lab (scripts/fs-lab.sh on a private lab: mounts, idempotence, crash clean-up)"
  if [[ $(id -u) -eq 0 ]]; then
    # The debug slowfs the tests above built; the lab script would otherwise build a release one.
    TRIEBENCH_SLOWFS="$target/debug/slowfs" scripts/test-fs-lab.sh
  elif [[ ${CI:-} == true ]]; then
    echo "test: the filesystem lab test needs root (loop devices, mounts), and CI must run it" >&2
    exit 1
  else
    echo "test: skipped the filesystem lab test: it needs root (loop devices, mounts)"
  fi
  echo "== [${SECONDS}s] criterion benches in test mode (each benchmark once, quick sizes)"
  # The suite group runs every scenario; it is checked on one profile of each backend (the bench's
  # code is the same for every profile, and crates/workloads/tests/scenarios.rs runs every scenario
  # on every profile, the standby ones included); each scenario's own group is checked on btree.
  # Every group on every profile took 2.5 min of debug-build time; the suite on the two standby
  # profiles alone 70 s (a fresh pair of servers per scenario).
  suite_profiles='btree|lmdb|sqlite-wal-full|redis-aof|postgres'
  TRIEBENCH_SCALE=quick TRIEBENCH_FILTER="^scenario/suite/($suite_profiles)\$|^scenario/[a-z_]+/btree\$|^floor/" \
    "${test_env[@]}" timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" \
    cargo test "${bench_build[@]}" --bench kv --bench merkle --bench phases --bench proofs
  echo "== [${SECONDS}s] a measuring bench records what idle CPUs did, and its run's versions, beside its baseline (crates/bench/benches/support)"
  # Test mode holds nothing, so this measures one cheap benchmark (`--bench`): the record must land
  # where criterion saved the baseline (here CRITERION_HOME), and an unknown mode must stop the
  # bench with the valid ones named.
  idle_home=$(mktemp -d)
  idle_bench=(cargo test -q "${bench_build[@]}" --bench kv -- --bench --noplot --save-baseline ci-idle '^floor/sha512_8k$')
  CRITERION_HOME=$idle_home TRIEBENCH_SCALE=quick TRIEBENCH_FILTER='^floor/sha512_8k$' TRIEBENCH_CPU_IDLE=os \
    "${test_env[@]}" "${idle_bench[@]}" >/dev/null
  if [[ ! -f $idle_home/floor/sha512_8k/ci-idle/sample.json ]] ||
    ! grep -q '"requested": "os"' "$idle_home/triebench-runs/headline/ci-idle.json" ||
    ! grep -q '"sqlite": "3\.' "$idle_home/triebench-runs/records/ci-idle/cargo-bench.json"; then
    echo "test: the bench saved no baseline, or no CPU idle record or run record beside it, under $idle_home" >&2
    exit 1
  fi
  idle_status=0
  idle_err=$(CRITERION_HOME=$idle_home TRIEBENCH_CPU_IDLE=bogus "${idle_bench[@]}" 2>&1 >/dev/null) || idle_status=$?
  if ((idle_status != 2)) || [[ $idle_err != *"TRIEBENCH_CPU_IDLE"*"poll"* ]]; then
    echo "test: TRIEBENCH_CPU_IDLE=bogus gave status $idle_status and: $idle_err" >&2
    exit 1
  fi
  rm -rf "$idle_home"
}
# Transact's benches in test mode and the plot checks drive the comparator's transact-runner:
# they run once it is built, in the comparator's own background job.
after_comparator() {
  echo "== [${SECONDS}s] Transact benches in test mode (the suite once per implementation)"
  # Every scenario of every Transact implementation would take minutes; the suite covers them all.
  TRIEBENCH_TRANSACT_RUNNER="$transact_target/debug/transact-runner" TRIEBENCH_SCALE=quick \
    TRIEBENCH_FILTER=scenario/suite/transact "${test_env[@]}" timeout --kill-after=30 \
    "${TRIEBENCH_TEST_TIMEOUT:-1500}" cargo test "${bench_build[@]}" --bench transact
  echo "== [${SECONDS}s] criterion's HTML plots: one benchmark of each bench target measured with plots on"
  # Test mode draws nothing, and scripts/bench-fs.sh passes --noplot, so a bench that cannot draw
  # (criterion's plotters shares our ab_glyph text renderer, which needs a registered font:
  # crates/bench/benches/support/mod.rs, begin) would break `cargo bench` unseen. Each target measures one
  # cheap benchmark (`--bench`, the test profile's build) and must leave an SVG with text in it.
  plot_home=$(mktemp -d)
  plot_check() { # BENCH FILTER
    local bench=$1 filter=$2
    CRITERION_HOME=$plot_home/$bench TRIEBENCH_SCALE=quick TRIEBENCH_FILTER=$filter TRIEBENCH_CPU_IDLE=os \
      TRIEBENCH_TRANSACT_RUNNER="$transact_target/debug/transact-runner" "${test_env[@]}" \
      cargo test -q "${bench_build[@]}" --bench "$bench" -- --bench "$filter" >/dev/null
    if ! grep -qs '<text' "$plot_home/$bench"/*/*/report/pdf.svg; then
      echo "test: the $bench bench drew no plot with text under $plot_home/$bench" >&2
      exit 1
    fi
  }
  plot_check kv '^floor/sha512_8k$'
  plot_check merkle '^scenario/empty_changes/btree$'
  plot_check phases '^phases/span/no-subscriber$'
  plot_check transact '^scenario/empty_changes/transact-0\.4\.7:btree$'
  rm -rf "$plot_home"
}
transact_comparator_and_benches() {
  transact_comparator
  after_comparator
}
# At normal priority: its benches wait for it, and at nice 19 beside eight tests a cold run
# waited 255 s for it after the tests.
background_job "Transact comparator and its benches" transact_comparator_and_benches 0
background_job "checks beside the tests" side_checks 0
background_job "Merk comparator" merk_comparator 0
# Miri on the btree store's unsafe (crates/kv/src/btree/entry.rs), under Stacked Borrows. It
# needs nothing the tests build and builds in a directory of its own (cargo miri's `miri` beside
# the target's profiles), single-threaded: beside the tests at nice 19 it takes CPU they leave
# idle, where after everything else it ran alone with a core idle (91 s of a cold CI run).
# Needs a nightly toolchain with the miri and rust-src components; the machines are offline for
# toolchains (rust-toolchain.toml), so where there is none this step says so and is skipped.
# `cargo miri setup` builds Miri's sysroot once (~1 min) and is the probe. The entry module's
# proptests and the unit tests that fold and copy on the background thread run (~25 s once
# built, ~40 s cold on the project VM); the three model proptests and `ahead`'s take minutes
# under Miri and exercise the same code, so they are left to a developer's run (entry.rs's and
# ahead.rs's docs give the commands).
miri() {
  echo "== [${SECONDS}s] Miri: the btree store's unsafe (crates/kv/src/btree/entry.rs) under Stacked Borrows"
  # Miri wraps rustc itself: without the stable toolchain's clippy-driver around it.
  unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
  if cargo +nightly miri setup >/dev/null 2>&1; then
    PROPTEST_CASES=16 MIRIFLAGS=-Zmiri-disable-isolation cargo +nightly miri test -q -p triebench-kv \
      --lib --no-default-features btree -- --skip readers_keep_their_snapshots \
      --skip commits_match_a_model --skip put_many_is_put_key_by_key --skip yields_the_pairs_in_order
  else
    echo "test: skipped Miri: no nightly toolchain with miri and rust-src (rustup toolchain install nightly --component miri,rust-src)"
  fi
}
background_job "Miri" miri

echo "== [${SECONDS}s] cargo nextest (workspace, all features; .config/nextest.toml)"
# Tests of different binaries run side by side (cargo test runs one binary at a time, and most
# tests wait on servers and fsyncs: on the project's VM the tests took 466 s that way).
# A hung test (a deadlock, a server that never answers) must fail CI, not eat its 90 minutes.
# The tests' build first, untimed (the same artifacts nextest builds): the limit is for the
# tests, and a cold build on a loaded two-core host took ~800 s of it.
cargo test -q --workspace --all-features --no-run
"${test_env[@]}" timeout --kill-after=30 "${TRIEBENCH_TEST_TIMEOUT:-1500}" \
  cargo nextest run --workspace --all-features --no-tests=fail
wait_job "checks beside the tests"
wait_job "Transact comparator and its benches"
wait_job "Merk comparator"
wait_job "lints and the macOS check"
wait_job "Miri"
echo "== [${SECONDS}s] done"
