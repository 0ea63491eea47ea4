//! What the main job checks before it measures: everything that can be refused is refused
//! before minutes of measuring, not after.

use std::path::Path;

use triebench_kv::Profile;
use triebench_measure::make_dir::make_dir;
use triebench_measure::outputs::writable_dir;
use triebench_measure::profile_choice::chosen_profiles;

use crate::checkout::built_from;
use crate::error::PlanError;
use crate::run_spec::prepare_dir;
use crate::steps::{Plan, RunStep};

/// Everything that can be refused, refused before minutes of measuring: the counting mount, the
/// checkout criterion's benches need, the criterion directory, the run folders' parent
/// (created), each run's directory (created) and the profiles on it.
pub fn preflight(
    plan: &Plan,
    checkout: Option<&Path>,
    criterion_dir: &Path,
) -> Result<(), PlanError> {
    if let Some(dir) = &plan.io_profile {
        triebench_measure::slowfs_stats::read_snapshot(dir).map_err(|e| {
            PlanError::Usage(format!(
                "--iolab {}: not a slowfs counting mount ({e}); `scripts/fs-lab.sh up` mounts \
                 the lab's, --iolab none skips the I/O profile",
                dir.display()
            ))
        })?;
    }
    if plan.criterion.is_some() && checkout.is_none() {
        return Err(PlanError::NoCheckout(built_from()));
    }
    writable_dir("--criterion-dir", criterion_dir)?;
    // The run folders' parent, made and written to now rather than after the runs.
    if let Some(step) = plan.exports.first() {
        writable_dir("--export", &step.parent)?;
    }
    for run in &plan.runs {
        make_dir(&format!("filesystem `{}`", run.run.name), &run.run.dir)?;
        prepare_dir(&run.run)?;
        chosen_profiles(&plan.profiles, &run.run.dir)?;
        for step in &run.steps {
            if let RunStep::Grow { profiles, .. } = step {
                for name in profiles {
                    let profile: Profile = name.parse()?;
                    if !profile.is_enabled() {
                        return Err(triebench_kv::KvError::ProfileNotEnabled {
                            profile: profile.name(),
                            feature: profile.feature().unwrap_or("default"),
                        }
                        .into());
                    }
                    if !profile.needs_dir() {
                        return Err(PlanError::Usage(format!(
                            "--grow-profiles {name}: its data lives in memory, not on the \
                             filesystem measured; grow it with `triebench grow` itself"
                        )));
                    }
                }
            }
        }
    }
    Ok(())
}
