//! The output folder of a run (`--out`): checked before the rounds (the folder takes the
//! results, and a result file there already must be one this run can add to), then the run
//! merged into its result file by [`triebench_record::results::merge_results`], the one writer
//! every mode uses, with `env.json` beside it.

use std::io::Write;
use std::path::Path;

use triebench_record::results::{merge_results, read_results, ResultsFile};

use crate::error::CrashError;
use crate::folders::{self, Folders};

/// Before the rounds: `out` is made and writable, and its `F` file (if any) one this version
/// can add to.
pub(crate) fn check<F: ResultsFile>(folders: &dyn Folders, out: &Path) -> Result<(), CrashError> {
    folders::writable(folders, "--out", out)?;
    read_results::<F>(out)
        .map(drop)
        .map_err(CrashError::results)
}

/// After the rounds: merges the run into `out`'s `F` file (`add`), writes it and its table
/// (`table`), then `env.json`.
pub(crate) fn save<F: ResultsFile>(
    folders: &dyn Folders,
    out: &Path,
    add: impl FnOnce(&mut F),
    table: impl FnOnce(&F) -> String,
) -> Result<(), CrashError> {
    folders::make(folders, "--out", out)?;
    merge_results(out, add, table).map_err(CrashError::results)?;
    let _ = std::io::stdout().flush();
    write_env(out)
}

/// Writes DIR/env.json: the machine and software the counts come from (rewritten with each
/// run).
fn write_env(dir: &Path) -> Result<(), CrashError> {
    triebench_measure::versions::write_env_json(dir).map_err(|source| CrashError::WriteEnv {
        dir: dir.to_path_buf(),
        source,
    })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use triebench_kv::Profile;

    use crate::error::CrashError;
    use crate::folders::Folders;
    use crate::rounds::{crash_rounds, RoundsOptions};

    /// Folders made as `create_dir_all` makes them.
    struct Plain;

    impl Folders for Plain {
        fn make(&self, _flag: &str, dir: &Path) -> Result<(), String> {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())
        }
        fn writable(&self, flag: &str, dir: &Path) -> Result<(), String> {
            self.make(flag, dir)
        }
    }

    #[test]
    fn a_corrupt_crash_file_is_refused_before_any_round() {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("crash.json"), "not json").unwrap();
        let options = RoundsOptions {
            profile: Profile::Lmdb,
            dir: Some(tmp.path().join("store")),
            rounds: 1,
            power_loss: false,
            out: Some(out.clone()),
            seed: Some(1),
            max_crash_ms: 1,
            net: None,
        };
        let err = crash_rounds(&options, &Plain).unwrap_err();
        assert!(matches!(err, CrashError::Unmergeable(_)), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("crash.json is not a crash file this version can add to")
                && text.ends_with("; move it away or choose another --out"),
            "{text}"
        );
        // Refused before the rounds: no store directory was made, the file is as it was.
        assert!(!tmp.path().join("store").exists());
        assert_eq!(
            std::fs::read_to_string(out.join("crash.json")).unwrap(),
            "not json"
        );
    }
}
