//! `triebench io-profile`: what every scenario asks of the filesystem, per backend profile,
//! counted on a slowfs mount.

use std::path::PathBuf;

use clap::Args;
use triebench_measure::io_profile_run;
use triebench_record::layout::io_profile_path;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::commands::flamegraph::profiled;
use crate::commands::profile_choice::chosen_profiles;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct IoProfileArgs {
    /// The root of a slowfs mount (it serves `.slowfs-stats`).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// Backend profiles to count, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Output file [default: CRITERION_DIR/triebench-runs/io-profile.json, where report
    /// finds it].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Also sample the run into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
}

pub fn run_io_profile(args: IoProfileArgs) -> Result<(), CliError> {
    let profiles = chosen_profiles(&args.profiles, &args.dir)?;
    let out = args
        .out
        .unwrap_or_else(|| io_profile_path(&args.criterion.resolve()));
    // Before the counting starts, not after: the file's folder is made, the SVG's too.
    crate::commands::outputs::writable_file("--out", &out)?;
    if let Some(svg) = &args.flamegraph {
        crate::commands::outputs::writable_file("--flamegraph", svg)?;
    }
    let file = profiled(args.flamegraph.as_deref(), || {
        Ok(io_profile_run::collect(&args.dir, &profiles, |row| {
            let c = &row.counts;
            eprintln!(
                "io-profile: {:<20} {:<44} {:>5} commits: {:>7} fsyncs {:>8} writes {:>10} bytes \
             written {:>8} reads {:>8} metadata",
                row.profile,
                row.scenario,
                row.commits,
                c.fsyncs,
                c.ops.write,
                c.bytes_written,
                c.ops.read,
                c.ops.metadata
            );
        })?)
    })?;
    file.save(&out)?;
    println!("I/O profile written to {}", out.display());
    Ok(())
}
