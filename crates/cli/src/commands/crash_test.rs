//! `triebench crash-test`: kills a committing process at random moments (optionally cutting
//! power first, emulated by slowfs), explores crash states under a model (`--model`), fails an
//! fsync (`--fsync-eio`) or loses the primary of a replicated pair (`--failover`), and checks
//! that every root the store acknowledged survived intact. The lab is `triebench-crashlab`;
//! here are its arguments, turned into the lab's options, and the lines it prints.

use std::path::PathBuf;

use clap::Args;
use triebench_crashlab::{
    ExploreOptions, FailoverOptions, FsyncEioOptions, RoundsOptions, SafeFolders,
};
use triebench_kv::Profile;
use triebench_slowfs::model::CrashModel;

use crate::error::CliError;
use triebench_kv::net_hop::net_record;

#[derive(Debug, Args)]
pub struct CrashTestArgs {
    /// Backend profile (`triebench profiles` lists them).
    #[arg(long, value_name = "NAME")]
    pub backend: String,
    /// Directory for the store [default: a fresh temporary directory, removed on exit]. With
    /// --power-loss it is the backing directory of the slowfs mount.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Crash rounds (at least 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub rounds: u64,
    /// Cut power (slowfs drops every write not yet fsynced) before each kill.
    #[arg(long)]
    pub power_loss: bool,
    /// Write (or update) DIR/crash.json with this run's counts.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Seed of the batches and crash moments [default: from the clock].
    #[arg(long)]
    pub seed: Option<u64>,
    /// The latest crash moment, in milliseconds after the child's first commit.
    #[arg(long, default_value_t = 400, value_name = "MS", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_crash_ms: u64,
    /// Explore crash states under this model instead of cutting power at random moments:
    /// clean, metadata, reordered, torn or torn/SECTOR (needs --power-loss). Each round records
    /// the op log of a short workload and checks sampled states at every sync-family call.
    #[arg(long, value_name = "MODEL")]
    pub model: Option<triebench_slowfs::model::CrashModel>,
    /// With --model: commits in each round's workload.
    #[arg(long, default_value_t = 8, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub commits: u64,
    /// With --model: states sampled at each crash point (the clean cut has one).
    #[arg(long, default_value_t = 16, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub states_per_point: u32,
    /// With --model: crash points sampled (seeded) between two sync calls, after a write,
    /// truncation or name change, besides the point at each sync call (0: sync calls only).
    #[arg(long, default_value_t = 2, value_name = "N")]
    pub between: u32,
    /// With --model: check at most N crash points per round, a seeded sample of those the
    /// other settings select (0: all). For a quick look at a backend whose every state is slow
    /// to check, such as `postgres` (a server started on each state).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub max_points: usize,
    /// With --model: run only this round (from 1), to reproduce a violation.
    #[arg(long, value_name = "N", requires = "only_state")]
    pub only_round: Option<u64>,
    /// With --model and --only-round: check only this state (POINT:SAMPLE).
    #[arg(long, value_name = "POINT:SAMPLE", requires = "only_round")]
    pub only_state: Option<triebench_slowfs::model::StateId>,
    /// Inject EIO into one fsync of a commit and report whether the commit failed, whether the
    /// store refuses or carries on, and whether later acknowledged commits survive (needs
    /// --power-loss).
    #[arg(long, conflicts_with = "model")]
    pub fsync_eio: bool,
    /// Kill the primary of a profile with a standby (postgres-sync-standby,
    /// postgres-remote-apply, postgres-async-standby, redis-replica-wait) mid-run, promote the
    /// standby and check every acknowledged root on it; each round on a fresh pair in
    /// DIR/failover-N. Writes failover.json and failover.md with --out.
    #[arg(long, conflicts_with_all = ["model", "fsync_eio", "power_loss"])]
    pub failover: bool,
    /// With --failover: round trip added on the primary-standby replication link only (a far
    /// standby), instead of --net-rtt's [default: $TRIEBENCH_STANDBY_RTT, else --net-rtt's].
    #[arg(long, value_name = "DURATION", requires = "failover")]
    pub standby_rtt: Option<String>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// `crash-test` without `--model`, `--fsync-eio` or `--failover`: process-kill rounds, or
/// power-cut rounds with `--power-loss`.
pub fn run_crash_test(args: CrashTestArgs) -> Result<(), CliError> {
    let net = args.net.apply()?;
    let options = RoundsOptions {
        profile: args.backend.parse()?,
        dir: args.dir,
        rounds: args.rounds,
        power_loss: args.power_loss,
        out: args.out,
        seed: args.seed,
        max_crash_ms: args.max_crash_ms,
        net: net_record(net),
    };
    let run = triebench_crashlab::crash_rounds(&options, &SafeFolders)?;
    println!("{}", triebench_crashlab::crash_summary(&run));
    Ok(())
}

/// `crash-test --model M` and `--fsync-eio`: crash states explored, not crash moments.
pub fn run_explore(args: CrashTestArgs) -> Result<(), CliError> {
    let profile: Profile = args.backend.parse()?;
    if !args.power_loss {
        return Err(CliError::Usage(
            "--model and --fsync-eio explore power-loss states: add --power-loss".into(),
        ));
    }
    if args.dir.is_some() {
        return Err(CliError::Usage(
            "--model and --fsync-eio record each round in a fresh temporary directory: drop --dir"
                .into(),
        ));
    }
    if args.fsync_eio {
        let options = FsyncEioOptions {
            profile,
            out: args.out,
            seed: args.seed,
            commits: args.commits,
        };
        let run = triebench_crashlab::fsync_eio(&options, &SafeFolders)?;
        println!("{}", triebench_crashlab::eio_summary(&run));
        if let Some(out) = &options.out {
            triebench_crashlab::save_fsync_eio(&SafeFolders, out, &run)?;
        }
        return Ok(());
    }
    let options = ExploreOptions {
        profile,
        rounds: args.rounds,
        out: args.out,
        seed: args.seed,
        model: args.model.unwrap_or(CrashModel::Clean),
        commits: args.commits,
        states_per_point: args.states_per_point,
        between: args.between,
        max_points: args.max_points,
        only_round: args.only_round,
        only_state: args.only_state,
    };
    let run = triebench_crashlab::explore_states(&options, &SafeFolders)?;
    println!("{}", triebench_crashlab::model_summary(&run));
    Ok(())
}

/// `crash-test --failover`: the primary lost mid-run, the standby promoted and checked.
pub fn run_failover(args: CrashTestArgs) -> Result<(), CliError> {
    let net = args.net.apply()?;
    let link = triebench_kv::net_hop::export_standby_link(args.standby_rtt.as_deref(), net)?;
    let options = FailoverOptions {
        profile: args.backend.parse()?,
        dir: args.dir,
        rounds: args.rounds,
        out: args.out,
        seed: args.seed,
        max_crash_ms: args.max_crash_ms,
        net: net_record(net),
        standby_link: net_record(link),
    };
    let run = triebench_crashlab::failover_rounds(&options, &SafeFolders)?;
    println!("{}", triebench_crashlab::failover_summary(&run));
    Ok(triebench_crashlab::standby_damage(&run)?)
}
