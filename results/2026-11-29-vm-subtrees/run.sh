#!/usr/bin/env bash
# A batch's subtrees finished side by side, before and after: the `hotpath` example and the
# growth fill, each built from OLD (a checkout of the commit before the change) and from this
# checkout, run alternately on one thread and on two (RAYON_NUM_THREADS); then the commit
# shapes against Transact 0.4.7 on one thread and on two; env.json last.
# Usage, from this checkout's root: results/2026-11-29-vm-subtrees/run.sh OLD_CHECKOUT [PAIRS]
# (the fill's stores go under /dev/shm and are removed; OLD_TARGET: the old build's cargo target
# folder, by default one beside this checkout's).
set -euo pipefail
cd "$(dirname "$0")/../.."
out=results/2026-11-29-vm-subtrees
old_src=$(cd "${1:?a checkout of the commit before the change}" && pwd)
pairs=${2:-4}
target=$(scripts/target-dir.sh)
old_target=${OLD_TARGET:-$target/subtrees-before}
build() { # SOURCE TARGET_DIR
  (cd "$1" && cargo build -q --release -p triebench-merkle --no-default-features \
    --example hotpath --target-dir "$2" &&
    cargo build -q --release --features sqlite-db -p triebench-cli --target-dir "$2")
}
build "$old_src" "$old_target"
build . "$target"
# The Transact comparator is a workspace of its own (see its Cargo.toml): its own target folder.
cargo build -q --release --manifest-path crates/transact-compare/Cargo.toml \
  --target-dir "$target/transact-compare" --example hotpath_vs_transact
bin() { # SIDE NAME
  if [ "$1" = before ]; then echo "$old_target/release/$2"; else echo "$target/release/$2"; fi
}
: >"$out/hotpath.txt"
for pair in $(seq "$pairs"); do
  for threads in 1 2; do
    for side in before after; do
      echo "## pair $pair, RAYON_NUM_THREADS=$threads, $side" >>"$out/hotpath.txt"
      RAYON_NUM_THREADS=$threads "$(bin $side examples/hotpath)" 2>/dev/null >>"$out/hotpath.txt"
    done
  done
done
: >"$out/fill.txt"
for pair in $(seq 2); do
  for threads in 1 2; do
    for profile in btree lmdb; do
      for side in before after; do
        dir=$(mktemp -d /dev/shm/triebench-fill.XXXXXX)
        echo "## pair $pair, RAYON_NUM_THREADS=$threads, $profile, tmpfs, $side" >>"$out/fill.txt"
        RAYON_NUM_THREADS=$threads "$(bin $side triebench)" grow --backend "$profile" \
          --dir "$dir/store" --max-leaves 200000 --commits 5 --reads 10 --out "$dir/out" 2>&1 |
          grep -E "fill 200000 / 200000|^ +200000 " >>"$out/fill.txt"
        rm -rf "$dir"
      done
    done
  done
done
: >"$out/vs-transact.txt"
for threads in 1 2; do
  echo "## RAYON_NUM_THREADS=$threads (Transact's side runs on one thread either way)" \
    >>"$out/vs-transact.txt"
  RAYON_NUM_THREADS=$threads "$target/transact-compare/release/examples/hotpath_vs_transact" 5 \
    2>/dev/null >>"$out/vs-transact.txt"
done
python3 - "$out/env.json" "$old_src" <<'PY'
import json, os, platform, subprocess, sys, time
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
mem = next(int(l.split()[1]) for l in open("/proc/meminfo") if l.startswith("MemTotal"))
run = lambda *a: subprocess.run(a, capture_output=True, text=True).stdout.strip()
env = {"hostname": platform.node(), "os": platform.system(), "kernel": platform.release(),
       "arch": platform.machine(), "cpu_model": cpu, "cpus": os.cpu_count(), "mem_kib": mem,
       "rustc": run("rustc", "--version"), "git_commit": run("git", "rev-parse", "HEAD"),
       "before_commit": run("git", "-C", sys.argv[2], "rev-parse", "HEAD"),
       # Dirty: a tracked file changed outside results/ (which this run just rewrote).
       "git_dirty": run("git", "status", "--porcelain", "--untracked-files=no", "--", ".",
                        ":!results") != "",
       "generated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
json.dump(env, open(sys.argv[1], "w"), indent=1)
PY
