//! `triebench engines`: authenticated state engines side by side (our trie, JMT, ...), each
//! on each kv profile in one directory, checked against its reference, then measured.

use std::path::PathBuf;

use clap::Args;
use triebench_plan::step::engines::{engines, EnginesOptions};

use crate::error::CliError;

#[derive(Debug, Args)]
pub struct EnginesArgs {
    /// Engines, comma-separated: trie, jmt, mpt, transact, nomt (NOMT, on files of its own in
    /// --dir, once rather than per profile) [default: all; nomt only with --dir].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub engines: Vec<String>,
    /// Backend profiles, comma-separated (`triebench profiles` lists them) [default: btree,
    /// lmdb, sqlite-wal-full, those built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Directory on the filesystem under test, for the stores of file-backed profiles (made if
    /// missing; each engine and profile's stores, under `DIR/<engine>-<profile>/`, are removed
    /// once measured).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Leaves the growth fill adds after Transact's `update` workload.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub leaves: u64,
    /// Leaves per fill commit.
    #[arg(long, value_name = "N", default_value_t = 1_000)]
    pub batch: u64,
    /// Warm reads, cold reads and proofs per engine and profile, each.
    #[arg(long, value_name = "N", default_value_t = 300)]
    pub reads: u64,
    /// Seed of the fill and of the reads' picks.
    #[arg(long, value_name = "S", default_value_t = 7)]
    pub seed: u64,
    /// The field's workloads to run on each engine and profile too, comma-separated
    /// (`triebench field`'s: firewood-create, firewood-tenkrandom, firewood-zipf,
    /// firewood-single, iavl-bank, merk), each on a fresh store: setup commits untimed, the
    /// timed ones measured (merk's batches of reads are left out: engines time commits)
    /// [default: none].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub field: Vec<String>,
    /// Scale of the field workloads (`triebench field --scale`: 1 is 10,000 rows).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub field_scale: u64,
    /// Write the record as JSON to FILE, with env.json, engines-report.md (the report's
    /// "Engines side by side") and plots/ beside it.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
}

pub fn run_engines(args: EnginesArgs) -> Result<(), CliError> {
    engines(&EnginesOptions {
        engines: args.engines,
        profiles: args.profiles,
        dir: args.dir,
        fill_leaves: args.leaves,
        fill_batch: args.batch,
        reads: args.reads,
        seed: args.seed,
        field: args.field,
        field_scale: args.field_scale,
        out: args.out,
        beside: true,
    })?;
    Ok(())
}
