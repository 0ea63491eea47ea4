//! The one writer of the result files a folder gathers run after run: `crash.json`,
//! `crash-models.json` and `failover.json` each hold the latest run per profile (and mode,
//! model or network), so a new run is read into the file already there, merged, and the whole
//! file written again, atomically, with its markdown table beside it.
//!
//! [`read_results`] is the check before a run (is the file there one this version can add
//! to?); [`merge_results`] the write after it.

use std::io;
use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::crash::{CrashFile, CRASH_FILE};
use crate::crash_models::{CrashModelsFile, CRASH_MODELS_FILE};
use crate::error::RecordError;
use crate::failover::{FailoverFile, FAILOVER_FILE};
use crate::file::{to_json, write_atomically};

/// A result file that gathers runs: its names, and an empty value to start from.
pub trait ResultsFile: Serialize + DeserializeOwned + Default {
    /// The JSON file's name in its folder (`crash.json`).
    const NAME: &'static str;
    /// The markdown table's name beside it (`crash.md`).
    const TABLE: &'static str;
    /// What the file is, for messages (`crash file`).
    const WHAT: &'static str;
}

impl ResultsFile for CrashFile {
    const NAME: &'static str = CRASH_FILE;
    const TABLE: &'static str = "crash.md";
    const WHAT: &'static str = "crash file";
}

impl ResultsFile for CrashModelsFile {
    const NAME: &'static str = CRASH_MODELS_FILE;
    const TABLE: &'static str = "crash-models.md";
    const WHAT: &'static str = "crash-models file";
}

impl ResultsFile for FailoverFile {
    const NAME: &'static str = FAILOVER_FILE;
    const TABLE: &'static str = "failover.md";
    const WHAT: &'static str = "failover file";
}

/// The runs `dir`'s `F` file holds; an empty file when there is none.
///
/// # Errors
/// [`RecordError::ReadResults`] when the file cannot be read, [`RecordError::Unmergeable`]
/// when it is not an `F` this version reads (a corrupt or foreign file).
pub fn read_results<F: ResultsFile>(dir: &Path) -> Result<F, RecordError> {
    let path = dir.join(F::NAME);
    match std::fs::read_to_string(&path) {
        Ok(text) => serde_json::from_str(&text).map_err(|source| RecordError::Unmergeable {
            path,
            what: F::WHAT,
            source,
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(F::default()),
        Err(source) => Err(RecordError::ReadResults { path, source }),
    }
}

/// Reads `dir`'s `F` file (as [`read_results`]), lets `add` merge the new run into it, and
/// writes it back atomically as pretty JSON, then its markdown table `table(&file)` as
/// [`ResultsFile::TABLE`]; returns the merged file.
///
/// # Errors
/// Those of [`read_results`]; [`RecordError::WriteResults`] when a file cannot be written (the
/// JSON file is the old one or the new one, never half of one).
pub fn merge_results<F: ResultsFile>(
    dir: &Path,
    add: impl FnOnce(&mut F),
    table: impl FnOnce(&F) -> String,
) -> Result<F, RecordError> {
    let mut file = read_results::<F>(dir)?;
    add(&mut file);
    let fail = |source: io::Error| RecordError::WriteResults {
        dir: dir.to_path_buf(),
        source,
    };
    let text = to_json(&file).map_err(|e| fail(io::Error::other(e)))?;
    write_atomically(&dir.join(F::NAME), text.as_bytes()).map_err(fail)?;
    write_atomically(&dir.join(F::TABLE), table(&file).as_bytes()).map_err(fail)?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failover::FailoverRun;

    fn run(profile: &str, rounds: u64) -> FailoverRun {
        FailoverRun {
            profile: profile.into(),
            promised: "keeps-acked".into(),
            rounds,
            acknowledged: 10 * rounds,
            lost: 0,
            corrupt: 0,
            rounds_with_loss: 0,
            max_lost_tail: 0,
            max_lost_window_us: None,
            net: None,
            standby_link: None,
            seed: 7,
            per_round: Vec::new(),
        }
    }

    fn count_runs(file: &FailoverFile) -> String {
        format!("{} runs\n", file.runs.len())
    }

    #[test]
    fn a_run_is_merged_into_the_file_already_there() {
        let dir = tempfile::tempdir().unwrap();
        merge_results(
            dir.path(),
            |f: &mut FailoverFile| f.merge(run("b", 1)),
            count_runs,
        )
        .unwrap();
        let merged = merge_results(
            dir.path(),
            |f: &mut FailoverFile| f.merge(run("a", 2)),
            count_runs,
        )
        .unwrap();
        let profiles: Vec<&str> = merged.runs.iter().map(|r| r.profile.as_str()).collect();
        assert_eq!(profiles, ["a", "b"]);
        let back: FailoverFile = read_results(dir.path()).unwrap();
        assert_eq!(back, merged);
        let table = std::fs::read_to_string(dir.path().join("failover.md")).unwrap();
        assert_eq!(table, "2 runs\n");
        // A newer run of the same profile replaces the older one.
        let again = merge_results(
            dir.path(),
            |f: &mut FailoverFile| f.merge(run("a", 5)),
            count_runs,
        )
        .unwrap();
        assert_eq!(again.runs.len(), 2);
        assert_eq!(again.runs[0].rounds, 5);
        // Nothing but the two files is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn a_missing_file_reads_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file: CrashFile = read_results(dir.path()).unwrap();
        assert_eq!(file, CrashFile::default());
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_left_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(CRASH_MODELS_FILE);
        std::fs::write(&path, "{\"runs\": 3").unwrap();
        let err = merge_results(
            dir.path(),
            |f: &mut CrashModelsFile| f.schema = 1,
            |_| String::new(),
        )
        .unwrap_err();
        assert!(
            matches!(
                &err,
                RecordError::Unmergeable {
                    what: "crash-models file",
                    ..
                }
            ),
            "{err:?}"
        );
        let text = err.to_string();
        assert!(
            text.contains("crash-models.json is not a crash-models file this version can add to"),
            "{text}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"runs\": 3");
        assert!(!dir.path().join("crash-models.md").exists());
    }

    #[test]
    fn a_folder_that_cannot_take_the_file_is_a_write_error() {
        let dir = tempfile::tempdir().unwrap();
        let gone = dir.path().join("gone");
        let err =
            merge_results(&gone, |f: &mut CrashFile| f.schema = 1, |_| String::new()).unwrap_err();
        assert!(matches!(err, RecordError::WriteResults { .. }), "{err:?}");
        assert!(err.to_string().starts_with("cannot write "), "{err}");
    }
}
