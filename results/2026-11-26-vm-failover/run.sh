#!/bin/bash
# the failover runs for results/2026-11-26-vm-failover: stream A (synchronous) or B (asynchronous)
set -u
B=/dev/shm/fo38r/triebench-bin
R=/work/wt/issue-38r/results/2026-11-26-vm-failover
D=/dev/shm/fo38r/runs
mkdir -p $D
run() { out=$1; name=$2; shift 2; echo "== $(date -u +%H:%M:%S) $name: $*"; $B crash-test --failover --seed 2026112601 --out $R/$out --dir $D/$name "$@" 2>&1 | grep -E "round (10|20|30|40|50)/|^postgres|error"; }
if [[ $1 == A ]]; then
run sync sync-250 --backend postgres-sync-standby --rounds 50 --net-rtt 250us
run sync sync-far --backend postgres-sync-standby --rounds 50 --standby-rtt 10ms
run sync apply-250 --backend postgres-remote-apply --rounds 50 --net-rtt 250us
else
run async async-far --backend postgres-async-standby --rounds 50 --standby-rtt 10ms
run async async-250 --backend postgres-async-standby --rounds 50 --net-rtt 250us
fi
echo "== $(date -u +%H:%M:%S) done"
