#!/usr/bin/env bash
# Alternating headlines of postgres with PostgreSQL's default plan cache mode and with
# plan_cache_mode = force_generic_plan (XSET, see hook.diff), on tmpfs; /work/bin/tb-xset is the
# release build of 880cc3b's tree with hook.diff applied. Usage: run-headline.sh OUT ROUNDS
set -euo pipefail
out=$1 rounds=$2
work=$(mktemp -d /dev/shm/tb-abx.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$rounds"); do
  for label in default generic; do
    d="$out/$label-$r"; mkdir -p "$d" "$work/s"
    uptime >"$d/uptime.txt"
    if [ $label = generic ]; then export XSET="SET plan_cache_mode = force_generic_plan;"; else unset XSET; fi
    /work/bin/tb-xset headline --dir "$work/s" --run "$label-$r" --profiles postgres --criterion-dir "$work/c" >"$d/headline.log" 2>&1
    cp "$work/c/triebench-runs/records/$label-$r/headline.json" "$d/"
    rm -rf "$work/s"
  done
done
