//! `capture_fs`: the filesystem sidecar for a run directory.

use std::path::Path;

use triebench_measure::{capture_fs, fs_info_for_dir, MeasureError};
use triebench_record::file::read_json;
use triebench_record::layout::fs_sidecar_path;
use triebench_record::{FsInfo, RecordError};

/// Reads run `name`'s sidecar back as the report does.
fn read_sidecar(criterion_dir: &Path, name: &str) -> Result<Option<FsInfo>, RecordError> {
    read_json(&fs_sidecar_path(criterion_dir, name), "filesystem sidecar")
}

#[test]
fn the_sidecar_describes_the_directory() {
    let Ok(data) = tempfile::tempdir() else {
        panic!("tempdir")
    };
    let Ok(crit) = tempfile::tempdir() else {
        panic!("tempdir")
    };
    let path = match capture_fs("scratch", data.path(), crit.path(), true) {
        Ok((p, _)) => p,
        Err(e) => panic!("{e}"),
    };
    assert_eq!(path, crit.path().join("triebench-runs/scratch.json"));
    let info: FsInfo = match read_sidecar(crit.path(), "scratch") {
        Ok(Some(i)) => i,
        other => panic!("sidecar must read back: {other:?}"),
    };
    assert_eq!(info.name, "scratch");
    let canonical = std::fs::canonicalize(data.path()).unwrap_or_default();
    assert_eq!(info.dir, canonical.to_string_lossy());
    if cfg!(target_os = "linux") {
        assert_ne!(info.fs_type, "unknown");
        assert!(canonical.starts_with(&info.mount_point), "{info:?}");
        assert!(!info.mount_options.is_empty());
        let Some(s) = &info.statfs else {
            panic!("statfs recorded on Linux")
        };
        assert!(s.block_size > 0 && s.magic.starts_with("0x"), "{s:?}");
    }
    let Some(lat) = info.latency_us else {
        panic!("the latency probe ran: {info:?}")
    };
    assert!(lat.sync > 0.0 && lat.write > 0.0 && lat.read > 0.0 && lat.metadata > 0.0);
}

#[test]
fn dev_shm_is_tmpfs_when_present() {
    let shm = std::path::Path::new("/dev/shm");
    if !shm.is_dir() {
        return;
    }
    match fs_info_for_dir("shm", shm) {
        Ok(info) => {
            assert_eq!(info.fs_type, "tmpfs", "{info:?}");
            assert_eq!(info.statfs.map(|s| s.magic).as_deref(), Some("0x1021994"));
        }
        Err(e) => panic!("{e}"),
    }
}

#[test]
fn bad_names_and_directories_are_errors_that_say_what_to_do() {
    let Ok(crit) = tempfile::tempdir() else {
        panic!("tempdir")
    };
    match capture_fs("../x", crit.path(), crit.path(), false) {
        Err(MeasureError::Record(RecordError::InvalidName(n))) => assert_eq!(n, "../x"),
        other => panic!("{other:?}"),
    }
    let err = capture_fs("x", &crit.path().join("absent"), crit.path(), false)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("pass an existing directory"), "{err}");
    assert!(matches!(read_sidecar(crit.path(), "nobody"), Ok(None)));
    std::fs::create_dir_all(crit.path().join("triebench-runs")).ok();
    std::fs::write(crit.path().join("triebench-runs/broken.json"), "{").ok();
    assert!(matches!(
        read_sidecar(crit.path(), "broken"),
        Err(RecordError::Json { .. })
    ));
}
