#!/usr/bin/env bash
# Copies one filesystem run of scripts/bench-fs.sh into a self-contained run folder that can be
# moved to another machine (issue 12, part 2: results merged from several machines).
#
# Usage: scripts/export-run.sh NAME CRITERION_DIR OUT_PARENT
#   NAME           the run name (criterion baseline saved by bench-fs.sh, e.g. tmpfs)
#   CRITERION_DIR  criterion's output dir (<target>/criterion)
#   OUT_PARENT     where run folders go (default runs/); the folder is <host>-<NAME>-<date>/
#
# Layout of a run folder:
#   manifest.json                      host, filesystem (run name), scale, git commit, date
#   env.json                           hostname, os, kernel, cpu count, memory, rustc
#   criterion/<bench-id path>/<NAME>/  the baseline's benchmark.json, estimates.json, sample.json, tukey.json
#   criterion/triebench-runs/<NAME>.json            the filesystem capture sidecar
#   criterion/triebench-runs/records/<NAME>/        the run's records (docs/run-record.md)
#   criterion/triebench-runs/load/<NAME>/           load runs when present
#   criterion/triebench-runs/{phases,headline}/<NAME>.json  the phase breakdown and the
#                                                    headline's CPU idle record when present
# The criterion/ tree mirrors <target>/criterion, so the existing report reader can read it as a
# criterion dir. Prints the folder's path.
set -euo pipefail
name=${1:?NAME}
criterion_dir=${2:?CRITERION_DIR}
parent=${3:-runs}
host=${TRIEBENCH_HOST:-$(hostname)} # TRIEBENCH_HOST: another name (tests simulate hosts)
date=$(date -u +%Y-%m-%d)
out=$parent/$host-$name-$date
rm -rf "$out"
mkdir -p "$out/criterion"
# Every directory named NAME under criterion's tree holds that baseline's files for one bench id.
while IFS= read -r -d '' d; do
  rel=${d#"$criterion_dir"/}
  mkdir -p "$out/criterion/$rel"
  cp "$d"/*.json "$out/criterion/$rel/" 2>/dev/null || true
done < <(find "$criterion_dir" -type d -name "$name" -not -path "*/triebench-runs/*" -print0)
runs=$criterion_dir/triebench-runs
mkdir -p "$out/criterion/triebench-runs"
if [[ -f $runs/$name.json ]]; then cp "$runs/$name.json" "$out/criterion/triebench-runs/"; fi
# The run's records (`triebench headline` writes records/<NAME>/headline.json).
if [[ -d $runs/records/$name ]]; then
  mkdir -p "$out/criterion/triebench-runs/records"
  cp -r "$runs/records/$name" "$out/criterion/triebench-runs/records/"
fi
if [[ -d $runs/load/$name ]]; then
  mkdir -p "$out/criterion/triebench-runs/load"
  cp -r "$runs/load/$name" "$out/criterion/triebench-runs/load/"
fi
for kind in phases headline; do
  if [[ -f $runs/$kind/$name.json ]]; then
    mkdir -p "$out/criterion/triebench-runs/$kind"
    cp "$runs/$kind/$name.json" "$out/criterion/triebench-runs/$kind/"
  fi
done
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
mem_kib=$(awk '/MemTotal/ {print $2}' /proc/meminfo 2>/dev/null || echo 0)
rustc_v=$(rustc --version 2>/dev/null || echo unknown)
cat >"$out/env.json" <<JSON
{"hostname": "$host", "os": "$(uname -s)", "kernel": "$(uname -r)", "arch": "$(uname -m)",
 "cpus": $(getconf _NPROCESSORS_ONLN), "mem_kib": ${mem_kib:-0}, "rustc": "$rustc_v"}
JSON
cat >"$out/manifest.json" <<JSON
{"format": 1, "host": "$host", "filesystem": "$name", "scale": "${TRIEBENCH_SCALE:-standard}",
 "git_commit": "$commit", "date": "$date", "criterion": "criterion"}
JSON
echo "$out"
