#!/usr/bin/env bash
# The trie's hot path against its SHA-512 floor, and the growth fill, on one thread and on two
# (RAYON_NUM_THREADS), alternating, from a release build of the checkout this folder names; then
# the same commit shapes against Transact 0.4.7 (one thread); env.json last.
# Usage: results/2026-11-29-vm-hotpath/run.sh [RUNS] (from the checkout's root; as root for
# nothing: the fill's stores go under /dev/shm and are removed).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-hotpath
runs=${1:-3}
cargo build -q --release -p triebench-merkle --no-default-features --example hotpath
cargo build -q --release --features sqlite-db -p triebench-cli
target=$(scripts/target-dir.sh)
# The Transact comparator is a workspace of its own (see its Cargo.toml): its own target folder.
cargo build -q --release --manifest-path crates/transact-compare/Cargo.toml \
  --target-dir "$target/transact-compare" --example hotpath_vs_transact
: >"$out/hotpath.txt"
for run in $(seq "$runs"); do
  for threads in 1 2; do
    echo "## run $run, RAYON_NUM_THREADS=$threads" >>"$out/hotpath.txt"
    RAYON_NUM_THREADS=$threads "$target/release/examples/hotpath" 2>/dev/null >>"$out/hotpath.txt"
  done
done
: >"$out/fill.txt"
for run in $(seq "$runs"); do
  for threads in 1 2; do
    for profile in btree lmdb; do
      dir=$(mktemp -d /dev/shm/triebench-fill.XXXXXX)
      echo "## run $run, RAYON_NUM_THREADS=$threads, $profile, tmpfs" >>"$out/fill.txt"
      RAYON_NUM_THREADS=$threads "$target/release/triebench" grow --backend "$profile" --dir "$dir/store" \
        --max-leaves 200000 --commits 5 --reads 10 --out "$dir/out" 2>&1 |
        grep -E "fill 200000 / 200000|^ +200000 " >>"$out/fill.txt"
      rm -rf "$dir"
    done
  done
done
# Best of five rounds per shape, each round alternating triebench and Transact.
RAYON_NUM_THREADS=1 "$target/transact-compare/release/examples/hotpath_vs_transact" 5 \
  2>/dev/null >"$out/vs-transact.txt"
python3 - "$out/env.json" <<'PY'
import json, os, platform, subprocess, sys, time
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
run = lambda *a: subprocess.run(a, capture_output=True, text=True).stdout.strip()
env = {"hostname": platform.node(), "os": platform.system(), "kernel": platform.release(),
       "arch": platform.machine(), "cpu_model": cpu, "cpus": os.cpu_count(), "mem_kib": mem,
       "rustc": run("rustc", "--version"), "git_commit": run("git", "rev-parse", "HEAD"),
       # Dirty: a tracked file changed outside results/ (which this run just rewrote).
       "git_dirty": run("git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                        ":!results") != "",
       "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
json.dump(env, open(sys.argv[1], "w"), indent=1)
PY
