#!/usr/bin/env bash
# The second half of the runs (chain.sh was stopped after disk/lmdb-async had started, to fit
# the disk and the deadline): after lmdb-async, postgres to 10^6 beside lmdb, sqlite-wal and
# sqlite-wal-full to 10^5 one after another.
cd "$(dirname "$0")"
while kill -0 "$1" 2>/dev/null; do sleep 5; done
echo "   lmdb-async (pid $1) ended at $(date -u +%FT%TZ)" >> runs.log
rm -rf /var/tmp/triebench-grow/lmdb-async
PROFILE=postgres ROOT=/var/tmp/triebench-grow-pg ./run.sh disk-one &
for p in lmdb sqlite-wal sqlite-wal-full; do PROFILE=$p MAX=100000 ./run.sh disk-one; done
wait
