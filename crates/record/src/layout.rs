//! Where the files live: everything triebench writes beside criterion's output sits under
//! `<criterion-dir>/triebench-runs/` ([`SIDECAR_DIR`]), so a report's inputs are one directory.
//!
//! ```text
//! <criterion-dir>/triebench-runs/
//!   records/<run>/<command>.json   run records (this crate's format), e.g. records/tmpfs/headline.json
//!   <run>.json                     the filesystem capture (FsInfo)
//!   headline/<run>.json            the CPU idle record of a headline
//!   phases/<run>.json  load/<run>/  io-profile.json  crash.json   the other sidecars
//!   grow/<run>/<profile>/grow.json the main job's short growth curves (`triebench grow`)
//!   engines/<run>.json             the main job's short engines run (`triebench engines`)
//! ```

use std::path::{Path, PathBuf};

use crate::error::RecordError;

/// The directory under the criterion dir that holds every triebench file.
pub const SIDECAR_DIR: &str = "triebench-runs";

/// The directory under [`SIDECAR_DIR`] that holds the run records, one directory per run.
pub const RECORDS_DIR: &str = "records";

/// The directory under [`SIDECAR_DIR`] that holds each headline's CPU idle record.
pub const HEADLINE_DIR: &str = "headline";

/// Checks that a run (or command) name is usable as a file name and a criterion baseline
/// (`[A-Za-z0-9._-]+`, not starting with `.`, nor `new`/`base`, the directories criterion
/// keeps its own last runs in).
pub fn validate_run_name(name: &str) -> Result<(), RecordError> {
    let ok = !matches!(name, "" | "new" | "base")
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
    if ok {
        Ok(())
    } else {
        Err(RecordError::InvalidName(name.to_string()))
    }
}

/// The directory holding run `run`'s records.
pub fn records_dir(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir.join(SIDECAR_DIR).join(RECORDS_DIR).join(run)
}

/// The record `command` took for run `run`: `records/<run>/<command>.json`.
pub fn record_path(criterion_dir: &Path, run: &str, command: &str) -> PathBuf {
    records_dir(criterion_dir, run).join(format!("{command}.json"))
}

/// The filesystem capture of run `run`: `triebench-runs/<run>.json`.
pub fn fs_sidecar_path(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir.join(SIDECAR_DIR).join(format!("{run}.json"))
}

/// The phase breakdown of run `run` (`triebench phases`): `triebench-runs/phases/<run>.json`.
pub fn phases_path(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir
        .join(SIDECAR_DIR)
        .join(crate::phases::DIR)
        .join(format!("{run}.json"))
}

/// The I/O profile (`triebench io-profile`): `triebench-runs/io-profile.json`.
pub fn io_profile_path(criterion_dir: &Path) -> PathBuf {
    criterion_dir
        .join(SIDECAR_DIR)
        .join(crate::io_profile::FILE_NAME)
}

/// The directory under [`SIDECAR_DIR`] that holds the main job's growth curves.
pub const GROW_DIR: &str = "grow";

/// The growth curves of run `run`: `triebench-runs/grow/<run>/`, one `<profile>/grow.json`
/// each (the `<fs>/<profile>/` shape a results folder of `triebench grow` runs has too).
pub fn grow_dir(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir.join(SIDECAR_DIR).join(GROW_DIR).join(run)
}

/// The directory under [`SIDECAR_DIR`] that holds the main job's engines runs.
pub const ENGINES_DIR: &str = "engines";

/// The engines run of run `run` (`triebench engines`): `triebench-runs/engines/<run>.json`.
pub fn engines_path(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir
        .join(SIDECAR_DIR)
        .join(ENGINES_DIR)
        .join(format!("{run}.json"))
}

/// The directory under [`SIDECAR_DIR`] that holds field and SmallBank run records saved for a
/// run (`triebench field --run`, `triebench smallbank --run`).
pub const FIELD_DIR: &str = "field";

/// Where the field and SmallBank records saved for run `run` go:
/// `triebench-runs/field/<run>/`, one `<name>.json` each.
pub fn field_dir(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir.join(SIDECAR_DIR).join(FIELD_DIR).join(run)
}

/// The CPU idle record of run `run`'s headline: `triebench-runs/headline/<run>.json`.
pub fn cpu_idle_path(criterion_dir: &Path, run: &str) -> PathBuf {
    criterion_dir
        .join(SIDECAR_DIR)
        .join(HEADLINE_DIR)
        .join(format!("{run}.json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_names_must_be_file_names() {
        assert!(validate_run_name("ext4-nvme_1.0").is_ok());
        for bad in ["", "..", ".x", "a/b", "a b", "new", "base"] {
            assert!(validate_run_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn records_sit_under_the_sidecar_directory() {
        let at = record_path(Path::new("/c"), "tmpfs", "headline");
        assert_eq!(
            at,
            Path::new("/c/triebench-runs/records/tmpfs/headline.json")
        );
    }
}
