#!/usr/bin/env bash
# run.sh OUT ROUNDS LABEL=BINARY ...: headlines of `postgres` alone on tmpfs at zero added RTT, the
# binaries alternating round by round (one run each per round), each record kept under OUT/LABEL-ROUND.
# NET_RTT=1ms puts the delay proxy (--net-rtt) between each store and its server.
set -euo pipefail
out=$1 rounds=$2; shift 2
work=$(mktemp -d /dev/shm/tb-ab.XXXXXX)
trap 'rm -rf "$work"' EXIT
for r in $(seq 1 "$rounds"); do
  for pair in "$@"; do
    label=${pair%%=*} bin=${pair#*=}
    d="$out/$label-$r"; mkdir -p "$d" "$work/s"
    uptime >"$d/uptime.txt"
    "$bin" headline ${NET_RTT:+--net-rtt "$NET_RTT"} --dir "$work/s" --run "$label-$r" --profiles postgres --criterion-dir "$work/c" >"$d/headline.log" 2>&1
    cp "$work/c/triebench-runs/records/$label-$r/headline.json" "$d/"
    rm -rf "$work/s"
    echo "done $label-$r $(date +%T)"
  done
done
