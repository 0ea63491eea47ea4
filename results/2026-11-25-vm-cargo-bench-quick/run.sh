#!/usr/bin/env bash
# Measures the cargo bench flow for issue 39 (build, quick on tmpfs and disk as baselines a and b).
set -uo pipefail
cd /work/wt/i39
export CARGO_INCREMENTAL=0
log() { echo "[$(date -u +%H:%M:%S)] $* (load: $(cut -d' ' -f1-3 /proc/loadavg))"; }
log "start build"
s=$SECONDS
cargo bench --features sqlite-db --bench kv --bench merkle --no-run 2>&1 | tail -3
log "build done in $((SECONDS - s)) s"
mkdir -p /dev/shm/i39-a /work/wt/i39/target/i39-disk-b
s=$SECONDS
TMPDIR=/dev/shm/i39-a TRIEBENCH_SCALE=quick cargo bench --features sqlite-db --bench kv --bench merkle -- --save-baseline a > /tmp/i39-bench/quick-a.log 2>&1
log "quick on tmpfs (baseline a) rc=$? in $((SECONDS - s)) s"
s=$SECONDS
TMPDIR=/work/wt/i39/target/i39-disk-b TRIEBENCH_SCALE=quick cargo bench --features sqlite-db --bench kv --bench merkle -- --save-baseline b > /tmp/i39-bench/quick-b.log 2>&1
log "quick on disk (baseline b) rc=$? in $((SECONDS - s)) s"
log "done"
