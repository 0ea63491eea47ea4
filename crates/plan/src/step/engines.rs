//! The `engines` step: authenticated state engines side by side
//! ([`triebench_measure::engines_run`]): each engine on each profile, checked against its
//! reference, then measured; a line per result, `engines.json` (with `env.json` beside it) and
//! the report's section "Engines side by side" (`engines-report.md`, `plots/`) written.

use std::path::{Path, PathBuf};
use std::time::Instant;

use triebench_kv::Profile;
use triebench_measure::engines_run::{
    is_unavailable, run_engine, run_own_engine, EngineName, EnginesPlan, COLD_METHOD,
};
use triebench_record::engines::{self, EnginesRecord};
use triebench_report::render::engines_section::{field_row, row, HEADER};
use triebench_workloads::field::FieldWorkload;

use crate::error::PlanError;

/// The profiles `triebench engines` runs when `--profiles` is not given: the in-memory store
/// (the engine's own cost, nearly) and two durable file-backed ones, among those built in.
pub const DEFAULT_PROFILES: [&str; 3] = ["btree", "lmdb", "sqlite-wal-full"];

/// What to run, where, and where the record goes.
#[derive(Debug, Clone)]
pub struct EnginesOptions {
    /// Engine names (empty: every engine).
    pub engines: Vec<String>,
    /// Profile names (empty: [`DEFAULT_PROFILES`] built in).
    pub profiles: Vec<String>,
    /// Directory for the stores of file-backed profiles (made if missing; each engine and
    /// profile's stores are removed when measured).
    pub dir: Option<PathBuf>,
    /// Leaves the growth fill adds after `update`.
    pub fill_leaves: u64,
    /// Leaves per fill commit.
    pub fill_batch: u64,
    /// Warm reads, cold reads and proofs, each.
    pub reads: u64,
    /// Seed.
    pub seed: u64,
    /// The field's workloads to run on each engine and profile, each on a fresh store
    /// (`triebench field`'s names; empty: none).
    pub field: Vec<String>,
    /// Their scale (`triebench field --scale`).
    pub field_scale: u64,
    /// The record's path, when asked.
    pub out: Option<PathBuf>,
    /// Whether `env.json`, `engines-report.md` and `plots/` are written beside `out` (the
    /// command's folder); the main job's report draws the section itself.
    pub beside: bool,
}

/// The engines asked for, parsed (an unknown name is a usage error listing the engines).
pub fn parse_engines(names: &[String]) -> Result<Vec<EngineName>, PlanError> {
    if names.is_empty() {
        return Ok(triebench_measure::engines_run::ENGINES.to_vec());
    }
    names
        .iter()
        .map(|n| {
            n.trim()
                .parse::<EngineName>()
                .map_err(|e| PlanError::Usage(format!("--engines: {e}")))
        })
        .collect()
}

/// The profiles asked for, parsed (an unknown name is a usage error listing the profiles).
pub fn parse_profiles(names: &[String]) -> Result<Vec<Profile>, PlanError> {
    if names.is_empty() {
        let enabled = Profile::enabled();
        return Ok(DEFAULT_PROFILES
            .iter()
            .filter_map(|n| n.parse::<Profile>().ok())
            .filter(|p| enabled.contains(p))
            .collect());
    }
    names
        .iter()
        .map(|n| {
            n.trim()
                .parse::<Profile>()
                .map_err(|e| PlanError::Usage(format!("--profiles: {e}")))
        })
        .collect()
}

/// Runs every engine on every profile, printing a table row per result (progress on standard
/// error); writes the record, `env.json` and the report section when `out` is given. The first
/// failure (a wrong root included) stops the run, naming the engine and profile.
pub fn engines(options: &EnginesOptions) -> Result<EnginesRecord, PlanError> {
    let names = parse_engines(&options.engines)?;
    let profiles = parse_profiles(&options.profiles)?;
    if options.fill_batch == 0 || options.reads == 0 {
        return Err(PlanError::Usage(
            "--batch and --reads must be at least 1".into(),
        ));
    }
    if profiles.is_empty() {
        return Err(PlanError::Usage(
            "--profiles: none of the default profiles is built in; name some".into(),
        ));
    }
    if let Some(p) = profiles.iter().find(|p| p.needs_dir()) {
        if options.dir.is_none() {
            return Err(PlanError::Usage(format!(
                "--dir is needed for {p}: give a directory on the filesystem to measure"
            )));
        }
    }
    if let Some(out) = &options.out {
        triebench_measure::outputs::writable_file("--out", out).map_err(PlanError::Measure)?;
    }
    let dir = match &options.dir {
        Some(d) => {
            triebench_measure::make_dir::make_dir("--dir", d)?;
            Some(d.canonicalize().map_err(|source| PlanError::Write {
                path: d.clone(),
                source,
            })?)
        }
        None => None,
    };
    let fs_type = match &dir {
        Some(d) => triebench_measure::fs_info_for_dir("engines", d)?.fs_type,
        None => "memory".into(),
    };
    let field = options
        .field
        .iter()
        .map(|n| {
            n.trim()
                .parse::<FieldWorkload>()
                .map_err(|e| PlanError::Usage(format!("--field: {e}")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let plan = EnginesPlan {
        fill_leaves: options.fill_leaves,
        fill_batch: options.fill_batch,
        reads: options.reads,
        seed: options.seed,
        field,
        field_scale: options.field_scale.max(1),
    };
    let mut record = EnginesRecord {
        schema: engines::SCHEMA,
        started: triebench_record::time::now(),
        dir: dir
            .as_deref()
            .map_or_else(String::new, |d| d.display().to_string()),
        fs_type,
        fill_leaves: plan.fill_leaves,
        fill_batch: plan.fill_batch,
        reads: plan.reads,
        seed: plan.seed,
        cold_method: COLD_METHOD.to_string(),
        results: Vec::new(),
    };
    eprintln!(
        "engines: {} on {} in {} ({}); update, then {} leaves in commits of {}",
        names.iter().map(|n| n.name()).collect::<Vec<_>>().join(","),
        profiles
            .iter()
            .map(|p| p.name())
            .collect::<Vec<_>>()
            .join(","),
        if record.dir.is_empty() {
            "memory"
        } else {
            &record.dir
        },
        record.fs_type,
        plan.fill_leaves,
        plan.fill_batch
    );
    println!("{HEADER}");
    let started = Instant::now();
    for &profile in &profiles {
        for &name in names.iter().filter(|n| !n.own_files()) {
            let mut progress = |line: &str| {
                eprintln!(
                    "engines: {name} on {profile}: {line} ({:.0} s)",
                    started.elapsed().as_secs_f64()
                )
            };
            let result = run_engine(name, profile, dir.as_deref(), &plan, &mut progress).map_err(
                |source| PlanError::Engine {
                    engine: name.name().to_string(),
                    profile: profile.name().to_string(),
                    source: Box::new(source),
                },
            )?;
            println!("{}", row(&result));
            for f in &result.field {
                println!("{}", field_row(f));
            }
            record.results.push(result);
            if let Some(out) = &options.out {
                engines::write(out, &record)?;
            }
        }
    }
    // Engines with files of their own (NOMT) run once, in the directory.
    for &name in names.iter().filter(|n| n.own_files()) {
        let Some(dir) = dir.as_deref() else {
            if options.engines.is_empty() {
                eprintln!("engines: {name} skipped: it keeps its own files, give --dir");
                continue;
            }
            return Err(PlanError::Usage(format!(
                "--dir is needed for {name}: it keeps its own files in the directory"
            )));
        };
        let mut progress = |line: &str| {
            eprintln!(
                "engines: {name} on its own files: {line} ({:.0} s)",
                started.elapsed().as_secs_f64()
            )
        };
        let result = match run_own_engine(name, dir, &plan, &mut progress) {
            Ok(result) => result,
            Err(e) if is_unavailable(&e) => {
                eprintln!("engines: {name} skipped: {e}");
                continue;
            }
            Err(source) => {
                return Err(PlanError::Engine {
                    engine: name.name().to_string(),
                    profile: triebench_measure::engines_run::OWN_FILES.to_string(),
                    source: Box::new(source),
                })
            }
        };
        println!("{}", row(&result));
        for f in &result.field {
            println!("{}", field_row(f));
        }
        record.results.push(result);
        if let Some(out) = &options.out {
            engines::write(out, &record)?;
        }
    }
    if let Some(out) = options.out.as_ref().filter(|_| options.beside) {
        write_beside(out, &record)?;
    }
    Ok(record)
}

/// Writes `env.json` and the report section beside the record at `out`.
fn write_beside(out: &Path, record: &EnginesRecord) -> Result<(), PlanError> {
    let dir = out
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    super::grow::write_env(dir)?;
    let report = triebench_report::run_engines_report(dir)?;
    println!(
        "{} written; {} ({} results)",
        out.display(),
        report.display(),
        record.results.len()
    );
    Ok(())
}
