#!/usr/bin/env bash
# Measures each filesystem (the headline, and criterion's benches when asked for, with TMPDIR on
# it), then writes a report.
#
#   scripts/bench-fs.sh [NAME=DIR ...]
#
# Each NAME=DIR is measured in a fresh directory under DIR and saved as criterion baseline NAME
# (`cargo bench -- --save-baseline NAME` when criterion runs); the first NAME is the baseline
# the report divides by. With no arguments: tmpfs=/dev/shm (when it is a tmpfs) and
# disk=<a directory on the disk holding this checkout>.
#
# Before each run `triebench capture-fs` records the filesystem and its cost per operation class;
# after it `triebench phases` times every scenario once per profile with the phase spans on, for
# the report's "where a commit's time goes" table and plot (TRIEBENCH_PHASES=0 skips it; at quick
# scale it is skipped unless TRIEBENCH_PHASES=1: it runs every scenario once whatever the scale,
# 19-25 s per filesystem on the project's VM with idle CPUs polling, ~50 s without, most of it
# the profiles that read over a round trip).
# After the runs, when a slowfs counting mount is available (TRIEBENCH_IOLAB=DIR, else the one
# `scripts/fs-lab.sh iolab` names), `triebench io-profile` counts what each backend asks of the
# filesystem, and the report adds I/O profiles and predicted-vs-measured slowdowns.
#
# By default each run measures the headline with `triebench headline`: every scenario and the
# whole suite on every profile (ten samples per run of a scenario that repeats a step, so a
# profile whose suite takes seconds is measured in one run of it), each profile's storage floor,
# the fsync and SHA-512 floors and a phase span's cost; criterion is then not run (nor built).
# TRIEBENCH_HEADLINE=criterion (the default when TRIEBENCH_FILTER is set) measures the scenarios
# with criterion's own groups instead (at least eleven runs of each; the way before, much slower
# on slow profiles). TRIEBENCH_GROUPS=all
# (the default at full scale) adds the scalable groups (scale/...) and raw backend operations
# (kv/...); a TRIEBENCH_FILTER naming them does too.
#
# Environment: TRIEBENCH_SCALE=quick|standard|full (default standard), TRIEBENCH_PROFILES=a,b
# (default: every profile), TRIEBENCH_FEATURES (default all-backends), TRIEBENCH_BENCHES
# (default "merkle kv phases"), TRIEBENCH_SAMPLES (samples per benchmark, at least 10; default per
# scale and profile), TRIEBENCH_FILTER (a criterion filter regex, e.g. 'scenario/suite|floor'),
# TRIEBENCH_PLOTS=1 (criterion's HTML plots, off by default), TRIEBENCH_IOLAB (slowfs mount for the I/O profile; `none` skips it), TRIEBENCH_OUT (report
# folder; default results/<date>-<host>-<label>), TRIEBENCH_CPU_IDLE=poll|os (what idle CPUs do
# during the headline, phases, load runs and criterion's benches, default poll: as root,
# /dev/cpu_dma_latency is held at 0 µs so a server's reply does not pay a halted CPU's wake-up;
# docs/guide.md, "Idle CPUs (--cpu-idle)").
#
# TRIEBENCH_LOAD=1 also runs `triebench load --saturate` for every profile on every filesystem
# (TRIEBENCH_LOAD_STATE leaves, default 10000; TRIEBENCH_LOAD_READERS, default 2) into
# <criterion-dir>/triebench-runs/load/<run>/<profile>/, and the report gains a "sustained
# commits/s" table and plot.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

runs=("$@")
if ((${#runs[@]} == 0)); then
  if [[ -d /dev/shm ]] && [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
    runs+=("tmpfs=/dev/shm")
  fi
  runs+=("disk=$root/target/bench-disk")
fi

features=${TRIEBENCH_FEATURES:-all-backends}
benches=${TRIEBENCH_BENCHES:-merkle kv phases}
export TRIEBENCH_SCALE=${TRIEBENCH_SCALE:-standard}
# The target directory as cargo resolves it (a build.target-dir in a cargo config file
# included), exported so every cargo call below, criterion and the CLI agree on it; the CLI is
# run from it, and criterion's output is read where criterion writes it (CRITERION_HOME first).
target_dir=$(scripts/target-dir.sh)
export CARGO_TARGET_DIR=$target_dir
criterion_dir=${CRITERION_HOME:-$target_dir/criterion}
bench_args=()
for b in $benches; do bench_args+=(--bench "$b"); done
filter_args=()
# Criterion's per-benchmark HTML plots cost more than many benchmarks themselves on 2 cores, and
# the report does not read them: TRIEBENCH_PLOTS=1 keeps them.
if [[ ${TRIEBENCH_PLOTS:-0} != 1 ]]; then filter_args+=(--noplot); fi
# A TRIEBENCH_FILTER picks criterion benchmarks, the scenario groups included: criterion then
# measures what it selects, and `triebench headline` runs only with TRIEBENCH_HEADLINE=runs.
headline=${TRIEBENCH_HEADLINE:-}
if [[ -z $headline ]]; then
  if [[ -n ${TRIEBENCH_FILTER:-} ]]; then headline=criterion; else headline=runs; fi
fi
case $headline in
  runs | criterion) ;;
  *) echo "bench-fs: TRIEBENCH_HEADLINE=$headline is not one of runs, criterion" >&2; exit 2 ;;
esac
cpu_idle=${TRIEBENCH_CPU_IDLE:-poll}
phases_default=1
case $TRIEBENCH_SCALE in
  quick) headline_plan=(--budget 1 --max-rounds 1) phases_default=0 ;;
  full) headline_plan=(--budget 30 --max-rounds 30) ;;
  *) headline_plan=(--budget 5 --max-rounds 30) ;;
esac
# Whether criterion runs at all: with the headline taken by `triebench headline` (the scenario
# groups, the floors, the span cost) and no other groups asked for, nothing is left for it, and
# the benches are not even built (about a minute of a cold build on 2 cores).
criterion=1
if [[ $headline == runs && -z ${TRIEBENCH_FILTER:-} ]]; then
  # Criterion takes what the headline does not: the scalable groups and raw backend
  # operations when asked for, and Transact's own stores (benches/transact.rs).
  groups=()
  if [[ ${TRIEBENCH_GROUPS:-} == all || ($TRIEBENCH_SCALE == full && -z ${TRIEBENCH_GROUPS:-}) ]]; then
    groups+=('^(kv|scale)/')
  fi
  if [[ " $benches " == *" transact "* ]]; then groups+=('^scenario/[^/]+/transact-'); fi
  if ((${#groups[@]} == 0)); then
    criterion=0
  else
    TRIEBENCH_FILTER=$(IFS='|'; echo "${groups[*]}")
  fi
fi
if [[ -n ${TRIEBENCH_FILTER:-} ]]; then
  filter_args+=("$TRIEBENCH_FILTER") # criterion's positional filter
  export TRIEBENCH_FILTER # the benches skip the set-up of groups it leaves out
fi

if [[ $features == *redis* || $features == all-backends ]]; then
  scripts/setup.sh
fi

names=()
for run in "${runs[@]}"; do
  name=${run%%=*}
  dir=${run#*=}
  if [[ -z $name || -z $dir || $name == "$run" ]]; then
    echo "bench-fs: '$run' is not NAME=DIR" >&2
    exit 2
  fi
  if [[ ! $name =~ ^[A-Za-z0-9_.-]+$ ]]; then
    echo "bench-fs: run name '$name' may only use letters, digits, '.', '_' and '-'" >&2
    exit 2
  fi
  mkdir -p "$dir" || { echo "bench-fs: cannot create $dir" >&2; exit 2; }
  [[ -w $dir ]] || { echo "bench-fs: $dir is not writable" >&2; exit 2; }
  names+=("$name")
done

echo "bench-fs: building (features: $features)"
build_start=$(date +%s)
# `transact` is a feature of the root package only (benches/transact.rs), not of the CLI.
harness_features=$(tr ',' '\n' <<<"$features" | grep -vx transact | paste -sd, -)
cargo build --release --features "$harness_features" -p triebench-harness --bin triebench
if ((criterion)); then cargo bench --features "$features" "${bench_args[@]}" --no-run; fi
triebench=$target_dir/release/triebench
echo "bench-fs: build took $(( $(date +%s) - build_start )) s"

start=$(date +%s)
for run in "${runs[@]}"; do
  name=${run%%=*}
  dir=${run#*=}
  work=$(mktemp -d "$dir/triebench-run.XXXXXX")
  echo "bench-fs: run '$name' with TMPDIR=$work (scale $TRIEBENCH_SCALE)"
  "$triebench" capture-fs "$name" "$work" --criterion-dir "$criterion_dir"
  if [[ $headline == runs ]]; then
    headline_start=$(date +%s)
    headline_args=(headline --run "$name" --dir "$work" --criterion-dir "$criterion_dir" "${headline_plan[@]}" --cpu-idle "$cpu_idle")
    if [[ -n ${TRIEBENCH_PROFILES:-} ]]; then headline_args+=(--profiles "$TRIEBENCH_PROFILES"); fi
    "$triebench" "${headline_args[@]}"
    echo "bench-fs: headline on '$name' took $(( $(date +%s) - headline_start )) s"
  else
    # An earlier headline's CPU idle record and run record under this name would be reported as
    # this run's (a run record wins over criterion's baseline of the same name).
    rm -f "$criterion_dir/triebench-runs/headline/$name.json"
    rm -rf "$criterion_dir/triebench-runs/records/$name"
  fi
  if ((criterion)); then
    run_start=$(date +%s)
    TMPDIR=$work cargo bench --features "$features" "${bench_args[@]}" -- \
      --save-baseline "$name" "${filter_args[@]}"
    echo "bench-fs: criterion on '$name' took $(( $(date +%s) - run_start )) s"
  fi
  if [[ ${TRIEBENCH_PHASES:-$phases_default} != 0 ]]; then
    phases_start=$(date +%s)
    phase_args=(phases --run "$name" --dir "$work" --criterion-dir "$criterion_dir" --cpu-idle "$cpu_idle")
    if [[ -n ${TRIEBENCH_PROFILES:-} ]]; then phase_args+=(--profiles "$TRIEBENCH_PROFILES"); fi
    "$triebench" "${phase_args[@]}" >/dev/null
    echo "bench-fs: phases on '$name' took $(( $(date +%s) - phases_start )) s"
  else
    # An earlier run's breakdown under this name would be reported as this run's.
    rm -f "$criterion_dir/triebench-runs/phases/$name.json"
  fi
  rm -rf "$work"
done

if [[ ${TRIEBENCH_LOAD:-0} == 1 ]]; then
  load_profiles=${TRIEBENCH_PROFILES:-}
  if [[ -z $load_profiles ]]; then
    load_profiles=$("$triebench" profiles | awk 'NR>1 && $4 == "yes" {print $1}' | paste -sd, -)
  fi
  for run in "${runs[@]}"; do
    name=${run%%=*}
    dir=${run#*=}
    for profile in ${load_profiles//,/ }; do
      work=$(mktemp -d "$dir/triebench-load.XXXXXX")
      rm -rf "$criterion_dir/triebench-runs/load/$name/$profile"
      echo "bench-fs: load saturation search, '$profile' on '$name'"
      load_start=$(date +%s)
      "$triebench" load --backend "$profile" --dir "$work/store" --saturate \
        --state-size "${TRIEBENCH_LOAD_STATE:-10000}" --readers "${TRIEBENCH_LOAD_READERS:-2}" \
        --duration 4s --budget 60s --cpu-idle "$cpu_idle" \
        --out "$criterion_dir/triebench-runs/load/$name/$profile" \
        || echo "bench-fs: load on '$profile'/'$name' failed; the report shows it as not run" >&2
      echo "bench-fs: load '$profile' on '$name' took $(( $(date +%s) - load_start )) s"
      rm -rf "$work"
    done
  done
fi

iolab=${TRIEBENCH_IOLAB:-}
if [[ -z $iolab && -x scripts/fs-lab.sh ]]; then
  iolab=$(scripts/fs-lab.sh iolab 2>/dev/null || true)
fi
if [[ -n $iolab && $iolab != none ]]; then
  echo "bench-fs: counting I/O per backend on the slowfs mount $iolab"
  io_args=(io-profile --dir "$iolab" --criterion-dir "$criterion_dir")
  if [[ -n ${TRIEBENCH_PROFILES:-} ]]; then io_args+=(--profiles "$TRIEBENCH_PROFILES"); fi
  "$triebench" "${io_args[@]}"
else
  echo "bench-fs: no slowfs counting mount (scripts/fs-lab.sh up, or TRIEBENCH_IOLAB=DIR): \
the report has no I/O profile or predictions"
fi

report_args=(report --baseline "${names[0]}" --criterion-dir "$criterion_dir")
for name in "${names[@]}"; do report_args+=(--runs "$name"); done
if [[ -n ${TRIEBENCH_OUT:-} ]]; then report_args+=(--out "$TRIEBENCH_OUT"); fi
"$triebench" "${report_args[@]}"
# Self-contained run folders (issue 12): one per filesystem, copyable to another machine.
# TRIEBENCH_RUNS_DIR chooses where (default runs/); see scripts/export-run.sh for the layout.
for name in "${names[@]}"; do
  scripts/export-run.sh "$name" "$criterion_dir" "${TRIEBENCH_RUNS_DIR:-runs}"
done
echo "bench-fs: all runs took $(( $(date +%s) - start )) s"
