//! "Can these figures be trusted?" on real run records: a clean pair of runs flags nothing and
//! shows each run's host, SHA-512 speed, load and idle CPUs; each anomaly planted in a record
//! (a busy machine, a profile faster on the slower filesystem, a commit cheaper than its floor,
//! a wide interval, too few samples) is flagged with the command that measures it again; a
//! record from before load was sampled says "not recorded".

use triebench_record::vocabulary::UPDATE_KEYS;
use triebench_record::{
    Benchmark, CpuIdle, CpuIdleRecord, Environment, HostInfo, HostLoad, LoadSpan, RunRecord,
    Sample, Versions,
};
use triebench_report::{run_report, ReportArgs};

fn environment() -> Environment {
    let text = |s: &str| s.to_string();
    Environment {
        host: HostInfo {
            hostname: text("recorder"),
            cpu_model: text("Test CPU 9000"),
            cores: 16,
            physical_cores: Some(8),
            ram_bytes: Some(1 << 30),
            kernel: text("6.1"),
            os: text("linux x86_64"),
        },
        versions: Versions {
            sqlite: text("3.99.0"),
            lmdb: text("LMDB 0.9.99"),
            redis_server: text("not found"),
            triebench: text("0.1.0"),
            git_commit: text("abc"),
            git_dirty: Some(false),
        },
    }
}

/// `n` one-iteration samples spread ±`spread` (a share) evenly around `mean`.
fn samples(mean: f64, spread: f64, n: usize) -> Vec<Sample> {
    (0..n)
        .map(|i| {
            let t = if n > 1 {
                i as f64 / (n - 1) as f64 * 2.0 - 1.0
            } else {
                0.0
            };
            Sample::one(mean * (1.0 + spread * t))
        })
        .collect()
}

fn quiet() -> HostLoad {
    HostLoad {
        cores: 16,
        spans: ["floors", "btree", "lmdb"]
            .map(|what| LoadSpan {
                what: what.into(),
                seconds: 3.0,
                load_1m: 1.1,
                steal: 0.0,
                busy: 0.07,
                own: 0.06,
            })
            .to_vec(),
    }
}

/// A clean headline record of `run`: `slow` times the tmpfs cost on lmdb, every interval
/// tight, ten samples per benchmark, each commit well above its floor, a quiet machine.
fn record(run: &str, slow: f64, fsync_ns: f64) -> RunRecord {
    let k = f64::from(UPDATE_KEYS);
    let mut r = RunRecord::new(
        run,
        "headline",
        "2026-11-28T00:00:00Z".into(),
        environment(),
    );
    r.cpu_idle = Some(CpuIdleRecord {
        requested: CpuIdle::Poll,
        held: CpuIdle::Os,
        detail: "not root".into(),
    });
    r.host_load = Some(quiet());
    let mut push = |group: &str, function: &str, profile: Option<&str>, s: Vec<Sample>| {
        r.benchmarks
            .push(Benchmark::ns(group, function, profile, s));
    };
    push("floor", "fsync_4k", None, samples(fsync_ns, 0.02, 10));
    push("floor", "sha512_8k", None, samples(28_800.0, 0.02, 10));
    for (p, scale) in [("btree", 1.0), ("lmdb", slow)] {
        let base = if p == "btree" { 1.0 } else { 3.0 };
        push(
            "scenario/suite",
            p,
            Some(p),
            samples(40e6 * base * scale, 0.02, 10),
        );
        push(
            "scenario/update",
            p,
            Some(p),
            samples(30e3 * base * scale * k, 0.02, 10),
        );
        push(
            "scenario/empty_changes",
            p,
            Some(p),
            samples(20e3 * base * scale, 0.02, 10),
        );
        push(
            "floor/commit",
            p,
            Some(p),
            samples(5e3 * base * scale, 0.02, 10),
        );
    }
    r
}

fn replace(r: &mut RunRecord, id: &str, s: Vec<Sample>) {
    match r.benchmarks.iter_mut().find(|b| b.id() == id) {
        Some(b) => b.samples = s,
        None => panic!("no {id}"),
    }
}

/// The report of `tmpfs` (baseline) and `disk` from these records, as report.md's text.
fn report_of(tmpfs: RunRecord, disk: RunRecord) -> String {
    let tmp = tempfile::tempdir().unwrap();
    let crit = tmp.path().join("criterion");
    tmpfs.write(&crit).unwrap();
    disk.write(&crit).unwrap();
    let out = tmp.path().join("out");
    run_report(&ReportArgs {
        baseline: "tmpfs".into(),
        runs: vec!["disk".into()],
        out: Some(out.clone()),
        criterion_dir: Some(crit.clone()),
        label: None,
        results_root: out.clone(),
    })
    .unwrap();
    let md = std::fs::read_to_string(out.join("report.md")).unwrap();
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains("Can these figures be trusted?"),
        "in the page too"
    );
    md
}

/// The text of the trust section.
fn section(md: &str) -> &str {
    let start = md.find("## Can these figures be trusted?").unwrap();
    let end = md[start + 3..]
        .find("\n## ")
        .map_or(md.len(), |e| e + start + 3);
    &md[start..end]
}

fn clean_pair() -> (RunRecord, RunRecord) {
    (record("tmpfs", 1.0, 1_000.0), record("disk", 2.0, 60_000.0))
}

#[test]
fn a_clean_pair_of_runs_flags_nothing_and_shows_host_speed_load_and_idle_cpus() {
    let (t, d) = clean_pair();
    let md = report_of(t, d);
    assert!(
        md.starts_with("# triebench report: tmpfs vs disk\n\n## Can these figures be trusted?"),
        "{}",
        &md[..200]
    );
    let s = section(&md);
    assert!(s.contains("Nothing in this data is flagged"), "{s}");
    assert!(s.contains("Test CPU 9000 | 16 |"), "{s}");
    assert!(s.contains("28.8 µs ["), "SHA-512 of 8 KiB: {s}");
    assert!(s.contains("load average up to 1.10 on 16 CPUs"), "{s}");
    assert!(s.contains("polling refused (not root)"), "{s}");
    // The summary leads with above-floor ÷ btree's (lmdb: 3×, with an interval), then the
    // suite ÷ btree.
    let lmdb = md
        .lines()
        .find(|l| l.starts_with("| `lmdb` |") && l.contains("above"))
        .unwrap();
    assert!(lmdb.contains("3.00× ["), "{lmdb}");
    let tail = md
        .lines()
        .find(|l| l.starts_with("| profile | durable | `tmpfs`: above"))
        .unwrap();
    assert!(
        tail.find("above floor").unwrap() < tail.find("suite ÷").unwrap(),
        "{tail}"
    );
}

#[test]
fn each_planted_anomaly_is_flagged_with_why_and_its_rerun() {
    let (mut t, mut d) = clean_pair();
    // lmdb's empty_changes slower on tmpfs than on the slower disk (the 0.056x).
    replace(
        &mut t,
        "scenario/empty_changes/lmdb",
        samples(488e3, 0.02, 10),
    );
    replace(
        &mut d,
        "scenario/empty_changes/lmdb",
        samples(27e3, 0.02, 10),
    );
    // lmdb's floor on the disk above its update commit.
    replace(&mut d, "floor/commit/lmdb", samples(886e3, 0.02, 10));
    // btree's suite on the disk all over the place; its floor/commit on tmpfs from 3 samples.
    replace(&mut d, "scenario/suite/btree", samples(40e6, 0.95, 10));
    replace(&mut t, "floor/commit/btree", samples(5e3, 0.02, 3));
    // Others busy while the disk run measured lmdb.
    let mut busy = quiet();
    busy.spans[2].busy = 0.8;
    busy.spans[2].load_1m = 7.5;
    d.host_load = Some(busy);
    let md = report_of(t, d);
    let s = section(&md);
    for heading in [
        "### The machine was busy (1)",
        "### Faster on the slower filesystem (1)",
        "### Commits cheaper than their own storage floor (1)",
        "### Intervals too wide to say anything (1)",
        "### Too few samples (1)",
    ] {
        assert!(s.contains(heading), "{heading}: {s}");
    }
    assert!(s.contains("Why it matters, for every row:"), "{s}");
    let row = |needle: &str| {
        s.lines()
            .find(|l| l.starts_with("| `") && l.contains(needle))
            .unwrap_or_else(|| panic!("{needle}: {s}"))
            .to_string()
    };
    let inversion = row("scenario/empty_changes/lmdb");
    assert!(
        inversion.contains("`disk` ÷ `tmpfs` 5.53e-2×"),
        "{inversion}"
    );
    assert!(
        inversion.contains(
            "triebench report --baseline tmpfs-recheck --runs disk-recheck --criterion-dir"
        ),
        "{inversion}"
    );
    let negative = row("`lmdb` `update` commit");
    assert!(negative.contains("above -"), "{negative}");
    assert!(
        negative.contains("--run disk-recheck --profiles lmdb"),
        "{negative}"
    );
    assert!(row("scenario/suite/btree").contains("mean 40.0 ms"));
    assert!(row("floor/commit/btree").contains("3 sample(s)"));
    assert!(row("others used 74%").contains("load average 7.50"));
    // The summary gives no figure for a negative above-floor.
    assert!(md.contains("no figure: above -"), "summary");
}

#[test]
fn a_record_from_before_load_was_sampled_says_not_recorded() {
    let (mut t, d) = clean_pair();
    t.host_load = None;
    let md = report_of(t, d);
    let s = section(&md);
    let tmpfs = s.lines().find(|l| l.starts_with("| `tmpfs` |")).unwrap();
    assert!(tmpfs.ends_with("| not recorded |"), "{tmpfs}");
    assert!(s.contains("Nothing in this data is flagged"), "{s}");
}
