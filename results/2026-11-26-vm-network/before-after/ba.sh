#!/usr/bin/env bash
# before/after, back to back: headline (postgres, postgres-uncached, redis) direct and at 1 ms,
# and postgres phases direct, for the binaries triebench-before (3f0193c) and triebench-after.
set -euo pipefail
out=$1
mkdir -p "$out"
work=$(mktemp -d /dev/shm/i38p-ba.XXXXXX)
trap 'rm -rf "$work"' EXIT
start=$(date +%s)
for rtt in direct 1ms; do
  for which in before after; do
    tb=/tmp/i38p/triebench-$which
    name=$which-$rtt
    flag=(); [[ $rtt == direct ]] || flag=(--net-rtt "$rtt")
    echo "ba: [$(( $(date +%s) - start )) s] headline $name"
    d="$out/$which/headline/$rtt"
    mkdir -p "$d" "$work/s-$name"
    "$tb" headline --dir "$work/s-$name" --run "$name" --profiles postgres,postgres-uncached,redis \
      --criterion-dir "$work/c-$name" "${flag[@]}" 2>&1 | tee "$d/headline.log"
    cp "$work/c-$name/triebench-runs/records/$name/headline.json" "$d/"
    rm -rf "$work/s-$name"
  done
done
for which in before after; do
  tb=/tmp/i38p/triebench-$which
  echo "ba: [$(( $(date +%s) - start )) s] phases $which"
  mkdir -p "$out/$which/phases" "$work/p-$which"
  "$tb" phases --dir "$work/p-$which" --run "$which" --profiles postgres \
    --out "$out/$which/phases/direct.json" 2>&1 | tee "$out/$which/phases/direct.log"
done
echo "ba: done in $(( $(date +%s) - start )) s"
