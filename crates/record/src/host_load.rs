//! How busy the machine was while a run measured: per stretch of the run (the small benchmarks,
//! then each profile), the load average, the share of CPU time the hypervisor stole, and the
//! share other processes used, sampled from `/proc` at the stretch's start and end.
//!
//! A figure taken while another build ran beside it, or on a virtual machine whose host gave
//! its CPU away, is not the storage's cost; the report states these next to the figures they
//! shaped ("Can these figures be trusted?"), and says "not recorded" for runs from before.

use serde::{Deserialize, Serialize};

/// The machine's load during one run (`host_load` of a run record).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HostLoad {
    /// Logical CPUs the machine had (the shares below are of all of them together).
    pub cores: usize,
    /// The stretches of the run, in the order taken.
    pub spans: Vec<LoadSpan>,
}

/// One stretch of a run (a profile's measurement, or the small benchmarks before them).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LoadSpan {
    /// What ran: a profile's name, or `floors` for the small benchmarks.
    pub what: String,
    /// How long it took, in seconds.
    pub seconds: f64,
    /// The one-minute load average (`/proc/loadavg`) at its end; the run itself adds about one.
    pub load_1m: f64,
    /// Share of all CPUs' time the hypervisor gave to other guests (`steal` of `/proc/stat`),
    /// 0..=1.
    pub steal: f64,
    /// Share of all CPUs' time spent busy by anyone (not idle, not waiting for I/O, not
    /// stolen), 0..=1.
    pub busy: f64,
    /// Share of all CPUs' time this process and the servers it started spent, 0..=1.
    pub own: f64,
}

impl LoadSpan {
    /// Share of all CPUs' time other processes used: busy minus ours, never below zero
    /// (the two are read a few microseconds apart).
    pub fn others(&self) -> f64 {
        (self.busy - self.own).max(0.0)
    }
}

impl HostLoad {
    /// The span with the most CPU taken from the run (stolen or used by others), if any.
    pub fn worst(&self) -> Option<&LoadSpan> {
        self.spans
            .iter()
            .max_by(|a, b| (a.steal + a.others()).total_cmp(&(b.steal + b.others())))
    }

    /// The highest one-minute load average at the end of any span.
    pub fn peak_load(&self) -> Option<f64> {
        self.spans.iter().map(|s| s.load_1m).reduce(f64::max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(what: &str, steal: f64, busy: f64, own: f64, load: f64) -> LoadSpan {
        LoadSpan {
            what: what.into(),
            seconds: 1.0,
            load_1m: load,
            steal,
            busy,
            own,
        }
    }

    #[test]
    fn others_is_busy_less_ours_and_the_worst_span_is_the_one_most_taken_from() {
        let load = HostLoad {
            cores: 2,
            spans: vec![
                span("floors", 0.0, 0.5, 0.5, 1.0),
                span("lmdb", 0.1, 0.9, 0.5, 3.5),
                span("btree", 0.0, 0.4, 0.5, 1.2),
            ],
        };
        assert_eq!(load.spans[2].others(), 0.0);
        assert!((load.spans[1].others() - 0.4).abs() < 1e-12);
        assert_eq!(load.worst().map(|s| s.what.as_str()), Some("lmdb"));
        assert_eq!(load.peak_load(), Some(3.5));
        let text = serde_json::to_string(&load).unwrap();
        assert_eq!(serde_json::from_str::<HostLoad>(&text).unwrap(), load);
    }
}
