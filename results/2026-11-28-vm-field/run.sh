#!/usr/bin/env bash
# The field's workloads (`triebench field`) at their defaults (--scale 1 --seed 1), every workload
# on btree (memory), then lmdb, sqlite-wal-full (and postgres with POSTGRES=1) on tmpfs
# (/dev/shm) and on the disk (/var/tmp), each store made fresh; then the report of the folder
# (its "Against published figures" section). Run from the repository root after
# `cargo build --release -p triebench-cli --all-features`. SCALE=N runs at --scale N into
# scale-N/ instead; WORKLOADS="a b" runs only those.
set -euo pipefail
out=results/2026-11-28-vm-field
bin=${CARGO_TARGET_DIR:-target}/release/triebench
scale=${SCALE:-1}
[[ $scale == 1 ]] || out=$out/scale-$scale
read -r -a workloads <<<"${WORKLOADS:-firewood-create firewood-tenkrandom firewood-zipf firewood-single iavl-bank merk}"
profiles=(lmdb sqlite-wal-full)
[[ ${POSTGRES:-0} == 1 ]] && profiles+=(postgres)
mkdir -p "$out/memory"
for w in "${workloads[@]}"; do
  "$bin" field --workload "$w" --profile btree --scale "$scale" --seed 1 \
    --out "$out/memory/btree-$w.json" | tee "$out/memory/btree-$w.txt"
done
for fs in tmpfs disk; do
  case $fs in
    tmpfs) base=/dev/shm/triebench-field ;;
    disk) base=/var/tmp/triebench-field ;;
  esac
  mkdir -p "$out/$fs"
  for profile in "${profiles[@]}"; do
    for w in "${workloads[@]}"; do
      rm -rf "$base/$profile"
      "$bin" field --workload "$w" --profile "$profile" --dir "$base/$profile" \
        --scale "$scale" --seed 1 --out "$out/$fs/$profile-$w.json" | tee "$out/$fs/$profile-$w.txt"
      rm -rf "$base/$profile"
    done
  done
done
# The report of the folder: report.md with the runs and "Against published figures".
[[ $scale == 1 ]] && "$bin" report --runs "$out"
