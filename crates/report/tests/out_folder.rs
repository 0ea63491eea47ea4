//! The output folder of a report (issue 34): a report that stops part-way leaves the previous
//! folder exactly as it was, and leaves no fresh folder behind.

use triebench_report::out_folder::OutFolder;

#[test]
fn a_report_stopped_mid_write_leaves_the_previous_folder_intact() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("report");
    std::fs::create_dir(&out).unwrap();
    for marker in triebench_report::out_folder::REPORT_MARKERS {
        std::fs::write(out.join(marker), format!("old {marker}")).unwrap();
    }
    std::fs::write(out.join("ratios.csv"), "old ratios").unwrap();

    let writing = OutFolder::prepare(&out, &[]).unwrap();
    assert_ne!(writing.path(), out.as_path());
    std::fs::write(writing.path().join("report.md"), "half a new report").unwrap();
    // The report fails here: its writer returns an error and the folder is dropped.
    drop(writing);

    assert_eq!(
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        "old report.md"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("ratios.csv")).unwrap(),
        "old ratios"
    );
    let names: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["report"], "nothing else left beside it");

    // Finished, the new report takes the folder's place and what it did not write stays.
    let writing = OutFolder::prepare(&out, &[]).unwrap();
    std::fs::write(writing.path().join("report.md"), "new report").unwrap();
    assert_eq!(writing.finish().unwrap(), out);
    assert_eq!(
        std::fs::read_to_string(out.join("report.md")).unwrap(),
        "new report"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("ratios.csv")).unwrap(),
        "old ratios"
    );
}
