#!/usr/bin/env bash
# The growth fill beside its storage floor (grow --fill-floor), to 10^5 leaves, on the disk and
# on tmpfs, for lmdb and sqlite-wal-full, on one thread and on two (RAYON_NUM_THREADS).
# Usage, from the checkout's root after `cargo build --release --features sqlite-db -p triebench-cli`:
#   results/2026-11-28-vm-fill-floor/run.sh DISK_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-28-vm-fill-floor
disk=${1:?a directory on the disk to measure}
target=$(scripts/target-dir.sh)
for fs in disk tmpfs; do
  case $fs in disk) root=$disk ;; tmpfs) root=/dev/shm ;; esac
  for profile in lmdb sqlite-wal-full; do
    for threads in 2 1; do
      work=$(mktemp -d "$root/triebench-floor.XXXXXX")
      name=$fs-$profile-t$threads
      echo "== $name ($(date -u +%H:%M:%S))"
      RAYON_NUM_THREADS=$threads "$target/release/triebench" grow --backend "$profile" \
        --dir "$work/store" --fill-floor "$work/floor" --max-leaves 100000 --commits 20 \
        --reads 50 --out "$out/$name" >"$out/$name.log" 2>&1
      grep -E "^ +(1000|10000|100000) |fill floor" "$out/$name.log"
      rm -rf "$work"
    done
  done
done
