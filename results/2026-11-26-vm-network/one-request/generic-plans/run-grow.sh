#!/usr/bin/env bash
# One `grow` of postgres to 10^5 leaves per plan mode, on tmpfs; BINARY is 880cc3b's tree with
# hook.diff applied (XSET appended to each session's setup).
set -euo pipefail
bin=$1 out=$2
for label in default generic; do
  if [ $label = generic ]; then export XSET="SET plan_cache_mode = force_generic_plan;"; else unset XSET; fi
  rm -rf "/dev/shm/gx-$label"
  "$bin" grow --backend postgres --dir "/dev/shm/gx-$label" --max-leaves 100000 --out "$out/$label" >"$out/$label/grow.log" 2>&1
  rm -rf "/dev/shm/gx-$label"
done
