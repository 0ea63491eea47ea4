#!/usr/bin/env bash
# Installs what triebench needs beyond the Rust toolchain (cargo-nextest, and Debian packages on
# Debian/Ubuntu). Idempotent: it only installs what is missing and says what it did. Elsewhere
# it says what to install by hand.
set -euo pipefail

# Debian package -> a command (or file, a glob allowed) that shows it is installed. Commands are
# also looked up in /usr/sbin and /sbin, which are not on a normal user's PATH.
declare -A NEEDS=(
  # The redis and redis-aof backends.
  [redis-server]="redis-server"
  # The postgres and postgres-async backends (binaries in /usr/lib/postgresql/<version>/bin,
  # found there by triebench; pg_ctlcluster comes with the package's postgresql-common).
  [postgresql]="pg_ctlcluster"
  # scripts/fs-lab.sh: the filesystem lab (ext4/xfs/btrfs on loop images, the ebs-sim block
  # device with injected latency, the slowfs FUSE mounts).
  [e2fsprogs]="mkfs.ext4"
  [xfsprogs]="mkfs.xfs"
  [btrfs-progs]="mkfs.btrfs"
  [mount]="losetup"
  [util-linux]="blkid"
  [nbdkit]="nbdkit" # ships the memory plugin and the delay filter
  [libnbd-bin]="nbdfuse"
  [fuse3]="fusermount3"
  # The `transact` feature (crates/transact-compare): Hyperledger Transact generates its
  # protobuf code at build time with protoc; its SQLite state links libsqlite3, its PostgreSQL
  # state libpq.
  [protobuf-compiler]="protoc"
  [libsqlite3-dev]="/usr/include/sqlite3.h"
  [libpq-dev]="/usr/include/postgresql/libpq-fe.h"
  # Merk's own code (crates/merk-compare, `triebench field --workload merk`): its rocksdb crate
  # links the system's RocksDB and generates its bindings with bindgen, which loads libclang.
  [librocksdb-dev]="/usr/include/rocksdb/c.h"
  [libclang-dev]="/usr/lib/llvm-*/lib/libclang.so"
  # The report.html test (crates/cli/tests/report_html_browser.rs) opens the page in a
  # headless Chromium.
  [chromium]="chromium"
)

# scripts/test.sh runs the workspace's tests with cargo-nextest (tests of different binaries side
# by side; .config/nextest.toml). The project's machines have it; elsewhere it is built from
# crates.io once (a few minutes), into cargo's bin directory.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "setup: installing cargo-nextest (cargo install --locked cargo-nextest)"
  cargo install --locked --quiet cargo-nextest
  echo "setup: installed $(cargo nextest --version 2>/dev/null | head -n 1)"
fi

# Merk 2.0.1 builds on a nightly Rust only (crates/merk-compare/rust-toolchain.toml names it):
# installed here so the first build there does not stop for it. rustup's download can fail once
# and succeed when asked again (scripts/check-macos.sh): three tries, then the error.
merk_toolchain=$(sed -n 's/^channel = "\(.*\)"$/\1/p' "$(dirname "$0")/../crates/merk-compare/rust-toolchain.toml")
if ! rustup toolchain list | grep -q "^$merk_toolchain-"; then
  echo "setup: installing the Rust toolchain $merk_toolchain (Merk's comparator, crates/merk-compare)"
  for try in 1 2 3; do
    if rustup toolchain install "$merk_toolchain" --profile minimal -c clippy -c rustfmt; then break; fi
    if [[ $try == 3 ]]; then
      echo "setup: rustup could not install $merk_toolchain (three tries)" >&2
      exit 1
    fi
    echo "setup: rustup toolchain install failed (try $try of 3); trying again in 5 s" >&2
    sleep 5
  done
fi

missing=()
for pkg in "${!NEEDS[@]}"; do
  probe=${NEEDS[$pkg]}
  if [[ $probe == /* ]]; then
    compgen -G "$probe" >/dev/null || missing+=("$pkg")
  else
    PATH=$PATH:/usr/sbin:/sbin command -v "$probe" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: everything needed is installed (${!NEEDS[*]})"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup: missing ${missing[*]}; this is not a Debian/Ubuntu system, install them with your package manager" >&2
  echo "setup: (for Redis alone you may instead set REDIS_URL=redis://host:port to an existing server)" >&2
  echo "setup: (for PostgreSQL alone you may instead set POSTGRES_URL=postgres://user@host/db)" >&2
  exit 1
fi

sudo=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup: missing ${missing[*]} and not root (no sudo): run as root: apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
fi

echo "setup: installing ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
# The Debian package may start a system service; the tests start their own servers.
if [[ " ${missing[*]} " == *" redis-server "* ]] && command -v service >/dev/null 2>&1; then
  "${sudo[@]}" service redis-server stop >/dev/null 2>&1 || true
fi
if [[ " ${missing[*]} " == *" postgresql "* ]] && command -v service >/dev/null 2>&1; then
  "${sudo[@]}" service postgresql stop >/dev/null 2>&1 || true
fi
echo "setup: installed ${missing[*]}"
