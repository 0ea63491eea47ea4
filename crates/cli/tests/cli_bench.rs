//! `triebench bench`, the main job, with the real binary on real stores: a tiny quick run (one
//! btree headline round, no phases, no I/O profile, a growth curve to 1,000 leaves on lmdb, the
//! short engines run of two engines on btree) leaves a report folder and a run folder that
//! `report --runs` reads; `--dry-run` prints the plan per scale and touches nothing; a bad
//! `NAME=DIR` or engine name is one clear error and exit status 1.

use std::path::Path;
use std::process::{Command, Output};

/// The environment variables `bench` takes defaults from, removed so the caller's own cannot
/// change what a test runs.
const BENCH_ENV: [&str; 23] = [
    "TRIEBENCH_SCALE",
    "TRIEBENCH_PROFILES",
    "TRIEBENCH_PHASES",
    "TRIEBENCH_LOAD",
    "TRIEBENCH_LOAD_STATE",
    "TRIEBENCH_LOAD_READERS",
    "TRIEBENCH_IOLAB",
    "TRIEBENCH_OUT",
    "TRIEBENCH_RUNS_DIR",
    "TRIEBENCH_HOST",
    "TRIEBENCH_CPU_IDLE",
    "TRIEBENCH_HEADLINE",
    "TRIEBENCH_FILTER",
    "TRIEBENCH_GROUPS",
    "TRIEBENCH_BENCHES",
    "TRIEBENCH_FEATURES",
    "TRIEBENCH_SAMPLES",
    "TRIEBENCH_PLOTS",
    "TRIEBENCH_GROW_MAX",
    "TRIEBENCH_GROW_PROFILES",
    "TRIEBENCH_ENGINES",
    "TRIEBENCH_FIELD",
    "CRITERION_HOME",
];

fn triebench(args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_triebench"));
    for var in BENCH_ENV {
        cmd.env_remove(var);
    }
    cmd.args(args)
        .current_dir(cwd)
        .output()
        .expect("run triebench")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn a_quick_run_writes_the_report_and_a_run_folder_report_reads() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fs = tmp.path().join("fs");
    let criterion = tmp.path().join("criterion");
    let out = tmp.path().join("report");
    let runs = tmp.path().join("runs");
    let path = |p: &Path| p.display().to_string();
    let run = format!("t={}", path(&fs));
    let output = triebench(
        &[
            "bench",
            "--scale",
            "quick",
            "--profiles",
            "btree",
            "--no-phases",
            "--grow-max",
            "1000",
            "--grow-profiles",
            "lmdb",
            // Two engines: each engine's run is `triebench engines`'s tests' (cli_engines.rs,
            // triebench-measure's); here, that the step runs those asked for and the report
            // shows them.
            "--engines",
            "trie,jmt",
            // The field step, which quick leaves out, with one workload.
            "--field",
            "merk",
            "--iolab",
            "none",
            "--cpu-idle",
            "os",
            "--host",
            "host-t",
            "--criterion-dir",
            &path(&criterion),
            "--out",
            &path(&out),
            "--export",
            &path(&runs),
            &run,
        ],
        tmp.path(),
    );
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "bench: {stderr}");
    // The plan first, then each step as it starts, and the times at the end.
    assert!(stderr.starts_with("bench: plan at scale quick"), "{stderr}");
    for step in [
        "[1/8] capture-fs 't'",
        "[2/8] headline on 't': profiles btree, up to 1 s and 1 round(s) each",
        "[3/8] forget an earlier phase breakdown of 't'",
        "[4/8] grow on 't': lmdb to 1000 leaves",
        "[5/8] engines on 't': trie, jmt on btree,",
        "[6/8] field on 't': merk on btree, each store fresh (the field's at scale 1",
        "[7/8] report: runs t (baseline 't')",
        "[8/8] export-run 't'",
    ] {
        assert_eq!(stderr.matches(step).count(), 2, "{step}: {stderr}");
    }
    let table = stderr
        .split("bench: time per step")
        .nth(1)
        .expect("the table of times");
    assert_eq!(table.lines().filter(|l| l.contains(" s  ")).count(), 8);
    assert!(table.contains("total"), "{table}");

    // The report, with the run's filesystem and its headline.
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(report.contains("btree"), "{report}");
    // The growth curve, in its section, with cold reads (lmdb's files were evicted).
    let grow = report
        .split("## How cost grows with state")
        .nth(1)
        .expect("the growth section");
    let row = grow
        .lines()
        .find(|l| l.starts_with("| lmdb | t | 1000 |"))
        .unwrap_or_else(|| panic!("lmdb's row: {grow}"));
    // Its "read cold p50 / p99" cell holds two figures.
    assert!(row.contains("s / "), "{row}");
    assert!(out.join("plots/grow-read-cold.svg").is_file());
    // The short engines run, in its section: the two engines asked for on the measured profile.
    let engines = report
        .split("## Engines side by side")
        .nth(1)
        .expect("the engines section");
    assert!(engines.contains("| t | `trie` | `btree` |"), "{engines}");
    assert!(engines.contains("| t | `jmt` | `btree` |"), "{engines}");
    assert!(!engines.contains("`mpt`"), "{engines}");
    assert!(out.join("plots/engines.svg").is_file());
    // The field step's run, against its published figures.
    let published = report
        .split("## Against published figures")
        .nth(1)
        .expect("the published figures' section");
    assert!(
        published.contains("| `merk` | t | `btree` |"),
        "{published}"
    );
    let env: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("env.json")).expect("env.json"))
            .expect("env JSON");
    assert_eq!(env["baseline"], "t");
    assert!(env["filesystems"]["t"].is_object(), "{env}");
    // The fresh directory each run measures in is gone; the filesystem's directory stays.
    assert_eq!(std::fs::read_dir(&fs).expect("run dir").count(), 0);
    // Nothing was written where the report and run folders go by default.
    assert!(!tmp.path().join("results").exists());

    // One run folder, its manifest as the reader's types write it, and the report reads it.
    let folders: Vec<_> = std::fs::read_dir(&runs)
        .expect("runs")
        .map(|e| e.expect("entry").path())
        .collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    let folder = &folders[0];
    let name = folder.file_name().and_then(|n| n.to_str()).unwrap_or("");
    assert!(name.starts_with("host-t-t-"), "{name}");
    let manifest: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(folder.join("manifest.json")).expect("manifest"),
    )
    .expect("manifest JSON");
    assert_eq!(manifest["format"], 1);
    assert_eq!(manifest["host"], "host-t");
    assert_eq!(manifest["filesystem"], "t");
    assert_eq!(manifest["scale"], "quick");
    assert!(folder.join("env.json").is_file());
    assert!(folder.join("criterion/triebench-runs/t.json").is_file());
    assert!(folder
        .join("criterion/triebench-runs/headline/t.json")
        .is_file());
    assert!(folder
        .join("criterion/triebench-runs/records/t/headline.json")
        .is_file());
    assert!(folder
        .join("criterion/triebench-runs/grow/t/lmdb/grow.json")
        .is_file());
    assert!(folder
        .join("criterion/triebench-runs/engines/t.json")
        .is_file());
    assert!(folder
        .join("criterion/triebench-runs/field/t/btree-merk.json")
        .is_file());
    let merged = tmp.path().join("merged");
    let read = triebench(
        &["report", "--runs", &path(folder), "--out", &path(&merged)],
        tmp.path(),
    );
    assert!(
        read.status.success(),
        "report --runs: {}",
        text(&read.stderr)
    );
    let report = std::fs::read_to_string(merged.join("report.md")).expect("merged report.md");
    assert!(report.contains("`host-t.t`"), "{report}");
    assert!(report.contains("## How cost grows with state"), "{report}");
    assert!(report.contains("## Engines side by side"), "{report}");
    assert!(report.contains("## Against published figures"), "{report}");
}

#[test]
fn dry_run_prints_the_plan_of_each_scale_and_runs_nothing() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let fs = tmp.path().join("fs");
    let run = format!("t={}", fs.display());
    let plan = |scale: &str, extra: &[&str]| {
        let mut args = vec!["bench", "--dry-run", "--iolab", "none", "--scale", scale];
        args.extend_from_slice(extra);
        args.push(&run);
        let output = triebench(&args, tmp.path());
        assert!(output.status.success(), "{}", text(&output.stderr));
        text(&output.stderr)
    };
    let quick = plan("quick", &[]);
    assert!(quick.contains("up to 1 s and 1 round(s) each"), "{quick}");
    assert!(!quick.contains("phases on 't'"), "{quick}");
    assert!(
        quick.contains("forget earlier field records of 't'"),
        "{quick}"
    );
    let standard = plan("standard", &[]);
    assert!(
        standard.contains("up to 5 s and 30 round(s) each"),
        "{standard}"
    );
    assert!(standard.contains("phases on 't'"), "{standard}");
    assert!(!standard.contains("cargo bench"), "{standard}");
    assert!(
        standard.contains("grow on 't': lmdb") && standard.contains("to 100000 leaves"),
        "{standard}"
    );
    assert!(!quick.contains("grow on 't'"), "{quick}");
    assert!(
        standard.contains(
            "field on 't': firewood-create, firewood-tenkrandom, firewood-zipf, \
             firewood-single, iavl-bank, merk, smallbank on lmdb, sqlite-wal-full"
        ),
        "{standard}"
    );
    let no_grow = plan("standard", &["--grow-max", "0"]);
    assert!(
        no_grow.contains("forget earlier growth curves of 't'"),
        "{no_grow}"
    );
    let full = plan("full", &[]);
    assert!(full.contains("up to 30 s and 30 round(s) each"), "{full}");
    assert!(
        full.contains("--no-run") && full.contains("--save-baseline t --noplot '^(kv|scale)/'"),
        "{full}"
    );
    let criterion = plan("quick", &["--criterion", "--load", "--profiles", "btree"]);
    assert!(
        criterion.contains("forget an earlier headline's records"),
        "{criterion}"
    );
    assert!(
        criterion.contains("load --saturate 'btree' on 't'"),
        "{criterion}"
    );
    // Nothing measured, nothing made.
    assert!(!fs.exists());
    assert_eq!(std::fs::read_dir(tmp.path()).expect("tmp").count(), 0);
}

#[test]
fn a_bad_run_argument_is_one_clear_error_before_anything_runs() {
    let tmp = tempfile::tempdir().expect("temp dir");
    for (arg, says) in [
        (
            "nodir",
            "`nodir` is not NAME=DIR: give a run name and a directory",
        ),
        (
            "a/b=/x",
            "`a/b=/x` is not NAME=DIR: a run name may only use",
        ),
        (
            "=/x",
            "`=/x` is not NAME=DIR: the run name before `=` is empty",
        ),
    ] {
        let output = triebench(&["bench", "--iolab", "none", arg], tmp.path());
        assert_eq!(output.status.code(), Some(1), "{arg}");
        let stderr = text(&output.stderr);
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with("error: ") && stderr.contains(says),
            "{stderr}"
        );
    }
    let twice = triebench(&["bench", "--iolab", "none", "a=x", "a=y"], tmp.path());
    assert_eq!(twice.status.code(), Some(1));
    assert!(text(&twice.stderr).contains("`a` is given twice"));
    let engine = triebench(
        &["bench", "--iolab", "none", "--engines", "trie,iavl", "a=x"],
        tmp.path(),
    );
    assert_eq!(engine.status.code(), Some(1));
    assert_eq!(
        text(&engine.stderr).trim_end(),
        "error: --engines: unknown engine `iavl`: the engines are trie, jmt, mpt, transact, nomt"
    );
    let field = triebench(
        &["bench", "--iolab", "none", "--field", "merk,ycsb", "a=x"],
        tmp.path(),
    );
    assert_eq!(field.status.code(), Some(1));
    assert!(
        text(&field.stderr).starts_with("error: --field: unknown workload `ycsb`"),
        "{}",
        text(&field.stderr)
    );
    assert_eq!(std::fs::read_dir(tmp.path()).expect("tmp").count(), 0);
    // A counting mount that is not one is refused before the first step, not after the last.
    let plain = tempfile::tempdir().expect("temp dir");
    let iolab = plain.path().display().to_string();
    let run = format!("t={}", tmp.path().join("t").display());
    let not_slowfs = triebench(&["bench", "--iolab", &iolab, &run], tmp.path());
    assert_eq!(not_slowfs.status.code(), Some(1));
    let stderr = text(&not_slowfs.stderr);
    assert!(
        stderr.contains(&format!(
            "error: --iolab {iolab}: not a slowfs counting mount"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains("bench: [1/"), "{stderr}");
    assert!(!tmp.path().join("t").exists());
}

#[test]
fn export_run_of_a_run_never_measured_says_so() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let criterion = tmp.path().join("criterion");
    std::fs::create_dir_all(&criterion).expect("criterion dir");
    let output = triebench(
        &[
            "export-run",
            "nosuch",
            "--criterion-dir",
            &criterion.display().to_string(),
        ],
        tmp.path(),
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = text(&output.stderr);
    assert!(stderr.contains("holds nothing of run `nosuch`"), "{stderr}");
    assert!(!tmp.path().join("runs").exists());
}
