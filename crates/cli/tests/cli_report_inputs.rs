//! Issue 48, item 5: what a run folder or a result folder holds reaches messages and files
//! only made safe: an error quotes at most 100 bytes of any value (a 100 KB manifest value, a
//! 1 MB `ratios.json` value), `ratios.csv` has no cell a spreadsheet would run as a formula,
//! `report.md`'s tables carry no raw HTML, and a profile a run folder names must be a known one.

mod common;
use common::{copy_dir, export, repo, triebench};

use std::path::{Path, PathBuf};

/// A run folder exported from the fixtures as host `host`.
fn run_folder(tmp: &Path, host: &str) -> PathBuf {
    let crit = tmp.join(format!("crit-{}", host.len()));
    copy_dir(&repo().join("fixtures/criterion"), &crit);
    export(host, "tmpfs", &crit, &tmp.join("runs"))
}

fn report(folder: &Path, out: &Path) -> std::process::Output {
    triebench(&[
        "report",
        "--runs",
        &folder.display().to_string(),
        "--out",
        &out.display().to_string(),
    ])
}

#[test]
fn a_huge_manifest_value_is_not_quoted_whole() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let folder = run_folder(tmp.path(), "host-a");
    let manifest = folder.join("manifest.json");
    let text = std::fs::read_to_string(&manifest).expect("manifest");
    let huge = "x".repeat(100_000);
    let text = text.replace("\"tmpfs\"", &format!("\"{huge}\""));
    std::fs::write(&manifest, text).expect("write manifest");
    let out = report(&folder, &tmp.path().join("out"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.len() < 2_000,
        "{} bytes of error: {}...",
        err.len(),
        &err[..300.min(err.len())]
    );
}

#[test]
fn a_huge_ratios_json_value_is_not_quoted_whole() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let folder = tmp.path().join("results");
    std::fs::create_dir_all(&folder).expect("mkdir");
    let huge = "y".repeat(1 << 20);
    std::fs::write(
        folder.join("ratios.json"),
        format!(r#"{{"schema_version": "{huge}", "runs": [], "rows": []}}"#),
    )
    .expect("write ratios.json");
    let out = triebench(&[
        "compare",
        &folder.display().to_string(),
        &folder.display().to_string(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.len() < 2_000,
        "{} bytes of error: {}...",
        err.len(),
        &err[..300.min(err.len())]
    );
}

#[test]
fn csv_cells_are_neutralised_and_markdown_cells_carry_no_html() {
    let tmp = tempfile::tempdir().expect("temp dir");
    // A host name that starts a formula (file_safe keeps its `-`), and raw HTML as its OS.
    let folder = run_folder(tmp.path(), "@cmd");
    let env = folder.join("env.json");
    let text = std::fs::read_to_string(&env).expect("env.json");
    let text = text.replace(
        "\"os\": \"Linux\"",
        "\"os\": \"<img src=x onerror=alert(1)> | x\"",
    );
    std::fs::write(&env, text).expect("write env.json");
    let out_dir = tmp.path().join("out");
    let out = report(&folder, &out_dir);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = std::fs::read_to_string(out_dir.join("ratios.csv")).expect("ratios.csv");
    for line in csv.lines() {
        for cell in line.split(',') {
            let cell = cell.trim_start_matches('"');
            let formula =
                cell.starts_with(['=', '+', '-', '@', '\t', '\r']) && cell.parse::<f64>().is_err();
            assert!(!formula, "a formula cell in ratios.csv: {cell:?} in {line}");
        }
    }
    assert!(csv.contains("'-cmd.tmpfs"), "{csv}");
    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(md.contains("onerror"), "the OS is not in report.md");
    assert!(!md.contains("<img"), "raw HTML in report.md");
    for line in md.lines().filter(|l| l.contains("onerror")) {
        assert!(line.contains("&lt;img"), "{line}");
        assert!(line.contains("\\| x"), "unescaped | in {line}");
    }
}

#[test]
fn a_profile_triebench_does_not_know_is_refused() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let folder = run_folder(tmp.path(), "host-a");
    // One benchmark's recorded id names a made-up profile.
    let mut changed = 0;
    let mut stack = vec![folder.join("criterion")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read").flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.file_name().is_some_and(|n| n == "benchmark.json") && changed == 0 {
                let text = std::fs::read_to_string(&path).expect("benchmark.json");
                if text.contains("\"sqlite-wal\"") && text.contains("scenario/") {
                    let text = text.replace("\"sqlite-wal\"", "\"=HYPERLINK(1)\"");
                    std::fs::write(&path, text).expect("write");
                    changed += 1;
                }
            }
        }
    }
    assert_eq!(changed, 1, "no scenario benchmark.json to change");
    let out = report(&folder, &tmp.path().join("out"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a made-up profile was reported");
    assert!(err.contains("not one triebench knows"), "{err}");
}
