//! Samples how busy the machine is while a command measures, for the run record's
//! [`HostLoad`]: `/proc/stat`'s CPU counters (busy, idle, I/O wait, stolen), this process's CPU
//! and its descendants' (`/proc/<pid>/stat`: the managed servers a profile starts count as
//! ours) and `/proc/loadavg`, read at each stretch's end and differenced with its start.
//!
//! Where `/proc` cannot be read (not Linux, a restricted container) a stretch records zeros for
//! what it could not read; the sampler never fails a run.

use std::collections::BTreeSet;
use std::fs;
use std::time::Instant;

use triebench_record::{HostLoad, LoadSpan};

/// CPU counters at one moment, in clock ticks (`USER_HZ`, the unit of both files read).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuTicks {
    /// Every CPU's time, all states.
    pub total: u64,
    /// Time spent running anything (user, nice, system, irq, softirq).
    pub busy: u64,
    /// Time the hypervisor gave to other guests.
    pub steal: u64,
    /// This process's and its live descendants' CPU, plus what its reaped children used.
    pub own: u64,
}

/// Parses the aggregate `cpu` line of `/proc/stat`: `(total, busy, steal)`. `guest` time is
/// already inside `user` and is not counted twice.
pub fn parse_proc_stat(text: &str) -> Option<(u64, u64, u64)> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let v: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    let at = |i: usize| v.get(i).copied().unwrap_or(0);
    let (user, nice, system, idle, iowait, irq, softirq, steal) =
        (at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7));
    let busy = user + nice + system + irq + softirq;
    Some((busy + idle + iowait + steal, busy, steal))
}

/// Parses a `/proc/<pid>/stat` line: `utime + stime`, and `cutime + cstime` (its reaped
/// children's). The command name may hold spaces and parentheses, so fields count from the
/// last `)`.
pub fn parse_pid_stat(text: &str) -> Option<(u64, u64)> {
    let rest = &text[text.rfind(')')? + 1..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state is field 3 of proc(5), so field n sits at index n - 3.
    let num = |n: usize| f.get(n - 3).and_then(|x| x.parse::<u64>().ok());
    Some((num(14)? + num(15)?, num(16)? + num(17)?))
}

/// The first value of `/proc/loadavg`, the one-minute load average.
pub fn parse_loadavg(text: &str) -> Option<f64> {
    text.split_whitespace().next()?.parse().ok()
}

fn read(path: &str) -> String {
    fs::read_to_string(path).unwrap_or_default()
}

/// The live descendants of process `pid` (its children's children included), by each task's
/// `children` file (absent on kernels without `CONFIG_PROC_CHILDREN`: then none).
fn descendants(pid: u32) -> BTreeSet<u32> {
    let mut found = BTreeSet::new();
    let mut todo = vec![pid];
    while let Some(p) = todo.pop() {
        let Ok(tasks) = fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        for task in tasks.filter_map(Result::ok) {
            let children = read(&task.path().join("children").to_string_lossy());
            for child in children.split_whitespace().filter_map(|c| c.parse().ok()) {
                if found.insert(child) {
                    todo.push(child);
                }
            }
        }
    }
    found
}

/// The counters now.
pub fn ticks_now() -> CpuTicks {
    let (total, busy, steal) = parse_proc_stat(&read("/proc/stat")).unwrap_or_default();
    let me = std::process::id();
    let (mine, reaped) = parse_pid_stat(&read("/proc/self/stat")).unwrap_or_default();
    let children: u64 = descendants(me)
        .into_iter()
        .filter_map(|p| parse_pid_stat(&read(&format!("/proc/{p}/stat"))))
        .map(|(cpu, _)| cpu)
        .sum();
    CpuTicks {
        total,
        busy,
        steal,
        own: mine + reaped + children,
    }
}

/// The span between two readings, as shares of all CPUs' time.
pub fn span_between(what: &str, seconds: f64, a: CpuTicks, b: CpuTicks, load_1m: f64) -> LoadSpan {
    let total = b.total.saturating_sub(a.total);
    let share = |x: u64, y: u64| {
        if total == 0 {
            0.0
        } else {
            (y.saturating_sub(x) as f64 / total as f64).clamp(0.0, 1.0)
        }
    };
    LoadSpan {
        what: what.to_string(),
        seconds,
        load_1m,
        steal: share(a.steal, b.steal),
        busy: share(a.busy, b.busy),
        own: share(a.own, b.own),
    }
}

/// Takes a run's load stretch by stretch: each [`HostLoadSampler::mark`] closes the stretch
/// begun at the previous mark (or at [`HostLoadSampler::start`]).
#[derive(Debug)]
pub struct HostLoadSampler {
    at: Instant,
    ticks: CpuTicks,
    load: HostLoad,
}

impl HostLoadSampler {
    /// Starts the first stretch now.
    pub fn start() -> Self {
        HostLoadSampler {
            at: Instant::now(),
            ticks: ticks_now(),
            load: HostLoad {
                cores: std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1),
                spans: Vec::new(),
            },
        }
    }

    /// Closes the current stretch as `what` and starts the next one.
    pub fn mark(&mut self, what: &str) {
        let now = Instant::now();
        let ticks = ticks_now();
        let load = parse_loadavg(&read("/proc/loadavg")).unwrap_or(0.0);
        self.load.spans.push(span_between(
            what,
            now.duration_since(self.at).as_secs_f64(),
            self.ticks,
            ticks,
            load,
        ));
        self.at = now;
        self.ticks = ticks;
    }

    /// Every stretch closed so far.
    pub fn load(&self) -> &HostLoad {
        &self.load
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn proc_files_parse_as_the_kernel_writes_them() {
        let stat = "cpu  100 5 50 800 20 3 2 10 7 0\ncpu0 50 2 25 400 10 1 1 5 3 0\n";
        assert_eq!(parse_proc_stat(stat), Some((990, 160, 10)));
        let pid = "1234 (tri bench) x) S 1 1234 1234 0 -1 4194560 100 0 0 0 \
                   70 30 4 6 20 0 3 0 100 1000 200";
        assert_eq!(parse_pid_stat(pid), Some((100, 10)));
        assert_eq!(parse_loadavg("1.25 0.80 0.50 2/300 4567\n"), Some(1.25));
        assert_eq!(parse_proc_stat("intr 1 2 3"), None);
    }

    #[test]
    fn a_span_is_its_counters_shares_of_all_cpu_time() {
        let a = CpuTicks {
            total: 1000,
            busy: 400,
            steal: 10,
            own: 100,
        };
        let b = CpuTicks {
            total: 2000,
            busy: 1200,
            steal: 60,
            own: 600,
        };
        let s = span_between("lmdb", 5.0, a, b, 2.5);
        assert!((s.busy - 0.8).abs() < 1e-12);
        assert!((s.steal - 0.05).abs() < 1e-12);
        assert!((s.own - 0.5).abs() < 1e-12);
        assert!((s.others() - 0.3).abs() < 1e-12);
        assert_eq!(span_between("x", 0.0, a, a, 0.0).busy, 0.0);
    }

    #[test]
    fn a_busy_child_counts_as_ours_on_this_machine() {
        // A real child process spinning: its CPU is ours, not another process's.
        let mut sampler = HostLoadSampler::start();
        let mut child = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done"])
            .spawn()
            .unwrap();
        let mut ticks_seen = ticks_now();
        while child.try_wait().unwrap().is_none() {
            ticks_seen = ticks_now();
        }
        sampler.mark("child");
        let span = &sampler.load().spans[0];
        assert_eq!(span.what, "child");
        assert!(span.seconds > 0.0);
        assert!(span.own > 0.0, "{span:?} {ticks_seen:?}");
        assert!(span.busy >= 0.0 && span.busy <= 1.0 && span.steal <= 1.0);
    }
}
