#!/usr/bin/env bash
# The long WAL cut by the commit that made it long, not by the next one: `triebench grow` on the
# disk with two release builds alternating, BEFORE (the commit before the change) and AFTER.
# Usage: run.sh DISK_DIR BEFORE_TRIEBENCH AFTER_TRIEBENCH at-100k [PAIRS]
#        run.sh DISK_DIR - AFTER_TRIEBENCH million PROFILE
# (each store is made under DISK_DIR and removed; the outputs land in this folder).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
disk=${1:?a directory on the disk} before=${2:?} after=${3:?} what=${4:?at-100k or million}
grow() { # BIN PROFILE MAX OUT_DIR
  local dir
  dir=$(mktemp -d "$disk/tb-walcut.XXXXXX")
  mkdir -p "$(dirname "$4")"
  "$1" grow --backend "$2" --dir "$dir/store" --max-leaves "$3" --commits 50 --reads 200 \
    --out "$dir/out" 2>&1 | grep -vE "^grow: fill [0-9]+ / " >"$4.log"
  mkdir -p "$4"
  cp "$dir/out/"*.json "$dir/out/"*.csv "$4/"
  rm -rf "$dir"
}
case $what in
at-100k)
  for pair in $(seq "${5:-2}"); do
    for profile in sqlite-wal-full sqlite-wal sqlite-rollback; do
      for side in before after; do
        bin=$before
        [[ $side == after ]] && bin=$after
        grow "$bin" "$profile" 100000 "$here/at-100k/$profile-$side-$pair"
      done
    done
  done
  ;;
million) grow "$after" "${5:?profile}" 1000000 "$here/$5" ;;
esac
