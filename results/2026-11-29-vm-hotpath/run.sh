#!/usr/bin/env bash
# The trie's hot path against its SHA-512 floor, and the growth fill, on one thread and on two
# (RAYON_NUM_THREADS), alternating, from a release build of the checkout this folder names.
# Usage: results/2026-11-29-vm-hotpath/run.sh [RUNS] (from the checkout's root; as root for
# nothing: the fill's stores go under /dev/shm and are removed).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-hotpath
runs=${1:-3}
cargo build -q --release -p triebench-merkle --no-default-features --example hotpath
cargo build -q --release --features sqlite-db -p triebench-cli
target=$(scripts/target-dir.sh)
: >"$out/hotpath.txt"
for run in $(seq "$runs"); do
  for threads in 1 2; do
    echo "## run $run, RAYON_NUM_THREADS=$threads" >>"$out/hotpath.txt"
    RAYON_NUM_THREADS=$threads "$target/release/examples/hotpath" 2>/dev/null >>"$out/hotpath.txt"
  done
done
: >"$out/fill.txt"
for run in $(seq "$runs"); do
  for threads in 1 2; do
    for profile in btree lmdb; do
      dir=$(mktemp -d /dev/shm/triebench-fill.XXXXXX)
      echo "## run $run, RAYON_NUM_THREADS=$threads, $profile, tmpfs" >>"$out/fill.txt"
      RAYON_NUM_THREADS=$threads "$target/release/triebench" grow --backend "$profile" --dir "$dir/store" \
        --max-leaves 200000 --commits 5 --reads 10 --out "$dir/out" 2>&1 |
        grep -E "fill 200000 / 200000|^ +200000 " >>"$out/fill.txt"
      rm -rf "$dir"
    done
  done
done
