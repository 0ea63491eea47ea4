#!/usr/bin/env bash
# Tests scripts/fs-lab.sh for real (as root, on a lab of its own, so a running lab is untouched):
#   - `up` twice leaves the same mounts, loop devices and daemons; `status` prints NAME=DIR pairs
#     in order, each DIR writable; `iolab` works when slowfs is there;
#   - a 4 KiB write + O_DSYNC per filesystem (appending, then overwriting), printed as a table;
#     ebs-sim must take at least its injected write latency per write;
#   - `down` leaves no mount, loop device or daemon;
#   - a crash (kill -9 of nbdkit, nbdfuse, slowfs): status drops the dead ones, `up` repairs them,
#     `down` still cleans up everything;
#   - partial labs: a failing mkfs.btrfs and no FUSE (the others still come up), not root
#     (nothing mounts, exit 1), bad arguments (exit 2).
#
#   sudo scripts/test-fs-lab.sh
#
# Environment: TRIEBENCH_TEST_LAB (default /var/lib/triebench-lab-test; removed at the end),
# CARGO_TARGET_DIR (where fs-lab.sh builds slowfs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
fslab=$root/scripts/fs-lab.sh
lab=$(realpath -m "${TRIEBENCH_TEST_LAB:-/var/lib/triebench-lab-test}")
lab2=$lab-partial
export TRIEBENCH_LAB=$lab
export PATH=$PATH:/usr/sbin:/sbin

if [[ $(id -u) -ne 0 ]]; then
  echo "test-fs-lab: needs root (mounts, loop devices): sudo $0" >&2
  exit 1
fi

fail() {
  echo "test-fs-lab: FAIL: $*" >&2
  exit 1
}
ok() { echo "test-fs-lab: ok: $*"; }

# What the lab $1 holds: mounts, loop devices, daemons.
lab_state() {
  awk -v p="$1/" 'index($2, p) == 1 { print "mount", $2, $3 }' /proc/self/mounts | sort
  losetup -l -n -O NAME,BACK-FILE | awk -v p="$1/" 'index($2, p) == 1 { print "loop", $1, $2 }' | sort
  local p
  for p in /proc/[0-9]*; do
    case $(cat "$p/comm" 2>/dev/null) in slowfs | nbdfuse | nbdkit) ;; *) continue ;; esac
    if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$1/"; then echo "proc ${p#/proc/} $(cat "$p/comm")"; fi
  done
}
nothing_left() {
  local left
  left=$(lab_state "$1")
  [[ -z $left ]] || fail "after down, $1 still has: $left"
  ! grep -qF " $1/" /proc/mounts || fail "grep $1 /proc/mounts is not empty"
  ! losetup -a | grep -qF "$1/" || fail "losetup -a | grep $1 is not empty"
}
cleanup() {
  TRIEBENCH_LAB=$lab "$fslab" down >/dev/null 2>&1 || true
  TRIEBENCH_LAB=$lab2 "$fslab" down >/dev/null 2>&1 || true
}
trap cleanup EXIT

# Microseconds per 4 KiB O_DSYNC write (dd), appending to a new file or overwriting it.
dsync_us() {
  local dir=$1 mode=$2 n=200 secs
  local args=(if=/dev/zero of="$dir/dsync-probe" bs=4k count="$n" oflag=dsync)
  if [[ $mode == overwrite ]]; then args+=(conv=notrunc); else rm -f "$dir/dsync-probe"; fi
  secs=$(dd "${args[@]}" 2>&1 | awk '/copied/ { print $(NF - 3) }')
  [[ -n $secs ]] || fail "dd in $dir failed"
  awk -v s="$secs" -v n=$n 'BEGIN { printf "%.0f", s / n * 1e6 }'
}

# --- usage -----------------------------------------------------------------------------------------
for args in "" "bogus" "up extra" "_up"; do
  rc=0
  # shellcheck disable=SC2086 # split the argument list on purpose
  "$fslab" $args >/dev/null 2>&1 || rc=$?
  ((rc == 2)) || fail "'fs-lab.sh $args' exited $rc, want 2"
done
ok "bad arguments exit 2"

# --- up, up again ------------------------------------------------------------------------------
"$fslab" down >/dev/null
"$fslab" up
first=$(lab_state "$lab")
again=$("$fslab" up 2>&1) || fail "second up failed: $again"
second=$(lab_state "$lab")
[[ $first == "$second" ]] || fail "second up changed the lab: before:
$first
after:
$second"
ok "second up left the same mounts, loop devices and daemons ($(wc -l <<<"$first") entries)"
[[ $(grep -c '^loop' <<<"$first") == 4 ]] || fail "want 4 loop devices (ext4 xfs btrfs ebs-sim): $first"

status=$("$fslab" status 2>/dev/null)
[[ $(wc -l <<<"$status") == 1 ]] || fail "status printed more than one line: $status"
echo "status: $status"
names=()
for pair in $status; do
  name=${pair%%=*} dir=${pair#*=}
  names+=("$name")
  [[ $dir == "$lab/$name/work" ]] || fail "$pair: want $lab/$name/work"
  [[ -d $dir && -w $dir ]] || fail "$dir is not a writable directory"
done
want="tmpfs ext4 xfs btrfs ebs-sim"
have=${names[*]}
have=${have% efs-sim}
[[ $have == "$want" ]] || fail "status names: ${names[*]}, want $want [efs-sim]"
ok "status: ${names[*]}"
for name in "${names[@]}"; do
  grep -q "^fs-lab: $name: already mounted" <<<"$again" || fail "second up did not find $name mounted: $again"
done

slowfs=0 also=''
if iodir=$("$fslab" iolab 2>/dev/null); then
  slowfs=1 also=' and slowfs'
  [[ $iodir == "$lab/iolab" ]] || fail "iolab printed $iodir"
  [[ " ${names[*]} " == *" efs-sim "* ]] || fail "iolab is up but efs-sim is not"
  stats=$(cat "$iodir/.slowfs-stats") || fail "cannot read $iodir/.slowfs-stats"
  [[ $stats == "{"* ]] || fail ".slowfs-stats is not JSON: $stats"
  ok "iolab at $iodir, .slowfs-stats: ${stats:0:120}"
else
  echo "test-fs-lab: note: efs-sim/iolab are not up ($("$fslab" iolab 2>&1 || true)); their checks are skipped"
fi

# --- dsync latency ---------------------------------------------------------------------------------
printf '%-8s %22s %22s\n' filesystem "append+dsync us/4KiB" "overwrite+dsync us/4KiB"
for pair in $status; do
  name=${pair%%=*} dir=${pair#*=}
  a=$(dsync_us "$dir" append)
  o=$(dsync_us "$dir" overwrite)
  rm -f "$dir/dsync-probe"
  printf '%-8s %22s %22s\n' "$name" "$a" "$o"
  if [[ $name == ebs-sim ]]; then
    floor=$((${TRIEBENCH_EBS_WRITE_MS:-1} * 1000))
    ((o >= floor && a >= floor)) || fail "ebs-sim: ${a}/${o} us per dsync write, below the injected ${floor} us"
  fi
done
ok "ebs-sim takes at least its injected write latency per dsync write"

# --- down --------------------------------------------------------------------------------------
"$fslab" down
nothing_left "$lab"
ok "down left nothing"

# --- crash -----------------------------------------------------------------------------------------
"$fslab" up >/dev/null 2>&1
victims=("$(cat "$lab/.run/ebs-nbdkit.pid")")
if ((slowfs)); then victims+=("$(cat "$lab/.run/efs-sim.pid")"); fi
kill -9 "${victims[@]}"
sleep 0.5
status=$("$fslab" status 2>/dev/null)
[[ $status != *ebs-sim* && $status != *efs-sim* ]] || fail "status lists dead filesystems: $status"
ok "after kill -9 of nbdkit$also, status drops them: $status"
"$fslab" up >/dev/null 2>&1
status=$("$fslab" status 2>/dev/null)
[[ $status == *ebs-sim* ]] || fail "up did not repair ebs-sim: $status"
if ((slowfs)); then [[ $status == *efs-sim* ]] || fail "up did not repair efs-sim: $status"; fi
[[ $(lab_state "$lab" | grep -c '^loop') == 4 ]] || fail "repair left extra loop devices: $(lab_state "$lab")"
ok "up repairs a crashed lab: $status"
victims=("$(cat "$lab/.run/ebs-nbdfuse.pid")")
if ((slowfs)); then victims+=("$(cat "$lab/.run/efs-sim.pid")" "$(cat "$lab/.run/iolab.pid")"); fi
kill -9 "${victims[@]}"
sleep 0.5
"$fslab" down
nothing_left "$lab"
ok "down after kill -9 of nbdfuse$also left nothing"

# --- partial: mkfs.btrfs fails, no FUSE --------------------------------------------------------------
fake=$(mktemp -d)
printf '#!/bin/sh\necho "fake mkfs.btrfs: refusing" >&2\nexit 1\n' >"$fake/mkfs.btrfs"
chmod +x "$fake/mkfs.btrfs"
rm -rf "$lab2"
out=$(PATH=$fake:$PATH TRIEBENCH_LAB=$lab2 TRIEBENCH_FUSE_DEV=/nonexistent/fuse "$fslab" up 2>&1) ||
  fail "up with a failing mkfs.btrfs and no FUSE exited non-zero: $out"
rm -rf "$fake"
status=$(TRIEBENCH_LAB=$lab2 "$fslab" status 2>/dev/null)
[[ $status == "tmpfs=$lab2/tmpfs/work ext4=$lab2/ext4/work xfs=$lab2/xfs/work" ]] ||
  fail "partial lab status: $status"
grep -q 'btrfs: NOT mounted: .*mkfs.btrfs' <<<"$out" || fail "no btrfs reason in: $out"
for name in ebs-sim efs-sim iolab; do
  grep -q "$name: NOT mounted: no FUSE" <<<"$out" || fail "no FUSE reason for $name in: $out"
done
! lab_state "$lab2" | grep -q btrfs || fail "failed btrfs left something: $(lab_state "$lab2")"
why=$(TRIEBENCH_LAB=$lab2 "$fslab" status 2>&1 >/dev/null)
grep -q 'btrfs: .*mkfs.btrfs' <<<"$why" || fail "status does not say why btrfs is missing: $why"
ok "failing mkfs.btrfs and no FUSE: reported, the others came up ($status)"
TRIEBENCH_LAB=$lab2 "$fslab" down >/dev/null
nothing_left "$lab2"
rm -rf "$lab2"

# --- not root ----------------------------------------------------------------------------------------
if id nobody >/dev/null 2>&1; then
  userlab=$(mktemp -d /tmp/triebench-lab-nobody.XXXXXX)
  chown nobody "$userlab"
  rc=0
  out=$(setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups \
    env TRIEBENCH_LAB="$userlab" TRIEBENCH_SLOWFS=/nonexistent/slowfs "$fslab" up 2>&1) || rc=$?
  ((rc == 1)) || fail "up as nobody exited $rc, want 1: $out"
  for name in tmpfs ext4 xfs btrfs ebs-sim; do
    grep -q "$name: NOT mounted: needs root" <<<"$out" || fail "no root reason for $name: $out"
  done
  [[ -z $(lab_state "$userlab") ]] || fail "up as nobody left: $(lab_state "$userlab")"
  rm -rf "$userlab"
  ok "not root: every filesystem says why, exit 1"
fi

trap - EXIT
cleanup
rm -rf "$lab"
ok "all fs-lab tests passed"
