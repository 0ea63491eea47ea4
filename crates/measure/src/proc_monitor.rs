//! [`ProcMonitor`]: a load run's resource use from `/proc` (resident memory and CPU time of this
//! process plus the backend's server process) and the store's size on disk.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use triebench_workloads::load::{Monitor, ResourceSample};

/// Samples `/proc/<pid>/{statm,stat}` of a set of processes and the size of a directory.
#[derive(Debug)]
pub struct ProcMonitor {
    pids: Vec<u32>,
    dir: Option<PathBuf>,
    page_size: u64,
    ticks_per_sec: f64,
    last: Option<(Instant, u64)>,
}

impl ProcMonitor {
    /// Watches this process, plus `server` (the backend's server process) when given, and
    /// the size of `dir` when given.
    pub fn new(server: Option<u32>, dir: Option<&Path>) -> Self {
        let mut pids = vec![std::process::id()];
        pids.extend(server);
        // SAFETY: sysconf only reads a configuration value.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        // SAFETY: as above.
        let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
        ProcMonitor {
            pids,
            dir: dir.map(Path::to_path_buf),
            page_size: u64::try_from(page).ok().filter(|&p| p > 0).unwrap_or(4096),
            ticks_per_sec: if ticks > 0 { ticks as f64 } else { 100.0 },
            last: None,
        }
    }

    fn rss(&self, pid: u32) -> u64 {
        // statm: size resident shared text lib data dt (pages).
        fs::read_to_string(format!("/proc/{pid}/statm"))
            .ok()
            .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
            .map_or(0, |pages| pages * self.page_size)
    }
}

/// utime + stime (clock ticks) of `pid`, from `/proc/<pid>/stat`.
fn cpu_ticks(pid: u32) -> u64 {
    let Ok(stat) = fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After ")": state is field 3, so utime (14) and stime (15) are at 11 and 12.
    let get = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    get(11) + get(12)
}

pub use triebench_record::proc_stats::disk_usage;

impl Monitor for ProcMonitor {
    fn sample(&mut self) -> ResourceSample {
        let now = Instant::now();
        let ticks: u64 = self.pids.iter().map(|&p| cpu_ticks(p)).sum();
        let cpu_pct = match self.last {
            Some((then, before)) => {
                let secs = now.duration_since(then).as_secs_f64();
                if secs > 0.0 {
                    ticks.saturating_sub(before) as f64 / self.ticks_per_sec / secs * 100.0
                } else {
                    0.0
                }
            }
            None => 0.0,
        };
        self.last = Some((now, ticks));
        ResourceSample {
            rss_bytes: self.pids.iter().map(|&p| self.rss(p)).sum(),
            cpu_pct,
            store_bytes: self.dir.as_deref().map_or(0, disk_usage),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_process_and_a_directory() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a"), vec![1u8; 64 * 1024]).unwrap();
        let mut m = ProcMonitor::new(None, Some(dir.path()));
        let _ = m.sample();
        let mut x = 0u64;
        for i in 0..3_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let s = m.sample();
        assert!(s.rss_bytes > 1 << 20, "{s:?}");
        assert!(s.store_bytes >= 64 * 1024, "{s:?}");
        assert!(s.cpu_pct >= 0.0);
    }
}
