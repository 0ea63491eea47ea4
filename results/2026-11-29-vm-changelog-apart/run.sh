#!/usr/bin/env bash
# The growth fill from 0 to 10^6 leaves on the disk with each root's change-log additions
# stored apart from its entry (change-log format version 3), as
# results/2026-11-29-vm-sqlite-rows ran it before; with `at-100k`, to 10^5 leaves with the
# build given and the one before the change, alternating, for the first commit after the fill.
# Usage, from the checkout's root after
# `cargo build --release --features all-backends -p triebench-cli --bin triebench`:
#   results/2026-11-29-vm-changelog-apart/run.sh DISK_DIR PROFILE
#   results/2026-11-29-vm-changelog-apart/run.sh DISK_DIR PROFILE at-100k OLD_TRIEBENCH
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-changelog-apart
disk=${1:?a directory on the disk to measure}
profile=${2:?a profile}
target=$(scripts/target-dir.sh)
grow() { # BINARY MAX_LEAVES NAME
  local work rc=0
  work=$(mktemp -d "$disk/triebench-apart.XXXXXX")
  echo "== $3 ($(date -u +%H:%M:%S)) in $work"
  "$1" grow --backend "$profile" --dir "$work/store" --max-leaves "$2" --commits 50 --reads 200 \
    --out "$out/$3" >"$out/$3.log" 2>&1 || rc=$?
  echo "== $3 ended rc=$rc ($(date -u +%H:%M:%S))"
  rm -rf "$work"
  return "$rc"
}
if [ "${3:-}" = at-100k ]; then
  old=${4:?the build before the change}
  grow "$target/release/triebench" 100000 "at-100k/$profile-new"
  grow "$old" 100000 "at-100k/$profile-old"
else
  grow "$target/release/triebench" 1000000 "$profile"
fi
