//! Criterion's benches are `cargo bench` targets, so this one route leaves the process: the
//! `cargo bench` command lines (the `--no-run` build, and a run saved as a baseline) and the
//! environment the benches read (`TRIEBENCH_SCALE`, `TRIEBENCH_PROFILES`, ...).

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

use crate::error::PlanError;
use crate::steps::{CriterionOptions, Plan};

/// `cargo`'s arguments: the build alone (`baseline` `None`, `--no-run`), or a run saved as
/// criterion baseline `baseline`.
pub fn cargo_args(run: &CriterionOptions, baseline: Option<&str>) -> Vec<String> {
    let mut args = vec![
        "bench".to_string(),
        "--features".into(),
        run.features.clone(),
    ];
    for bench in &run.benches {
        args.extend(["--bench".to_string(), bench.clone()]);
    }
    let Some(name) = baseline else {
        args.push("--no-run".into());
        return args;
    };
    args.extend(["--".into(), "--save-baseline".into(), name.into()]);
    // Criterion's per-benchmark HTML plots cost more than many benchmarks themselves on 2
    // cores, and the report does not read them.
    if !run.plots {
        args.push("--noplot".into());
    }
    if let Some(filter) = &run.filter {
        args.push(filter.clone());
    }
    args
}

/// The environment of a run: what the benches read, criterion's output directory
/// (`CRITERION_HOME`, where the report reads) and `TMPDIR` on the filesystem under test.
pub fn bench_env(
    plan: &Plan,
    run: &CriterionOptions,
    criterion_dir: &Path,
    tmpdir: &Path,
) -> Vec<(&'static str, OsString)> {
    let mut env = vec![
        ("TMPDIR", tmpdir.as_os_str().to_owned()),
        ("CRITERION_HOME", criterion_dir.as_os_str().to_owned()),
        ("TRIEBENCH_SCALE", plan.scale.name().into()),
        ("TRIEBENCH_CPU_IDLE", plan.cpu_idle.name().into()),
    ];
    if !plan.profiles.is_empty() {
        env.push(("TRIEBENCH_PROFILES", plan.profiles.join(",").into()));
    }
    if let Some(filter) = &run.filter {
        // The benches skip the set-up of groups it leaves out.
        env.push(("TRIEBENCH_FILTER", filter.into()));
    }
    if let Some(groups) = run.groups {
        env.push(("TRIEBENCH_GROUPS", groups.name().into()));
    }
    if let Some(samples) = run.samples {
        env.push(("TRIEBENCH_SAMPLES", samples.to_string().into()));
    }
    env
}

/// The command line as a shell would show it, for the plan and errors.
pub fn show(args: &[String]) -> String {
    let quoted: Vec<String> = args
        .iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=,./".contains(c))
            {
                a.clone()
            } else {
                format!("'{a}'")
            }
        })
        .collect();
    format!("cargo {}", quoted.join(" "))
}

/// Runs `cargo` with `args` and `env` in `checkout`, its output going to ours.
pub fn cargo(
    checkout: &Path,
    args: &[String],
    env: &[(&'static str, OsString)],
) -> Result<(), PlanError> {
    let program = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let status = Command::new(&program)
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .current_dir(checkout)
        .status()
        .map_err(|source| PlanError::Spawn {
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(PlanError::Cargo {
            command: show(args),
            status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::steps::Groups;

    fn run(filter: Option<&str>, plots: bool) -> CriterionOptions {
        CriterionOptions {
            features: "all-backends".into(),
            benches: vec!["merkle".into(), "kv".into()],
            filter: filter.map(String::from),
            groups: Some(Groups::All),
            samples: Some(10),
            plots,
        }
    }

    #[test]
    fn the_build_and_a_run_share_features_and_targets() {
        let r = run(Some("^(kv|scale)/"), false);
        assert_eq!(
            show(&cargo_args(&r, None)),
            "cargo bench --features all-backends --bench merkle --bench kv --no-run"
        );
        assert_eq!(
            show(&cargo_args(&r, Some("tmpfs"))),
            "cargo bench --features all-backends --bench merkle --bench kv -- --save-baseline \
             tmpfs --noplot '^(kv|scale)/'"
        );
        assert_eq!(
            cargo_args(&run(None, true), Some("disk"))
                .last()
                .map(String::as_str),
            Some("disk")
        );
    }
}
