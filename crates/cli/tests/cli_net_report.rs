//! `triebench net-report DIR`: on the committed network results it writes net-report.md with
//! the suite rows per profile and distance, the plot and env.json; on a folder with no run
//! records it exits non-zero with one message naming the folder and what to run.

mod common;

use common::{copy_dir, repo, triebench};

#[test]
fn the_network_results_folder_is_reported() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("net");
    copy_dir(
        &repo().join("results/2026-11-26-vm-network/headline"),
        &folder.join("headline"),
    );
    std::fs::remove_file(folder.join("headline/direct/headline.json")).unwrap();
    let out = triebench(&["net-report", folder.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let md = std::fs::read_to_string(folder.join("net-report.md")).unwrap();
    for distance in ["proxy 0", "250 µs", "1 ms"] {
        assert!(
            md.contains(&format!("| `postgres` | {distance} |")),
            "postgres at {distance}:\n{md}"
        );
    }
    assert!(
        !md.contains("| direct |"),
        "the direct run was removed:\n{md}"
    );
    assert!(folder.join("plots/net-suite.svg").is_file());
    assert!(folder.join("env.json").is_file());
}

#[test]
fn a_folder_without_runs_fails_with_one_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = triebench(&["net-report", dir.path().to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no headline.json or load.json"), "{err}");
    assert!(err.contains(&dir.path().display().to_string()), "{err}");
}
