//! `triebench engines`: a tiny run of the four kv engines on lmdb, and NOMT on its own files in
//! the same directory, writes engines.json
//! with every engine × profile checked and measured (the same leaves in each, Transact's own
//! state ending at the trie's root, cold reads where the data lives in files, proofs where the
//! engine makes them), env.json, and the report's
//! section "Engines side by side" with its plot; unknown engine and profile names are refused
//! naming the choices. No speed is asserted.

mod common;

use common::triebench;
use serde_json::Value;

#[test]
fn a_tiny_run_writes_its_record_and_the_report_section() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let dir = tmp.path().join("stores");
    let out = tmp.path().join("out").join("engines.json");
    let output = triebench(&[
        "engines",
        "--engines",
        "trie,jmt,mpt,transact,nomt",
        // One profile that keeps files (cold reads, bytes on disk): the engines on btree are
        // checked in triebench-measure's own tests, and each run here does 1,000 commits.
        "--profiles",
        "lmdb",
        "--dir",
        dir.to_str().unwrap(),
        "--leaves",
        "300",
        "--batch",
        "100",
        "--reads",
        "10",
        "--out",
        out.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(
        stderr.contains("checking 7 of Transact's scenarios and 15 batches"),
        "{stderr}"
    );
    let v: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("engines.json")).expect("json");
    assert_eq!(v["schema"], 1);
    let results = v["results"].as_array().expect("results");
    let pairs: Vec<(String, String)> = results
        .iter()
        .map(|r| {
            (
                r["engine"].as_str().unwrap().to_string(),
                r["profile"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("trie".to_string(), "lmdb".to_string()),
            ("jmt".into(), "lmdb".into()),
            ("mpt".into(), "lmdb".into()),
            ("transact".into(), "lmdb".into()),
            ("nomt".into(), "own files".into()),
        ]
    );
    for r in results {
        assert_eq!(r["checked_batches"], 15);
        assert_eq!(r["update"]["commits"], 1001);
        assert_eq!(r["fill"]["commits"], 3);
        assert_eq!(r["leaves"], 950 + 300);
        assert_eq!(r["read_warm"]["count"], 10);
        // Transact's state makes no proofs; the others prove every read.
        if r["engine"] == "transact" {
            assert!(r["proof"].is_null(), "{r}");
        } else {
            assert_eq!(r["proof"]["count"], 10);
            assert!(r["proof"]["mean_bytes"].as_f64().unwrap() > 0.0);
        }
        // Node rows where the engine keeps a node table; NOMT keeps pages of its own.
        assert_eq!(r["nodes_per_leaf"].is_null(), r["engine"] == "nomt", "{r}");
        // Transact's scenarios ran first; Transact's own state skips the one it gets wrong.
        let scenarios = r["scenarios"].as_array().expect("scenarios");
        assert_eq!(scenarios.len(), 7, "{r}");
        let skipped: Vec<&str> = scenarios
            .iter()
            .filter(|s| s["skipped"].is_string())
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        if r["engine"] == "transact" {
            assert_eq!(skipped, ["update_same_address_space"]);
        } else {
            assert!(skipped.is_empty(), "{r}");
        }
        // The data lives in files: cold reads and bytes on disk.
        assert!(r["read_cold"].is_object(), "{r}");
        assert!(r["disk_bytes"].as_u64().unwrap() > 0, "{r}");
    }
    // The trie's final state is Transact's update state plus the fill: every engine holds it,
    // with its own root.
    assert_ne!(results[0]["final_root"], results[1]["final_root"]);
    assert_ne!(results[1]["final_root"], results[2]["final_root"]);
    // Transact's own state ends where the trie does: the same format, the same root.
    assert_eq!(results[3]["final_root"], results[0]["final_root"]);
    // The stores are gone once measured.
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 0);
    let parent = out.parent().unwrap();
    assert!(parent.join("env.json").is_file());
    let md = std::fs::read_to_string(parent.join("engines-report.md")).expect("section");
    assert!(md.contains("## Engines side by side"), "{md}");
    assert!(md.contains("| `jmt` | `lmdb` |"), "{md}");
    assert!(md.contains("| `mpt` | `lmdb` |"), "{md}");
    assert!(md.contains("| `transact` | `lmdb` |"), "{md}");
    assert!(md.contains("| `nomt` | `own files` |"), "{md}");
    assert!(md.contains("`pruning_duplicate_leaves` µs"), "{md}");
    assert!(
        md.contains("- Skipped: `transact`, `update_same_address_space`"),
        "{md}"
    );
    assert!(md.contains("](plots/engines.svg)"), "{md}");
    assert!(parent.join("plots/engines.svg").is_file());
    assert!(parent.join("plots/engines.png").is_file());

    // engines-report over a results folder: the run below it is labelled by its folder.
    let results = tmp.path().join("results");
    std::fs::create_dir_all(results.join("tmpfs")).expect("folder");
    std::fs::copy(&out, results.join("tmpfs").join("engines.json")).expect("copied");
    let output = triebench(&["engines-report", results.to_str().unwrap()]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let md = std::fs::read_to_string(results.join("engines-report.md")).expect("report");
    assert!(md.contains("| tmpfs | `trie` | `lmdb` |"), "{md}");
    assert!(results.join("env.json").is_file());
}

#[test]
fn unknown_engines_and_profiles_are_refused_naming_the_choices() {
    let output = triebench(&["engines", "--engines", "trie,iavl", "--profiles", "btree"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("unknown engine `iavl`: the engines are trie, jmt, mpt, transact, nomt"),
        "{stderr}"
    );
    let output = triebench(&["engines", "--profiles", "btree", "--field", "firewood-big"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("--field: unknown field workload `firewood-big`; valid: firewood-create"),
        "{stderr}"
    );
    let output = triebench(&["engines", "--profiles", "btree,lmbd"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("lmbd"), "{stderr}");
    let output = triebench(&["engines", "--engines", "nomt", "--profiles", "btree"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--dir is needed for nomt"), "{stderr}");
    let output = triebench(&["engines", "--profiles", "lmdb"]);
    assert!(!output.status.success());
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--dir is needed for lmdb"), "{stderr}");
}
