#!/usr/bin/env bash
# sqlite-wal to 10^6 on disk beside postgres (its 10^5 run moved to disk-sqlite-wal-1e5/, now disk-1e5/sqlite-wal/), with a
# watchdog that stops it if the shared disk falls under 5 GiB free.
cd "$(dirname "$0")"
PROFILE=sqlite-wal ROOT=/var/tmp/triebench-grow-sq ./run.sh disk-one &
runner=$!
while kill -0 $runner 2>/dev/null; do
  free=$(df --output=avail -k /var/tmp | tail -1)
  if [ "$free" -lt $((5 * 1024 * 1024)) ]; then
    pid=$(pgrep -f -- "--dir /var/tmp/triebench-grow-sq/sqlite-wal" | head -1)
    echo "   watchdog: $((free / 1024)) MiB free, stopping sqlite-wal ($pid) at $(date -u +%FT%TZ)" >> runs.log
    [ -n "$pid" ] && kill "$pid"
  fi
  sleep 10
done
