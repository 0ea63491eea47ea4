//! The `phases` step: where a commit's time goes, per backend profile, on one filesystem: every
//! scenario once per profile with the phase collector listening.

use std::path::PathBuf;

use triebench_measure::cpu_idle::CpuIdleGuard;
use triebench_measure::outputs::writable_file;
use triebench_measure::phases_run;
use triebench_measure::profile_choice::chosen_profiles;
use triebench_measure::trie_warm_up::warm_trie;
use triebench_record::CpuIdle;
use triebench_report::render::phase_lines::describe;

use crate::error::PlanError;
use crate::flamegraph::profiled;

/// What to break down, and where the breakdown goes.
#[derive(Debug, Clone)]
pub struct PhasesOptions {
    /// Directory on the filesystem under test (fresh store directories are made in it).
    pub dir: PathBuf,
    /// The run (filesystem) name.
    pub run: String,
    /// Backend profile names (empty: every profile built in).
    pub profiles: Vec<String>,
    /// The output file (the plan's: where `report` finds it).
    pub out: PathBuf,
    /// A flamegraph SVG of the run, when asked for.
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while measuring.
    pub cpu_idle: CpuIdle,
}

/// Times every scenario's phases per profile and writes the breakdown to `o.out`.
pub fn phases(o: &PhasesOptions) -> Result<(), PlanError> {
    triebench_record::layout::validate_run_name(&o.run)?;
    triebench_measure::make_dir::make_dir("--dir", &o.dir)?;
    let profiles = chosen_profiles(&o.profiles, &o.dir)?;
    writable_file("--out", &o.out)?;
    if let Some(svg) = &o.flamegraph {
        writable_file("--flamegraph", svg)?;
    }
    // Held while the phases are measured; dropping it lifts the bound.
    let idle = CpuIdleGuard::hold(o.cpu_idle);
    eprintln!("phases: {}", idle.record().describe());
    // Outside the flamegraph, which should show the profiles' commits, not the warm-up.
    let warm = warm_trie(&o.dir)?;
    let mut file = profiled(o.flamegraph.as_deref(), || -> Result<_, PlanError> {
        Ok(phases_run::collect(
            &warm,
            &o.run,
            &o.dir,
            &profiles,
            |row| {
                if row.scenario == triebench_record::vocabulary::SUITE {
                    eprint!("{}", describe(row));
                }
            },
        )?)
    })?;
    file.cpu_idle = Some(idle.record().clone());
    drop(idle);
    file.save(&o.out)?;
    println!("phases written to {}", o.out.display());
    Ok(())
}
