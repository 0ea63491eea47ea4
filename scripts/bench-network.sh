#!/usr/bin/env bash
# Time against distance to the database server: for each profile given (default: postgres
# postgres-async redis redis-aof), the headline suite and `update` against its storage floor,
# the suite's phases, and the writer under load, with the stores reaching their managed server
# straight (`direct`) and through the delay proxy at each round trip asked (default 0, 250us,
# 1ms); then `triebench net-report` turns the run records into net-report.md and its plot, and
# env.json says what machine and software ran it. Everything goes into one folder.
#
#   scripts/bench-network.sh [--out DIR] [--rtts "direct 0 250us 1ms"] [--store-dir DIR]
#                            [--no-load] [--no-phases] [PROFILE ...]
#
# --out       the output folder (default runs/network/<UTC date>, ignored by git: results/ holds
#             only the folders the docs cite, and a folder of yours there fails the docs check;
#             move it there yourself when a page cites it); it may exist, but
#             not with a matrix in it already (headline/, load/, phases/, net-report.md).
# --rtts      the distances, space-separated: `direct` (no proxy) or a --net-rtt value.
# --store-dir where stores live (default /dev/shm, tmpfs; else target/bench-network).
# TRIEBENCH   a triebench binary to use instead of building the release CLI (redis-db and
#             postgres-db features).
# LOAD_STATE (5000), LOAD_RATE (200), LOAD_DURATION (5s), LOAD_READERS (0): the load runs'
# leaves preloaded, offered commits/s, length and reader threads.
#
# Prints its total run time at the end and writes it into the folder's RUNS.md.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
start=$(date +%s)

out="runs/network/$(date -u +%F)"
rtts="direct 0 250us 1ms"
store_base=""
do_load=1
do_phases=1
profiles=()
while [[ $# -gt 0 ]]; do
  case $1 in
    --out) out=$2; shift 2 ;;
    --rtts) rtts=$2; shift 2 ;;
    --store-dir) store_base=$2; shift 2 ;;
    --no-load) do_load=0; shift ;;
    --no-phases) do_phases=0; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    -*) echo "bench-network: unknown flag $1 (see --help)" >&2; exit 2 ;;
    *) profiles+=("$1"); shift ;;
  esac
done
if [[ ${#profiles[@]} -eq 0 ]]; then
  profiles=(postgres postgres-async redis redis-aof)
fi
for kind in headline load phases net-report.md; do
  if [[ -e $out/$kind ]]; then
    echo "bench-network: $out/$kind exists; give a new --out (nothing was run)" >&2
    exit 2
  fi
done
if [[ -z $store_base ]]; then
  if [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]]; then
    store_base=/dev/shm
  else
    store_base=$root/target/bench-network
  fi
fi

if [[ -z ${TRIEBENCH:-} ]]; then
  scripts/setup.sh
  target_dir=$(scripts/target-dir.sh)
  echo "bench-network: building the release CLI"
  CARGO_TARGET_DIR=$target_dir cargo build --release -p triebench-cli --bin triebench \
    --features redis-db,postgres-db
  TRIEBENCH=$target_dir/release/triebench
fi
tb=$TRIEBENCH

work=$(mktemp -d "$store_base/bench-network.XXXXXX")
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$out"
list=$(IFS=,; echo "${profiles[*]}")
echo "bench-network: profiles $list at ${rtts// /, } into $out (stores under $work)"

net_flag() { [[ $1 == direct ]] || echo "--net-rtt $1"; }
run_start=$(date +%s)
for rtt in $rtts; do
  # shellcheck disable=SC2046
  set -- $(net_flag "$rtt")
  name="rtt-$rtt"
  [[ $rtt == direct ]] && name=direct
  echo "bench-network: [$(( $(date +%s) - start )) s] headline at $rtt"
  mkdir -p "$out/headline/$name" "$work/store-$name"
  "$tb" headline --dir "$work/store-$name" --run "$name" --profiles "$list" \
    --criterion-dir "$work/crit-$name" "$@" 2>&1 | tee "$out/headline/$name/headline.log"
  cp "$work/crit-$name/triebench-runs/records/$name/headline.json" "$out/headline/$name/"
  rm -rf "$work/store-$name"
  if [[ $do_phases == 1 ]]; then
    echo "bench-network: [$(( $(date +%s) - start )) s] phases at $rtt"
    mkdir -p "$out/phases" "$work/phases-$name"
    "$tb" phases --dir "$work/phases-$name" --run "$name" --profiles "$list" \
      --out "$out/phases/$name.json" "$@" 2>&1 | tee "$out/phases/$name.log"
    rm -rf "$work/phases-$name"
  fi
  if [[ $do_load == 1 ]]; then
    for p in "${profiles[@]}"; do
      echo "bench-network: [$(( $(date +%s) - start )) s] load $p at $rtt"
      mkdir -p "$out/load/$name" "$work/load-$name-$p"
      "$tb" load --backend "$p" --dir "$work/load-$name-$p" --state-size "${LOAD_STATE:-5000}" \
        --rate "${LOAD_RATE:-200}" --readers "${LOAD_READERS:-0}" \
        --duration "${LOAD_DURATION:-5s}" --no-plots --out "$out/load/$name/$p" "$@" 2>&1 \
        | tee "$out/load/$name/$p.log"
      rm -rf "$work/load-$name-$p"
    done
  fi
done
run_s=$(( $(date +%s) - run_start ))

"$tb" net-report "$out"
total=$(( $(date +%s) - start ))
{
  echo "# How this folder was made"
  echo
  echo "\`scripts/bench-network.sh --out $out --rtts \"$rtts\" ${profiles[*]}\`, binary \`$tb\`"
  echo "($($tb --version)), git $(git rev-parse --short HEAD 2>/dev/null || echo unknown)."
  echo "Measuring took $run_s s; the script in all $total s (build included)."
  echo "Load runs: ${LOAD_STATE:-5000} leaves, ${LOAD_RATE:-200} commits/s offered, \
${LOAD_DURATION:-5s}, ${LOAD_READERS:-0} readers."
} >"$out/RUNS.md"
echo "bench-network: done in $total s (measuring $run_s s); $out/net-report.md"
