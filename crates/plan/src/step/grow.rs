//! The `grow` step: how a profile's costs grow with its state, checkpoint by checkpoint, to
//! millions of leaves, optionally in a memory cgroup.
//!
//! A bounded run (`--memory`) is sized to its bound before it starts
//! ([`triebench_measure::grow_budget`]): a fill batch that fits, or a refusal
//! naming what it needs. It runs as a child process in the cgroup, [`supervise`] staying
//! outside, so that if the kernel's OOM killer ends it anyway the parent says so in one line
//! instead of the shell's bare exit status 137.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use triebench_kv::{BackendSpec, Profile};
use triebench_measure::fill_floor::FloorSpecs;
use triebench_measure::grow_budget::{self, Budget};
use triebench_measure::grow_run::{self, GrowPlan};
use triebench_measure::mem_cgroup::{parse_size, MemCgroup};
use triebench_measure::page_evict;
use triebench_record::grow::{self, Checkpoint, GrowRecord};
use triebench_record::net::NetRecord;
use triebench_report::render::grow_lines::{compaction_line, floor_line, row, space_line, HEADER};

use crate::error::PlanError;

/// What to grow, how far, and where the curve goes.
#[derive(Debug, Clone)]
pub struct GrowOptions {
    /// Backend profile name.
    pub backend: String,
    /// A new or empty directory for the store (kept afterwards).
    pub dir: Option<PathBuf>,
    /// Leaves at the last checkpoint.
    pub max_leaves: u64,
    /// A memory cgroup limit (`256M`, `1G`), when asked for.
    pub memory: Option<String>,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// 1-key commits timed per checkpoint.
    pub commits: u64,
    /// Reads timed per checkpoint, warm and cold each.
    pub reads: u64,
    /// Seed of addresses and values.
    pub seed: u64,
    /// The output folder (`None`: `./grow-<profile>`).
    pub out: Option<PathBuf>,
    /// The emulated network hop to managed servers, recorded with the curve.
    pub net: Option<NetRecord>,
    /// A new or empty directory for the fill's storage floor (`--fill-floor`): two more
    /// stores of the profile, `sorted/` and `shuffled/`, kept afterwards.
    pub fill_floor: Option<PathBuf>,
    /// Leave the shuffled floor out: one more store, `sorted/`, instead of two.
    pub fill_floor_trie_order_only: bool,
    /// Compact the store after each stretch's fill, before its commits are timed (LMDB
    /// profiles only).
    pub compact_after_fill: bool,
    /// The memory cgroup [`supervise`] made for this run, which it enters (`None`: with
    /// `memory`, the run makes and joins its own, and nothing outside it watches).
    pub cgroup_dir: Option<PathBuf>,
}

/// The environment variable through which [`supervise`] hands its child the cgroup to enter.
pub const CGROUP_ENV: &str = "TRIEBENCH_GROW_CGROUP";

/// Bytes as MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// Checks that `dir` (given as `flag`) is a new or empty directory (made when missing), never
/// a link.
fn fresh_dir(flag: &str, dir: &Path) -> Result<(), PlanError> {
    let meta = std::fs::symlink_metadata(dir);
    match meta {
        Ok(m) if m.file_type().is_symlink() => Err(PlanError::Usage(format!(
            "{flag} {} is a symbolic link; give the directory itself",
            dir.display()
        ))),
        Ok(m) if !m.is_dir() => Err(PlanError::Usage(format!(
            "{flag} {} is not a directory",
            dir.display()
        ))),
        Ok(_) => {
            let mut entries = std::fs::read_dir(dir).map_err(|source| PlanError::Write {
                path: dir.to_path_buf(),
                source,
            })?;
            if entries.next().is_some() {
                return Err(PlanError::Usage(format!(
                    "{flag} {} is not empty: grow fills new stores from the empty root; give a \
                     new or empty directory",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(_) => Ok(triebench_measure::make_dir::make_dir(flag, dir)?),
    }
}

/// Fills a store checkpoint by checkpoint and writes the curve (`grow.json`, a CSV per
/// checkpoint, `env.json`) to `args.out`, printing a line per checkpoint.
pub fn grow(args: &GrowOptions) -> Result<(), PlanError> {
    let profile: Profile = args.backend.parse()?;
    if args.max_leaves == 0 {
        return Err(PlanError::Usage("--max-leaves must be at least 1".into()));
    }
    if args.reads == 0 || args.commits == 0 || args.fill_batch == 0 {
        return Err(PlanError::Usage(
            "--reads, --commits and --fill-batch must be at least 1".into(),
        ));
    }
    if args.compact_after_fill && !profile.compacts() {
        return Err(triebench_kv::KvError::CompactionUnsupported {
            profile: profile.name(),
        }
        .into());
    }
    let limit = memory_limit(args)?;
    let budget = size_to(args, profile, limit)?;
    let fill_batch = budget.as_ref().map_or(args.fill_batch, |b| b.fill_batch);
    let dir = match (&args.dir, profile.needs_dir()) {
        (Some(d), _) => {
            fresh_dir("--dir", d)?;
            Some(d.canonicalize().map_err(|source| PlanError::Write {
                path: d.clone(),
                source,
            })?)
        }
        (None, true) => {
            return Err(PlanError::Usage(format!(
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
    triebench_measure::outputs::writable_dir("--out", &out)?;
    let spec = BackendSpec::new(profile, dir.clone())?;
    let fill_floor = fill_floor_specs(args, profile, dir.as_deref())?;
    let fs_type = match &dir {
        Some(d) => triebench_measure::fs_info_for_dir("grow", d)?.fs_type,
        None => "memory".into(),
    };
    // Joined before the store opens, so that a managed server it starts is charged there too.
    let cgroup = match limit {
        Some(bytes) => {
            let g = match &args.cgroup_dir {
                Some(dir) => MemCgroup::enter(dir),
                None => MemCgroup::join(&format!("triebench-grow-{}", std::process::id()), bytes),
            }
            .map_err(triebench_measure::MeasureError::from)?;
            eprintln!(
                "grow: in memory cgroup {} limited to {:.0} MiB",
                g.path().display(),
                mib(g.limit())
            );
            if let Some(b) = &budget {
                eprintln!("grow: {}", budget_line(b, fill_batch != args.fill_batch));
            }
            Some(g)
        }
        None => None,
    };
    let plan = GrowPlan {
        spec,
        checkpoints: grow_run::checkpoints(args.max_leaves),
        fill_batch,
        commits: args.commits,
        reads: args.reads,
        seed: args.seed,
        write_back: limit.is_some(),
        fill_floor,
        compact_after_fill: args.compact_after_fill,
    };
    let mut record = GrowRecord {
        schema: grow::SCHEMA,
        profile: profile.name().to_string(),
        dir: grow_run::dir_text(dir.as_deref()),
        fs_type,
        fill: format!(
            "MerkleTrie::commit of {} leaves per commit, change log kept, each replaced root \
             pruned{}",
            fill_batch,
            budget.as_ref().map_or_else(String::new, |b| format!(
                "; sized to --memory, the store's files written back after each: {}",
                budget_line(b, fill_batch != args.fill_batch)
            ))
        ),
        fill_batch,
        cold_method: if grow_run::has_cold_reads(profile) {
            page_evict::METHOD.to_string()
        } else {
            "none: the data lives in memory".to_string()
        },
        memory_limit_bytes: limit,
        seed: args.seed,
        started: triebench_record::time::now(),
        checkpoints: Vec::new(),
        net: args.net.clone(),
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
        if let Some(line) = space_line(c) {
            println!("{line}");
        }
        if let Some(line) = floor_line(c) {
            println!("{line}");
        }
        if let Some(line) = compaction_line(c) {
            println!("{line}");
        }
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

/// The floor's stores (`--fill-floor DIR`): `DIR/sorted` and, unless left out, `DIR/shuffled`
/// for a profile whose data lives in a directory, in memory otherwise. DIR must be new or empty
/// and, to measure the same filesystem, should be on `--dir`'s.
fn fill_floor_specs(
    args: &GrowOptions,
    profile: Profile,
    dir: Option<&Path>,
) -> Result<Option<FloorSpecs>, PlanError> {
    let Some(floor) = &args.fill_floor else {
        if args.fill_floor_trie_order_only {
            return Err(PlanError::Usage(
                "--fill-floor-trie-order-only needs --fill-floor DIR".into(),
            ));
        }
        return Ok(None);
    };
    if args.memory.is_some() {
        return Err(PlanError::Usage(
            "--fill-floor with --memory: the floor's two stores would share the bound with the \
             fill's; run them apart"
                .into(),
        ));
    }
    let nested = |floor: &Path| dir.is_some_and(|d| floor.starts_with(d) || d.starts_with(floor));
    let refuse = || {
        PlanError::Usage(
            "--fill-floor and --dir must not hold one another: give two sibling directories".into(),
        )
    };
    // Checked before anything is made, and again once the path resolves.
    if nested(&std::path::absolute(floor).unwrap_or_else(|_| floor.clone())) {
        return Err(refuse());
    }
    fresh_dir("--fill-floor", floor)?;
    let floor = floor.canonicalize().map_err(|source| PlanError::Write {
        path: floor.clone(),
        source,
    })?;
    if nested(&floor) {
        return Err(refuse());
    }
    let spec = |name: &str| -> Result<BackendSpec, PlanError> {
        let d = profile.needs_dir().then(|| floor.join(name));
        if let Some(d) = &d {
            triebench_measure::make_dir::make_dir("--fill-floor", d)?;
        }
        Ok(BackendSpec::new(profile, d)?)
    };
    let shuffled = if args.fill_floor_trie_order_only {
        None
    } else {
        Some(spec("shuffled")?)
    };
    Ok(Some(FloorSpecs {
        sorted: spec("sorted")?,
        shuffled,
    }))
}

/// `--memory` in bytes, when given.
fn memory_limit(args: &GrowOptions) -> Result<Option<u64>, PlanError> {
    args.memory
        .as_deref()
        .map(parse_size)
        .transpose()
        .map_err(|e| PlanError::Usage(format!("--memory {e}")))
}

/// The run sized to `limit` ([`grow_budget::fit`]), from this process's resident memory now;
/// a bound below the need is a usage error of one line.
fn size_to(
    args: &GrowOptions,
    profile: Profile,
    limit: Option<u64>,
) -> Result<Option<Budget>, PlanError> {
    limit
        .map(|bytes| {
            grow_budget::fit(
                profile,
                bytes,
                grow_budget::own_rss().max(grow_budget::MIN_BASELINE),
                args.max_leaves,
                args.fill_batch,
            )
        })
        .transpose()
        .map_err(|e| PlanError::Usage(e.to_string()))
}

/// What a bounded run holds, as it says so before its fill.
fn budget_line(b: &Budget, shrunk: bool) -> String {
    format!(
        "memory: fill batches of {} leaves{} (~{:.0} MiB in flight at ~{} KiB per leaf), \
         ~{:.0} MiB held (process, caches, {} B per leaf of state), ~{:.0} MiB left to the \
         page cache ({})",
        b.fill_batch,
        if shrunk {
            ", fewer to fit the bound"
        } else {
            ""
        },
        mib(b.batch_bytes),
        b.footprint.per_batch_leaf >> 10,
        mib(b.held),
        b.footprint.per_state_leaf,
        mib(b.page_cache),
        b.footprint.basis
    )
}

/// Runs a bounded grow (`args.memory` given) as `child` (this program again, with the same
/// arguments) in a memory cgroup made here, this process staying outside it: a bound below
/// what the run needs is refused before anything starts, and a child the kernel's OOM killer
/// ends is reported in one line ([`PlanError::OomKilled`]) rather than as a bare exit status.
pub fn supervise(args: &GrowOptions, mut child: Command) -> Result<(), PlanError> {
    let profile: Profile = args.backend.parse()?;
    let Some(limit) = memory_limit(args)? else {
        return Err(PlanError::Usage(
            "supervise needs --memory: an unbounded grow runs in this process".into(),
        ));
    };
    size_to(args, profile, Some(limit))?;
    let group = MemCgroup::make(&format!("triebench-grow-{}", std::process::id()), limit)
        .map_err(triebench_measure::MeasureError::from)?;
    let status = child
        .env(CGROUP_ENV, group.path())
        .status()
        .map_err(|source| PlanError::Spawn {
            program: "triebench grow (the bounded run)".into(),
            source,
        })?;
    let (kills, hits) = group.oom_kills();
    let bound = group.bound();
    if status.success() {
        return Ok(());
    }
    if kills > 0 || status.signal() == Some(9) {
        let out = args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(format!("grow-{profile}")));
        return Err(PlanError::OomKilled(format!(
            "grow: the kernel's OOM killer ended the run in memory cgroup {} ({} OOM kill(s), \
             the limit hit {hits} times; limit {:.0} MiB, peak {:.0} MiB): --memory {} is below what this run needed; the checkpoints measured \
             before are in {}; give more --memory or a smaller --fill-batch",
            group.path().display(),
            kills.max(1),
            mib(limit),
            mib(bound.max_usage_bytes),
            args.memory.as_deref().unwrap_or_default(),
            out.join(grow::FILE_NAME).display()
        )));
    }
    Err(PlanError::BoundedRunFailed(status))
}

/// The machine and software a curve comes from, as `env.json` beside it (and, from
/// `grow-report`, at the top of a results folder).
pub fn write_env(dir: &Path) -> Result<(), PlanError> {
    triebench_measure::versions::write_env_json(dir).map_err(|source| PlanError::Write {
        path: dir.join("env.json"),
        source,
    })
}
