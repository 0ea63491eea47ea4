//! Where criterion writes its output, found as criterion finds it, so every command's default
//! `--criterion-dir` and the benches' own records land beside criterion's baselines: a target
//! directory set in a cargo config file (`build.target-dir`) or `CRITERION_HOME` used to send
//! criterion elsewhere while our commands looked in `./target/criterion`.
//!
//! The order is criterion's: `$CRITERION_HOME`; `$CARGO_TARGET_DIR/criterion`; the target
//! directory `cargo metadata` reports for the workspace around the current directory (which
//! follows cargo's config files), plus `criterion`; else `target/criterion`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// Criterion's output directory for a process started in the current directory.
pub fn criterion_home() -> PathBuf {
    resolve(
        std::env::var_os("CRITERION_HOME"),
        std::env::var_os("CARGO_TARGET_DIR"),
        cargo_target_dir,
    )
}

/// The rule of [`criterion_home`], with the environment passed in; `metadata` is asked only
/// when neither variable is set (non-empty).
fn resolve(
    criterion_home: Option<OsString>,
    cargo_target_dir: Option<OsString>,
    metadata: impl FnOnce() -> Option<PathBuf>,
) -> PathBuf {
    let set = |v: Option<OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(home) = set(criterion_home) {
        return home;
    }
    let target = set(cargo_target_dir)
        .or_else(metadata)
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("criterion")
}

/// The workspace's target directory as cargo resolves it, `None` outside a workspace or
/// without cargo (`$CARGO` first, as cargo sets it for the processes it runs).
fn cargo_target_dir() -> Option<PathBuf> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let output = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    #[derive(serde::Deserialize)]
    struct Metadata {
        target_directory: PathBuf,
    }
    serde_json::from_slice::<Metadata>(&output.stdout)
        .ok()
        .map(|m| m.target_directory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never() -> Option<PathBuf> {
        panic!("cargo metadata asked although a variable decides")
    }

    #[test]
    fn criterion_home_comes_first_then_the_target_dir_variable() {
        assert_eq!(
            resolve(Some("/h".into()), Some("/t".into()), never),
            PathBuf::from("/h")
        );
        assert_eq!(
            resolve(None, Some("/t".into()), never),
            PathBuf::from("/t/criterion")
        );
        assert_eq!(
            resolve(Some("".into()), Some("/t".into()), never),
            PathBuf::from("/t/criterion")
        );
    }

    #[test]
    fn without_variables_cargo_decides_and_target_is_the_last_resort() {
        assert_eq!(
            resolve(None, Some("".into()), || Some("/m".into())),
            PathBuf::from("/m/criterion")
        );
        assert_eq!(
            resolve(None, None, || None),
            PathBuf::from("target/criterion")
        );
    }

    /// Run inside this workspace, cargo reports its target directory: the one holding the
    /// test binary that runs this.
    #[test]
    fn cargo_metadata_names_this_workspace_target_dir() {
        let target = cargo_target_dir().expect("cargo metadata in the workspace");
        let exe = std::env::current_exe().expect("test binary path");
        assert!(exe.starts_with(&target), "{exe:?} not under {target:?}");
    }
}
