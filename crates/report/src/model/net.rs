//! Runs at an emulated distance from the database server (`--net-rtt`), as the report holds
//! them: what each headline run and load run measured per profile, and the round trip its
//! stores' delay proxy added.

/// The round trip a run's stores paid to their managed server beyond the machine's own.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Distance {
    /// No proxy: the store reached its server's socket straight.
    Direct,
    /// Through the delay proxy, with this round trip added (µs; 0: proxied without delay).
    Proxied(f64),
}

impl Distance {
    /// Sorting key: direct first, then by added round trip.
    pub fn order(self) -> (u8, f64) {
        match self {
            Distance::Direct => (0, 0.0),
            Distance::Proxied(us) => (1, us),
        }
    }

    /// `direct`, `proxy 0`, `250 µs`, `1 ms`.
    pub fn label(self) -> String {
        match self {
            Distance::Direct => "direct".to_string(),
            Distance::Proxied(us) if us <= 0.0 => "proxy 0".to_string(),
            Distance::Proxied(us) if us >= 1000.0 => format!("{} ms", trim(us / 1000.0)),
            Distance::Proxied(us) => format!("{} µs", trim(us)),
        }
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// One profile's figures in one headline run (means of its samples, ns).
#[derive(Debug, Clone, PartialEq)]
pub struct NetHeadline {
    /// Where the run record came from (its folder, relative to the results folder).
    pub source: String,
    /// The series it belongs to (see [`series_of`]); empty for the folder's main matrix.
    pub series: String,
    /// The distance its stores were at.
    pub distance: Distance,
    /// Backend profile.
    pub profile: String,
    /// The suite's mean time, ns.
    pub suite_ns: Option<f64>,
    /// `update`'s mean time per single-key commit, ns.
    pub update_per_commit_ns: Option<f64>,
    /// The storage floor's mean time per commit (`floor/commit/<profile>`), ns.
    pub floor_per_commit_ns: Option<f64>,
}

/// One profile's load run (`load.json`): the writer's throughput and latency.
#[derive(Debug, Clone, PartialEq)]
pub struct NetLoad {
    /// Where the file came from (its folder, relative to the results folder).
    pub source: String,
    /// The series it belongs to (see [`series_of`]); empty for the folder's main matrix.
    pub series: String,
    /// The distance its stores were at.
    pub distance: Distance,
    /// Backend profile.
    pub profile: String,
    /// Offered commits/s.
    pub offered: f64,
    /// Commits completed per second.
    pub commits_per_sec: f64,
    /// Commit latency p50 and p99 from the intended start, µs.
    pub p50_us: u64,
    /// See `p50_us`.
    pub p99_us: u64,
    /// Reader threads.
    pub readers: usize,
}

/// Everything read from a results folder for the network section.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetRuns {
    /// Per headline run and profile.
    pub headline: Vec<NetHeadline>,
    /// Per load run.
    pub load: Vec<NetLoad>,
}

/// The series of a run whose file sits in `source` (a folder relative to the results folder):
/// `source` without its last `levels` components (the distance's folder, and for a load run
/// the profile's) and without a trailing `headline` or `load`. `headline/rtt-1ms` and
/// `load/1ms/redis` are the main series (``); `before/headline/direct` is `before`, so that
/// runs of another binary in the same folder are tabled and drawn apart.
pub fn series_of(source: &str, levels: usize) -> String {
    let mut parts: Vec<&str> = source
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    for _ in 0..levels {
        parts.pop();
    }
    if matches!(parts.last(), Some(&"headline") | Some(&"load")) {
        parts.pop();
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn series_drop_the_distance_and_kind_folders() {
        assert_eq!(series_of("headline/rtt-1ms", 1), "");
        assert_eq!(series_of("load/1ms/redis", 2), "");
        assert_eq!(
            series_of("before-after/before/headline/direct", 1),
            "before-after/before"
        );
        assert_eq!(series_of(".", 1), "");
        assert_eq!(Distance::Proxied(250.0).label(), "250 µs");
        assert_eq!(Distance::Proxied(1000.0).label(), "1 ms");
        assert_eq!(Distance::Proxied(0.0).label(), "proxy 0");
    }
}
