//! `triebench grow`: how a profile's costs grow with its state, checkpoint by checkpoint, to
//! millions of leaves, optionally in a memory cgroup (`--memory`).

use std::path::PathBuf;

use clap::Args;
use triebench_measure::grow_run;
use triebench_plan::step::grow::{grow, supervise, GrowOptions, CGROUP_ENV};

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct GrowArgs {
    /// Backend profile (see `triebench profiles`).
    #[arg(long, value_name = "PROFILE")]
    pub backend: String,
    /// A new or empty directory for the store (the managed server's data directory, for
    /// postgres). Kept afterwards; remove it yourself.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Leaves at the last checkpoint (the others are 10^3, 10^4, ... below it).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_leaves: u64,
    /// Run the store and its managed server in a memory cgroup limited to SIZE (256M, 1G):
    /// the page cache is bounded too. The run's own memory is sized to it (the fill batch
    /// shrinks to fit) or the run is refused, saying what it needs; it runs as a child
    /// process, and if the kernel's OOM killer ends it anyway, grow says so. Needs root and a
    /// memory cgroup (v1 or v2).
    #[arg(long, value_name = "SIZE")]
    pub memory: Option<String>,
    /// Leaves per fill commit.
    #[arg(long, value_name = "N", default_value_t = grow_run::FILL_BATCH)]
    pub fill_batch: u64,
    /// 1-key commits timed per checkpoint (100-key commits: a quarter as many, at least 5).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub commits: u64,
    /// Reads timed per checkpoint, warm and cold each.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub reads: u64,
    /// Seed of addresses and values.
    #[arg(long, default_value_t = 7)]
    pub seed: u64,
    /// Also measure the fill's storage floor: a new or empty directory, beside --dir on the
    /// same filesystem, for two more stores of the profile onto which each fill commit's
    /// writes are replayed straight, as the trie made them and shuffled (kept afterwards).
    #[arg(long, value_name = "DIR")]
    pub fill_floor: Option<PathBuf>,
    /// With --fill-floor: replay onto the trie's-order store only, not the shuffled one (one
    /// more copy of the state instead of two, for sizes where a third does not fit the disk).
    #[arg(long, requires = "fill_floor")]
    pub fill_floor_trie_order_only: bool,
    /// Compact the store after each stretch's fill, before its commits are timed (`lmdb`,
    /// `lmdb-async`): its data file rewritten with its entries packed into full pages, dropping
    /// the free pages a large commit leaves, the free list later commits rewrite, and the third
    /// of each page that random inserts leave unused.
    #[arg(long)]
    pub compact_after_fill: bool,
    /// Where grow.json and `checkpoint-<leaves>.csv` go (default: `./grow-<profile>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

pub fn run_grow(args: GrowArgs) -> Result<(), CliError> {
    let cgroup_dir = std::env::var_os(CGROUP_ENV).map(PathBuf::from);
    if args.memory.is_some() && cgroup_dir.is_none() {
        // The bounded run is this program again, with the same arguments, in the cgroup.
        let exe = std::env::current_exe().map_err(CliError::Write)?;
        let mut child = std::process::Command::new(exe);
        child.args(std::env::args_os().skip(1));
        return Ok(supervise(&options(args, None, None), child)?);
    }
    let net = args.net.apply()?;
    let options = options(args, triebench_kv::net_hop::net_record(net), cgroup_dir);
    Ok(grow(&options)?)
}

/// The step's options from the arguments.
fn options(
    args: GrowArgs,
    net: Option<triebench_record::net::NetRecord>,
    cgroup_dir: Option<PathBuf>,
) -> GrowOptions {
    GrowOptions {
        backend: args.backend,
        dir: args.dir,
        max_leaves: args.max_leaves,
        memory: args.memory,
        fill_batch: args.fill_batch,
        commits: args.commits,
        reads: args.reads,
        seed: args.seed,
        out: args.out,
        net,
        cgroup_dir,
        fill_floor: args.fill_floor,
        fill_floor_trie_order_only: args.fill_floor_trie_order_only,
        compact_after_fill: args.compact_after_fill,
    }
}
