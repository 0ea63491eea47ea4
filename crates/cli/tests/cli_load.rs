//! `triebench load`: a one-second real run on every profile this build includes writes
//! load.json (with the documented fields), timeseries.csv and the plots; `--compare` reads two
//! of them back; bad arguments are one clear error.

use std::path::Path;
use std::process::{Command, Output};

use triebench_kv::Profile;

fn triebench(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .output()
        .expect("triebench runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn one_second_run(profile: Profile, work: &Path, plots: bool) -> serde_json::Value {
    let dir = work.join(format!("store-{profile}"));
    let out = work.join(format!("out-{profile}"));
    let mut args = vec![
        "load",
        "--backend",
        profile.name(),
        "--dir",
        dir.to_str().unwrap(),
        "--state-size",
        "300",
        "--commit-size",
        "5",
        "--readers",
        "1",
        "--rate",
        "20",
        "--duration",
        "1s",
        "--out",
        out.to_str().unwrap(),
    ];
    if !plots {
        // Plots render slowly in a debug build; the btree run checks them.
        args.push("--no-plots");
    }
    let o = triebench(&args);
    assert!(o.status.success(), "{profile}: {}", text(&o.stderr));
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("load.json")).unwrap()).unwrap();
    for kind in ["commit", "read"] {
        for field in ["count", "per_sec", "p50_us", "p99_us", "p999_us", "max_us"] {
            assert!(json[kind][field].is_number(), "{profile}: {kind}.{field}");
        }
    }
    assert!(json["commit"]["count"].as_u64().unwrap() > 0, "{profile}");
    assert!(json["read"]["count"].as_u64().unwrap() > 0, "{profile}");
    assert_eq!(json["config"]["backend"], profile.name());
    assert!(json["env"]["host"]["cores"].is_number());
    // What idle CPUs did (held polling as root, else why not) is in the file.
    assert_eq!(json["env"]["cpu_idle"]["requested"], "poll", "{profile}");
    assert!(json["env"]["cpu_idle"]["detail"].is_string(), "{profile}");
    let csv = std::fs::read_to_string(out.join("timeseries.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("t_s,commits,commit_p99_us,reads,read_p99_us,rss_bytes,cpu_pct,store_bytes")
    );
    let row: Vec<&str> = lines
        .next()
        .expect("one row per second")
        .split(',')
        .collect();
    assert_eq!(row[0], "1");
    assert!(
        row[5].parse::<u64>().unwrap() > 0,
        "{profile}: rss in {csv}"
    );
    if profile.needs_dir() && profile != Profile::Redis {
        assert!(
            row[7].parse::<u64>().unwrap() > 0,
            "{profile}: store_bytes in {csv}"
        );
    }
    for plot in ["latency", "throughput", "resources"]
        .into_iter()
        .filter(|_| plots)
    {
        for ext in ["svg", "png"] {
            assert!(
                out.join(format!("{plot}.{ext}")).is_file(),
                "{profile}: {plot}.{ext}"
            );
        }
    }
    json
}

#[test]
fn a_one_second_run_on_every_profile_writes_the_folder() {
    let work = tempfile::tempdir().unwrap();
    // One thread per profile: each run lasts a second plus its preload.
    std::thread::scope(|s| {
        for profile in Profile::enabled() {
            let work = work.path();
            s.spawn(move || one_second_run(profile, work, profile == Profile::Btree));
        }
    });
    let a = work.path().join("out-btree");
    let last = Profile::enabled().last().copied().unwrap();
    let b = work.path().join(format!("out-{last}"));
    let o = triebench(&[
        "load",
        "--compare",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("| commit p99 |"), "{out}");
    assert!(out.contains("B ÷ A"), "{out}");
    assert!(
        out.contains("; idle CPUs "),
        "each side says what idle CPUs did: {out}"
    );
}

#[test]
fn bad_arguments_are_one_clear_error() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["load", "--rate", "0"],
            "--rate must be a finite number above 0",
        ),
        (
            &["load", "--rate=-5"],
            "--rate must be a finite number above 0",
        ),
        (&["load", "--backend", "nosuch"], "nosuch"),
        (&["load", "--readers", ""], "matrix is empty"),
        (&["load", "--rate", "40,40"], "`40` is given twice"),
        (&["load", "--readers", "1,2,1"], "`1` is given twice"),
        (
            &["load", "--readers", "100000"],
            "more than 1024 reader threads",
        ),
    ];
    for (args, expect) in cases {
        let o = triebench(args);
        assert!(!o.status.success(), "{args:?}");
        let err = text(&o.stderr);
        assert!(err.contains(expect), "{args:?}: {err}");
    }
}

/// Starts `load` on `backend` (two 60 s rates, `extra` arguments), waits for its preload and
/// 1.5 s of its first run, interrupts it with SIGINT (to its whole process group with
/// `as_a_terminal`, as Ctrl-C at a terminal does), and returns its exit status, the rest of its
/// standard error and its `load.json`.
fn interrupt_load(
    backend: &str,
    extra: &[&str],
    as_a_terminal: bool,
) -> (std::process::ExitStatus, String, serde_json::Value) {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    use std::process::Stdio;

    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("out");
    let mut command = Command::new(env!("CARGO_BIN_EXE_triebench"));
    command
        .args(["load", "--backend", backend, "--state-size", "300"])
        .args(["--readers", "0", "--rate", "20,40", "--duration", "60s"])
        .args(["--no-plots", "--out", out.to_str().unwrap()])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if as_a_terminal {
        command.process_group(0);
    }
    let mut child = command.spawn().expect("triebench starts");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    // The preload's line comes after the signal handlers are in place; the first run follows.
    let mut line = String::new();
    while !line.contains("preloaded") {
        line.clear();
        assert!(
            stderr.read_line(&mut line).expect("stderr") > 0,
            "exited early"
        );
    }
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let pid = i32::try_from(child.id()).expect("pid");
    let target = if as_a_terminal { -pid } else { pid };
    // SAFETY: signals the child this test spawned, or the process group made for it.
    assert_eq!(unsafe { libc::kill(target, libc::SIGINT) }, 0);
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    let status = child.wait().expect("wait");
    let json = std::fs::read_to_string(out.join("load.json"))
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(serde_json::Value::Null);
    (status, rest, json)
}

#[test]
fn ctrl_c_keeps_the_runs_made_and_exits_130() {
    let (status, rest, json) = interrupt_load("btree", &[], false);
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(
        rest.contains("stopped: load was stopped;") && rest.contains("cut short"),
        "{rest}"
    );
    let runs = json["runs"].as_array().expect("runs");
    assert_eq!(runs.len(), 1, "the second rate never started");
    assert_eq!(runs[0]["stopped"], true);
    assert!(json["commit"]["count"].as_u64().unwrap() > 0);
}

#[test]
fn a_search_names_the_rate_it_sustains_and_records_its_rerun_rule() {
    let work = tempfile::tempdir().expect("temp dir");
    let out = work.path().join("out");
    let o = triebench(&[
        "load",
        "--backend",
        "btree",
        "--state-size",
        "200",
        "--readers",
        "1",
        "--saturate",
        "--duration",
        "500ms",
        "--budget",
        "3s",
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = text(&o.stdout);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(stdout.contains("btree sustains "), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("load.json")).unwrap()).unwrap();
    assert_eq!(json["config"]["rerun_below"]["min_commits"], 400);
    assert_eq!(json["config"]["rerun_below"]["max_runs"], 3);
    let runs = json["runs"].as_array().unwrap();
    assert!(!runs.is_empty(), "{json}");
    // Which rate holds depends on the machine (a debug build among parallel tests may hold
    // none within the budget); whatever the search names must be a rate it ran, with the
    // pooled p99 within the bound.
    // The search's record: every run belongs to one rate tried, and the verdicts on the pooled
    // commits decide the answer.
    let search = json["search"].as_array().unwrap();
    let runs_of = |rate: f64| {
        runs.iter()
            .filter(|r| r["rate"].as_f64() == Some(rate))
            .count()
    };
    for s in search {
        let rate = s["rate"].as_f64().unwrap();
        let tried: u64 = search
            .iter()
            .filter(|t| t["rate"].as_f64() == Some(rate))
            .map(|t| t["runs"].as_u64().unwrap())
            .sum();
        assert_eq!(tried as usize, runs_of(rate), "{json}");
        let commits: u64 = runs
            .iter()
            .filter(|r| r["rate"].as_f64() == Some(rate))
            .map(|r| r["commit"]["count"].as_u64().unwrap())
            .sum();
        if tried == s["runs"].as_u64().unwrap() {
            assert_eq!(s["commit"]["count"].as_u64(), Some(commits), "{json}");
        }
    }
    let held = search
        .iter()
        .filter(|s| s["holds"] == true)
        .map(|s| s["rate"].as_f64().unwrap())
        .fold(None, |m: Option<f64>, r| Some(m.map_or(r, |m| m.max(r))));
    assert_eq!(
        held,
        json["saturation"]["commits_per_sec"].as_f64(),
        "{json}"
    );
    let table = std::fs::read_to_string(out.join("search.md")).unwrap();
    assert_eq!(
        table.lines().filter(|l| l.starts_with("| ")).count(),
        2 + search.len(),
        "{table}"
    );
    let saturation = &json["saturation"];
    if saturation.is_null() {
        assert!(stdout.contains("btree sustains no rate tried"), "{stdout}");
        assert!(table.contains("No rate held."), "{table}");
    } else {
        let best = saturation["commits_per_sec"].as_f64().unwrap();
        assert!(
            runs.iter().any(|r| r["rate"].as_f64() == Some(best)),
            "{json}"
        );
        assert!(saturation["p99_us"].as_u64().unwrap() <= 100_000, "{json}");
        let steps = saturation["steps"].as_u64().unwrap() as usize;
        assert!(runs.len() >= steps && steps > 0, "{json}");
    }
}

/// Ctrl-C at a terminal reaches the whole foreground process group: the managed server runs in
/// a group of its own, so it keeps serving while the load run stops cleanly, keeps the runs
/// made and exits 130 (before, PostgreSQL shut down under the run: "terminating connection due
/// to administrator command", and nothing was written).
#[cfg(feature = "postgres-db")]
#[test]
fn ctrl_c_at_a_terminal_leaves_the_managed_server_to_its_owner() {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = dir.path().join("store");
    let (status, rest, json) =
        interrupt_load("postgres", &["--dir", store.to_str().unwrap()], true);
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(rest.contains("stopped: load was stopped;"), "{rest}");
    assert_eq!(json["runs"].as_array().expect("runs").len(), 1);
    assert!(json["commit"]["count"].as_u64().unwrap() > 0);
}
