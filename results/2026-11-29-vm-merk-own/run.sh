#!/usr/bin/env bash
# Merk's own code beside ours in the same run: `triebench field --workload merk --scale 10`
# with `merk-runner` (crates/merk-compare) on `btree` (our trie in memory, Merk's RocksDB on
# tmpfs), and on `lmdb` (an fsync per commit) and `lmdb-async` (none, as Merk's commits are
# unsynced) on tmpfs (/dev/shm) and on the disk (/var/tmp), Merk's RocksDB in DIR/merk beside
# our store each time; then the folder's report. RUNS="fs:profile:base ..." runs only those. Run from the repository root
# after `cargo build --release -p triebench-cli --all-features` and `cd crates/merk-compare &&
# cargo build --release --target-dir ../../target` (merk-runner then lies beside triebench).
# SCALE=N and ROUNDS=R change the scale (10) and the rounds per store (2).
set -euo pipefail
out=results/2026-11-29-vm-merk-own
bin=${CARGO_TARGET_DIR:-target}/release/triebench
[[ -x ${bin%/triebench}/merk-runner ]] || { echo "run.sh: no merk-runner beside $bin" >&2; exit 1; }
scale=${SCALE:-10}
rounds=${ROUNDS:-2}
for round in $(seq 1 "$rounds"); do
  for run in ${RUNS:-memory:btree:/dev/shm tmpfs:lmdb:/dev/shm disk:lmdb:/var/tmp tmpfs:lmdb-async:/dev/shm disk:lmdb-async:/var/tmp}; do
    IFS=: read -r fs profile base <<<"$run"
    dir=$base/triebench-merk-own/$profile
    mkdir -p "$out/$fs"
    rm -rf "$dir"
    "$bin" field --workload merk --profile "$profile" --dir "$dir" --scale "$scale" --seed 1 \
      --out "$out/$fs/$profile-merk-r$round.json" | tee "$out/$fs/$profile-merk-r$round.txt"
    rm -rf "$dir"
  done
done
"$bin" report --runs "$out"
