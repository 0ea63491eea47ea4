#!/usr/bin/env bash
# One growth curve: run.sh FS PROFILE MAX ROOT [grow args...]. Writes FS/PROFILE/{grow.json,
# checkpoint-*.csv,table.txt,progress.log}, logs start and exit in runs.log, deletes the store,
# and stops the run if the filesystem under ROOT falls below MIN_FREE_MIB free (default 6 GiB:
# a 10^6 LMDB store takes 20-35 GB), or the machine's MemAvailable below MIN_AVAIL_MIB (default
# 3 GiB: a store on tmpfs is RAM).
set -u
here=$(cd "$(dirname "$0")" && pwd)
tb=${TB:-$here/../../target/release/triebench}
fs=$1 p=$2 max=$3 root=$4; shift 4
out=$here/$fs/$p
mkdir -p "$out" "$root"
rm -rf "${root:?}/$p"
echo "== $(date -u +%FT%TZ) $fs $p to $max $*" | tee -a "$here/runs.log"
"$tb" grow --backend "$p" --dir "$root/$p" --max-leaves "$max" --out "$out" "$@" \
  > "$out/table.txt" 2> "$out/progress.log" &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
  free=$(df --output=avail -k "$root" | tail -1)
  if [ "$free" -lt $((${MIN_FREE_MIB:-6144} * 1024)) ]; then
    echo "   watchdog: $((free / 1024)) MiB free, stopping $p at $(date -u +%FT%TZ)" | tee -a "$here/runs.log"
    kill "$pid"
  fi
  avail=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  if [ "$avail" -lt $((${MIN_AVAIL_MIB:-3072} * 1024)) ]; then
    echo "   watchdog: $((avail / 1024)) MiB of memory available, stopping $p at $(date -u +%FT%TZ)" | tee -a "$here/runs.log"
    kill "$pid"
  fi
  sleep 10
done
wait "$pid"; rc=$?
echo "   exit $rc at $(date -u +%FT%TZ); store $(du -sh "$root/$p" 2>/dev/null | cut -f1)" | tee -a "$here/runs.log"
cat "$out/table.txt"
rm -rf "${root:?}/$p"
