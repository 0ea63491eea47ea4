#!/usr/bin/env bash
# Five headlines of `postgres` alone on tmpfs at zero added RTT, one after another, on a quiet
# host (nothing else running), with the floor whose parent entry is rewritten (since 868e6b6).
# Usage: run.sh TRIEBENCH_BINARY OUT_DIR
set -euo pipefail
bin=$1 out=$2
work=$(mktemp -d /dev/shm/tb-quiet.XXXXXX)
trap 'rm -rf "$work"' EXIT
for i in 1 2 3 4 5; do
  mkdir -p "$out/q$i" "$work/s"
  uptime >"$out/q$i/uptime.txt"
  "$bin" headline --dir "$work/s" --run "q$i" --profiles postgres --criterion-dir "$work/c" \
    >"$out/q$i/headline.log" 2>&1
  cp "$work/c/triebench-runs/records/q$i/headline.json" "$out/q$i/"
  rm -rf "$work/s"
done
