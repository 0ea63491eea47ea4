//! Benchmark identities: criterion's (group, function, parameter) triple, and what the triebench
//! naming convention makes of it.
//!
//! The benches name their groups as follows (the reader relies on nothing else):
//! - `scenario/<name>`, function = profile, no parameter: one of Transact's ten scenarios, or
//!   `suite` for all ten in one measurement (the headline figure);
//! - `scale/<kind>/<profile>`, function and/or parameter free (`commit_size`, `state_size`,
//!   `reads` with `hit`/`miss`, `leaves`, `prune`);
//! - `floor`, function `fsync_4k` (4 KiB write + fdatasync) or `sha512_8k` (hash throughput);
//! - `floor/commit`, function = profile: the storage floor of one `update` commit;
//! - `kv/<op>/<profile>`, parameter = keys per transaction (raw backend operations).
//!
//! A scenario's function may also be `<implementation>:<profile>` (feature `transact`:
//! `transact-0.4.7:lmdb`), another implementation's measurement of the same scenario on the
//! store our `<profile>` names; a plain profile is triebench's ([`OURS`]).

use serde::{Deserialize, Serialize};

use triebench_record::vocabulary::{profile, PROFILES};
pub use triebench_record::vocabulary::{
    FLOOR_COMMIT_GROUP, FLOOR_FSYNC, FLOOR_SHA512, SCENARIOS, SPAN_COLLECTED, SPAN_GROUP,
    SPAN_IDLE, SUITE,
};

/// The profile every other profile's overhead is measured against.
pub const REFERENCE_PROFILE: &str = "btree";

/// The implementation a plain profile name stands for.
pub const OURS: &str = "triebench";

/// Splits a scenario function `impl:profile` into `(impl, profile)`; a plain profile is
/// `(OURS, profile)`.
pub fn split_implementation(function: &str) -> (&str, &str) {
    match function.split_once(':') {
        Some((implementation, profile)) => (implementation, profile),
        None => (OURS, function),
    }
}

/// A benchmark as criterion identifies it in `benchmark.json`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct BenchKey {
    /// `group_id`.
    pub group: String,
    /// `function_id` (absent for `BenchmarkId::from_parameter`).
    pub function: Option<String>,
    /// `value_str`: the parameter, if any.
    pub value: Option<String>,
}

impl BenchKey {
    /// A key from its three parts.
    pub fn new(group: &str, function: Option<&str>, value: Option<&str>) -> Self {
        BenchKey {
            group: group.to_string(),
            function: function.map(str::to_string),
            value: value.map(str::to_string),
        }
    }

    /// `group/function/value` with absent parts left out, as criterion titles it.
    pub fn full_id(&self) -> String {
        let mut id = self.group.clone();
        for part in [&self.function, &self.value].into_iter().flatten() {
            id.push('/');
            id.push_str(part);
        }
        id
    }

    /// The benchmark's id inside its group (`function/value`), or `-` when it has neither.
    pub fn item(&self) -> String {
        match (&self.function, &self.value) {
            (Some(f), Some(v)) => format!("{f}/{v}"),
            (Some(f), None) => f.clone(),
            (None, Some(v)) => v.clone(),
            (None, None) => "-".to_string(),
        }
    }

    /// What the naming convention makes of this key.
    pub fn kind(&self) -> BenchKind {
        let parts: Vec<&str> = self.group.split('/').collect();
        match parts.as_slice() {
            ["scenario", name] if self.value.is_none() => match &self.function {
                Some(profile) => BenchKind::Scenario {
                    scenario: (*name).to_string(),
                    profile: profile.clone(),
                },
                None => BenchKind::Other,
            },
            ["floor"] => match &self.function {
                Some(name) => BenchKind::Floor { name: name.clone() },
                None => BenchKind::Other,
            },
            ["floor", "commit"] if self.value.is_none() => match &self.function {
                Some(profile) => BenchKind::CommitFloor {
                    profile: profile.clone(),
                },
                None => BenchKind::Other,
            },
            [family @ ("scale" | "kv"), kind, profile] => BenchKind::Profiled {
                family: (*family).to_string(),
                kind: (*kind).to_string(),
                profile: (*profile).to_string(),
            },
            _ => BenchKind::Other,
        }
    }

    /// The same benchmark run on another profile, if this key names a profile.
    pub fn with_profile(&self, other: &str) -> Option<BenchKey> {
        match self.kind() {
            BenchKind::Scenario { .. } => Some(BenchKey {
                function: Some(other.to_string()),
                ..self.clone()
            }),
            BenchKind::Profiled { family, kind, .. } => Some(BenchKey {
                group: format!("{family}/{kind}/{other}"),
                ..self.clone()
            }),
            BenchKind::Floor { .. } | BenchKind::CommitFloor { .. } | BenchKind::Other => None,
        }
    }

    /// For a scenario benchmark, its implementation and profile ([`split_implementation`]).
    pub fn implementation(&self) -> Option<(String, String)> {
        match self.kind() {
            BenchKind::Scenario { profile, .. } => {
                let (i, p) = split_implementation(&profile);
                Some((i.to_string(), p.to_string()))
            }
            _ => None,
        }
    }

    /// The profile this benchmark ran on, if the convention names one.
    pub fn profile(&self) -> Option<String> {
        match self.kind() {
            BenchKind::Scenario { profile, .. }
            | BenchKind::Profiled { profile, .. }
            | BenchKind::CommitFloor { profile } => Some(profile),
            BenchKind::Floor { .. } | BenchKind::Other => None,
        }
    }
}

/// The role of a benchmark under the triebench naming convention.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BenchKind {
    /// `scenario/<scenario>`, function = profile.
    Scenario {
        /// One of [`SCENARIOS`] or [`SUITE`] (or an unknown name, still reported).
        scenario: String,
        /// The profile name.
        profile: String,
    },
    /// `floor`, function = the floor's name.
    Floor {
        /// [`FLOOR_FSYNC`], [`FLOOR_SHA512`] or another floor.
        name: String,
    },
    /// `floor/commit`, function = profile: the storage floor of one `update` commit.
    CommitFloor {
        /// The profile name.
        profile: String,
    },
    /// `scale/<kind>/<profile>` or `kv/<kind>/<profile>`.
    Profiled {
        /// `scale` or `kv`.
        family: String,
        /// `commit_size`, `state_size`, `reads`, `leaves`, `prune`, `commit`, `get`, ...
        kind: String,
        /// The profile name.
        profile: String,
    },
    /// Anything else: reported in a generic per-group table.
    Other,
}

/// Where a scenario sorts in tables: the suite first, then Transact's order, then unknown names.
pub fn scenario_rank(name: &str) -> (usize, String) {
    if name == SUITE {
        return (0, String::new());
    }
    match SCENARIOS.iter().position(|s| *s == name) {
        Some(i) => (i + 1, String::new()),
        None => (SCENARIOS.len() + 1, name.to_string()),
    }
}

/// Where a profile sorts in tables: [`PROFILES`] order, then unknown names.
pub fn profile_rank(name: &str) -> (usize, String) {
    match PROFILES.iter().position(|p| p.name == name) {
        Some(i) => (i, String::new()),
        None => (PROFILES.len(), name.to_string()),
    }
}

/// Whether the named profile fsyncs every commit (`None` for a name that is not a profile).
pub fn profile_durable(name: &str) -> Option<bool> {
    profile(name).map(|p| p.fsyncs_each_commit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_convention_is_decoded() {
        let s = BenchKey::new("scenario/update", Some("sqlite-wal"), None);
        assert_eq!(
            s.kind(),
            BenchKind::Scenario {
                scenario: "update".into(),
                profile: "sqlite-wal".into()
            }
        );
        assert_eq!(
            s.with_profile("btree"),
            Some(BenchKey::new("scenario/update", Some("btree"), None))
        );
        let c = BenchKey::new("scale/reads/lmdb", Some("hit"), Some("100"));
        assert_eq!(c.profile().as_deref(), Some("lmdb"));
        assert_eq!(c.full_id(), "scale/reads/lmdb/hit/100");
        assert_eq!(
            c.with_profile("btree").map(|k| k.full_id()).as_deref(),
            Some("scale/reads/btree/hit/100")
        );
        let f = BenchKey::new("floor", Some("fsync_4k"), None);
        assert_eq!(
            f.kind(),
            BenchKind::Floor {
                name: "fsync_4k".into()
            }
        );
        assert_eq!(f.with_profile("btree"), None);
        assert_eq!(
            BenchKey::new("misc", None, Some("1")).kind(),
            BenchKind::Other
        );
        assert_eq!(profile_durable("lmdb"), Some(true));
        assert_eq!(profile_durable("lmdb-async"), Some(false));
        assert_eq!(profile_durable("nope"), None);
        assert!(scenario_rank("suite") < scenario_rank("empty_changes"));
        assert_eq!(
            s.implementation(),
            Some(("triebench".into(), "sqlite-wal".into()))
        );
        let t = BenchKey::new("scenario/suite", Some("transact-0.4.7:lmdb"), None);
        assert_eq!(
            t.implementation(),
            Some(("transact-0.4.7".into(), "lmdb".into()))
        );
        assert_eq!(t.full_id(), "scenario/suite/transact-0.4.7:lmdb");
        assert_eq!(c.implementation(), None);
        assert!(scenario_rank("pruning_parent") < scenario_rank("zzz"));
    }
}
