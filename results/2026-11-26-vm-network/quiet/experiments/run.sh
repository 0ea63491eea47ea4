#!/usr/bin/env bash
# Alternating headlines of postgres: baseline (no env) and each variant, 3 rounds.
set -uo pipefail
out=${1:?usage: run.sh OUT_DIR (binary /tmp/tb-exp: 7cbe21f with hooks.diff applied)}
mkdir -p "$out"
work=$(mktemp -d /dev/shm/exp.XXXXXX)
trap 'rm -rf "$work"' EXIT
variants=(base skip external lz4 generic)
for i in 1 2 3; do
  for v in "${variants[@]}"; do
    env=()
    case $v in
      skip) env=(XSKIP=1) ;;
      external) env=("XSTORAGE=SET STORAGE EXTERNAL") ;;
      lz4) env=("XSTORAGE=SET COMPRESSION lz4") ;;
      generic) env=("XSET=SET plan_cache_mode = force_generic_plan;") ;;
    esac
    mkdir -p "$work/s" "$out/$v/q$i"
    env "${env[@]}" /tmp/tb-exp headline --dir "$work/s" --run "r$v$i" --profiles postgres --criterion-dir "$work/c" >"$out/$v/q$i/log" 2>&1
    cp "$work/c/triebench-runs/records/r$v$i/headline.json" "$out/$v/q$i/"
    rm -rf "$work/s"
  done
done
