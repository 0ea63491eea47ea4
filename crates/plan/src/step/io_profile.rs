//! The `io-profile` step: what every scenario asks of the filesystem, per backend profile,
//! counted on a slowfs mount.

use std::path::PathBuf;

use triebench_measure::io_profile_run;
use triebench_measure::outputs::writable_file;
use triebench_measure::profile_choice::chosen_profiles;

use crate::error::PlanError;
use crate::flamegraph::profiled;

/// What to count, and where the counts go.
#[derive(Debug, Clone)]
pub struct IoProfileOptions {
    /// The root of a slowfs mount (it serves `.slowfs-stats`).
    pub dir: PathBuf,
    /// Backend profile names (empty: every profile built in).
    pub profiles: Vec<String>,
    /// The output file.
    pub out: PathBuf,
    /// A flamegraph SVG of the run, when asked for.
    pub flamegraph: Option<PathBuf>,
}

/// Counts every scenario per profile on the mount and writes the I/O profile.
pub fn io_profile(o: &IoProfileOptions) -> Result<(), PlanError> {
    let profiles = chosen_profiles(&o.profiles, &o.dir)?;
    // Before the counting starts, not after: the file's folder is made, the SVG's too.
    writable_file("--out", &o.out)?;
    if let Some(svg) = &o.flamegraph {
        writable_file("--flamegraph", svg)?;
    }
    let file = profiled(o.flamegraph.as_deref(), || -> Result<_, PlanError> {
        Ok(io_profile_run::collect(&o.dir, &profiles, |row| {
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
    file.save(&o.out)?;
    println!("I/O profile written to {}", o.out.display());
    Ok(())
}
