//! Where a report is written: a fresh folder beside the target, renamed into place once the
//! report is complete, so the report deletes nothing it did not create.
//!
//! [`OutFolder::prepare`] refuses, before anything is written:
//!
//! - an output folder that is one of the report's inputs, lies inside one, or contains one
//!   (`report --runs A --runs B --out A` would otherwise replace the run folder `A`);
//! - an output path that is a symbolic link, or is not a directory;
//! - an existing, non-empty folder that is not a report folder: one holding every file each
//!   report writes ([`REPORT_MARKERS`]: `report.md`, `SCHEMA.md`, `env.json`) and not a run
//!   folder's `manifest.json`.
//!
//! The report is then written into a fresh hidden folder in the same parent
//! ([`OutFolder::path`]). [`OutFolder::finish`] moves into it whatever the previous report
//! folder holds that the new report did not write (notes, logs, runs kept beside a report),
//! swaps it into place and removes the previous folder, which by then holds only the previous
//! versions of the files just rewritten. A report that fails, or a process that dies, before
//! `finish` leaves the previous folder exactly as it was (the fresh folder is removed when the
//! [`OutFolder`] is dropped).

use std::ffi::OsString;
use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

use crate::error::ReportError;

/// The files every report writes; a folder holding all of them (and no run folder's
/// `manifest.json`) is taken as one a report wrote, which a new report may replace.
pub const REPORT_MARKERS: [&str; 3] = ["report.md", "SCHEMA.md", "env.json"];

/// A run folder's manifest (`triebench export-run`): a folder holding one is never replaced.
const RUN_MANIFEST: &str = "manifest.json";

/// A report's output folder while the report is being written.
#[derive(Debug)]
pub struct OutFolder {
    target: PathBuf,
    staging: tempfile::TempDir,
}

impl OutFolder {
    /// Checks `target` against the report's `inputs` (directories it reads) and creates the
    /// fresh folder the report is written into. Nothing existing is changed (the target's
    /// parent is created if missing).
    pub fn prepare(target: &Path, inputs: &[&Path]) -> Result<OutFolder, ReportError> {
        let refuse = |reason: String| ReportError::OutRefused {
            out: target.to_path_buf(),
            reason,
        };
        let name = target
            .file_name()
            .filter(|_| {
                !matches!(
                    target.components().next_back(),
                    Some(Component::ParentDir | Component::CurDir)
                )
            })
            .ok_or_else(|| refuse("it names no folder (use a path ending in a name)".into()))?;
        let resolved = resolve(target).map_err(|e| ReportError::write(target, e))?;
        for input in inputs {
            let input_resolved =
                fs::canonicalize(input).map_err(|e| ReportError::write(input, e))?;
            let relation = if resolved == input_resolved {
                Some("is")
            } else if resolved.starts_with(&input_resolved) {
                Some("is inside")
            } else if input_resolved.starts_with(&resolved) {
                Some("contains")
            } else {
                None
            };
            if let Some(relation) = relation {
                return Err(refuse(format!(
                    "it {relation} the input {}; a report replaces its output folder, so \
                     write it elsewhere",
                    input.display()
                )));
            }
        }
        match fs::symlink_metadata(target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refuse(
                    "it is a symbolic link; pass the folder it points to".into(),
                ))
            }
            Ok(meta) if !meta.is_dir() => return Err(refuse("it is not a directory".into())),
            Ok(_) => {
                if !is_empty(target).map_err(|e| ReportError::write(target, e))?
                    && !is_report_folder(target)
                {
                    return Err(refuse(format!(
                        "it is not a report folder triebench wrote (one holds {}); a report \
                         replaces only such a folder, so pick a new one or empty this one \
                         yourself",
                        REPORT_MARKERS.join(", ")
                    )));
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(ReportError::write(target, e)),
        }
        let parent = match target.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        fs::create_dir_all(&parent).map_err(|e| ReportError::write(&parent, e))?;
        let mut prefix = OsString::from(".");
        prefix.push(name);
        prefix.push(".new-");
        let staging = tempfile::Builder::new()
            .prefix(&prefix)
            .tempdir_in(&parent)
            .map_err(|e| ReportError::write(&parent, e))?;
        Ok(OutFolder {
            target: target.to_path_buf(),
            staging,
        })
    }

    /// The fresh folder to write the report into.
    pub fn path(&self) -> &Path {
        self.staging.path()
    }

    /// The folder the report ends up in.
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Puts the written report in place (see the module docs) and returns its folder.
    pub fn finish(self) -> Result<PathBuf, ReportError> {
        let target = self.target.clone();
        let staging = self.staging.keep();
        let placed = place(&staging, &target);
        if placed.is_err() {
            let _ = fs::remove_dir_all(&staging);
        }
        placed.map(|()| target)
    }
}

/// Moves `staging` to `target`, carrying over what the previous `target` holds that `staging`
/// does not; on failure the previous `target` is put back as it was.
fn place(staging: &Path, target: &Path) -> Result<(), ReportError> {
    let write = |path: &Path| {
        let path = path.to_path_buf();
        move |e| ReportError::write(path, e)
    };
    if fs::symlink_metadata(target).is_err() {
        return fs::rename(staging, target).map_err(write(target));
    }
    let mut carried = Vec::new();
    let entries = fs::read_dir(target).map_err(write(target))?;
    for entry in entries {
        let name = entry.map_err(write(target))?.file_name();
        let to = staging.join(&name);
        if fs::symlink_metadata(&to).is_ok() {
            continue;
        }
        if let Err(e) = fs::rename(target.join(&name), &to) {
            carry_back(&carried, staging, target);
            return Err(ReportError::write(target.join(&name), e));
        }
        carried.push(name);
    }
    // The previous folder goes to an empty directory of its own (rename replaces an empty
    // directory), then the new one takes its name.
    let parent = staging.parent().unwrap_or(Path::new("."));
    let old = match tempfile::Builder::new()
        .prefix(".old-report-")
        .tempdir_in(parent)
    {
        Ok(dir) => dir,
        Err(e) => {
            carry_back(&carried, staging, target);
            return Err(ReportError::write(parent, e));
        }
    };
    if let Err(e) = fs::rename(target, old.path()) {
        carry_back(&carried, staging, target);
        return Err(ReportError::write(target, e));
    }
    if let Err(e) = fs::rename(staging, target) {
        let _ = fs::rename(old.path(), target);
        carry_back(&carried, staging, target);
        return Err(ReportError::write(target, e));
    }
    // `old` now holds only the previous versions of files the new report rewrote; dropping it
    // removes them.
    drop(old);
    Ok(())
}

/// Moves carried-over entries back from `staging` into `target`.
fn carry_back(names: &[OsString], staging: &Path, target: &Path) {
    for name in names {
        let _ = fs::rename(staging.join(name), target.join(name));
    }
}

/// Whether `dir` holds every report marker and no run folder manifest.
pub fn is_report_folder(dir: &Path) -> bool {
    REPORT_MARKERS.iter().all(|m| dir.join(m).is_file()) && !dir.join(RUN_MANIFEST).exists()
}

fn is_empty(dir: &Path) -> io::Result<bool> {
    Ok(fs::read_dir(dir)?.next().is_none())
}

/// `path` made absolute with every symbolic link resolved, also when it does not exist yet
/// (its nearest existing ancestor is resolved and the rest appended).
fn resolve(path: &Path) -> io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        match fs::canonicalize(existing) {
            Ok(found) => {
                let mut out = found;
                for part in rest.iter().rev() {
                    out.push(part);
                }
                return Ok(out);
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Err(e);
                };
                rest.push(name.to_os_string());
                existing = parent;
            }
            Err(e) => return Err(e),
        }
    }
}
