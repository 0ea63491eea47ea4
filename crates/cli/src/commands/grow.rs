//! `triebench grow`: how a profile's costs grow with its state, checkpoint by checkpoint, to
//! millions of leaves, optionally in a memory cgroup (`--memory`).

use std::path::{Path, PathBuf};

use clap::Args;
use triebench_kv::{BackendSpec, Profile};
use triebench_measure::grow_run::{self, GrowPlan};
use triebench_measure::mem_cgroup::{parse_size, MemCgroup};
use triebench_measure::page_evict;
use triebench_record::grow::{self, Checkpoint, GrowRecord};

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
    /// the page cache is bounded too. Needs root and a memory cgroup (v1 or v2).
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
    /// Where grow.json and `checkpoint-<leaves>.csv` go (default: `./grow-<profile>`).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

fn fresh_dir(dir: &Path) -> Result<(), CliError> {
    let meta = std::fs::symlink_metadata(dir);
    match meta {
        Ok(m) if m.file_type().is_symlink() => Err(CliError::Usage(format!(
            "--dir {} is a symbolic link; give the directory itself",
            dir.display()
        ))),
        Ok(m) if !m.is_dir() => Err(CliError::Usage(format!(
            "--dir {} is not a directory",
            dir.display()
        ))),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).map_err(|source| CliError::Input {
                path: dir.to_path_buf(),
                source,
            })?;
            if entries.next().is_some() {
                return Err(CliError::Usage(format!(
                    "--dir {} is not empty: grow fills a new store from the empty root; give a \
                     new or empty directory",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(_) => crate::commands::make_dir::make_dir("--dir", dir),
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

fn row(c: &Checkpoint) -> String {
    let cold = c.read_cold.map_or_else(
        || "-".to_string(),
        |l| format!("{:.0}/{:.0}", l.p50_us, l.p99_us),
    );
    let mem = c.memory.as_ref().map_or_else(String::new, |m| {
        format!(
            "  cgroup {:.0}/{:.0} MiB (peak {:.0}, cache {:.0}) {}",
            mib(m.usage_bytes),
            mib(m.limit_bytes),
            mib(m.max_usage_bytes),
            mib(m.cache_bytes),
            if m.held { "held" } else { "EXCEEDED" }
        )
    });
    format!(
        "{:>9} {:>10.0} {:>7} {:>8.0}/{:<8.0} {:>8.0}/{:<8.0} {:>11.0} {:>6.0}/{:<6.0} {:>13} {:>8.0} {:>7.1} {:>8.0} {:>8.0}{mem}",
        c.leaves,
        c.fill_leaves_per_sec,
        c.fill_over_storage()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}x")),
        c.commit_1.latency.p50_us,
        c.commit_1.latency.p99_us,
        c.commit_100.latency.p50_us,
        c.commit_100.latency.p99_us,
        c.commit_1.write_bytes_per_commit,
        c.read_warm.p50_us,
        c.read_warm.p99_us,
        cold,
        c.disk_bytes_per_leaf,
        c.nodes_per_leaf,
        c.what_if.compressed_bytes as f64 / c.leaves.max(1) as f64,
        mib(c.rss_bytes),
    )
}

const HEADER: &str =
    "   leaves   fill l/s fill/st  commit1 p50/p99  commit100 p50/p99  wr B/commit1  \
read warm µs  read cold µs   disk B/leaf nodes/leaf  cmpB/leaf  RSS MiB";

pub fn run_grow(args: GrowArgs) -> Result<(), CliError> {
    let profile: Profile = args.backend.parse()?;
    let net = args.net.apply()?;
    if args.max_leaves == 0 {
        return Err(CliError::Usage("--max-leaves must be at least 1".into()));
    }
    if args.reads == 0 || args.commits == 0 || args.fill_batch == 0 {
        return Err(CliError::Usage(
            "--reads, --commits and --fill-batch must be at least 1".into(),
        ));
    }
    let limit = args
        .memory
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| CliError::Usage(format!("--memory {e}")))?;
    let dir = match (&args.dir, profile.needs_dir()) {
        (Some(d), _) => {
            fresh_dir(d)?;
            Some(d.canonicalize().map_err(|source| CliError::Input {
                path: d.clone(),
                source,
            })?)
        }
        (None, true) => {
            return Err(CliError::Usage(format!(
                "--dir is needed for {profile}: give a new or empty directory on the filesystem \
                 to measure"
            )))
        }
        (None, false) => None,
    };
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| PathBuf::from(format!("grow-{profile}")));
    crate::commands::outputs::writable_dir("--out", &out)?;
    let spec = BackendSpec::new(profile, dir.clone())?;
    let fs_type = match &dir {
        Some(d) => triebench_measure::fs_info_for_dir("grow", d)?.fs_type,
        None => "memory".into(),
    };
    // Joined before the store opens, so that a managed server it starts is charged there too.
    let cgroup = match limit {
        Some(bytes) => {
            let g = MemCgroup::join(&format!("triebench-grow-{}", std::process::id()), bytes)
                .map_err(triebench_measure::MeasureError::from)?;
            eprintln!(
                "grow: in memory cgroup {} limited to {:.0} MiB",
                g.path().display(),
                mib(g.limit())
            );
            Some(g)
        }
        None => None,
    };
    let plan = GrowPlan {
        spec,
        checkpoints: grow_run::checkpoints(args.max_leaves),
        fill_batch: args.fill_batch,
        commits: args.commits,
        reads: args.reads,
        seed: args.seed,
    };
    let mut record = GrowRecord {
        schema: grow::SCHEMA,
        profile: profile.name().to_string(),
        dir: grow_run::dir_text(dir.as_deref()),
        fs_type,
        fill: format!(
            "MerkleTrie::commit of {} leaves per commit, change log kept, each replaced root \
             pruned",
            args.fill_batch
        ),
        fill_batch: args.fill_batch,
        cold_method: if grow_run::has_cold_reads(profile) {
            page_evict::METHOD.to_string()
        } else {
            "none: the data lives in memory".to_string()
        },
        memory_limit_bytes: limit,
        seed: args.seed,
        started: triebench_record::time::now(),
        checkpoints: Vec::new(),
        net: crate::commands::net_arg::net_record(net),
    };
    eprintln!(
        "grow: {profile} on {} ({}), checkpoints {:?}",
        record.dir, record.fs_type, plan.checkpoints
    );
    println!("{HEADER}");
    let json = out.join(grow::FILE_NAME);
    write_env(&out)?;
    let mut progress = |line: &str| eprintln!("grow: {line}");
    let mut save = |c: &Checkpoint| -> Result<(), triebench_measure::MeasureError> {
        println!("{}", row(c));
        record.checkpoints.push(c.clone());
        grow::write(&json, &record)?;
        let csv = format!(
            "{}\n{}\n",
            grow::CSV_HEADER,
            grow::csv_row(&record.profile, c)
        );
        let path = out.join(format!("checkpoint-{}.csv", c.leaves));
        triebench_record::file::write_atomically(&path, csv.as_bytes()).map_err(|e| {
            triebench_measure::MeasureError::File {
                path: path.clone(),
                reason: e.to_string(),
            }
        })
    };
    let result = grow_run::run_grow(&plan, cgroup.as_ref(), &mut progress, &mut save);
    drop(cgroup);
    result?;
    println!("grow.json written to {}", json.display());
    Ok(())
}

/// The machine and software a curve comes from, as `env.json` beside it (and, from
/// `grow-report`, at the top of a results folder).
pub fn write_env(dir: &Path) -> Result<(), CliError> {
    let env = serde_json::json!({
        "generated_at": triebench_record::time::now(),
        "host": triebench_record::host::capture_host(),
        "versions": triebench_measure::versions::capture(),
        "command": std::env::args().collect::<Vec<_>>().join(" "),
    });
    let text = serde_json::to_string_pretty(&env).map_err(|e| CliError::Usage(e.to_string()))?;
    let path = dir.join("env.json");
    triebench_record::file::write_atomically(&path, (text + "\n").as_bytes())
        .map_err(|source| CliError::Input { path, source })
}
