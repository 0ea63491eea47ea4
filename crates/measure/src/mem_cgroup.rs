//! A memory cgroup for a bounded run (`triebench grow --memory`): a child of the cgroup this
//! process is in, with a memory limit, that this process joins so that it and every server it
//! starts afterwards (a managed PostgreSQL or redis-server) are charged to it, page cache
//! included. cgroup v1 (`memory.limit_in_bytes`, the memory controller's own hierarchy) and v2
//! (`memory.max`, the unified hierarchy) are both supported; v1 is tried first.
//!
//! A bounded run is two processes: the one the user started [makes](MemCgroup::make) the
//! cgroup and stays outside it, and the run itself, a child it starts,
//! [enters](MemCgroup::enter) it. If the kernel's OOM killer ends the child, the parent is
//! still there to read [`MemCgroup::oom_kills`] and say so.

use std::fs;
use std::path::{Path, PathBuf};

use triebench_record::grow::MemoryBound;

/// Why a bounded run cannot start.
#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    /// Neither a v1 memory controller nor a v2 hierarchy with the memory controller is usable.
    #[error(
        "no memory cgroup is usable here ({0}); --memory needs cgroup v1's memory controller \
         (/sys/fs/cgroup/memory) or cgroup v2 with the memory controller, and the right to \
         create a cgroup (root)"
    )]
    Unavailable(String),
    /// A cgroup file could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// The cgroup version in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// The v1 memory controller.
    V1,
    /// The unified hierarchy.
    V2,
}

/// A memory cgroup this process has joined; dropping it moves the process back to its
/// previous cgroup and removes the child (its charges go to the parent).
#[derive(Debug)]
pub struct MemCgroup {
    version: Version,
    dir: PathBuf,
    parent: PathBuf,
    limit: u64,
    /// Made by this process (it removes the cgroup when dropped), not [entered](Self::enter).
    owned: bool,
    /// This process moved itself into the cgroup (it moves back when dropped).
    joined: bool,
}

const V1_ROOT: &str = "/sys/fs/cgroup/memory";

/// This process's cgroup path in the hierarchy matched by `pick` in `/proc/self/cgroup`.
fn own_path(pick: impl Fn(&str, &str) -> bool) -> Option<String> {
    let text = fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (id, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        pick(id, controllers).then(|| path.to_string())
    })
}

fn v2_root() -> Option<PathBuf> {
    let mounts = fs::read_to_string("/proc/self/mounts").ok()?;
    mounts.lines().find_map(|line| {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.get(2) == Some(&"cgroup2") {
            fields.get(1).map(PathBuf::from)
        } else {
            None
        }
    })
}

fn write(path: &Path, text: &str) -> Result<(), CgroupError> {
    fs::write(path, text).map_err(|source| CgroupError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn read_u64(path: &Path) -> Option<u64> {
    let text = fs::read_to_string(path).ok()?;
    let t = text.trim();
    if t == "max" {
        return Some(u64::MAX);
    }
    t.parse().ok()
}

/// `key` of a `memory.stat` file.
fn stat(dir: &Path, key: &str) -> u64 {
    fs::read_to_string(dir.join("memory.stat"))
        .ok()
        .and_then(|text| {
            text.lines().find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == key).then(|| v.trim().parse().ok())?
            })
        })
        .unwrap_or(0)
}

impl MemCgroup {
    /// Creates a child cgroup named `name` limited to `limit` bytes and moves this process into
    /// it.
    pub fn join(name: &str, limit: u64) -> Result<MemCgroup, CgroupError> {
        let mut group = Self::make(name, limit)?;
        write(
            &group.dir.join("cgroup.procs"),
            &std::process::id().to_string(),
        )?;
        group.joined = true;
        Ok(group)
    }

    /// Creates a child cgroup named `name` limited to `limit` bytes, this process staying
    /// outside it (a child process [enters](Self::enter) it); dropping it removes the cgroup.
    pub fn make(name: &str, limit: u64) -> Result<MemCgroup, CgroupError> {
        let mut why = Vec::new();
        if let Some(own) = own_path(|_, c| c.split(',').any(|x| x == "memory")) {
            let parent = PathBuf::from(V1_ROOT).join(own.trim_start_matches('/'));
            if parent.join("memory.limit_in_bytes").is_file() {
                match Self::create(Version::V1, &parent, name, limit) {
                    Ok(g) => return Ok(g),
                    Err(e) => why.push(format!("v1: {e}")),
                }
            } else {
                why.push(format!(
                    "v1: {} has no memory.limit_in_bytes",
                    parent.display()
                ));
            }
        } else {
            why.push("v1: no memory controller in /proc/self/cgroup".into());
        }
        match (v2_root(), own_path(|id, c| id == "0" && c.is_empty())) {
            (Some(root), Some(own)) => {
                let parent = root.join(own.trim_start_matches('/'));
                let controllers =
                    fs::read_to_string(parent.join("cgroup.subtree_control")).unwrap_or_default();
                if !controllers.split_whitespace().any(|c| c == "memory") {
                    // Enabling it needs the parent to hold no process (v2's rule): try.
                    let _ = fs::write(parent.join("cgroup.subtree_control"), "+memory");
                }
                match Self::create(Version::V2, &parent, name, limit) {
                    Ok(g) => return Ok(g),
                    Err(e) => why.push(format!("v2: {e}")),
                }
            }
            _ => why.push("v2: no cgroup2 mount".into()),
        }
        Err(CgroupError::Unavailable(why.join("; ")))
    }

    fn create(
        version: Version,
        parent: &Path,
        name: &str,
        limit: u64,
    ) -> Result<MemCgroup, CgroupError> {
        let dir = parent.join(name);
        if !dir.is_dir() {
            fs::create_dir(&dir).map_err(|source| CgroupError::Write {
                path: dir.clone(),
                source,
            })?;
        }
        let group = MemCgroup {
            version,
            dir,
            parent: parent.to_path_buf(),
            limit,
            owned: true,
            joined: false,
        };
        let limit_file = match version {
            Version::V1 => "memory.limit_in_bytes",
            Version::V2 => "memory.max",
        };
        write(&group.dir.join(limit_file), &limit.to_string())?;
        if version == Version::V2 && !group.dir.join("memory.max").is_file() {
            return Err(CgroupError::Unavailable(
                "the memory controller is not enabled for the new cgroup".into(),
            ));
        }
        Ok(group)
    }

    /// Moves this process into the cgroup at `dir`, made by another process with
    /// [`make`](Self::make); dropping the handle leaves it there (the maker removes it).
    pub fn enter(dir: &Path) -> Result<MemCgroup, CgroupError> {
        let (version, limit_file) = if dir.join("memory.limit_in_bytes").is_file() {
            (Version::V1, "memory.limit_in_bytes")
        } else if dir.join("memory.max").is_file() {
            (Version::V2, "memory.max")
        } else {
            return Err(CgroupError::Unavailable(format!(
                "{} is not a memory cgroup",
                dir.display()
            )));
        };
        let limit = read_u64(&dir.join(limit_file)).ok_or_else(|| {
            CgroupError::Unavailable(format!("cannot read {}", dir.join(limit_file).display()))
        })?;
        write(&dir.join("cgroup.procs"), &std::process::id().to_string())?;
        Ok(MemCgroup {
            version,
            dir: dir.to_path_buf(),
            parent: dir.parent().map(Path::to_path_buf).unwrap_or_default(),
            limit,
            owned: false,
            joined: true,
        })
    }

    /// Processes the kernel's OOM killer has killed in the cgroup (`oom_kill` of v1's
    /// `memory.oom_control`, v2's `memory.events`; kernels before 4.13 lack the line, then 0),
    /// and, in v1, how often usage hit the limit (`memory.failcnt`; 0 in v2).
    pub fn oom_kills(&self) -> (u64, u64) {
        let file = match self.version {
            Version::V1 => "memory.oom_control",
            Version::V2 => "memory.events",
        };
        let kills = fs::read_to_string(self.dir.join(file))
            .ok()
            .and_then(|text| {
                text.lines().find_map(|l| {
                    let (k, v) = l.split_once(' ')?;
                    (k == "oom_kill").then(|| v.trim().parse().ok())?
                })
            })
            .unwrap_or(0);
        let hits = match self.version {
            Version::V1 => read_u64(&self.dir.join("memory.failcnt")).unwrap_or(0),
            Version::V2 => 0,
        };
        (kills, hits)
    }

    /// The cgroup's directory.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// The limit set, bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// The cgroup's usage now, its peak, and the page cache and anonymous memory charged.
    pub fn bound(&self) -> MemoryBound {
        let (usage, peak, cache, anon, version) = match self.version {
            Version::V1 => (
                read_u64(&self.dir.join("memory.usage_in_bytes")),
                read_u64(&self.dir.join("memory.max_usage_in_bytes")),
                stat(&self.dir, "cache"),
                stat(&self.dir, "rss"),
                "v1",
            ),
            Version::V2 => (
                read_u64(&self.dir.join("memory.current")),
                read_u64(&self.dir.join("memory.peak")),
                stat(&self.dir, "file"),
                stat(&self.dir, "anon"),
                "v2",
            ),
        };
        let usage = usage.unwrap_or(0);
        let peak = peak.unwrap_or(0);
        MemoryBound {
            cgroup_version: version.to_string(),
            path: self.dir.display().to_string(),
            limit_bytes: self.limit,
            usage_bytes: usage,
            max_usage_bytes: peak,
            cache_bytes: cache,
            anon_bytes: anon,
            held: usage <= self.limit && peak <= self.limit,
        }
    }
}

impl Drop for MemCgroup {
    fn drop(&mut self) {
        if self.joined && self.owned {
            let _ = fs::write(
                self.parent.join("cgroup.procs"),
                std::process::id().to_string(),
            );
        }
        if self.owned {
            // Fails (harmlessly) while a process it started is still inside.
            let _ = fs::remove_dir(&self.dir);
        }
    }
}

/// Parses a size such as `256M`, `1G`, `65536` or `64KiB` into bytes.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("`{text}` is not a size (e.g. 256M, 1G)"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        _ => return Err(format!("`{text}`: unknown unit (use K, M or G)")),
    };
    n.checked_mul(mult)
        .filter(|&b| b >= 4 << 20)
        .ok_or_else(|| format!("`{text}`: a memory limit must be at least 4M"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_with_binary_units_and_bad_ones_are_refused() {
        assert_eq!(parse_size("256M").unwrap(), 256 << 20);
        assert_eq!(parse_size("1G").unwrap(), 1 << 30);
        assert_eq!(parse_size("64MiB").unwrap(), 64 << 20);
        assert!(parse_size("12X").is_err());
        assert!(parse_size("1K").is_err());
        assert!(parse_size("").is_err());
    }
}
