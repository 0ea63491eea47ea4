#!/usr/bin/env bash
# 37f7f48 (after) and 767b62d (final: contains without the value) alternately, postgres
# headline straight, three each.
set -euo pipefail
out=$1
work=$(mktemp -d /dev/shm/i38p-cq.XXXXXX)
trap 'rm -rf "$work"' EXIT
for i in 1 2 3; do
  for which in after final; do
    mkdir -p "$out/$which/q$i" "$work/s"
    /tmp/i38p/triebench-$which headline --dir "$work/s" --run "q$i" --profiles postgres \
      --criterion-dir "$work/c-$which" 2>&1 | tee "$out/$which/q$i/headline.log" | grep suite
    cp "$work/c-$which/triebench-runs/records/q$i/headline.json" "$out/$which/q$i/"
    rm -rf "$work/s"
  done
done
