//! "Against published figures" over real run records: `fixtures/field-report/` holds the JSON
//! that `triebench field` (iavl-bank, firewood-tenkrandom, scale 1, btree) and `triebench
//! smallbank` (btree, 20 accounts, 60 transactions) wrote in one tiny real run (its
//! `README.md` gives the commands). The section's rows are checked against those records and
//! the built-in list; a list whose anchor lacks its source fails the report naming it.

use std::path::{Path, PathBuf};

use triebench_report::analysis::published::{compare, Against};
use triebench_report::model::anchors::AnchorFile;
use triebench_report::read::{anchors, field_records};
use triebench_report::run_published_report;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/field-report")
}

/// The fixtures copied into a fresh folder (the report writes report.md into it).
fn copy() -> tempfile::TempDir {
    let Ok(dir) = tempfile::tempdir() else {
        panic!("tempdir")
    };
    for entry in walk(&fixtures()) {
        let Ok(rel) = entry.strip_prefix(fixtures()) else {
            panic!("prefix")
        };
        let to = dir.path().join(rel);
        if let Some(parent) = to.parent() {
            assert!(std::fs::create_dir_all(parent).is_ok());
        }
        assert!(std::fs::copy(&entry, &to).is_ok(), "{}", entry.display());
    }
    dir
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else {
        panic!("{} unreadable", dir.display())
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn built_in() -> AnchorFile {
    match anchors::parse(anchors::BUILT_IN, Path::new("anchors.json")) {
        Ok(f) => f,
        Err(e) => panic!("the built-in list must read: {e}"),
    }
}

#[test]
fn the_built_in_list_gives_every_anchor_its_source_and_date() {
    let list = built_in();
    assert!(!list.anchors.is_empty());
    for a in &list.anchors {
        assert!(a.source.starts_with("https://"), "{}", a.id);
        assert!(!a.date.is_empty() && !a.hardware.is_empty(), "{}", a.id);
    }
    // Firewood publishes no figure for its synthetic workloads: listed with the reason.
    assert!(list
        .unsourced
        .iter()
        .any(|u| u.ours == "firewood-tenkrandom" && !u.reason.is_empty()));
}

#[test]
fn rows_set_each_run_beside_its_anchor_with_the_ratio() {
    let runs = match field_records::read(&fixtures()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(runs.field.len(), 2, "{runs:?}");
    assert_eq!(runs.smallbank.len(), 1);
    let published = compare(&runs, &built_in());

    // iavl-bank: beside IAVL v2 and v1 (quoted), ours ÷ theirs from the record.
    let Some(iavl) = runs.field.iter().find(|f| f.record.workload == "iavl-bank") else {
        panic!("iavl-bank run")
    };
    let iavl_rows: Vec<_> = published
        .rows
        .iter()
        .filter(|r| r.workload == "iavl-bank")
        .collect();
    assert_eq!(iavl_rows.len(), 2);
    for r in &iavl_rows {
        let Against::Quoted(a) = &r.against else {
            panic!("quoted expected: {r:?}")
        };
        assert_eq!(r.ours, Some(iavl.record.leaves_per_s));
        assert_eq!(r.ratio, Some(iavl.record.leaves_per_s / a.figure));
        assert_eq!(r.folder, "memory");
    }

    // firewood-tenkrandom: no published figure, the reason kept.
    let Some(fw) = published
        .rows
        .iter()
        .find(|r| r.workload == "firewood-tenkrandom")
    else {
        panic!("firewood row")
    };
    assert!(
        matches!(&fw.against, Against::Nothing { reason, .. } if reason.contains("no commits/s") || reason.contains("no figure"))
    );
    assert_eq!(fw.ratio, None);

    // SmallBank: Transact measured in the same run first, then NOMT quoted.
    let sb = &runs.smallbank[0].record;
    let sb_rows: Vec<_> = published
        .rows
        .iter()
        .filter(|r| r.workload == "smallbank")
        .collect();
    assert_eq!(sb_rows.len(), 2);
    let Against::SameRun { figure, .. } = &sb_rows[0].against else {
        panic!("Transact from the same run expected: {:?}", sb_rows[0])
    };
    assert_eq!(*figure, sb.transact.transactions_per_s);
    assert_eq!(
        sb_rows[0].ratio,
        Some(sb.triebench.transactions_per_s / sb.transact.transactions_per_s)
    );
    assert!(matches!(&sb_rows[1].against, Against::Quoted(a) if a.id.starts_with("nomt")));

    // No merk run among these records: Merk's anchors are listed, not compared.
    assert!(published
        .not_compared
        .iter()
        .any(|a| a.id.starts_with("merk")));
    assert!(published
        .not_compared
        .iter()
        .all(|a| a.ours.as_deref() != Some("iavl-bank")));
}

#[test]
fn the_report_of_the_folder_renders_the_section() {
    let dir = copy();
    let path = match run_published_report(dir.path(), None) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(path, dir.path().join("report.md"));
    let Ok(md) = std::fs::read_to_string(&path) else {
        panic!("report.md")
    };
    assert!(md.contains("## Against published figures"), "{md}");
    assert!(md.contains("**The machines differ**"), "{md}");
    assert!(md.contains("42,686 leaves/s"), "{md}");
    assert!(md.contains("16-core AMD Ryzen 9 5950X"), "{md}");
    assert!(md.contains("this machine, same run"), "{md}");
    assert!(
        md.contains("With no published figure to stand beside"),
        "{md}"
    );
    assert!(md.contains("- `firewood-tenkrandom` (Firewood"), "{md}");
    assert!(
        md.contains("Published, with no run here beside them"),
        "{md}"
    );
    assert!(md.contains("## Field workload runs"), "{md}");
    assert!(md.contains("## SmallBank runs"), "{md}");
    // Every table row of the section has its nine cells.
    let section = md
        .split("## Against published figures")
        .nth(1)
        .unwrap_or("");
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        assert_eq!(line.matches(" | ").count(), 8, "{line}");
    }
}

#[test]
fn an_anchor_without_its_source_fails_the_report_naming_it() {
    let dir = copy();
    let mut list: serde_json::Value = match serde_json::from_str(anchors::BUILT_IN) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    list["anchors"][0]["source"] = serde_json::Value::String(String::new());
    let id = list["anchors"][0]["id"].as_str().unwrap_or("").to_string();
    let own = dir.path().join(anchors::FILE_NAME);
    assert!(std::fs::write(&own, list.to_string()).is_ok());
    let Err(e) = run_published_report(dir.path(), None) else {
        panic!("a figure without its source must not reach a report")
    };
    let text = e.to_string();
    assert!(text.contains(&id) && text.contains("no source"), "{text}");
    assert!(text.contains("anchors.json"), "{text}");
    assert!(!dir.path().join("report.md").exists());

    // A folder's own list with its sources replaces the built-in one.
    let mut list: serde_json::Value = match serde_json::from_str(anchors::BUILT_IN) {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    };
    list["anchors"][0]["figure"] = serde_json::json!(1234.0);
    assert!(std::fs::write(&own, list.to_string()).is_ok());
    let Ok(path) = run_published_report(dir.path(), None) else {
        panic!("a complete list reads")
    };
    let md = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        md.contains("1,234 leaves/s") && !md.contains("42,686"),
        "{md}"
    );
}

#[test]
fn a_record_that_does_not_read_fails_naming_it_and_an_empty_folder_is_refused() {
    let dir = copy();
    let bad = dir.path().join("memory").join("broken.json");
    assert!(std::fs::write(
        &bad,
        r#"{"workload": "iavl-bank", "commits_per_s": "fast", "leaves_per_s": 1}"#
    )
    .is_ok());
    let Err(e) = run_published_report(dir.path(), None) else {
        panic!("a broken record must fail the report")
    };
    assert!(e.to_string().contains("broken.json"), "{e}");

    let Ok(empty) = tempfile::tempdir() else {
        panic!("tempdir")
    };
    assert!(std::fs::write(empty.path().join("env.json"), "{}").is_ok());
    let Err(e) = run_published_report(empty.path(), None) else {
        panic!("no records: refused")
    };
    assert!(
        e.to_string().contains("no field or SmallBank run record"),
        "{e}"
    );
    assert!(!field_records::holds_records(empty.path()));
    assert!(field_records::holds_records(&fixtures()));
}

/// A `merk` field record as `triebench field --workload merk` writes it (figures set by hand).
fn merk_record() -> triebench_report::model::field_runs::FieldResult {
    triebench_report::model::field_runs::FieldResult {
        workload: "merk".into(),
        profile: "btree".into(),
        scale: 1,
        seed: 1,
        setup_commits: 5,
        commits: 2,
        leaves: 4_000,
        total_s: 0.1,
        commits_per_s: 20.0,
        leaves_per_s: 40_000.0,
        reads: 2_000,
        inserts_per_s: Some(46_000.0),
        updates_per_s: Some(64_000.0),
        reads_per_s: Some(420_000.0),
        ..Default::default()
    }
}

/// The fixtures with `record` added as `memory/btree-merk.json`: the rows compared with the
/// built-in list, and the report's "Against published figures" section.
fn with_merk_record(
    record: &triebench_report::model::field_runs::FieldResult,
) -> (triebench_report::analysis::published::Published, String) {
    let dir = copy();
    let record = match serde_json::to_string(record) {
        Ok(t) => t,
        Err(e) => panic!("{e}"),
    };
    assert!(std::fs::write(dir.path().join("memory").join("btree-merk.json"), record).is_ok());
    let runs = match field_records::read(dir.path()) {
        Ok(r) => r,
        Err(e) => panic!("{e}"),
    };
    let published = compare(&runs, &built_in());
    let path = match run_published_report(dir.path(), None) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    let md = std::fs::read_to_string(path).unwrap_or_default();
    let section = md
        .split("## Against published figures")
        .nth(1)
        .unwrap_or("")
        .to_string();
    (published, section)
}

#[test]
fn merk_runs_stand_beside_merks_inserts_updates_and_reads() {
    let (published, section) = with_merk_record(&merk_record());
    let merk: Vec<_> = published
        .rows
        .iter()
        .filter(|r| r.workload == "merk")
        .collect();
    let got: Vec<_> = merk
        .iter()
        .map(|r| {
            let Against::Quoted(a) = &r.against else {
                panic!("quoted expected: {r:?}")
            };
            (a.id.as_str(), r.unit, r.ours, r.ratio)
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "merk-inserts-macbook-2017",
                "inserts/s",
                Some(46_000.0),
                Some(2.0)
            ),
            (
                "merk-updates-macbook-2017",
                "updates/s",
                Some(64_000.0),
                Some(2.0)
            ),
            (
                "merk-reads-macbook-2017",
                "reads/s",
                Some(420_000.0),
                Some(2.0)
            ),
        ]
    );
    assert!(published
        .not_compared
        .iter()
        .all(|a| !a.id.starts_with("merk")));
    let merk_lines: Vec<_> = section
        .lines()
        .filter(|l| l.starts_with("| `merk`"))
        .collect();
    assert_eq!(merk_lines.len(), 3, "{section}");
    assert!(section.contains("23,000 inserts/s"), "{section}");
    assert!(section.contains("210,000 reads/s"), "{section}");
}

#[test]
fn merks_own_code_stands_first_in_a_merk_row_with_ratios_within_the_run() {
    let mut record = merk_record();
    record.merk = Some(triebench_report::model::field_runs::MerkSide {
        engine: "Merk 2.0.1".into(),
        rocksdb: "7.8.3".into(),
        inserts_per_s: 23_000.0,
        updates_per_s: 32_000.0,
        reads_per_s: 840_000.0,
        ..Default::default()
    });
    let (published, section) = with_merk_record(&record);
    let merk: Vec<_> = published
        .rows
        .iter()
        .filter(|r| r.workload == "merk")
        .collect();
    // Merk's own code first (three rows), then the README's three figures.
    assert_eq!(merk.len(), 6, "{merk:?}");
    let same_run: Vec<_> = merk[..3]
        .iter()
        .map(|r| {
            let Against::SameRun { engine, figure } = &r.against else {
                panic!("same run expected: {r:?}")
            };
            assert_eq!(
                engine,
                "Merk 2.0.1's own code (RocksDB 7.8.3, unsynced), measured in the same run"
            );
            (r.unit, *figure, r.ratio)
        })
        .collect();
    assert_eq!(
        same_run,
        [
            ("inserts/s", 23_000.0, Some(2.0)),
            ("updates/s", 32_000.0, Some(2.0)),
            ("reads/s", 840_000.0, Some(0.5)),
        ]
    );
    assert!(merk[3..]
        .iter()
        .all(|r| matches!(r.against, Against::Quoted(_))));
    let own: Vec<_> = section
        .lines()
        .filter(|l| l.starts_with("| `merk`") && l.contains("Merk 2.0.1's own code"))
        .collect();
    assert_eq!(own.len(), 3, "{section}");
    assert!(own[0].contains("23,000 inserts/s"), "{}", own[0]);
    assert!(own[0].contains("this machine, same run"), "{}", own[0]);
    assert!(own[2].contains("**0.500×**"), "{}", own[2]);
}
