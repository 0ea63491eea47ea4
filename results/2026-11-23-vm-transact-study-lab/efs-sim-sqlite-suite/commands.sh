#!/bin/bash
# One suite iteration each on efs-sim: Transact 0.3.7 sqlite-wal, then ours (triebench phases).
cd /work/main
d=/var/lib/triebench-lab/efs-sim/work
s=$(date +%s)
ns=$(TMPDIR=$d target/release/transact-runner time transact-0.3.7:sqlite-wal suite 1 2>/tmp/efs-single-transact.err)
echo "transact-0.3.7:sqlite-wal suite 1 iteration: $ns ns (wall $(( $(date +%s) - s )) s)" > /tmp/efs-single.txt
s=$(date +%s)
rm -rf $d/phases-sqlite-wal; mkdir -p $d/phases-sqlite-wal
target/release/triebench phases --dir $d/phases-sqlite-wal --profiles sqlite-wal --run efs-sim --out /tmp/efs-phases.json > /tmp/efs-phases.log 2>&1
echo "triebench phases sqlite-wal exit $? (wall $(( $(date +%s) - s )) s)" >> /tmp/efs-single.txt
