//! The filesystems a plan measures: `NAME=DIR` arguments, and the default pair (`tmpfs` on
//! /dev/shm when it is a tmpfs, `disk` on the disk holding the checkout).

use std::path::{Path, PathBuf};

use triebench_measure::fs_info_for_dir;
use triebench_record::layout::validate_run_name;

use crate::error::PlanError;

/// One filesystem to measure: its run name (the criterion baseline, the report's column) and a
/// directory on it (each step makes fresh directories inside).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunSpec {
    /// The run name.
    pub name: String,
    /// A directory on the filesystem under test.
    pub dir: PathBuf,
}

impl RunSpec {
    /// Parses `NAME=DIR`: a run name of letters, digits, `.`, `_` and `-`, and a directory.
    pub fn parse(arg: &str) -> Result<RunSpec, PlanError> {
        let bad = |reason: &str| PlanError::BadRun {
            arg: arg.to_string(),
            reason: reason.to_string(),
        };
        let Some((name, dir)) = arg.split_once('=') else {
            return Err(bad("give a run name and a directory, e.g. tmpfs=/dev/shm"));
        };
        if name.is_empty() {
            return Err(bad("the run name before `=` is empty"));
        }
        if dir.is_empty() {
            return Err(bad("the directory after `=` is empty"));
        }
        validate_run_name(name).map_err(|_| {
            bad(
                "a run name may only use letters, digits, '.', '_' and '-' (not `new` or `base`, \
                 and not starting with '.')",
            )
        })?;
        Ok(RunSpec {
            name: name.to_string(),
            dir: PathBuf::from(dir),
        })
    }
}

/// Parses every argument; refuses a run name given twice.
pub fn parse_runs(args: &[String]) -> Result<Vec<RunSpec>, PlanError> {
    let mut runs: Vec<RunSpec> = Vec::new();
    for arg in args {
        let run = RunSpec::parse(arg)?;
        if runs.iter().any(|r| r.name == run.name) {
            return Err(PlanError::DuplicateRun(run.name));
        }
        runs.push(run);
    }
    Ok(runs)
}

/// The runs when none is given: `tmpfs=/dev/shm` when /dev/shm is a tmpfs (`shm_is_tmpfs`),
/// then `disk=<disk_dir>`.
pub fn default_runs(shm_is_tmpfs: bool, disk_dir: PathBuf) -> Vec<RunSpec> {
    let mut runs = Vec::new();
    if shm_is_tmpfs {
        runs.push(RunSpec {
            name: "tmpfs".into(),
            dir: PathBuf::from(SHM),
        });
    }
    runs.push(RunSpec {
        name: "disk".into(),
        dir: disk_dir,
    });
    runs
}

/// The RAM filesystem most Linux systems mount.
pub const SHM: &str = "/dev/shm";

/// Whether /dev/shm is a tmpfs here.
pub fn shm_is_tmpfs() -> bool {
    fs_info_for_dir("tmpfs", Path::new(SHM)).is_ok_and(|info| info.fs_type == "tmpfs")
}

/// Creates a run's directory if needed and checks that it is writable, before minutes of
/// measuring.
pub fn prepare_dir(run: &RunSpec) -> Result<(), PlanError> {
    let failed = |source| PlanError::RunDir {
        name: run.name.clone(),
        dir: run.dir.clone(),
        source,
    };
    std::fs::create_dir_all(&run.dir).map_err(failed)?;
    tempfile::tempfile_in(&run.dir).map(drop).map_err(failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_and_directory_are_split_at_the_first_equals_sign() {
        let run = RunSpec::parse("ebs=/mnt/a=b").expect("valid");
        assert_eq!(run.name, "ebs");
        assert_eq!(run.dir, PathBuf::from("/mnt/a=b"));
    }

    #[test]
    fn bad_arguments_say_what_is_wrong() {
        for (arg, says) in [
            ("/dev/shm", "e.g. tmpfs=/dev/shm"),
            ("=/dev/shm", "run name before"),
            ("tmpfs=", "directory after"),
            ("tm fs=/x", "letters, digits"),
            ("new=/x", "letters, digits"),
        ] {
            let err = RunSpec::parse(arg).expect_err(arg).to_string();
            assert!(err.contains(arg) && err.contains(says), "{arg}: {err}");
        }
    }

    #[test]
    fn a_name_given_twice_is_refused() {
        let args = ["a=/x".to_string(), "a=/y".to_string()];
        let err = parse_runs(&args).expect_err("duplicate").to_string();
        assert!(err.contains("`a` is given twice"), "{err}");
    }

    #[test]
    fn the_default_pair_is_tmpfs_then_disk() {
        let disk = PathBuf::from("/repo/target/bench-disk");
        let names = |runs: Vec<RunSpec>| runs.into_iter().map(|r| r.name).collect::<Vec<_>>();
        assert_eq!(names(default_runs(true, disk.clone())), ["tmpfs", "disk"]);
        assert_eq!(names(default_runs(false, disk.clone())), ["disk"]);
        assert_eq!(default_runs(false, disk.clone())[0].dir, disk);
    }
}
