#!/usr/bin/env bash
# Runs the criterion benches once per filesystem, with TMPDIR on it, then writes a report.
#
#   scripts/bench-fs.sh [NAME=DIR ...]
#
# Each NAME=DIR runs `cargo bench` with TMPDIR=DIR and `--save-baseline NAME`; the first NAME is
# the baseline the report divides by. With no arguments: tmpfs=/dev/shm (when it is a tmpfs) and
# disk=<a directory on the disk holding this checkout>.
#
# Before each run `triebench capture-fs` records the filesystem and its cost per operation class.
# After the runs, when a slowfs counting mount is available (TRIEBENCH_IOLAB=DIR, else the one
# `scripts/fs-lab.sh iolab` names), `triebench io-profile` counts what each backend asks of the
# filesystem, and the report adds I/O profiles and predicted-vs-measured slowdowns.
#
# Environment: TRIEBENCH_SCALE=quick|standard|full (default standard), TRIEBENCH_PROFILES=a,b
# (default: every profile), TRIEBENCH_FEATURES (default all-backends), TRIEBENCH_BENCHES
# (default "merkle kv"), TRIEBENCH_SAMPLES (samples per benchmark, at least 10; default per
# scale and profile), TRIEBENCH_FILTER (a criterion filter regex, e.g. 'scenario/suite|floor'),
# TRIEBENCH_IOLAB (slowfs mount for the I/O profile; `none` skips it), TRIEBENCH_OUT (report
# folder; default results/<date>-<host>-<label>).
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
benches=${TRIEBENCH_BENCHES:-merkle kv}
export TRIEBENCH_SCALE=${TRIEBENCH_SCALE:-standard}
target_dir=${CARGO_TARGET_DIR:-$root/target}
criterion_dir=$target_dir/criterion
bench_args=()
for b in $benches; do bench_args+=(--bench "$b"); done
filter_args=()
if [[ -n ${TRIEBENCH_FILTER:-} ]]; then
  filter_args+=("$TRIEBENCH_FILTER")
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
# `transact` is a feature of the root package only (benches/transact.rs), not of the CLI.
harness_features=$(tr ',' '\n' <<<"$features" | grep -vx transact | paste -sd, -)
cargo build --release --features "$harness_features" -p triebench-harness --bin triebench
cargo bench --features "$features" "${bench_args[@]}" --no-run
triebench=$target_dir/release/triebench

start=$(date +%s)
for run in "${runs[@]}"; do
  name=${run%%=*}
  dir=${run#*=}
  work=$(mktemp -d "$dir/triebench-run.XXXXXX")
  echo "bench-fs: run '$name' with TMPDIR=$work (scale $TRIEBENCH_SCALE)"
  "$triebench" capture-fs "$name" "$work" --criterion-dir "$criterion_dir"
  run_start=$(date +%s)
  TMPDIR=$work cargo bench --features "$features" "${bench_args[@]}" -- \
    --save-baseline "$name" "${filter_args[@]}"
  echo "bench-fs: run '$name' took $(( $(date +%s) - run_start )) s"
  rm -rf "$work"
done

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
echo "bench-fs: all runs took $(( $(date +%s) - start )) s"
