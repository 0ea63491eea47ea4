//! Time against distance: per profile, the suite's time at each added round trip and its ratio
//! to the same profile's time at zero (direct, and through the proxy without delay), `update`
//! per commit against the profile's storage floor, and the writer's load figures.

use crate::model::net::{Distance, NetRuns};

/// One profile at one distance (several runs at the same distance averaged).
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteRow {
    /// Backend profile (prefixed `series: ` for a run outside the folder's main series).
    pub profile: String,
    /// Distance to its server.
    pub distance: Distance,
    /// Runs averaged.
    pub runs: usize,
    /// Suite time, ms.
    pub suite_ms: Option<f64>,
    /// Suite time ÷ the profile's direct run.
    pub vs_direct: Option<f64>,
    /// Suite time ÷ the profile's run through the proxy without delay.
    pub vs_proxy0: Option<f64>,
    /// `update` per single-key commit, ms.
    pub update_ms: Option<f64>,
    /// The storage floor per commit, ms.
    pub floor_ms: Option<f64>,
}

impl SuiteRow {
    /// `update` per commit ÷ the storage floor per commit.
    pub fn update_over_floor(&self) -> Option<f64> {
        match (self.update_ms, self.floor_ms) {
            (Some(u), Some(f)) if f > 0.0 => Some(u / f),
            _ => None,
        }
    }
}

/// A profile's suite time over the added round trip, for the plot: its proxied runs, and its
/// direct run at 0 when it has no run through the proxy without delay (a series of direct and
/// delayed runs only, such as a before/after pair, still draws a line).
#[derive(Debug, Clone, PartialEq)]
pub struct SuiteLine {
    /// Backend profile (prefixed `series: ` for a run outside the folder's main series).
    pub profile: String,
    /// (added round trip µs, suite ms), by round trip.
    pub points: Vec<(f64, f64)>,
}

/// The writer under load at one distance.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadRow {
    /// Backend profile (prefixed `series: ` for a run outside the folder's main series).
    pub profile: String,
    /// Distance to its server.
    pub distance: Distance,
    /// Reader threads.
    pub readers: usize,
    /// Offered commits/s.
    pub offered: f64,
    /// Achieved commits/s.
    pub commits_per_sec: f64,
    /// Commit latency p50, ms.
    pub p50_ms: f64,
    /// Commit latency p99, ms.
    pub p99_ms: f64,
}

fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    (n > 0).then(|| sum / n as f64)
}

/// A row's name: the profile, prefixed by its series when it is not the main one.
fn label(series: &str, profile: &str) -> String {
    if series.is_empty() {
        profile.to_string()
    } else {
        format!("{series}: {profile}")
    }
}

/// Profiles in the order they first appear.
fn profiles<S: AsRef<str>>(names: impl Iterator<Item = S>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for name in names {
        if !out.iter().any(|p| p == name.as_ref()) {
            out.push(name.as_ref().to_string());
        }
    }
    out
}

/// The suite table: per profile (in order of appearance), one row per distance (direct first,
/// then by round trip).
pub fn suite_rows(runs: &NetRuns) -> Vec<SuiteRow> {
    let mut rows = Vec::new();
    for profile in profiles(runs.headline.iter().map(|h| label(&h.series, &h.profile))) {
        let mine: Vec<_> = runs
            .headline
            .iter()
            .filter(|h| label(&h.series, &h.profile) == profile)
            .collect();
        let mut distances: Vec<Distance> = Vec::new();
        for h in &mine {
            if !distances.contains(&h.distance) {
                distances.push(h.distance);
            }
        }
        distances.sort_by(|a, b| {
            a.order()
                .partial_cmp(&b.order())
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        let at = |d: Distance, f: &dyn Fn(&crate::model::net::NetHeadline) -> Option<f64>| {
            mean(mine.iter().filter(|h| h.distance == d).filter_map(|h| f(h)))
        };
        let suite = |d: Distance| at(d, &|h| h.suite_ns).map(|ns| ns / 1e6);
        let direct = suite(Distance::Direct);
        let proxy0 = suite(Distance::Proxied(0.0));
        for d in distances {
            let suite_ms = suite(d);
            let ratio = |base: Option<f64>| match (suite_ms, base) {
                (Some(s), Some(b)) if b > 0.0 => Some(s / b),
                _ => None,
            };
            rows.push(SuiteRow {
                profile: profile.clone(),
                distance: d,
                runs: mine.iter().filter(|h| h.distance == d).count(),
                suite_ms,
                vs_direct: ratio(direct),
                vs_proxy0: ratio(proxy0),
                update_ms: at(d, &|h| h.update_per_commit_ns).map(|ns| ns / 1e6),
                floor_ms: at(d, &|h| h.floor_per_commit_ns).map(|ns| ns / 1e6),
            });
        }
    }
    rows
}

/// The plot's lines: per profile, its proxied rows' suite times by round trip.
pub fn suite_lines(rows: &[SuiteRow]) -> Vec<SuiteLine> {
    profiles(rows.iter().map(|r| r.profile.as_str()))
        .into_iter()
        .filter_map(|profile| {
            let mine: Vec<&SuiteRow> = rows.iter().filter(|r| r.profile == profile).collect();
            let proxy0 = mine
                .iter()
                .any(|r| r.distance == Distance::Proxied(0.0) && r.suite_ms.is_some());
            let points: Vec<(f64, f64)> = mine
                .iter()
                .filter_map(|r| match r.distance {
                    Distance::Proxied(us) => r.suite_ms.map(|ms| (us, ms)),
                    Distance::Direct if !proxy0 => r.suite_ms.map(|ms| (0.0, ms)),
                    Distance::Direct => None,
                })
                .collect();
            (!points.is_empty()).then_some(SuiteLine { profile, points })
        })
        .collect()
}

/// The load table: per profile (in order of appearance), by readers, then distance.
pub fn load_rows(runs: &NetRuns) -> Vec<LoadRow> {
    let order = profiles(runs.load.iter().map(|l| label(&l.series, &l.profile)));
    let mut rows: Vec<LoadRow> = runs
        .load
        .iter()
        .map(|l| LoadRow {
            profile: label(&l.series, &l.profile),
            distance: l.distance,
            readers: l.readers,
            offered: l.offered,
            commits_per_sec: l.commits_per_sec,
            p50_ms: l.p50_us as f64 / 1e3,
            p99_ms: l.p99_us as f64 / 1e3,
        })
        .collect();
    let rank = |p: &str| order.iter().position(|o| o == p).unwrap_or(usize::MAX);
    rows.sort_by(|a, b| {
        (rank(&a.profile), a.readers)
            .cmp(&(rank(&b.profile), b.readers))
            .then(
                a.distance
                    .order()
                    .partial_cmp(&b.distance.order())
                    .unwrap_or(std::cmp::Ordering::Equal),
            )
    });
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::net::NetHeadline;

    fn h(profile: &str, distance: Distance, suite_ms: f64) -> NetHeadline {
        NetHeadline {
            source: "x".into(),
            series: String::new(),
            distance,
            profile: profile.into(),
            suite_ns: Some(suite_ms * 1e6),
            update_per_commit_ns: Some(suite_ms * 1e3),
            floor_per_commit_ns: Some(suite_ms * 500.0),
        }
    }

    #[test]
    fn rows_are_ordered_by_distance_and_divided_by_the_zero_runs() {
        let runs = NetRuns {
            headline: vec![
                h("postgres", Distance::Proxied(1000.0), 600.0),
                h("postgres", Distance::Direct, 100.0),
                h("postgres", Distance::Proxied(0.0), 200.0),
                h("postgres", Distance::Proxied(1000.0), 400.0),
                h("redis", Distance::Proxied(250.0), 30.0),
                NetHeadline {
                    series: "before".into(),
                    ..h("postgres", Distance::Direct, 50.0)
                },
            ],
            load: Vec::new(),
        };
        let rows = suite_rows(&runs);
        let pg: Vec<_> = rows.iter().filter(|r| r.profile == "postgres").collect();
        assert_eq!(
            pg.iter().map(|r| r.distance).collect::<Vec<_>>(),
            [
                Distance::Direct,
                Distance::Proxied(0.0),
                Distance::Proxied(1000.0)
            ]
        );
        // Two runs at 1 ms averaged: 500 ms, 5x direct, 2.5x proxy 0.
        assert_eq!(pg[2].runs, 2);
        assert_eq!(pg[2].suite_ms, Some(500.0));
        assert_eq!(pg[2].vs_direct, Some(5.0));
        assert_eq!(pg[2].vs_proxy0, Some(2.5));
        assert_eq!(pg[2].update_over_floor(), Some(2.0));
        let redis = rows.iter().find(|r| r.profile == "redis").unwrap();
        assert_eq!(redis.vs_direct, None, "no direct run of redis");
        let lines = suite_lines(&rows);
        assert_eq!(lines[0].points, [(0.0, 200.0), (1000.0, 500.0)]);
        assert_eq!(lines[1].profile, "redis");
        let before = rows
            .iter()
            .find(|r| r.profile == "before: postgres")
            .unwrap();
        assert_eq!(before.suite_ms, Some(50.0), "another series is kept apart");
        let before_line = lines
            .iter()
            .find(|l| l.profile == "before: postgres")
            .unwrap();
        assert_eq!(
            before_line.points,
            [(0.0, 50.0)],
            "no proxy-0 run: direct drawn at 0"
        );
    }
}
