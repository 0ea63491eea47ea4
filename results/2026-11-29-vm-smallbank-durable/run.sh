#!/usr/bin/env bash
# SmallBank end to end, triebench's state on a profile beside Transact 0.4.7's own durable state
# of the same kind (`--transact`, run by transact-runner, block by block in turn), on tmpfs
# (/dev/shm) and on the disk. Run from the repository root after
#   cargo build --release -p triebench-cli --all-features
#   cargo build --release --manifest-path crates/transact-compare/Cargo.toml --target-dir target
# (the runner lands beside triebench, where the command looks for it).
set -euo pipefail
out=results/2026-11-29-vm-smallbank-durable
bin=${CARGO_TARGET_DIR:-target}/release/triebench
# 2,000 transactions (the main job's SmallBank size), not the 10,000 of 2026-11-28-vm-smallbank:
# Transact's SqlMerkleState slows block by block (README), and 10,000 did not end in an hour.
args=(--accounts 1000 --transactions 2000 --block-size 100 --seed 1)
for fs in tmpfs disk; do
  case $fs in
    tmpfs) base=/dev/shm/triebench-smallbank-durable ;;
    disk) base=${CARGO_TARGET_DIR:-target}/bench-disk/triebench-smallbank-durable ;;
  esac
  mkdir -p "$out/$fs"
  : >"$out/$fs/progress.log"
  for profile in lmdb sqlite-wal-full postgres; do
    rm -rf "$base/$profile"
    "$bin" smallbank --profile "$profile" --dir "$base/$profile" --transact "transact-0.4.7:$profile" \
      "${args[@]}" --out "$out/$fs/$profile.json" 2>>"$out/$fs/progress.log" | tee "$out/$fs/$profile.txt"
    rm -rf "$base/$profile"
  done
done
