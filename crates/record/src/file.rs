//! Reading and writing the JSON files: pretty JSON with a final newline, written atomically
//! (a reader sees the old file or the new one, never half of one), read as `None` when absent.

use std::fs;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::RecordError;

/// Distinguishes the temporary files of one process's concurrent writes.
static WRITES: AtomicU64 = AtomicU64::new(0);

/// Writes `bytes` to `path` atomically: into a new hidden file beside it (created exclusively,
/// mode 0644, synced), then renamed over `path`; a failed write leaves the old file as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    let tmp = dir.join(format!(".triebench-write-{}-{n}", std::process::id()));
    let written = (|| {
        let mut options = fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
        let mut file = options.open(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

/// `value` as pretty JSON with a final newline.
pub fn to_json<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string_pretty(value).map(|s| s + "\n")
}

/// Writes `value` (a `what`, for errors) as pretty JSON to `path`, creating its directory.
pub fn write_json<T: Serialize>(
    path: &Path,
    what: &'static str,
    value: &T,
) -> Result<(), RecordError> {
    let io = |source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent() {
        fs::create_dir_all(parent).map_err(io)?;
    }
    let text = to_json(value).map_err(|source| RecordError::Json {
        path: path.to_path_buf(),
        what,
        source,
    })?;
    write_atomically(path, text.as_bytes()).map_err(io)
}

/// Reads the JSON file `path` (a `what`, for errors), `None` when there is none.
pub fn read_json<T: DeserializeOwned>(
    path: &Path,
    what: &'static str,
) -> Result<Option<T>, RecordError> {
    if !path.is_file() {
        return Ok(None);
    }
    let text = crate::copy_tree::read_text(path).map_err(|source| RecordError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|source| RecordError::Json {
            path: path.to_path_buf(),
            what,
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tempdir() -> std::path::PathBuf {
        let n = WRITES.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!("triebench-record-{}-{n}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn replaces_the_file_and_leaves_no_temporary_behind() {
        let dir = tempdir();
        let path = dir.join("a.json");
        write_atomically(&path, b"old").unwrap();
        write_atomically(&path, b"new").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_failed_write_keeps_the_old_file() {
        let dir = tempdir();
        let path = dir.join("a.json");
        fs::create_dir(&path).unwrap();
        fs::write(path.join("inside"), b"kept").unwrap();
        assert!(write_atomically(&path, b"new").is_err());
        assert_eq!(fs::read(path.join("inside")).unwrap(), b"kept");
        assert_eq!(fs::read_dir(&dir).unwrap().count(), 1);
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn json_round_trips_and_a_missing_file_reads_none() {
        let dir = tempdir();
        let path = dir.join("sub/x.json");
        assert_eq!(read_json::<Vec<u32>>(&path, "list").unwrap(), None);
        write_json(&path, "list", &vec![1u32, 2]).unwrap();
        assert_eq!(
            read_json::<Vec<u32>>(&path, "list").unwrap(),
            Some(vec![1, 2])
        );
        fs::write(&path, "{").unwrap();
        let err = read_json::<Vec<u32>>(&path, "list").unwrap_err();
        assert!(err.to_string().contains("x.json"), "{err}");
        fs::remove_dir_all(&dir).unwrap();
    }
}
