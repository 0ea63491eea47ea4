#!/usr/bin/env bash
# The disk curves to 10^5 of the profiles not grown to 10^6 (README.md), one after another.
cd "$(dirname "$0")"
for p in ${PROFILES:-sqlite-rollback sqlite-wal-full-mmap redis-aof postgres-uncached}; do
  TB=/work/tb-grow ./run.sh disk "$p" "${MAX:-100000}" /var/tmp/triebench-grow26
done
