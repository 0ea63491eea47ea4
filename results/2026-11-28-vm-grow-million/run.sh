#!/usr/bin/env bash
# The growth fill from 0 to 10^6 leaves on the disk, store layout 2 (raw node keys), one curve
# per profile, nothing else running; with `floor`, the same beside its storage floor in the
# trie's order (grow --fill-floor --fill-floor-trie-order-only: one more copy of the state);
# with `compact`, the store compacted after each stretch's fill (grow --compact-after-fill).
# Usage, from the checkout's root after
# `cargo build --release --features sqlite-db -p triebench-cli`:
#   results/2026-11-28-vm-grow-million/run.sh DISK_DIR PROFILE [floor|compact]
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-28-vm-grow-million
disk=${1:?a directory on the disk to measure}
profile=${2:?a profile}
mode=${3:-plain}
target=$(scripts/target-dir.sh)
work=$(mktemp -d "$disk/triebench-million.XXXXXX")
extra=()
name=$profile
case $mode in
  floor) extra=(--fill-floor "$work/floor" --fill-floor-trie-order-only) ;;
  compact) extra=(--compact-after-fill) ;;
  plain) ;;
  *) echo "unknown mode $mode" >&2; exit 2 ;;
esac
[ "$mode" = plain ] || name=$profile-$mode
echo "== $name ($(date -u +%H:%M:%S)) in $work"
"$target/release/triebench" grow --backend "$profile" --dir "$work/store" \
  --max-leaves 1000000 --commits 50 --reads 200 --out "$out/$name" "${extra[@]}" \
  >"$out/$name.log" 2>&1 || rc=$?
echo "== $name ended rc=${rc:-0} ($(date -u +%H:%M:%S)); store and floor $(du -sh "$work" | cut -f1)"
rm -rf "$work"
exit "${rc:-0}"
