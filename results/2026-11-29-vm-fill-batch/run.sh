#!/usr/bin/env bash
# The growth fill from 0 to 10^6 leaves on the disk with a given fill batch (leaves per fill
# commit; `grow`'s default is 50,000), one curve per call, nothing else running.
# Usage, from the checkout's root after
# `cargo build --release --features sqlite-db -p triebench-cli`:
#   results/2026-11-29-vm-fill-batch/run.sh DISK_DIR PROFILE FILL_BATCH [floor]
# (`floor` adds --fill-floor DIR --fill-floor-trie-order-only: each fill commit's writes replayed
# straight onto one more store of the profile, in the trie's order, in the same transactions.)
# And the small blocks of `keep_one_root` (commit then prune, against commit_and_prune), after
# `cargo build --release -p triebench-merkle --example keep_one_root`:
#   results/2026-11-29-vm-fill-batch/run.sh DISK_DIR keep-one-root
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-fill-batch
disk=${1:?a directory on the disk to measure}
profile=${2:?a profile, or keep-one-root}
target=$(scripts/target-dir.sh)
work=$(mktemp -d "$disk/triebench-fill-batch.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ "$profile" = keep-one-root ]; then
  "$target/release/examples/keep_one_root" "$work" | tee "$out/keep-one-root.txt"
  exit 0
fi
batch=${3:?leaves per fill commit}
name=$profile-batch-$batch
extra=()
if [ "${4:-}" = floor ]; then
  extra=(--fill-floor "$work/floor" --fill-floor-trie-order-only)
  name=$name-floor
fi
echo "== $name ($(date -u +%H:%M:%S)) in $work"
"$target/release/triebench" grow --backend "$profile" --dir "$work/store" \
  --max-leaves 1000000 --commits 50 --reads 200 --fill-batch "$batch" --out "$out/$name" "${extra[@]}" \
  >"$out/$name.log" 2>&1 || rc=$?
echo "== $name ended rc=${rc:-0} ($(date -u +%H:%M:%S))"
exit "${rc:-0}"
