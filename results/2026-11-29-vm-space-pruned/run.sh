#!/usr/bin/env bash
# Where a store's bytes go at 10^4 leaves on the disk, the commits' replaced roots pruned:
# one `triebench grow` per profile (and `lmdb` packed after each fill), each in a fresh directory.
# Usage, from the checkout's root after
# `cargo build --release --features sqlite-db,postgres-db -p triebench-cli`:
#   results/2026-11-29-vm-space-pruned/run.sh DISK_DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-space-pruned
disk=${1:?a directory on the disk}
bin=$(scripts/target-dir.sh)/release/triebench
for run in lmdb lmdb:compact lmdb-async sqlite-wal-full sqlite-rollback postgres; do
  profile=${run%%:*}
  extra=()
  name=$profile
  if [ "$run" != "$profile" ]; then extra=(--compact-after-fill); name=$profile-packed; fi
  work=$(mktemp -d "$disk/triebench-space.XXXXXX")
  echo "== $name ($(date -u +%H:%M:%S)) in $work"
  rm -rf "${out:?}/$name"
  "$bin" grow --backend "$profile" --max-leaves 10000 --commits 20 --reads 50 \
    --dir "$work/store" --out "$out/$name" "${extra[@]}" >"$out/$name.log"
  rm -rf "$work"
done
echo "== done ($(date -u +%H:%M:%S))"
