//! Which filesystem a directory lives on (type, mount point, device, mount options, statfs),
//! and its capture as the run's filesystem sidecar `<criterion-dir>/triebench-runs/<NAME>.json`
//! (`triebench capture-fs`), with its latency per operation class when asked.

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use triebench_record::file::write_json;
use triebench_record::layout::{fs_sidecar_path, validate_run_name};
use triebench_record::{FsInfo, StatFs};
use triebench_slowfs::mountinfo::unescape;

use crate::error::MeasureError;
use crate::latency;

/// One line of `/proc/self/mountinfo`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountEntry {
    /// `major:minor` of the filesystem's device.
    pub dev: (u64, u64),
    /// The mount point (escapes decoded).
    pub mount_point: String,
    /// Per-mount options.
    pub mount_options: String,
    /// Filesystem type.
    pub fs_type: String,
    /// Mount source.
    pub source: String,
    /// Superblock options.
    pub super_options: String,
}

/// Parses the text of `/proc/self/mountinfo` (lines it cannot parse are skipped).
pub fn parse_mountinfo(text: &str) -> Vec<MountEntry> {
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(" - ")?;
            let l: Vec<&str> = left.split(' ').collect();
            let r: Vec<&str> = right.split(' ').collect();
            if l.len() < 6 || r.len() < 2 {
                return None;
            }
            let (major, minor) = l[2].split_once(':')?;
            Some(MountEntry {
                dev: (major.parse().ok()?, minor.parse().ok()?),
                mount_point: unescape(l[4]),
                mount_options: l[5].to_string(),
                fs_type: r[0].to_string(),
                source: unescape(r[1]),
                super_options: r.get(2).copied().unwrap_or_default().to_string(),
            })
        })
        .collect()
}

/// `major:minor` of a `st_dev` value (Linux's encoding).
fn dev_parts(dev: u64) -> (u64, u64) {
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    (major, minor)
}

/// Whether `mount_point` is `path` or one of its ancestors.
fn covers(mount_point: &str, path: &Path) -> bool {
    path.starts_with(Path::new(mount_point))
}

/// The mount holding `path` (canonical) on device `dev`: the deepest covering mount point on
/// that device, the last-mounted one on ties (it hides the earlier ones); falls back to the
/// deepest covering mount point if no entry has that device (e.g. btrfs subvolumes).
pub fn find_mount<'a>(
    entries: &'a [MountEntry],
    path: &Path,
    dev: Option<(u64, u64)>,
) -> Option<&'a MountEntry> {
    let deepest = |filter: &dyn Fn(&MountEntry) -> bool| {
        entries
            .iter()
            .filter(|e| covers(&e.mount_point, path) && filter(e))
            .max_by_key(|e| Path::new(&e.mount_point).components().count())
            .map(|best| {
                let depth = Path::new(&best.mount_point).components().count();
                entries
                    .iter()
                    .rev()
                    .find(|e| {
                        covers(&e.mount_point, path)
                            && filter(e)
                            && Path::new(&e.mount_point).components().count() == depth
                    })
                    .unwrap_or(best)
            })
    };
    dev.and_then(|d| deepest(&|e: &MountEntry| e.dev == d))
        .or_else(|| deepest(&|_: &MountEntry| true))
}

fn merge_options(mount: &str, superblock: &str) -> String {
    let mut opts: Vec<&str> = mount.split(',').filter(|o| !o.is_empty()).collect();
    for o in superblock.split(',').filter(|o| !o.is_empty()) {
        if !opts.contains(&o) {
            opts.push(o);
        }
    }
    opts.join(",")
}

#[cfg(target_os = "linux")]
// statfs field types differ between targets (u32 or u64), hence the casts.
#[allow(clippy::unnecessary_cast)]
fn statfs(path: &Path) -> Option<StatFs> {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt;
    let c_path = CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut buf = std::mem::MaybeUninit::<libc::statfs>::zeroed();
    // SAFETY: `c_path` is a valid NUL-terminated string and `buf` points to writable memory
    // the size of `struct statfs`; statfs(2) writes only into it.
    let rc = unsafe { libc::statfs(c_path.as_ptr(), buf.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: statfs returned 0, so it filled the whole struct (and it was zeroed before).
    let s = unsafe { buf.assume_init() };
    let frsize = if s.f_frsize > 0 {
        s.f_frsize as u64
    } else {
        s.f_bsize as u64
    };
    Some(StatFs {
        magic: format!("{:#x}", s.f_type as u64),
        block_size: s.f_bsize as u64,
        total_bytes: (s.f_blocks as u64).saturating_mul(frsize),
        available_bytes: (s.f_bavail as u64).saturating_mul(frsize),
    })
}

#[cfg(not(target_os = "linux"))]
fn statfs(_path: &Path) -> Option<StatFs> {
    None
}

/// Captures the filesystem facts of `dir` for run `name` from `/proc/self/mountinfo` and statfs.
///
/// Fields that cannot be determined (no mountinfo on this system) read `unknown`.
pub fn fs_info_for_dir(name: &str, dir: &Path) -> Result<FsInfo, MeasureError> {
    let probe = |reason: String| MeasureError::FsProbe {
        dir: dir.to_path_buf(),
        reason,
    };
    let canonical = fs::canonicalize(dir).map_err(|e| probe(e.to_string()))?;
    let meta = fs::metadata(&canonical).map_err(|e| probe(e.to_string()))?;
    if !meta.is_dir() {
        return Err(probe("not a directory".to_string()));
    }
    let entries = fs::read_to_string("/proc/self/mountinfo")
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default();
    let mount = find_mount(&entries, &canonical, Some(dev_parts(meta.dev())));
    let unknown = || "unknown".to_string();
    Ok(FsInfo {
        name: name.to_string(),
        dir: canonical.to_string_lossy().into_owned(),
        fs_type: mount.map(|m| m.fs_type.clone()).unwrap_or_else(unknown),
        mount_point: mount.map(|m| m.mount_point.clone()).unwrap_or_else(unknown),
        device: mount.map(|m| m.source.clone()).unwrap_or_else(unknown),
        mount_options: mount
            .map(|m| merge_options(&m.mount_options, &m.super_options))
            .unwrap_or_else(unknown),
        statfs: statfs(&canonical),
        latency_us: None,
        flush_extent_us: None,
    })
}

/// Captures `dir`'s filesystem for run `name` (with its latency per operation class when
/// `probe_latency`) and writes the sidecar under `criterion_dir`; returns the sidecar's path and
/// what it recorded.
pub fn write_sidecar(
    name: &str,
    dir: &Path,
    criterion_dir: &Path,
    probe_latency: bool,
) -> Result<(PathBuf, FsInfo), MeasureError> {
    validate_run_name(name)?;
    let mut info = fs_info_for_dir(name, dir)?;
    if probe_latency {
        let probe_failed = |e: MeasureError| MeasureError::FsProbe {
            dir: dir.to_path_buf(),
            reason: e.to_string(),
        };
        info.latency_us = Some(latency::probe_dir(dir).map_err(probe_failed)?);
        info.flush_extent_us = Some(latency::probe_flush_extent(dir).map_err(probe_failed)?);
    }
    let path = fs_sidecar_path(criterion_dir, name);
    write_json(&path, "filesystem sidecar", &info)?;
    Ok((path, info))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24683656k
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard
30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=1k
40 27 0:50 / /mnt/with\\040space rw,noatime shared:1 - nfs4 srv:/export rw,vers=4.1
";

    #[test]
    fn mountinfo_lines_parse_with_optional_fields_and_escapes() {
        let e = parse_mountinfo(SAMPLE);
        assert_eq!(e.len(), 4);
        assert_eq!(e[1].dev, (254, 0));
        assert_eq!(e[3].mount_point, "/mnt/with space");
        assert_eq!(e[3].fs_type, "nfs4");
        assert_eq!(e[3].source, "srv:/export");
        assert_eq!(
            merge_options(&e[1].mount_options, &e[1].super_options),
            "rw,relatime,discard"
        );
    }

    #[test]
    fn the_deepest_mount_on_the_device_wins_and_later_mounts_hide_earlier() {
        let e = parse_mountinfo(SAMPLE);
        let m = find_mount(&e, Path::new("/dev/shm/x"), Some((0, 27)));
        assert_eq!(m.map(|m| m.super_options.as_str()), Some("rw,size=1k"));
        let m = find_mount(&e, Path::new("/dev/shm/x"), Some((9, 9)));
        assert_eq!(m.map(|m| m.super_options.as_str()), Some("rw,size=1k"));
        let m = find_mount(&e, Path::new("/home/u"), Some((254, 0)));
        assert_eq!(m.map(|m| m.fs_type.as_str()), Some("ext4"));
        let m = find_mount(&e, Path::new("/mnt/with space/d"), None);
        assert_eq!(m.map(|m| m.fs_type.as_str()), Some("nfs4"));
    }

    #[test]
    fn dev_numbers_split_like_glibc() {
        assert_eq!(dev_parts(0xfe00), (254, 0));
        assert_eq!(dev_parts(27), (0, 27));
    }
}
