#!/usr/bin/env bash
# The `hotpath` example built from two commits, run alternately in PAIRS pairs (old, then new).
# Usage, from the checkout's root: results/2026-11-29-vm-hotpath/before-after.sh OLD_BIN NEW_BIN [PAIRS]
# where each binary is `cargo build --release -p triebench-merkle --no-default-features
# --example hotpath` of a checkout of the commit (the folder's README names them).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-hotpath/before-after.txt
old=${1:?the old binary} new=${2:?the new binary} pairs=${3:-3}
: >"$out"
for pair in $(seq "$pairs"); do
  for side in old new; do
    bin=$old; [ "$side" = new ] && bin=$new
    echo "## pair $pair, $side" >>"$out"
    RAYON_NUM_THREADS=1 "$bin" 2>/dev/null >>"$out"
  done
done
