//! `slowfs`: mount a backing directory through FUSE with per-operation delays and counters.
//! Errors print as one `slowfs: error: ...` line and exit with status 1. Linux only (FUSE);
//! elsewhere it says so and exits with status 1.

#[cfg(target_os = "linux")]
use std::path::PathBuf;
#[cfg(target_os = "linux")]
use std::process::ExitCode;

#[cfg(target_os = "linux")]
use clap::Parser;
#[cfg(target_os = "linux")]
use triebench_slowfs::fs::STATS_FILE;
#[cfg(target_os = "linux")]
use triebench_slowfs::model::FaultSpec;
#[cfg(target_os = "linux")]
use triebench_slowfs::{run, Latency, LatencyProfile, MountConfig, OpClass, PerClass, SlowfsError};

#[cfg(target_os = "linux")]
/// Mount BACKING on MOUNTPOINT through FUSE, delaying and counting every operation.
///
/// slowfs emulates network storage (such as Amazon EFS) on a local disk for benchmarks, and
/// counts how many metadata operations, reads, writes and syncs a program asks of the
/// filesystem. It runs in the foreground until the filesystem is unmounted
/// (`fusermount3 -u MOUNTPOINT` or `umount MOUNTPOINT`) or it gets SIGINT/SIGTERM/SIGHUP (then it
/// unmounts itself; lazily if the mount is busy), and then writes the final stats to
/// --stats-out.
#[derive(Debug, Parser)]
#[command(
    name = "slowfs",
    version,
    override_usage = "slowfs [OPTIONS] <BACKING> <MOUNTPOINT>\n       slowfs --list-profiles",
    after_long_help = long_help()
)]
struct Cli {
    /// The directory whose contents the mount shows.
    #[arg(required_unless_present = "list_profiles")]
    backing: Option<PathBuf>,
    /// An empty directory to mount on (not already a mount point).
    #[arg(required_unless_present = "list_profiles")]
    mountpoint: Option<PathBuf>,
    /// Latency profile: none, efs or nfs-lan (see below).
    #[arg(long, default_value = "none", value_name = "NAME")]
    profile: String,
    /// Delay per metadata operation, microseconds (overrides the profile).
    #[arg(long, value_name = "US")]
    metadata_us: Option<f64>,
    /// Delay per read request, microseconds (overrides the profile).
    #[arg(long, value_name = "US")]
    read_us: Option<f64>,
    /// Delay per write request, microseconds (overrides the profile).
    #[arg(long, value_name = "US")]
    write_us: Option<f64>,
    /// Delay per fsync, fsyncdir and flush, microseconds (overrides the profile).
    #[arg(long, value_name = "US")]
    sync_us: Option<f64>,
    /// Write the final stats JSON here after unmounting.
    #[arg(long, value_name = "FILE")]
    stats_out: Option<PathBuf>,
    /// FUSE worker threads: requests served (and delayed) concurrently.
    #[arg(long, default_value_t = 4, value_name = "N")]
    threads: usize,
    /// Power-loss mode: keep track of every write not yet fsynced, and undo them all when
    /// `cut` is written to MOUNTPOINT/.slowfs-control (a power cut); the mount then refuses
    /// every change (EIO) until unmounted. File creation, renames and removals count as synced.
    #[arg(long)]
    power_loss: bool,
    /// Write every change and sync the mount passes through to an op log in DIR (ops.jsonl and
    /// data.bin), from which `triebench crash-test --model` rebuilds crash states.
    #[arg(long, value_name = "DIR")]
    op_log: Option<PathBuf>,
    /// Fail the Nth fsync/fdatasync/fsyncdir with EIO (N: only that one; N+: it and every later
    /// one).
    #[arg(long, value_name = "N[+]")]
    fail_fsync: Option<FaultSpec>,
    /// Fail the Nth write with EIO (N or N+).
    #[arg(long, value_name = "N[+]")]
    fail_write: Option<FaultSpec>,
    /// Fail the Nth write with ENOSPC (N or N+).
    #[arg(long, value_name = "N[+]")]
    enospc_write: Option<FaultSpec>,
    /// Print the profiles with their delays and sources, and exit.
    #[arg(long)]
    list_profiles: bool,
}

#[cfg(target_os = "linux")]
fn profile_lines() -> String {
    let mut out = String::new();
    for p in LatencyProfile::ALL {
        let d = p.delays_us();
        out.push_str(&format!(
            "  {:<8} metadata {} us, read {} us, write {} us, sync {} us\n           source: {}\n",
            p.name(),
            d.metadata,
            d.read,
            d.write,
            d.sync,
            p.source()
        ));
    }
    out
}

#[cfg(target_os = "linux")]
fn long_help() -> String {
    format!(
        "Operation classes (each has one delay, slept before the reply, and its own counters):\n  \
         metadata  lookup, getattr, setattr, open, release, opendir, readdir, create, mkdir,\n            \
         unlink, rmdir, rename, link, symlink, readlink, statfs, access, fallocate, xattrs\n  \
         read      read requests (page-cache misses; the kernel keeps file data cached)\n  \
         write     write requests: every write(2) (write-through, no write-back cache) and\n            \
         pages written back from shared writable mmap\n  \
         sync      fsync, fsyncdir, and flush (sent at every close)\n\n\
         Profiles (delays are floors per request; --metadata-us/--read-us/--write-us/--sync-us\n\
         override single classes, and the stats then name the profile NAME+custom):\n{}\n\
         Stats: MOUNTPOINT/{STATS_FILE} is a read-only virtual file (not counted, not delayed)\n\
         holding the current counters as JSON; --stats-out FILE gets the final ones at exit:\n  \
         {{\"schema\":1,\"profile\":\"efs\",\"delays_us\":{{\"metadata\":250.0,\"read\":250.0,\
         \"write\":2700.0,\"sync\":2700.0}},\n   \"classes\":{{\"metadata\":{{\"ops\":N,\"bytes\":0}},\
         \"read\":{{..}},\"write\":{{..}},\"sync\":{{..}}}},\n   \"ops\":{{\"lookup\":N,...}},\
         \"fsyncs\":N,\"uptime_s\":S}}\n\
         (ops: per FUSE operation; fsyncs: fsync + fsyncdir, flush excluded; bytes: read/write.)\n\n\
         Needs /dev/fuse and root (or fusermount3 for a user mount). Example:\n  \
         slowfs --profile efs --stats-out /tmp/efs.json /var/tmp/backing /mnt/slow &\n  \
         ... run the benchmark with TMPDIR=/mnt/slow ...; kill %1   (or fusermount3 -u /mnt/slow)",
        profile_lines()
    )
}

#[cfg(target_os = "linux")]
fn main() -> ExitCode {
    let cli = Cli::parse();
    if cli.list_profiles {
        print!("{}", profile_lines());
        return ExitCode::SUCCESS;
    }
    match start(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("slowfs: error: {e}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(target_os = "linux")]
fn start(cli: Cli) -> Result<(), SlowfsError> {
    let profile = LatencyProfile::from_name(&cli.profile)?;
    let latency = Latency::new(
        profile,
        PerClass {
            metadata: cli.metadata_us,
            read: cli.read_us,
            write: cli.write_us,
            sync: cli.sync_us,
        },
    )?;
    let (Some(backing), Some(mountpoint)) = (cli.backing, cli.mountpoint) else {
        // clap requires both unless --list-profiles, which returned earlier.
        return Err(SlowfsError::MountPoint {
            path: PathBuf::new(),
            reason: "BACKING and MOUNTPOINT are required".into(),
        });
    };
    let config = MountConfig {
        backing,
        mountpoint,
        latency: latency.clone(),
        stats_out: cli.stats_out,
        threads: cli.threads,
        power_loss: cli.power_loss,
        op_log: cli.op_log,
        fail_fsync: cli.fail_fsync,
        fail_write: cli.fail_write,
        enospc_write: cli.enospc_write,
    };
    let delays = OpClass::ALL
        .iter()
        .map(|c| format!("{} {} us", c.name(), latency.delays_us.get(*c)))
        .collect::<Vec<_>>()
        .join(", ");
    run(&config, |backing, mountpoint| {
        eprintln!(
            "slowfs: mounted {} on {} (profile {}: {delays}); stats in {}/{STATS_FILE}",
            backing.display(),
            mountpoint.display(),
            latency.label,
            mountpoint.display(),
        );
    })?;
    Ok(())
}

/// The mount needs Linux's FUSE; elsewhere the binary only says so.
#[cfg(not(target_os = "linux"))]
fn main() -> std::process::ExitCode {
    eprintln!("slowfs: error: slowfs mounts through FUSE and runs on Linux only");
    std::process::ExitCode::FAILURE
}
