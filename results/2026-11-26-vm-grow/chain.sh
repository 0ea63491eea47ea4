#!/usr/bin/env bash
# The disk curves to 10^6 of this folder, one after another (README.md says what ran beside).
cd "$(dirname "$0")"
for p in ${PROFILES:-lmdb sqlite-wal-full postgres-async}; do
  TB=/work/tb-grow ./run.sh disk "$p" "${MAX:-1000000}" /var/tmp/triebench-grow26
done
