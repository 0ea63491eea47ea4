#!/usr/bin/env bash
# Issue 51, item 3 on a larger host: how a batch's subtrees hashed side by side scale with
# cores. Runs on a 16-core machine lent for a session (no package registry there, so the
# release binaries travel prebuilt and stripped in BIN: this folder's README says which).
# Writes its outputs under OUT as it goes, so a run stopped early still returns what it
# measured.
# Usage: run-device.sh BIN OUT
set -uo pipefail
bin=${1:?folder holding triebench, hotpath and hotpath_vs_transact}
out=${2:?output folder}
threads_list=(1 2 4 8 16)
scratch=/dev/shm
if [[ $(stat -f -c %T /dev/shm 2>/dev/null) != tmpfs ]] ||
  (($(df -Pk /dev/shm | awk 'NR == 2 {print $4}') < 24 * 1024 * 1024)); then
  scratch=$(mktemp -d /tmp/tb-scratch.XXXXXX)
  mount -t tmpfs -o size=40g tmpfs "$scratch"
fi
{
  echo "started $(date -u +%FT%TZ)"
  nproc
  lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|MHz|NUMA node\(s\)|L3"
  free -g
  uname -r
  df -h "$scratch" | tail -1
  echo "scratch $scratch ($(stat -f -c %T "$scratch"))"
} >"$out/host.txt" 2>&1
cat "$out/host.txt"
# (1) The hot path's commit shapes, three rounds per thread count, the counts interleaved.
for round in 1 2 3; do
  for t in "${threads_list[@]}"; do
    echo "## round $round, RAYON_NUM_THREADS=$t" >>"$out/hotpath.txt"
    RAYON_NUM_THREADS=$t "$bin/hotpath" 2>/dev/null >>"$out/hotpath.txt"
  done
  # The build before the change log's additions were stored apart (ea34b4e), one thread,
  # beside this one's: did that change slow (a)'s small commits (one more put each)?
  echo "## round $round, RAYON_NUM_THREADS=1, ea34b4e" >>"$out/hotpath.txt"
  RAYON_NUM_THREADS=1 "$bin/hotpath-ea34b4e" 2>/dev/null >>"$out/hotpath.txt"
done
echo "hotpath done at ${SECONDS}s"
# (2) The growth fill to 200,000 leaves on tmpfs, btree and lmdb, per thread count.
for profile in btree lmdb; do
  for t in "${threads_list[@]}"; do
    dir=$(mktemp -d "$scratch/tb-fill.XXXXXX")
    echo "## RAYON_NUM_THREADS=$t, $profile, tmpfs, fill to 200000" >>"$out/fill.txt"
    /usr/bin/time -f "wall %e s, peak RSS %M KiB" env RAYON_NUM_THREADS=$t "$bin/triebench" grow \
      --backend "$profile" --dir "$dir/store" --max-leaves 200000 --commits 5 --reads 10 \
      --out "$dir/out" 2>&1 | grep -E "fill 200000 / 200000|^ +200000 |^wall" >>"$out/fill.txt"
    rm -rf "$dir"
    echo "fill $profile $t done at ${SECONDS}s"
  done
done
# (3) Against Transact 0.4.7 on the same host (its side runs on one thread either way).
for t in 1 16; do
  echo "## RAYON_NUM_THREADS=$t" >>"$out/vs-transact.txt"
  RAYON_NUM_THREADS=$t "$bin/hotpath_vs_transact" 3 2>/dev/null >>"$out/vs-transact.txt"
  echo "vs-transact $t done at ${SECONDS}s"
done
# (4) If time is left: btree to 10^6 leaves on 16 threads and on 1.
for t in 16 1; do
  if ((SECONDS > 250)); then echo "skipped the 10^6 fill on $t threads at ${SECONDS}s"; break; fi
  dir=$(mktemp -d "$scratch/tb-fill.XXXXXX")
  echo "## RAYON_NUM_THREADS=$t, btree, tmpfs, fill to 1000000" >>"$out/fill-million.txt"
  timeout 150 /usr/bin/time -f "wall %e s, peak RSS %M KiB" env RAYON_NUM_THREADS=$t "$bin/triebench" grow \
    --backend btree --dir "$dir/store" --max-leaves 1000000 --commits 5 --reads 10 \
    --out "$dir/out" 2>&1 | grep -E "fill 1000000 / 1000000|^ +1000000 |^wall" >>"$out/fill-million.txt"
  rm -rf "$dir"
  echo "fill 10^6 $t done at ${SECONDS}s"
done
echo "ended $(date -u +%FT%TZ) at ${SECONDS}s" >>"$out/host.txt"
