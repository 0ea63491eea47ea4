//! Load folders as the report reads them: `load.json` files captured from real `triebench load`
//! runs (fixtures/load/) parse, render as the matrix, the search and the comparison, and bench-fs.sh's
//! layout under the criterion directory feeds the "Sustained commits/s" section and its plot.

use std::path::PathBuf;

use triebench_record::load::SecondSample;
use triebench_report::model::load::RerunRule;
use triebench_report::read::load_runs::{load_dir, read_all, read_load_file};
use triebench_report::render::load_files::{
    compare_markdown, matrix_markdown, search_markdown, timeseries_csv, write_load_folder,
};
use triebench_report::render::load_section;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/load")
        .join(name)
}

#[test]
fn the_matrix_has_a_row_per_reader_count_and_a_column_per_rate() {
    let f = read_load_file(&fixture("matrix-sqlite-wal.json")).unwrap();
    let md = matrix_markdown(&f);
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 2 + f.config.readers.len(), "{md}");
    assert_eq!(
        rows[0].matches('|').count(),
        f.config.rates.len() + 2,
        "{md}"
    );
    assert!(md.contains("**sat**"), "{md}");
}

#[test]
fn a_search_lists_each_rate_tried_with_its_pooled_verdict() {
    // A real search (lmdb on tmpfs) in which 50/s ran twice: its first run's p99 was over the
    // bound, the pooled 200 commits held.
    let f = read_load_file(&fixture("search-lmdb.json")).unwrap();
    let md = search_markdown(&f);
    let rows: Vec<&str> = md.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(rows.len(), 2 + f.search.len(), "{md}");
    assert_eq!(f.search.iter().map(|s| s.runs).sum::<usize>(), f.runs.len());
    let twice = f
        .search
        .iter()
        .find(|s| s.runs == 2)
        .expect("a rate run twice");
    assert!(twice.holds && f.runs.iter().any(|r| r.rate == twice.rate && r.saturated));
    assert!(
        rows[2].starts_with("| 50 | 2 | 200 |") && rows[2].ends_with("| holds |"),
        "{md}"
    );
    let best = f.saturation.expect("a rate held").commits_per_sec;
    assert!(md.contains(&format!("Sustained: **{best}/s**")), "{md}");
    assert!(md.contains("fewer than 400 commits ran again"), "{md}");
    // Files from before the search was recorded still read, with nothing to list.
    let old = read_load_file(&fixture("saturate-lmdb.json")).unwrap();
    assert!(old.search.is_empty() && search_markdown(&old).is_empty());
}

#[test]
fn a_folder_written_again_keeps_nothing_of_the_run_before() {
    let dir = tempfile::tempdir().unwrap();
    let matrix = read_load_file(&fixture("matrix-sqlite-wal.json")).unwrap();
    let search = read_load_file(&fixture("search-lmdb.json")).unwrap();
    write_load_folder(dir.path(), &matrix, &[], false).unwrap();
    std::fs::write(dir.path().join("latency.svg"), "<svg/>").unwrap();
    assert!(dir.path().join("matrix.md").is_file());
    write_load_folder(dir.path(), &search, &[], false).unwrap();
    assert!(!dir.path().join("matrix.md").exists());
    assert!(!dir.path().join("latency.svg").exists());
    assert!(dir.path().join("search.md").is_file());
    let back = read_load_file(&dir.path().join("load.json")).unwrap();
    assert_eq!(back, search);
}

#[test]
fn compare_sets_every_figure_side_by_side_with_its_ratio() {
    let a = read_load_file(&fixture("saturate-lmdb.json")).unwrap();
    let b = read_load_file(&fixture("matrix-sqlite-wal.json")).unwrap();
    let md = compare_markdown(&a, "a", &b, "b");
    for figure in [
        "commit per_sec",
        "commit p99",
        "read p999",
        "saturation commits_per_sec",
    ] {
        assert!(md.contains(&format!("| {figure} |")), "{figure}: {md}");
    }
    let same = compare_markdown(&a, "a", &a, "a");
    assert!(same.contains("| commit count |"));
    assert!(same.contains("1.00×") || same.contains("1×"), "{same}");
}

#[test]
fn timeseries_has_the_documented_header_and_one_row_per_second() {
    let rows = [SecondSample {
        t_s: 1,
        commits: 5,
        ..SecondSample::default()
    }];
    let csv = timeseries_csv(&rows);
    assert_eq!(
        csv,
        "t_s,commits,commit_p99_us,reads,read_p99_us,rss_bytes,cpu_pct,store_bytes\n\
         1,5,0,0,0,0,0.0,0\n"
    );
}

#[test]
fn bench_fs_layout_feeds_the_sustained_section_and_plot() {
    let crit = tempfile::tempdir().unwrap();
    for run in ["tmpfs", "disk"] {
        let dir = load_dir(crit.path(), run, "lmdb");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(fixture("saturate-lmdb.json"), dir.join("load.json")).unwrap();
    }
    let mut entries = read_all(crit.path(), &["tmpfs".to_string(), "disk".to_string()]).unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].run, "tmpfs");
    let mut md = String::new();
    load_section::render(&mut md, &entries);
    assert!(md.contains("## Sustained commits/s"), "{md}");
    assert!(md.contains("| `lmdb` | **yes** (fsync/commit) |"), "{md}");
    assert!(md.contains("/s (p99 "), "{md}");
    // The fixture predates re-run rates; a search that re-ran them says so.
    assert!(!md.contains("ran again"), "{md}");
    entries[0].file.config.rerun_below = Some(RerunRule {
        min_commits: 400,
        max_runs: 3,
    });
    let mut rerun = String::new();
    load_section::render(&mut rerun, &entries);
    assert!(
        rerun.contains("fewer than 400 commits ran again (up to 3 runs)"),
        "{rerun}"
    );
    let out = tempfile::tempdir().unwrap();
    let plot = load_section::write_plot(&entries, out.path()).unwrap();
    assert!(plot.is_some() && out.path().join("sustained.png").is_file());
    let mut none = String::new();
    load_section::render(&mut none, &[]);
    assert!(none.is_empty());
}
