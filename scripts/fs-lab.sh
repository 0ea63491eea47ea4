#!/usr/bin/env bash
# A lab of filesystems on one machine, so the benchmarks can run with TMPDIR on each of them:
#
#   sudo scripts/fs-lab.sh up                  # install the tools, mount everything that can be
#   scripts/bench-fs.sh $(scripts/fs-lab.sh status)
#   sudo scripts/fs-lab.sh down                # unmount, detach, stop daemons (also after a crash)
#
# Subcommands:
#   up      runs scripts/setup.sh, then mounts each filesystem below that is not mounted yet.
#           Idempotent: a second `up` leaves the same mounts, loop devices and daemons. One
#           filesystem failing (a tool missing, no FUSE, not root) is reported and the others
#           still come up; exits non-zero only if nothing could be mounted.
#   down    unmounts everything under the lab, detaches its loop devices and stops its daemons
#           (slowfs, nbdfuse, nbdkit), also after a crash (stale pid files, dead FUSE mounts).
#           Keeps the disk images, so ext4/xfs/btrfs are not re-made on the next `up`;
#           `rm -rf <lab>` after `down` frees the space.
#   status  prints the mounted benchmark filesystems as NAME=DIR on one line (stdout), in the
#           order tmpfs ext4 xfs btrfs ebs-sim efs-sim; DIR is a writable `work` directory inside
#           the mount. What is missing, and why, goes to stderr. Exit 0 if at least one is mounted.
#   iolab   prints the root of the iolab mount (the harness reads <root>/.slowfs-stats there),
#           or says it is not mounted and exits 1.
#
# The filesystems, all under the lab directory $TRIEBENCH_LAB (default /var/lib/triebench-lab):
#   tmpfs    RAM; fsync is a no-op. The baseline.
#   ext4     on a sparse 2 GiB image file in the lab (so on the disk holding the lab), through a
#   xfs      loop device with direct I/O (no second page cache for the image). mkfs runs only when
#   btrfs    the image holds no filesystem yet (new image); later `up`s reuse it.
#   ebs-sim  ext4 on a simulated network block device with per-request latency, like an AWS EBS
#            gp3 volume: nbdkit's memory plugin (RAM, so the only latency is the injected one)
#            behind its delay filter, served as a file by nbdfuse (FUSE), attached to a loop
#            device, made ext4 and mounted. See "EBS latency" below. Its contents live in RAM
#            and are gone after `down`: the next `up` makes a fresh ext4.
#   efs-sim  slowfs (crates/slowfs, a FUSE passthrough that delays and counts operations) with
#            profile `efs`, over a directory on a lab-private tmpfs ($LAB/.backing), so the only
#            latency is the one slowfs injects (its profile holds the published EFS figures).
#   iolab    slowfs with profile `none` over $LAB/.backing/iolab: no delays, just counters
#            (<mount>/.slowfs-stats). Used to count I/O operations, not a benchmark column.
#
# Environment (all optional):
#   TRIEBENCH_LAB            lab directory (default /var/lib/triebench-lab)
#   TRIEBENCH_TMPFS_SIZE     size of the tmpfs column (default 4G)
#   TRIEBENCH_IMAGE_SIZE     size of new ext4/xfs/btrfs images (default 2G; xfs needs >= 300M)
#   TRIEBENCH_EBS_SIZE       size of the ebs-sim RAM disk (default 2G)
#   TRIEBENCH_BACKING_SIZE   size of the tmpfs under efs-sim and iolab (default 4G)
#   TRIEBENCH_EBS_READ_MS, TRIEBENCH_EBS_WRITE_MS, TRIEBENCH_EBS_FLUSH_MS
#                            ebs-sim latency per request in whole milliseconds (default 1 each)
#   TRIEBENCH_SLOWFS         a slowfs binary to use instead of building crates/slowfs
#   CARGO_TARGET_DIR         where slowfs is built (default <checkout>/target)
#   TRIEBENCH_MOUNT_TIMEOUT  seconds to wait for a FUSE daemon to mount (default 30)
#   TRIEBENCH_FUSE_DEV       the FUSE device (default /dev/fuse; tests point it elsewhere to
#                            check the no-FUSE path)
set -euo pipefail

# mkfs.*, losetup, blkid live in /usr/sbin and /sbin, which a plain user's PATH (or sudo's) may lack.
export PATH=$PATH:/usr/local/sbin:/usr/sbin:/sbin
self=$(readlink -f "$0")
root=$(cd "$(dirname "$self")/.." && pwd)

LAB=$(realpath -m "${TRIEBENCH_LAB:-/var/lib/triebench-lab}")
RUN=$LAB/.run          # pid files, logs, failure reasons
IMAGES=$LAB/.images    # sparse images of ext4, xfs, btrfs
BACKING=$LAB/.backing  # tmpfs under efs-sim and iolab
EBS_DEV=$LAB/.ebs-nbd  # the nbdfuse file (a FUSE mount over a regular file)
BENCH_FS=(tmpfs ext4 xfs btrfs ebs-sim efs-sim)
ALL_FS=("${BENCH_FS[@]}" iolab)

TMPFS_SIZE=${TRIEBENCH_TMPFS_SIZE:-4G}
IMAGE_SIZE=${TRIEBENCH_IMAGE_SIZE:-2G}
EBS_SIZE=${TRIEBENCH_EBS_SIZE:-2G}
BACKING_SIZE=${TRIEBENCH_BACKING_SIZE:-4G}
MOUNT_TIMEOUT=${TRIEBENCH_MOUNT_TIMEOUT:-30}
FUSE_DEV=${TRIEBENCH_FUSE_DEV:-/dev/fuse}

# EBS latency. AWS's documentation of General Purpose SSD volumes (gp2, and gp3 is the same
# class) says: "These volumes deliver single-digit millisecond latencies" (Amazon EC2/EBS User
# Guide, "Amazon EBS volume types", General Purpose SSD; the Amazon RDS User Guide says the same
# of its General Purpose SSD storage). The "Amazon EBS optimization" page
# (https://docs.aws.amazon.com/ebs/latest/userguide/ebs-optimization.html) puts io2 Block Express
# at "an average latency of under 500 microseconds for 16KiB I/O operations", with better outliers
# "compared to General Purpose volumes", so gp3 sits above 0.5 ms. We take the low end of
# "single-digit millisecond": 1 ms per read, per write (also zero/trim) and per flush request.
# nbdkit's delay filter takes whole milliseconds. A 4 KiB append + fdatasync on ext4 costs
# several requests (data, journal, commit), so about 4 ms; an overwrite about 1.4 ms.
EBS_READ_MS=${TRIEBENCH_EBS_READ_MS:-1}
EBS_WRITE_MS=${TRIEBENCH_EBS_WRITE_MS:-1}
EBS_FLUSH_MS=${TRIEBENCH_EBS_FLUSH_MS:-1}

say() { printf 'fs-lab: %s\n' "$*"; }
warn() { printf 'fs-lab: %s\n' "$*" >&2; }

usage() {
  cat >&2 <<EOF
usage: $0 up|down|status|iolab
  up      (root) install tools, mount the lab under $LAB
  down    (root) unmount everything, detach loop devices, stop daemons
  status  print NAME=DIR pairs for scripts/bench-fs.sh
  iolab   print the iolab mount (slowfs, profile none) or exit 1
EOF
  exit 2
}

# --- mounts, loops, processes -------------------------------------------------------------------

# Exact mount point match in the mount table (never stats the path, so safe on dead FUSE mounts).
mounted() { awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/self/mounts; }

# Mounted and answering: a crashed FUSE daemon leaves a mount whose statfs fails with
# "Transport endpoint is not connected"; a hung one would block, hence the timeout.
healthy() { mounted "$1" && timeout 5 stat -f "$1" >/dev/null 2>&1; }

# The same for a slowfs mount, through its virtual stats file: reading it is not counted, so
# checking iolab does not disturb its I/O counters (a statfs would count).
slowfs_healthy() {
  mounted "$1" && timeout 5 cat "$1/.slowfs-stats" >/dev/null 2>&1 &&
    lab_pid "$RUN/${1##*/}.pid" slowfs >/dev/null
}

# Mount points under the lab, in mount order.
lab_mounts() { awk -v p="$LAB/" 'index($2, p) == 1 { print $2 }' /proc/self/mounts; }

# Loop devices whose backing file is $1 (from the kernel's record, without touching the file,
# which may sit on a dead FUSE mount).
loops_of() { losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v f="$1" '$2 == f { print $1 }'; }
lab_loops() {
  losetup -l -n -O NAME,BACK-FILE 2>/dev/null | awk -v p="$LAB/" 'index($2, p) == 1 { print $1 }'
}

# Prints the pid in pid file $1 if that process is alive, is called $2 and names the lab on its
# command line (so a stale pid file never makes us signal an unrelated process).
lab_pid() {
  local pid
  [[ -f $1 ]] || return 1
  pid=$(head -n 1 "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  [[ $(cat "/proc/$pid/comm" 2>/dev/null) == "$2" ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$LAB/" || return 1
  echo "$pid"
}

# Every slowfs/nbdfuse/nbdkit process whose command line names the lab (found after a crash
# even without pid files).
lab_procs() {
  local p comm
  for p in /proc/[0-9]*; do
    comm=$(cat "$p/comm" 2>/dev/null) || continue
    case $comm in
      slowfs | nbdfuse | nbdkit) ;;
      *) continue ;;
    esac
    if tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF -- "$LAB/"; then echo "${p#/proc/}"; fi
  done
}

# Waits up to $2 seconds (default 10) for pid $1 to exit.
wait_gone() {
  local i
  for ((i = 0; i < ${2:-10} * 10; i++)); do
    kill -0 "$1" 2>/dev/null || return 0
    sleep 0.1
  done
  return 1
}

# SIGTERM, then SIGKILL if it does not exit.
stop_pid() {
  kill -TERM "$1" 2>/dev/null || return 0
  wait_gone "$1" 10 && return 0
  warn "pid $1 ($(cat "/proc/$1/comm" 2>/dev/null)) ignored SIGTERM: SIGKILL"
  kill -KILL "$1" 2>/dev/null || true
  wait_gone "$1" 5 || warn "pid $1 is still alive"
}

# Unmounts $1 (every mount stacked on it). A busy or dead mount gets a lazy unmount.
unmount() {
  local d=$1 i
  for ((i = 0; i < 5; i++)); do
    mounted "$d" || return 0
    umount "$d" 2>/dev/null && continue
    fusermount3 -u "$d" 2>/dev/null && continue
    warn "$d: busy or its daemon is dead: lazy unmount"
    umount -l "$d" 2>/dev/null || fusermount3 -uz "$d" 2>/dev/null || true
  done
  ! mounted "$d" || { warn "$d: still mounted"; return 1; }
}

detach_loops_of() {
  local l
  for l in $(loops_of "$1"); do losetup -d "$l" 2>/dev/null || warn "cannot detach $l ($1)"; done
}

# --- up: one filesystem per child process ------------------------------------------------------
# Each filesystem comes up in its own `bash fs-lab.sh _up NAME`, so `set -e` stops only that one;
# its failure reason lands in $RUN/NAME.why (shown by status).

fs_name=
undo=()
why() {
  local i
  for ((i = ${#undo[@]} - 1; i >= 0; i--)); do eval "${undo[i]}" >/dev/null 2>&1 || true; done
  undo=()
  printf '%s\n' "$*" >"$RUN/$fs_name.why" 2>/dev/null || true
  warn "$fs_name: NOT mounted: $*"
  exit 1
}
need_root() {
  [[ $(id -u) -eq 0 ]] || why "needs root (mount and losetup); run: sudo $0 up"
}
need_tool() {
  command -v "$1" >/dev/null 2>&1 || why "$1 not found (Debian package $2; scripts/setup.sh installs it)"
}
need_fuse() {
  [[ -e $FUSE_DEV ]] || why "no FUSE: $FUSE_DEV is missing (modprobe fuse, or give the container /dev/fuse)"
}
workdir() { mkdir -p "$1/work" && chmod 1777 "$1/work"; }

# Waits until the daemon with pid $2 has mounted $1 (or dies, or the timeout passes); $4 is the
# check (default healthy).
wait_mount() {
  local dir=$1 pid=$2 log=$3 check=${4:-healthy} i rc
  for ((i = 0; i < MOUNT_TIMEOUT * 10; i++)); do
    "$check" "$dir" && return 0
    if ! kill -0 "$pid" 2>/dev/null; then
      rc=0
      wait "$pid" 2>/dev/null || rc=$?
      why "daemon exited (status $rc) before mounting $dir: $(tail -n 5 "$log" 2>/dev/null | tr '\n' ' ')(log: $log)"
    fi
    sleep 0.1
  done
  why "not mounted after ${MOUNT_TIMEOUT}s (log: $log)"
}

up_tmpfs() {
  local dir=$LAB/tmpfs
  need_root
  if healthy "$dir"; then
    say "tmpfs: already mounted"
  else
    mkdir -p "$dir"
    mount -t tmpfs -o "size=$TMPFS_SIZE,mode=0755" triebench-lab "$dir"
    say "tmpfs: mounted at $dir (size $TMPFS_SIZE)"
  fi
  workdir "$dir"
}

# ext4, xfs, btrfs: a sparse image in $IMAGES, a loop device with direct I/O, mkfs if blank.
up_loopfs() {
  local name=$1 type=$1 pkg dir=$LAB/$1 img=$IMAGES/$1.img loop have
  case $type in
    ext4) pkg=e2fsprogs ;;
    xfs) pkg=xfsprogs ;;
    btrfs) pkg=btrfs-progs ;;
  esac
  need_root
  need_tool "mkfs.$type" "$pkg"
  need_tool losetup mount
  if healthy "$dir"; then
    say "$name: already mounted"
    workdir "$dir"
    return
  fi
  mkdir -p "$IMAGES" "$dir"
  if [[ ! -f $img ]]; then
    truncate -s "$IMAGE_SIZE" "$img"
    say "$name: new sparse image $img ($IMAGE_SIZE)"
  fi
  loop=$(loops_of "$img" | head -n 1)
  if [[ -z $loop ]]; then
    loop=$(losetup -f --show --direct-io=on "$img")
    undo+=("losetup -d $loop")
  fi
  have=$(blkid -p -o value -s TYPE "$loop" 2>/dev/null || true)
  if [[ -z $have ]]; then
    say "$name: mkfs.$type on $img"
    case $type in
      # Initialize inode tables and journal now: otherwise ext4lazyinit writes in the background
      # during the first benchmarks.
      ext4) mkfs.ext4 -q -F -L triebench-ext4 -E lazy_itable_init=0,lazy_journal_init=0 "$loop" ;;
      xfs) mkfs.xfs -q -f -L tb-xfs "$loop" ;;
      btrfs) mkfs.btrfs -q -f -L triebench-btrfs "$loop" >/dev/null ;;
    esac
  elif [[ $have != "$type" ]]; then
    why "$img holds $have, not $type (run '$0 down' and delete the image)"
  fi
  mount -t "$type" "$loop" "$dir"
  undo=()
  workdir "$dir"
  say "$name: mounted at $dir ($loop, image $img)"
}

# The ebs-sim stack is healthy when the ext4 mount, the nbdfuse file and nbdkit are all alive
# (ext4's statfs alone would answer from memory over a dead device).
ebs_healthy() {
  healthy "$LAB/ebs-sim" && healthy "$EBS_DEV" && lab_pid "$RUN/ebs-nbdkit.pid" nbdkit >/dev/null
}

# Takes the ebs-sim stack down from the top: ext4 mount -> loop -> nbdfuse mount -> nbdkit.
down_ebs() {
  local pid
  unmount "$LAB/ebs-sim" || true
  detach_loops_of "$EBS_DEV"
  unmount "$EBS_DEV" || true
  # Unmounting makes nbdfuse exit, and nbdkit exits with its parent; stale ones are stopped.
  for pid in $(lab_pid "$RUN/ebs-nbdfuse.pid" nbdfuse) $(lab_pid "$RUN/ebs-nbdkit.pid" nbdkit); do
    wait_gone "$pid" 5 || stop_pid "$pid"
  done
  rm -f "$RUN/ebs-nbdfuse.pid" "$RUN/ebs-nbdkit.pid"
}

up_ebs() {
  local dir=$LAB/ebs-sim loop have pid ms delay
  need_root
  need_fuse
  need_tool nbdkit nbdkit
  need_tool nbdfuse libnbd-bin
  need_tool mkfs.ext4 e2fsprogs
  if ebs_healthy; then
    pid=$(lab_pid "$RUN/ebs-nbdkit.pid" nbdkit)
    if ! tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "rdelay=${EBS_READ_MS}ms wdelay=${EBS_WRITE_MS}ms"; then
      warn "ebs-sim: running with other delays than TRIEBENCH_EBS_*_MS ask for; run '$0 down' first to change them"
    fi
    say "ebs-sim: already mounted"
    workdir "$dir"
    return
  fi
  for ms in "$EBS_READ_MS" "$EBS_WRITE_MS" "$EBS_FLUSH_MS"; do
    [[ $ms =~ ^[0-9]+$ ]] || why "TRIEBENCH_EBS_*_MS must be whole milliseconds, got '$ms'"
  done
  nbdkit --filter=delay null --run true >/dev/null 2>&1 ||
    why "nbdkit has no delay filter (Debian ships it in the nbdkit package)"
  # rdelay: reads; wdelay: writes, zeroes and trims. Flushes: nbdkit 1.32 (Debian 12) has no
  # flush delay; a delay filter that knows delay-flush= gets it.
  delay=("rdelay=${EBS_READ_MS}ms" "wdelay=${EBS_WRITE_MS}ms")
  if nbdkit --filter=delay null "delay-flush=${EBS_FLUSH_MS}ms" --run true >/dev/null 2>&1; then
    delay+=("delay-flush=${EBS_FLUSH_MS}ms")
  else
    say "ebs-sim: this nbdkit's delay filter cannot delay flushes; flushes are not delayed (reads ${EBS_READ_MS} ms, writes ${EBS_WRITE_MS} ms)"
  fi
  mkdir -p "$dir"
  if ! healthy "$EBS_DEV" || ! lab_pid "$RUN/ebs-nbdkit.pid" nbdkit >/dev/null; then
    # Whatever is left of an earlier stack (crash) goes first.
    down_ebs
    touch "$EBS_DEV"
    rm -f "$RUN/ebs-nbdfuse.pid" "$RUN/ebs-nbdkit.pid"
    # nbdfuse serves the NBD export as the regular file $EBS_DEV; it runs nbdkit as its child
    # (single connection on stdin/stdout, exits with nbdfuse). Fd 9 (the lab lock) is closed.
    setsid nohup nbdfuse -P "$RUN/ebs-nbdfuse.pid" "$EBS_DEV" \
      --command nbdkit -s --exit-with-parent -P "$RUN/ebs-nbdkit.pid" \
      --filter=delay memory "$EBS_SIZE" "${delay[@]}" \
      >"$RUN/ebs-sim.log" 2>&1 </dev/null 9>&- &
    pid=$!
    undo+=("down_ebs")
    wait_mount "$EBS_DEV" "$pid" "$RUN/ebs-sim.log"
    lab_pid "$RUN/ebs-nbdkit.pid" nbdkit >/dev/null || why "nbdkit is not running (log: $RUN/ebs-sim.log)"
    say "ebs-sim: nbdkit memory $EBS_SIZE with ${delay[*]} served by nbdfuse at $EBS_DEV"
  fi
  undo=("down_ebs")
  loop=$(loops_of "$EBS_DEV" | head -n 1)
  [[ -n $loop ]] || loop=$(losetup -f --show --direct-io=on "$EBS_DEV")
  have=$(blkid -p -o value -s TYPE "$loop" 2>/dev/null || true)
  if [[ -z $have ]]; then
    mkfs.ext4 -q -F -L triebench-ebs -E lazy_itable_init=0,lazy_journal_init=0 "$loop"
  fi
  mount -t ext4 "$loop" "$dir"
  undo=()
  workdir "$dir"
  say "ebs-sim: mounted at $dir (ext4 on $loop)"
}

# slowfs over $BACKING/NAME: efs-sim (profile efs) and iolab (profile none).
up_slowfs() {
  local name=$1 profile=$2 dir=$LAB/$1 back=$BACKING/$1 pid
  need_fuse
  if slowfs_healthy "$dir"; then
    say "$name: already mounted"
  else
    [[ -n ${SLOWFS_BIN:-} ]] || why "slowfs not built: ${SLOWFS_WHY:-unknown reason}"
    down_slowfs "$name"
    if [[ $(id -u) -eq 0 ]]; then
      mkdir -p "$BACKING"
      if ! healthy "$BACKING"; then
        unmount "$BACKING" || true
        mount -t tmpfs -o "size=$BACKING_SIZE,mode=0755" triebench-lab-backing "$BACKING"
      fi
    else
      warn "$name: not root: backing directory $back is on the disk holding the lab, not on tmpfs"
    fi
    mkdir -p "$back" "$dir"
    setsid nohup "$SLOWFS_BIN" --profile "$profile" --stats-out "$RUN/$name.stats.json" \
      "$back" "$dir" >"$RUN/$name.log" 2>&1 </dev/null 9>&- &
    pid=$!
    echo "$pid" >"$RUN/$name.pid"
    undo+=("down_slowfs $name")
    wait_mount "$dir" "$pid" "$RUN/$name.log" slowfs_healthy
    undo=()
    say "$name: slowfs --profile $profile mounted at $dir (backing $back, pid $pid)"
  fi
  if [[ $name == efs-sim ]]; then workdir "$dir"; fi
}

# SIGTERM lets slowfs unmount itself and write --stats-out; then whatever is left is unmounted.
down_slowfs() {
  local name=$1 dir=$LAB/$1 pid
  if pid=$(lab_pid "$RUN/$name.pid" slowfs); then stop_pid "$pid"; fi
  unmount "$dir" || true
  rm -f "$RUN/$name.pid"
}

up_one() {
  fs_name=$1
  # A failing command fails this filesystem with its line; only in this shell, not in $(...)
  # subshells, where a function returning 1 is an answer, not an error.
  set -E
  trap '[[ $BASHPID != "$$" ]] || why "failed at line $LINENO: $BASH_COMMAND"' ERR
  rm -f "$RUN/$fs_name.why"
  case $fs_name in
    tmpfs) up_tmpfs ;;
    ext4 | xfs | btrfs) up_loopfs "$fs_name" ;;
    ebs-sim) up_ebs ;;
    efs-sim) up_slowfs efs-sim efs ;;
    iolab) up_slowfs iolab none ;;
    *) usage ;;
  esac
}

# Sets SLOWFS_BIN, or SLOWFS_WHY to the reason there is none.
resolve_slowfs() {
  SLOWFS_BIN='' SLOWFS_WHY=''
  if [[ -n ${TRIEBENCH_SLOWFS:-} ]]; then
    if [[ -x $TRIEBENCH_SLOWFS ]]; then SLOWFS_BIN=$TRIEBENCH_SLOWFS; else SLOWFS_WHY="TRIEBENCH_SLOWFS=$TRIEBENCH_SLOWFS is not executable"; fi
    return
  fi
  if [[ ! -f $root/crates/slowfs/Cargo.toml ]]; then
    SLOWFS_WHY="crates/slowfs does not exist in $root"
    return
  fi
  local cargo target log=$RUN/slowfs-build.log
  cargo=$(command -v cargo || echo "${CARGO_HOME:-$HOME/.cargo}/bin/cargo")
  if [[ ! -x $cargo ]]; then
    SLOWFS_WHY="cargo not found (install Rust, or set TRIEBENCH_SLOWFS to a slowfs binary)"
    return
  fi
  target=${CARGO_TARGET_DIR:-$root/target}
  [[ $target == /* ]] || target=$root/$target
  say "building slowfs (cargo build --release -p triebench-slowfs; log $log)"
  if (cd "$root" && CARGO_TARGET_DIR=$target "$cargo" build --release -p triebench-slowfs --bin slowfs) >"$log" 2>&1; then
    SLOWFS_BIN=$target/release/slowfs
  else
    SLOWFS_WHY="cargo build failed: $(grep -m 1 -E '^error' "$log" || tail -n 1 "$log") (log $log)"
  fi
}

lock_lab() {
  exec 9>>"$LAB/.lock"
  flock -w 600 9 || { warn "another fs-lab.sh holds $LAB/.lock"; exit 1; }
}

cmd_up() {
  if [[ $LAB =~ [[:space:]\\] ]]; then warn "TRIEBENCH_LAB must not contain spaces or backslashes: $LAB"; exit 2; fi
  "$root/scripts/setup.sh" || warn "scripts/setup.sh failed; going on with the tools that are installed"
  if ! mkdir -p "$LAB" "$RUN" 2>/dev/null || [[ ! -w $RUN ]]; then
    warn "cannot create $RUN (not root? run: sudo $0 up, or set TRIEBENCH_LAB to a writable directory)"
    exit 1
  fi
  lock_lab
  local name up=() missing=()
  # Build slowfs only when a slowfs mount has to start (a running daemon is left alone).
  SLOWFS_BIN='' SLOWFS_WHY=''
  if [[ ! -e $FUSE_DEV ]]; then
    SLOWFS_WHY="no FUSE ($FUSE_DEV is missing)"
  elif ! { slowfs_healthy "$LAB/efs-sim" && slowfs_healthy "$LAB/iolab"; }; then
    resolve_slowfs
  fi
  export SLOWFS_BIN SLOWFS_WHY
  for name in "${ALL_FS[@]}"; do
    if "$BASH" "$self" _up "$name"; then up+=("$name"); else missing+=("$name"); fi
  done
  say "up: ${up[*]:-nothing}"
  if ((${#missing[@]})); then say "not mounted: ${missing[*]} (reasons above; also in $RUN/*.why)"; fi
  ((${#up[@]})) || exit 1
  say "run: scripts/bench-fs.sh \$($0 status)"
}

# --- down ----------------------------------------------------------------------------------------

cmd_down() {
  if [[ ! -d $LAB ]]; then
    say "down: $LAB does not exist; nothing to do"
    return 0
  fi
  if [[ -d $RUN && -w $RUN ]]; then lock_lab; fi
  local m l pid left=0
  down_slowfs efs-sim
  down_slowfs iolab
  unmount "$BACKING" || true
  down_ebs
  for m in ext4 xfs btrfs; do
    unmount "$LAB/$m" || true
    detach_loops_of "$IMAGES/$m.img"
  done
  unmount "$LAB/tmpfs" || true
  # Anything else under the lab (an older layout, a crash mid-way): deepest mounts first.
  for m in $(lab_mounts | tac); do unmount "$m" || true; done
  for l in $(lab_loops); do losetup -d "$l" 2>/dev/null || warn "cannot detach $l"; done
  for pid in $(lab_procs); do stop_pid "$pid"; done
  rm -f "$RUN"/*.pid 2>/dev/null || true
  # A lazily unmounted filesystem releases its loop device a moment later.
  for ((l = 0; l < 20; l++)); do
    [[ -z $(lab_mounts) && -z $(lab_loops) ]] && break
    sleep 0.25
  done
  if [[ -n $(lab_mounts) ]]; then warn "still mounted: $(lab_mounts | tr '\n' ' ')"; left=1; fi
  if [[ -n $(lab_loops) ]]; then warn "loop devices still attached: $(lab_loops | tr '\n' ' ')"; left=1; fi
  if [[ -n $(lab_procs) ]]; then warn "daemons still running: $(lab_procs | tr '\n' ' ')"; left=1; fi
  if ((left)); then
    [[ $(id -u) -eq 0 ]] || warn "not root: run sudo $0 down"
    exit 1
  fi
  say "down: nothing mounted under $LAB, no loop devices, no daemons (images kept in $IMAGES)"
}

# --- status, iolab ---------------------------------------------------------------------------------

fs_ok() {
  local dir=$LAB/$1
  case $1 in
    ebs-sim) ebs_healthy || return 1 ;;
    efs-sim | iolab) slowfs_healthy "$dir" || return 1 ;;
    *) healthy "$dir" || return 1 ;;
  esac
  [[ $1 == iolab ]] || [[ -d $dir/work && -w $dir/work ]]
}

reason() {
  if [[ -s $RUN/$1.why ]]; then
    head -n 1 "$RUN/$1.why"
  elif mounted "$LAB/$1"; then
    echo "mounted but not answering (daemon dead?); run: sudo $0 down && sudo $0 up"
  else
    echo "not mounted; run: sudo $0 up"
  fi
}

cmd_status() {
  local name pairs=()
  for name in "${BENCH_FS[@]}"; do
    if fs_ok "$name"; then
      pairs+=("$name=$LAB/$name/work")
    else
      warn "$name: $(reason "$name")"
    fi
  done
  if ((${#pairs[@]} == 0)); then
    warn "nothing is mounted under $LAB"
    exit 1
  fi
  echo "${pairs[*]}"
}

cmd_iolab() {
  if fs_ok iolab; then
    echo "$LAB/iolab"
  else
    warn "iolab: $(reason iolab)"
    exit 1
  fi
}

case "${1:-}:$#" in
  up:1) cmd_up ;;
  down:1) cmd_down ;;
  status:1) cmd_status ;;
  iolab:1) cmd_iolab ;;
  _up:2) up_one "$2" ;; # internal: one filesystem, run by `up`
  *) usage ;;
esac
