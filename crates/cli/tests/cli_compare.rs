//! `triebench compare` and `triebench export` on committed result and run folders: a folder
//! against itself is "no change" on every row, a planted 20% slowdown fails `--fail-above 5%`,
//! and the exports keep the shape of the formats' published examples.

mod common;

use std::path::{Path, PathBuf};

use common::{copy_dir, repo, triebench};
use serde_json::Value;

const RESULT_FOLDER: &str = "results/2026-11-30-vm-fresh-machine";
const RUN_FOLDER: &str = "results/2026-11-23-vm-suite-postgres-transact/runs/vm-tmpfs-2026-11-23";

fn path(rel: &str) -> String {
    repo().join(rel).display().to_string()
}

fn json_of(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "triebench failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON on stdout")
}

fn rows(v: &Value) -> &Vec<Value> {
    v["rows"].as_array().expect("rows")
}

#[test]
fn a_result_folder_against_itself_is_no_change_on_every_row() {
    let folder = path(RESULT_FOLDER);
    let v = json_of(&triebench(&[
        "compare",
        &folder,
        &folder,
        "--fail-above",
        "5%",
        "--json",
    ]));
    let rows = rows(&v);
    assert!(rows.len() > 100, "only {} rows", rows.len());
    for r in rows {
        assert_eq!(r["verdict"], "no_change", "{r}");
        assert_eq!(r["ratio"], 1.0, "{r}");
        assert_eq!(r["basis"], "means_only", "{r}");
    }
    let runs: std::collections::BTreeSet<&str> =
        rows.iter().filter_map(|r| r["run"].as_str()).collect();
    assert_eq!(runs, ["disk", "tmpfs"].into_iter().collect());
}

#[test]
fn a_run_folder_against_itself_is_no_change_with_intervals() {
    let folder = path(RUN_FOLDER);
    let v = json_of(&triebench(&["compare", &folder, &folder, "--json"]));
    for r in rows(&v) {
        assert_eq!(r["verdict"], "no_change", "{r}");
        assert_eq!(r["basis"], "bootstrap", "{r}");
        let (lo, hi) = (
            r["ci_low"].as_f64().unwrap(),
            r["ci_high"].as_f64().unwrap(),
        );
        assert!(lo <= 1.0 && hi >= 1.0, "{r}");
    }
}

/// Multiplies every mean of run `run` in a copied result folder's ratios.json by `factor`.
fn slow_down_result_folder(dir: &Path, run: &str, factor: f64) {
    let file = dir.join("ratios.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    for row in v["rows"].as_array_mut().unwrap() {
        for (run_field, mean_field) in [("run", "mean_ns"), ("reference_run", "reference_mean_ns")]
        {
            if row[run_field] == run {
                if let Some(m) = row[mean_field].as_f64() {
                    row[mean_field] = Value::from(m * factor);
                }
            }
        }
    }
    std::fs::write(&file, serde_json::to_string(&v).unwrap()).unwrap();
}

#[test]
fn a_planted_slowdown_fails_fail_above_and_writes_both_files() {
    let tmp = tempfile::tempdir().unwrap();
    let slow = tmp.path().join("slow");
    copy_dir(&repo().join(RESULT_FOLDER), &slow);
    slow_down_result_folder(&slow, "disk", 1.2);
    let out_dir = tmp.path().join("cmp");
    let out = triebench(&[
        "compare",
        &path(RESULT_FOLDER),
        &slow.display().to_string(),
        "--fail-above",
        "5%",
        "--out",
        &out_dir.display().to_string(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("slower by more than 5%"), "{stderr}");
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(out_dir.join("compare.json")).unwrap())
            .unwrap();
    for r in rows(&v) {
        let expected = if r["run"] == "disk" {
            "slower"
        } else {
            "no_change"
        };
        assert_eq!(r["verdict"], expected, "{r}");
        assert_eq!(r["regressed_beyond_limit"], r["run"] == "disk", "{r}");
    }
    let md = std::fs::read_to_string(out_dir.join("compare.md")).unwrap();
    assert!(md.contains("| +20.0% | **slower, beyond limit** |"), "{md}");
    // Under a limit above the slowdown, the same comparison passes.
    let ok = triebench(&[
        "compare",
        &path(RESULT_FOLDER),
        &slow.display().to_string(),
        "--fail-above",
        "25",
    ]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

/// Multiplies every sample time of every benchmark in a copied run folder by `factor`.
fn slow_down_samples(dir: &Path, factor: f64) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            slow_down_samples(&p, factor);
        } else if p.file_name().is_some_and(|n| n == "sample.json") {
            let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            for t in v["times"].as_array_mut().unwrap() {
                *t = Value::from(t.as_f64().unwrap() * factor);
            }
            std::fs::write(&p, v.to_string()).unwrap();
        }
    }
}

#[test]
fn a_planted_slowdown_in_criterion_samples_is_significant() {
    let tmp = tempfile::tempdir().unwrap();
    let slow = tmp.path().join("run");
    copy_dir(&repo().join(RUN_FOLDER), &slow);
    slow_down_samples(&slow.join("criterion"), 1.2);
    let out = triebench(&[
        "compare",
        &path(RUN_FOLDER),
        &slow.display().to_string(),
        "--fail-above",
        "5",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    for r in rows(&v) {
        assert_eq!(r["basis"], "bootstrap", "{r}");
        let ratio = r["ratio"].as_f64().unwrap();
        assert!((ratio - 1.2).abs() < 1e-9, "{r}");
        // Slower where the samples are tight enough to tell; never faster.
        assert_ne!(r["verdict"], "faster", "{r}");
    }
    assert!(rows(&v).iter().filter(|r| r["verdict"] == "slower").count() > rows(&v).len() / 2);
}

#[test]
fn criterion_baselines_compare_by_name() {
    let criterion = path(&format!("{RUN_FOLDER}/criterion"));
    let out = triebench(&[
        "compare",
        "criterion:tmpfs",
        "criterion:tmpfs",
        "--criterion-dir",
        &criterion,
        "--json",
    ]);
    let v = json_of(&out);
    assert!(!rows(&v).is_empty());
    assert!(rows(&v).iter().all(|r| r["verdict"] == "no_change"));
    let missing = triebench(&[
        "compare",
        "criterion:nope",
        "criterion:tmpfs",
        "--criterion-dir",
        &criterion,
    ]);
    assert_eq!(missing.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&missing.stderr);
    assert!(
        stderr.contains("nope") && stderr.contains("tmpfs"),
        "{stderr}"
    );
}

#[test]
fn a_missing_side_is_one_clear_error() {
    let out = triebench(&["compare", "/nonexistent/folder", &path(RESULT_FOLDER)]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("error: ") && stderr.contains("/nonexistent/folder"),
        "{stderr}"
    );
    let bad = triebench(&[
        "compare",
        &path(RESULT_FOLDER),
        &path(RESULT_FOLDER),
        "--fail-above",
        "lots",
    ]);
    assert_eq!(bad.status.code(), Some(2));
}

fn fixture(name: &str) -> Value {
    let p: PathBuf = repo()
        .join("crates/cli/tests/fixtures/dashboards")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap()
}

/// github-action-benchmark's `customSmallerIsBetter`: an array of objects with a string
/// `name` and `unit`, a number `value`, optional strings `range` and `extra`, nothing else.
fn check_github(v: &Value) -> Result<(), String> {
    let entries = v.as_array().ok_or("not an array")?;
    if entries.is_empty() {
        return Err("empty".into());
    }
    for e in entries {
        let o = e.as_object().ok_or("entry not an object")?;
        for key in o.keys() {
            if !["name", "unit", "value", "range", "extra"].contains(&key.as_str()) {
                return Err(format!("unknown key {key}"));
            }
        }
        for (key, required) in [
            ("name", true),
            ("unit", true),
            ("range", false),
            ("extra", false),
        ] {
            match o.get(key) {
                Some(Value::String(_)) => {}
                None if !required => {}
                other => return Err(format!("{key}: {other:?}")),
            }
        }
        if !o.get("value").is_some_and(Value::is_number) {
            return Err(format!("value of {e}"));
        }
    }
    Ok(())
}

/// Bencher Metric Format, as its JSON schema: an object of benchmarks, each an object of
/// measures, each an object with a number `value` and optional numbers `lower_value`,
/// `upper_value`.
fn check_bencher(v: &Value) -> Result<(), String> {
    let benches = v.as_object().ok_or("not an object")?;
    if benches.is_empty() {
        return Err("empty".into());
    }
    for (name, measures) in benches {
        let measures = measures
            .as_object()
            .ok_or(format!("{name}: not an object"))?;
        for (measure, metric) in measures {
            let m = metric.as_object().ok_or(format!("{name}/{measure}"))?;
            if !m.get("value").is_some_and(Value::is_number) {
                return Err(format!("{name}/{measure}: no number value"));
            }
            for (key, val) in m {
                if !["value", "lower_value", "upper_value"].contains(&key.as_str())
                    || !val.is_number()
                {
                    return Err(format!("{name}/{measure}: {key}"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn the_checks_accept_the_published_examples_and_refuse_other_shapes() {
    check_github(&fixture(
        "github-action-benchmark-custom-smaller-is-better.json",
    ))
    .unwrap();
    check_bencher(&fixture("bencher-metric-format.json")).unwrap();
    assert!(check_github(&fixture("bencher-metric-format.json")).is_err());
    assert!(check_bencher(&fixture(
        "github-action-benchmark-custom-smaller-is-better.json"
    ))
    .is_err());
    assert!(check_github(&serde_json::json!([{"name": "x", "unit": "ns", "value": "1"}])).is_err());
    assert!(check_bencher(&serde_json::json!({"x": {"latency": {"lower_value": 1.0}}})).is_err());
}

#[test]
fn exports_validate_against_the_published_examples_with_stable_names() {
    for source in [path(RESULT_FOLDER), path(RUN_FOLDER)] {
        let gh = json_of(&triebench(&["export", &source, "--format", "github"]));
        check_github(&gh).unwrap();
        let bencher = json_of(&triebench(&["export", &source, "--format", "bencher"]));
        check_bencher(&bencher).unwrap();
        let names: Vec<&str> = gh
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        let keys: Vec<&str> = bencher
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(sorted, keys, "both formats name the same benchmarks");
        assert!(
            names
                .iter()
                .all(|n| n.starts_with("tmpfs/") || n.starts_with("disk/")),
            "{names:?}"
        );
    }
    let gh = json_of(&triebench(&[
        "export",
        &path(RESULT_FOLDER),
        "--format",
        "github",
    ]));
    let update = gh
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "disk/floor/commit/lmdb")
        .expect("disk/floor/commit/lmdb");
    assert_eq!(update["value"], 930537.93);
    assert_eq!(update["unit"], "ns/iter");
    let bencher = json_of(&triebench(&[
        "export",
        &path(RUN_FOLDER),
        "--format",
        "bencher",
    ]));
    let m = &bencher["tmpfs/scenario/suite/btree"]["latency"];
    assert!(
        m["lower_value"].as_f64() <= m["value"].as_f64()
            && m["value"].as_f64() <= m["upper_value"].as_f64(),
        "{m}"
    );
}
