//! `triebench report` over plain criterion baselines (what `cargo bench -- --save-baseline NAME`
//! leaves) writes report.html beside report.md, and both link criterion's own HTML report when
//! the criterion directory has one.

mod common;

use common::{copy_dir, repo, triebench};

const CRITERION: &str =
    "results/2026-11-23-vm-suite-postgres-transact/runs/vm-tmpfs-2026-11-23/criterion";

#[test]
fn a_report_of_criterion_baselines_links_criterions_html() {
    let tmp = tempfile::tempdir().unwrap();
    let criterion = tmp.path().join("criterion");
    copy_dir(&repo().join(CRITERION), &criterion);
    let out = tmp.path().join("report");
    let args = |out: &std::path::Path| {
        vec![
            "report".to_string(),
            "--baseline".into(),
            "tmpfs".into(),
            "--criterion-dir".into(),
            criterion.display().to_string(),
            "--out".into(),
            out.display().to_string(),
        ]
    };
    let run = |out: &std::path::Path| {
        let a = args(out);
        let made = triebench(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert!(
            made.status.success(),
            "{}",
            String::from_utf8_lossy(&made.stderr)
        );
        (
            std::fs::read_to_string(out.join("report.md")).unwrap(),
            std::fs::read_to_string(out.join("report.html")).unwrap(),
        )
    };
    let (md, html) = run(&out);
    assert!(md.contains("`report.html`"), "the Files section lists it");
    assert!(
        !md.contains("criterion's own HTML report"),
        "no criterion HTML yet"
    );
    assert!(
        html.starts_with("<!DOCTYPE html>") && html.contains("<section class=\"report-section\"")
    );
    assert!(!html.contains("class=\"criterion-link\""));

    let index = criterion.join("report/index.html");
    std::fs::create_dir_all(index.parent().unwrap()).unwrap();
    std::fs::write(&index, "<html></html>").unwrap();
    let (md, html) = run(&tmp.path().join("report2"));
    let link = format!("file://{}", index.display());
    assert!(md.contains(&link), "{md}");
    assert!(html.contains("class=\"criterion-link\"") && html.contains(&link));
}
