#!/usr/bin/env bash
# Engines side by side: our trie, JMT, the MPT and Transact 0.4.7's own state on btree, lmdb,
# sqlite-wal-full and postgres, and NOMT on its own files, on tmpfs (/dev/shm) and on the disk
# (/var/tmp, ext4 on virtio); on the disk also the field's Firewood `single` and `tenkrandom`
# on every engine and profile. Then the section over both. Run from the repository root after
# `cargo build --release -p triebench-cli --all-features`.
set -euo pipefail
out=results/2026-11-28-vm-engines
bin=${CARGO_TARGET_DIR:-target}/release/triebench
args=(--engines trie,jmt,mpt,transact,nomt --profiles btree,lmdb,sqlite-wal-full,postgres
  --leaves 10000 --batch 1000 --reads 300 --seed 7)
for fs in tmpfs disk; do
  case $fs in
    tmpfs) base=/dev/shm/triebench-engines extra=() ;;
    disk) base=/var/tmp/triebench-engines extra=(--field firewood-single,firewood-tenkrandom) ;;
  esac
  rm -rf "$base"
  mkdir -p "$out/$fs"
  # A profile that fails stops that filesystem's run; what it measured before stays recorded.
  "$bin" engines "${args[@]}" "${extra[@]}" --dir "$base" --out "$out/$fs/engines.json" \
    > "$out/$fs/engines.txt" 2> >(tee -a "$out/progress.log" >&2) ||
    echo "engines on $fs: failed (exit $?)" | tee -a "$out/progress.log"
  rm -rf "$base"
done
"$bin" engines-report "$out"
