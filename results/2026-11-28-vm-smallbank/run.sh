#!/usr/bin/env bash
# SmallBank end to end, triebench vs Transact's MerkleState (in memory) in one process, per
# profile, on tmpfs (/dev/shm) and on the disk. Run from the repository root after
# `cargo build --release -p triebench-cli --all-features`.
set -euo pipefail
out=results/2026-11-28-vm-smallbank
bin=${CARGO_TARGET_DIR:-target}/release/triebench
args=(--accounts 1000 --transactions 10000 --block-size 100 --seed 1)
"$bin" smallbank --profile btree "${args[@]}" --out "$out/btree.json" | tee "$out/btree.txt"
for fs in tmpfs disk; do
  case $fs in
    tmpfs) base=/dev/shm/triebench-smallbank ;;
    disk) base=${CARGO_TARGET_DIR:-target}/bench-disk/triebench-smallbank ;;
  esac
  mkdir -p "$out/$fs"
  for profile in lmdb sqlite-wal-full postgres; do
    rm -rf "$base/$profile"
    "$bin" smallbank --profile "$profile" --dir "$base/$profile" "${args[@]}" \
      --out "$out/$fs/$profile.json" | tee "$out/$fs/$profile.txt"
    rm -rf "$base/$profile"
  done
done
