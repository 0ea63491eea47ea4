#!/usr/bin/env bash
# Six more alternating pairs of the `hotpath` example on one thread, (b) and (c) of each run
# only (time, the run's floor for the scenario, time/floor), from the builds run.sh made.
# Usage, from this checkout's root, after run.sh: results/2026-11-29-vm-subtrees/one-thread.sh
# (OLD_TARGET as for run.sh).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-subtrees/one-thread.txt
target=$(scripts/target-dir.sh)
old_target=${OLD_TARGET:-$target/subtrees-before}
: >"$out"
for pair in $(seq 6); do
  for side in before after; do
    bin=$target/release/examples/hotpath
    [ "$side" = before ] && bin=$old_target/release/examples/hotpath
    echo "$side $(RAYON_NUM_THREADS=1 "$bin" 2>/dev/null | grep -A2 -E '^\((b|c)\)' |
      grep -E 'time/floor|^ +time' | sed 's/  */ /g;s/(backend.*//;s/| trie time.floor [0-9.]*//' |
      tr '\n' ' ')" >>"$out"
  done
done
