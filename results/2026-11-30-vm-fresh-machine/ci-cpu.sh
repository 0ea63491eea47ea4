#!/usr/bin/env bash
# Runs a cold CI in a fresh clone inside a cpuacct cgroup, logging the cgroup's CPU seconds every 10 s.
set -u
rev=${1:-main}
cg=/sys/fs/cgroup/cpuacct/ci-probe
mkdir -p $cg && echo 0 > $cg/cpuacct.usage
rm -rf /work/fresh-ci && git clone -q /work/main /work/fresh-ci && cd /work/fresh-ci && git checkout -q "$rev"
start=$(date +%s)
( while sleep 10; do echo "$(( $(date +%s) - start )) $(cat $cg/cpuacct.usage) $(cut -d' ' -f1-3 /proc/loadavg)"; done ) > /work/ci-cpu.samples &
sampler=$!
bash -c "echo \$\$ > $cg/cgroup.procs; exec env CI=true bash .ci/run" > /work/ci-run.log 2>&1
echo "rc=$?" >> /work/ci-run.log
kill $sampler
echo "$(( $(date +%s) - start )) $(cat $cg/cpuacct.usage) end" >> /work/ci-cpu.samples
