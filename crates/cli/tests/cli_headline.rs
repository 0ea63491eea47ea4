//! `triebench headline` on real stores (btree, and LMDB files under a temporary directory):
//! every scenario and the suite are saved in the run's record with the samples the run
//! promises (ten per round, the suite's summing the scenarios'), each profile's storage floor
//! is saved beside them, so are the fsync and SHA-512 floors and a phase span's cost and what
//! idle CPUs did, and `triebench report` reads them like criterion's own.

use std::path::Path;
use std::process::Command;

fn triebench(args: &[&str], extra: &[&Path]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .args(extra)
        .output()
        .expect("triebench runs");
    let stdout = String::from_utf8_lossy(&output.stdout).to_string();
    let stderr = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(output.status.success(), "{args:?}: {stderr}");
    (stdout, stderr)
}

/// The per-iteration times (ns) of benchmark `id` in run record `record`.
fn samples(record: &triebench_record::RunRecord, id: &str) -> Vec<f64> {
    record
        .benchmarks
        .iter()
        .find(|b| b.id() == id)
        .unwrap_or_else(|| panic!("{id} is in the run record"))
        .per_iteration_ns()
}

#[test]
fn headline_saves_every_scenario_and_the_suite_and_report_reads_them() {
    let work = tempfile::tempdir().expect("temp dir");
    let criterion = work.path().join("criterion");
    let stores = work.path().join("stores");
    std::fs::create_dir_all(&stores).expect("stores dir");
    let (stdout, stderr) = triebench(
        &[
            "headline",
            "--run",
            "fast",
            "--profiles",
            "btree,lmdb",
            "--max-rounds",
            "2",
            // A budget no host spends: the rounds are max-rounds', whatever the machine's
            // speed (at 60 s a loaded host fitted one round of lmdb's and the test failed).
            "--budget",
            "3600",
            "--criterion-dir",
        ],
        &[&criterion, Path::new("--dir"), &stores],
    );
    // Per profile ten scenarios, the suite, the storage floor and the fresh store's set-up
    // (`setup/open`); then four small benchmarks.
    assert!(stdout.contains("30 benchmarks saved"), "{stdout}");
    assert!(stderr.contains("headline: btree"), "{stderr}");
    // What idle CPUs did (held polling as root, else why not) is recorded for the report.
    let record = std::fs::read_to_string(criterion.join("triebench-runs/headline/fast.json"))
        .expect("the CPU idle record");
    assert!(record.contains("\"requested\": \"poll\""), "{record}");
    assert!(stderr.contains("headline: idle CPUs"), "{stderr}");

    // The run record: this crate's format, named for the run and the command.
    let record_path = criterion.join("triebench-runs/records/fast/headline.json");
    let record = triebench_record::RunRecord::read(&record_path)
        .expect("a valid run record")
        .expect("the run record is written");
    assert_eq!(
        (record.run.as_str(), record.command.as_str()),
        ("fast", "headline")
    );
    assert_eq!(record.benchmarks.len(), 30);
    assert!(record.cpu_idle.is_some() && record.filesystem.is_some());
    // How busy the machine was, per stretch: the small benchmarks, then each profile.
    let load = record
        .host_load
        .as_ref()
        .expect("the machine's load is recorded");
    let stretches: Vec<&str> = load.spans.iter().map(|s| s.what.as_str()).collect();
    assert_eq!(stretches, ["floors", "btree", "lmdb"]);
    assert!(load.spans.iter().all(|s| s.seconds > 0.0
        && (0.0..=1.0).contains(&s.busy)
        && (0.0..=1.0).contains(&s.own)
        && (0.0..=1.0).contains(&s.steal)));
    assert!(load.cores >= 1);

    // Two rounds: twenty samples for every scenario, `update` (ten per run) and the small ones
    // (one per run) alike; the suite's sample j sums the scenarios' sample j.
    let scenarios = triebench_workloads::SCENARIOS.map(|s| s.name());
    for profile in ["btree", "lmdb"] {
        let mut sum = vec![0.0; 20];
        for s in scenarios {
            let got = samples(&record, &format!("scenario/{s}/{profile}"));
            assert_eq!(got.len(), 20, "{s} on {profile}");
            assert!(got.iter().all(|&t| t > 0.0), "{s} on {profile}: {got:?}");
            for (acc, t) in sum.iter_mut().zip(&got) {
                *acc += t;
            }
        }
        let suite = samples(&record, &format!("scenario/suite/{profile}"));
        for (a, b) in suite.iter().zip(&sum) {
            assert!((a - b).abs() <= 1e-6 * b, "{profile}: suite {a} vs sum {b}");
        }
        // The floor: ten samples per round (30 commits each), paired with `update`'s ten of the
        // same round; each a real commit's time.
        let floor = samples(&record, &format!("floor/commit/{profile}"));
        assert_eq!(floor.len(), 20, "floor on {profile}");
        assert!(
            floor.iter().all(|&t| t > 0.0),
            "floor on {profile}: {floor:?}"
        );
    }

    let out = work.path().join("report");
    triebench(
        &[
            "report",
            "--baseline",
            "fast",
            "--runs",
            "fast",
            "--criterion-dir",
        ],
        &[&criterion, Path::new("--out"), &out],
    );
    let report = std::fs::read_to_string(out.join("report.md")).expect("report.md");
    assert!(
        report.contains("triebench headline"),
        "methods note missing"
    );
    // The report opens by questioning itself, with this run's host and recorded load.
    let trust = report
        .split("## Can these figures be trusted?")
        .nth(1)
        .expect("the opening section");
    let fast = trust
        .lines()
        .find(|l| l.starts_with("| `fast` |"))
        .expect("the run's host row");
    assert!(fast.contains("load average up to"), "{fast}");
    let section = report
        .split("## Each backend against its storage floor")
        .nth(1)
        .expect("the storage-floor section");
    assert!(
        report.contains("- Idle CPUs during the headline (`--cpu-idle`): `fast`: idle CPUs"),
        "the report states what idle CPUs did:\n{report}"
    );
    for profile in ["btree", "lmdb"] {
        assert!(
            section.lines().any(
                |l| l.starts_with(&format!("| `{profile}` |")) && l.matches(" · ").count() == 2
            ),
            "{profile}'s floor, update and above are in the section:\n{section}"
        );
    }
    // The small benchmarks, as criterion's kv and phases benches would have given them.
    let line = |start: &str| {
        report
            .lines()
            .find(|l| l.starts_with(start))
            .unwrap_or_else(|| panic!("no line starting {start:?} in the report"))
    };
    assert!(
        line("| fsync latency (`floor/fsync_4k`) |").contains(" [")
            && line("| SHA-512 8 KiB (`floor/sha512_8k`) |").contains("B/s"),
        "the floors table has both floors measured"
    );
    // Any unit: on a loaded host a span can cost more than a microsecond, and a test never
    // asserts speed.
    let span = line("| `no-subscriber` |");
    assert!(
        [" ns", " µs", " ms"].iter().any(|unit| span.contains(unit)),
        "the span cost is reported: {span}"
    );
    let ratios = std::fs::read_to_string(out.join("ratios.csv")).expect("ratios.csv");
    assert!(
        ratios.lines().any(|l| l.contains("scenario/suite/lmdb")),
        "the suite on lmdb is in ratios.csv:\n{ratios}"
    );
}
