//! [`Folders`]: how the caller makes the folders a run is given (`--dir`, `--out`), and the
//! working directory a run takes when it is given none.
//!
//! The caller owns the policy (the CLI makes a missing folder one directory at a time without
//! following links planted on the way, 0700 as root); the lab calls it at the moments a run
//! needs the folder, so a run that fails early leaves nothing behind.

use std::path::{Path, PathBuf};

use tempfile::TempDir;

use crate::error::CrashError;

/// Makes and checks the folders a run was given; `flag` names the folder in messages.
pub trait Folders {
    /// Makes `dir` (and its missing parents) if it does not exist; the error is the line to
    /// show.
    fn make(&self, flag: &str, dir: &Path) -> Result<(), String>;
    /// Makes `dir` as [`make`](Folders::make) does, then checks that files can be created in
    /// it.
    fn writable(&self, flag: &str, dir: &Path) -> Result<(), String>;
}

/// The folders every `triebench` command makes: a missing folder made one directory at a time
/// without following links planted on the way (`triebench_measure::make_dir`), 0700 as root.
#[derive(Debug, Clone, Copy, Default)]
pub struct SafeFolders;

impl Folders for SafeFolders {
    fn make(&self, flag: &str, dir: &Path) -> Result<(), String> {
        triebench_measure::make_dir::make_dir(flag, dir).map_err(|e| e.to_string())
    }

    fn writable(&self, flag: &str, dir: &Path) -> Result<(), String> {
        triebench_measure::outputs::writable_dir(flag, dir).map_err(|e| e.to_string())
    }
}

/// `folders.make`, its message as a [`CrashError::Folder`].
pub(crate) fn make(folders: &dyn Folders, flag: &str, dir: &Path) -> Result<(), CrashError> {
    folders.make(flag, dir).map_err(CrashError::Folder)
}

/// `folders.writable`, its message as a [`CrashError::Folder`].
pub(crate) fn writable(folders: &dyn Folders, flag: &str, dir: &Path) -> Result<(), CrashError> {
    folders.writable(flag, dir).map_err(CrashError::Folder)
}

/// The directory a run works in: `dir` (made if needed, as `--dir`), or else a fresh temporary
/// directory named `prefix...`, removed when the returned guard drops.
pub(crate) fn work_dir(
    folders: &dyn Folders,
    dir: Option<&Path>,
    prefix: &str,
) -> Result<(PathBuf, Option<TempDir>), CrashError> {
    match dir {
        Some(dir) => {
            make(folders, "--dir", dir)?;
            Ok((dir.to_path_buf(), None))
        }
        None => {
            let temp = tempfile::Builder::new()
                .prefix(prefix)
                .tempdir()
                .map_err(CrashError::TempDir)?;
            Ok((temp.path().to_path_buf(), Some(temp)))
        }
    }
}
