#!/usr/bin/env bash
# The README's two commands on this machine made fresh (RUNS.md): setup.sh's packages purged,
# every nightly toolchain and the darwin target removed, a fresh clone, an empty CARGO_HOME.
# Run as root with nothing else running. It uninstalls packages and toolchains: for a
# throwaway machine or VM.
# Usage: fresh-run.sh COMMIT SOURCE_REPO OUT   (OUT gets the log, the clone and the cargo home)
set -uo pipefail
commit=${1:?commit} source_repo=${2:?repository to clone} out=${3:?output folder}
mkdir -p "$out"
log=$out/fresh-run-$commit.log
exec > >(tee -a "$log") 2>&1
echo "== $(date -u +%FT%TZ) make fresh"
DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq --autoremove redis-server redis-tools postgresql 'postgresql-1*' postgresql-common \
  xfsprogs btrfs-progs nbdkit libnbd-bin fuse3 protobuf-compiler chromium libpq-dev libsqlite3-dev \
  librocksdb-dev libclang-dev >/dev/null 2>&1
apt-get clean
for p in redis-server pg_ctlcluster mkfs.xfs mkfs.btrfs nbdkit nbdfuse fusermount3 protoc chromium; do
  PATH=$PATH:/usr/sbin:/sbin command -v $p >/dev/null && echo "still installed: $p"
done
rustup toolchain list | grep nightly | awk '{print $1}' | xargs -r -n1 rustup toolchain uninstall
rustup target remove x86_64-apple-darwin 2>/dev/null || true
rm -rf $out/clone $out/cargo-home && mkdir -p $out/cargo-home
for c in config.toml config; do [[ -f ~/.cargo/$c ]] && cp ~/.cargo/$c $out/cargo-home/; done
git clone -q "$source_repo" $out/clone && cd $out/clone && git checkout -q "$commit"
export CARGO_HOME=$out/cargo-home
unset CARGO_TARGET_DIR
echo "== $(date -u +%FT%TZ) clone at $(git rev-parse --short HEAD), CARGO_HOME=$CARGO_HOME ($(ls $CARGO_HOME | wc -l) files)"
start=$SECONDS
scripts/bench-fs.sh 2>&1 | grep -v -E '^\s+(Compiling|Checking|Downloaded|Downloading|Fresh|Building)|^\s*Blocking'
rc=${PIPESTATUS[0]}
echo "== $(date -u +%FT%TZ) bench-fs.sh rc=$rc wall $((SECONDS - start)) s"
start=$SECONDS
scripts/test.sh 2>&1 | grep -v -E '^\s+(Compiling|Checking|Downloaded|Downloading|Fresh|Building)|^\s*Blocking'
rc=${PIPESTATUS[0]}
echo "== $(date -u +%FT%TZ) test.sh rc=$rc wall $((SECONDS - start)) s"
echo "== git status after both:"; git status --porcelain --untracked-files=all
echo "== done"
