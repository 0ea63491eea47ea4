#!/usr/bin/env bash
# The growth fill from 0 to 10^6 leaves on the disk with SQLite's rows indexed by each key's
# first 8 bytes (kv SQLite layout 1), as results/2026-11-28-vm-grow-million ran it with the
# `key BLOB PRIMARY KEY` tables; with `floor`, beside its storage floor in the trie's order;
# with FILL_BATCH, that many leaves per fill commit (grow --fill-batch; default 50,000).
# Usage, from the checkout's root after
# `cargo build --release --features all-backends -p triebench-cli --bin triebench`:
#   results/2026-11-29-vm-sqlite-rows/run.sh DISK_DIR PROFILE [plain|floor] [FILL_BATCH]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-sqlite-rows
disk=${1:?a directory on the disk to measure}
profile=${2:?a profile}
mode=${3:-plain}
batch=${4:-}
target=$(scripts/target-dir.sh)
work=$(mktemp -d "$disk/triebench-rows.XXXXXX")
extra=()
name=$profile
case $mode in
  floor) extra=(--fill-floor "$work/floor" --fill-floor-trie-order-only); name=$profile-floor ;;
  plain) ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
if [ -n "$batch" ]; then extra+=(--fill-batch "$batch"); name=$name-batch-$batch; fi
echo "== $name ($(date -u +%H:%M:%S)) in $work"
"$target/release/triebench" grow --backend "$profile" --dir "$work/store" \
  --max-leaves 1000000 --commits 50 --reads 200 --out "$out/$name" "${extra[@]}" \
  >"$out/$name.log" 2>&1 || rc=$?
echo "== $name ended rc=${rc:-0} ($(date -u +%H:%M:%S)); store and floor $(du -sh "$work" | cut -f1)"
rm -rf "$work"
exit "${rc:-0}"
