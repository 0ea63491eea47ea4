//! The `triebench` binary: `root` replays the sample commit file to the expected roots on every
//! enabled profile, and reports bad input as one error naming the line; `profiles` lists them all.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use triebench_kv::Profile;
use triebench_workloads::commit_file::CommitLine;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(name)
}

fn expected_roots() -> String {
    std::fs::read_to_string(fixture("roots-sample.expected")).expect("fixture readable")
}

/// Runs `triebench` with `args`, feeding `stdin`.
fn triebench(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_triebench"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("triebench starts");
    let written = child
        .stdin
        .take()
        .expect("stdin piped")
        .write_all(stdin.as_bytes());
    // A command that fails on its arguments exits before reading its input: the pipe is then
    // closed under the writer, which is not the test's failure.
    if let Err(e) = written {
        assert_eq!(
            e.kind(),
            std::io::ErrorKind::BrokenPipe,
            "stdin written: {e}"
        );
    }
    child.wait_with_output().expect("triebench finishes")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Checks a failed run: exit status 1 and exactly one stderr line, `error: ...`, containing
/// every one of `needles`.
fn assert_one_error(output: &Output, needles: &[&str]) {
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "one error line expected, got: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for needle in needles {
        assert!(
            lines[0].contains(needle),
            "`{needle}` missing from: {stderr}"
        );
    }
}

#[test]
fn expected_file_is_the_models_roots_of_the_sample() {
    let input = std::fs::read_to_string(fixture("roots-sample.jsonl")).unwrap();
    let mut state: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    let mut roots = String::new();
    for line in input.lines().filter(|l| !l.trim().is_empty()) {
        let commit = CommitLine::parse(line).unwrap();
        for (address, value) in commit.sets {
            state.insert(address, value);
        }
        for address in commit.deletes {
            assert!(
                state.remove(&address).is_some(),
                "sample deletes absent {address}"
            );
        }
        roots.push_str(&triebench_merkle::reference::root_of(&state).unwrap());
        roots.push('\n');
    }
    assert_eq!(roots, expected_roots());
}

#[test]
fn root_replays_the_sample_on_every_enabled_profile() {
    let path = fixture("roots-sample.jsonl");
    let path = path.to_str().unwrap();
    for profile in Profile::enabled() {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().to_str().unwrap();
        let output = triebench(
            &["root", path, "--backend", profile.name(), "--dir", dir],
            "",
        );
        assert!(
            output.status.success(),
            "[{profile}] {}",
            text(&output.stderr)
        );
        assert_eq!(text(&output.stdout), expected_roots(), "[{profile}]");
    }
}

#[test]
fn root_reads_stdin_when_the_file_is_dash_or_absent() {
    let input = std::fs::read_to_string(fixture("roots-sample.jsonl")).unwrap();
    for args in [&["root", "-"][..], &["root"][..]] {
        let output = triebench(args, &input);
        assert!(output.status.success(), "{}", text(&output.stderr));
        assert_eq!(text(&output.stdout), expected_roots());
        assert!(output.stderr.is_empty(), "btree needs no directory");
    }
}

#[test]
fn blank_lines_are_skipped_and_sets_apply_before_deletes() {
    // Line 3 sets and deletes `abcd`: the delete wins, leaving `1234` alone.
    let input = "{\"set\": {\"1234\": \"64656c657461626c65\"}}\n\n\
                 {\"set\": {\"abcd\": \"00\"}, \"delete\": [\"abcd\"]}\n";
    let output = triebench(&["root"], input);
    assert!(output.status.success(), "{}", text(&output.stderr));
    let deletable = "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac";
    assert_eq!(text(&output.stdout), format!("{deletable}\n{deletable}\n"));
}

#[test]
fn bad_json_names_its_line_before_any_commit_is_made() {
    // The whole input is checked before a store is opened (issue 34): no root is printed.
    let input = "{\"set\": {\"abcd\": \"646174615f76616c7565\"}}\n{\"set\": {\"ab\": \"01\"}\n";
    let output = triebench(&["root", "-"], input);
    assert_one_error(&output, &["line 2", "invalid JSON"]);
    assert_eq!(text(&output.stdout), "");
}

#[test]
fn unknown_keys_bad_hex_and_invalid_addresses_name_their_line() {
    let cases: [(&str, &[&str]); 4] = [
        ("{\"sets\": {}}", &["line 1", "unknown field `sets`"]),
        (
            "{}\n{\"set\": {\"ab\": \"0g\"}}",
            &["line 2", "not hex", "ab"],
        ),
        ("{}\n{}\n{\"set\": {\"abc\": \"01\"}}", &["line 3", "abc"]),
        ("{\"delete\": [\"AB\"]}", &["line 1", "AB"]),
    ];
    for (input, needles) in cases {
        assert_one_error(&triebench(&["root"], input), needles);
    }
}

#[test]
fn deleting_an_absent_address_names_the_line_and_address() {
    let input = "{\"set\": {\"ab00\": \"01\"}}\n{}\n{\"delete\": [\"ab01\"]}\n";
    let output = triebench(&["root"], input);
    assert_one_error(&output, &["line 3: delete of absent address ab01"]);
    assert_eq!(text(&output.stdout).lines().count(), 2);
}

#[test]
fn unknown_backend_lists_the_valid_profiles() {
    let output = triebench(&["root", "--backend", "sqlite"], "{}\n");
    let mut needles = vec!["unknown backend profile `sqlite`"];
    needles.extend(Profile::ALL.map(Profile::name));
    assert_one_error(&output, &needles);
    assert!(output.stdout.is_empty());
}

#[test]
fn missing_input_file_is_one_error() {
    let output = triebench(&["root", "/nonexistent/commits.jsonl"], "");
    assert_one_error(&output, &["cannot open /nonexistent/commits.jsonl"]);
}

#[test]
fn file_backed_profile_without_dir_uses_a_temp_dir_and_says_so() {
    let Some(profile) = Profile::enabled().into_iter().find(|p| p.needs_dir()) else {
        return; // only btree in this build
    };
    let output = triebench(
        &["root", "--backend", profile.name()],
        "{\"set\": {\"abcd\": \"646174615f76616c7565\"}}\n",
    );
    let stderr = text(&output.stderr);
    assert!(output.status.success(), "[{profile}] {stderr}");
    assert!(stderr.contains("temporary directory"), "{stderr}");
    assert_eq!(
        text(&output.stdout),
        "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870\n"
    );
}

#[test]
fn profiles_lists_every_profile_with_durability() {
    let output = triebench(&["profiles"], "");
    assert!(output.status.success(), "{}", text(&output.stderr));
    let stdout = text(&output.stdout);
    for profile in Profile::ALL {
        let line = stdout
            .lines()
            .find(|l| l.split_whitespace().next() == Some(profile.name()))
            .unwrap_or_else(|| panic!("{} missing from:\n{stdout}", profile.name()));
        assert!(line.contains(profile.describe()), "{line}");
        let columns: Vec<&str> = line.split_whitespace().collect();
        let fsync = if profile.fsyncs_each_commit() {
            "yes"
        } else {
            "no"
        };
        let built = if profile.is_enabled() { "yes" } else { "no" };
        assert_eq!(columns[2], fsync, "{line}");
        assert_eq!(columns[3], built, "{line}");
        let failover = profile.failover().map_or("-", |f| f.name());
        assert_eq!(columns[4], failover, "{line}");
    }
    // What a damaged LMDB store does is said where the profiles are listed (issue 34).
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("note: lmdb, lmdb-async") && l.contains("no page checksums")),
        "{stdout}"
    );
    // Which user each managed server runs as and how it is reached (issue 34).
    for server in ["note: redis, redis-aof", "note: postgres, postgres-async"] {
        assert!(
            stdout.lines().any(|l| l.starts_with(server)
                && l.contains("`triebench-srv`")
                && l.contains("0700")),
            "{stdout}"
        );
    }
}

/// A store an older triebench wrote (the trie's `main` keyed by 64 hex digits, no layout marker)
/// is refused by `root` with the message that says what was found and what to do, and left as
/// it was.
#[cfg(feature = "lmdb")]
#[test]
fn root_refuses_a_store_an_older_triebench_wrote_and_leaves_it() {
    use triebench_kv::lmdb::{LmdbOptions, LmdbStore};
    use triebench_kv::{KeyRange, ReadTx, Store, WriteTx};
    use triebench_merkle::{EMPTY_ROOT, TABLES};

    let dir = tempfile::tempdir().unwrap();
    let contents = || {
        let store = LmdbStore::open(dir.path(), TABLES, LmdbOptions::default()).unwrap();
        let r = store.reader().unwrap();
        r.collect(store.table("main").unwrap(), &KeyRange::all())
            .unwrap()
    };
    {
        let store = LmdbStore::open(dir.path(), TABLES, LmdbOptions::default()).unwrap();
        let mut w = store.writer().unwrap();
        let empty_node = [0xa2, 0x61, b'c', 0xa0, 0x61, b'v', 0xf6];
        w.put(
            store.table("main").unwrap(),
            EMPTY_ROOT.as_bytes(),
            &empty_node,
        )
        .unwrap();
        w.commit().unwrap();
    }
    let before = contents();
    let path = fixture("roots-sample.jsonl");
    let output = triebench(
        &[
            "root",
            path.to_str().unwrap(),
            "--backend",
            "lmdb",
            "--dir",
            dir.path().to_str().unwrap(),
        ],
        "",
    );
    let stderr = text(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    for said in [
        "store refused",
        "64-hex-digit key",
        "this build reads store layout 2",
        "written by an older triebench: re-create it",
    ] {
        assert!(stderr.contains(said), "{stderr}");
    }
    assert!(text(&output.stdout).is_empty(), "no root printed");
    assert_eq!(contents(), before, "the store is left as it was");
}
