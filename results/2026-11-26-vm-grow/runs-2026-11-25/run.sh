#!/usr/bin/env bash
# The runs of this folder, in order (see README.md). Usage: run.sh PHASE
set -u
here=$(cd "$(dirname "$0")" && pwd)
tb=${TB:-$here/../../target/release/triebench}
run() { # fs profile max dir-root [extra args]
  local fs=$1 p=$2 max=$3 root=$4; shift 4
  local out=$here/$fs/$p
  mkdir -p "$out"
  rm -rf "$root/$p"
  echo "== $(date -u +%FT%TZ) $fs $p to $max $*" | tee -a "$here/runs.log"
  "$tb" grow --backend "$p" --dir "$root/$p" --max-leaves "$max" --out "$out" "$@" \
    > "$out/table.txt" 2> "$out/progress.log"
  echo "   exit $? at $(date -u +%FT%TZ)" | tee -a "$here/runs.log"
  cat "$out/table.txt"
  rm -rf "$root/$p"
}
case $1 in
  tmpfs) for p in ${PROFILES:-lmdb lmdb-async sqlite-wal sqlite-wal-full postgres}; do run tmpfs "$p" "${MAX:-100000}" /dev/shm/triebench-grow; done ;;
  disk) for p in ${PROFILES:-lmdb-async lmdb sqlite-wal sqlite-wal-full postgres}; do run disk "$p" "${MAX:-1000000}" /var/tmp/triebench-grow; done ;;
  memory) run memory-256M lmdb-async "${MAX:-100000}" /var/tmp/triebench-grow --memory 256M --fill-batch 2000 ;;
  efs) run efs-sim "${PROFILE:-lmdb}" "${MAX:-100000}" "$EFS_DIR" --commits 20 --reads 300 ;;
  disk-one) run disk "$PROFILE" "${MAX:-1000000}" "${ROOT:-/var/tmp/triebench-grow}" ;;
esac
