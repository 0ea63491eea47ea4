//! The run record: one file per run and measuring command, holding what was measured (every
//! benchmark's samples) and where (host, versions, filesystem, CPU idle state).
//!
//! ```json
//! {
//!   "format": "triebench-run-record",
//!   "version": 1,
//!   "run": "tmpfs",
//!   "command": "headline",
//!   "taken_at": "2026-11-25T19:30:00Z",
//!   "environment": { "host": { "hostname": "...", ... }, "versions": { "sqlite": "3.50.2", ... } },
//!   "filesystem": { "name": "tmpfs", "fs_type": "tmpfs", ... },
//!   "cpu_idle": { "requested": "poll", "held": "os", "detail": "..." },
//!   "host_load": { "cores": 2, "spans": [ { "what": "btree", "seconds": 4.1, "load_1m": 1.2,
//!                  "steal": 0.0, "busy": 0.52, "own": 0.5 } ] },
//!   "benchmarks": [
//!     { "group": "scenario/update", "function": "btree", "profile": "btree", "unit": "ns",
//!       "samples": [ { "iterations": 1, "total": 51234567.0 }, ... ], "throughput": null },
//!     { "group": "floor", "function": "sha512_8k", "profile": null, "unit": "ns",
//!       "samples": [ { "iterations": 430, "total": 9876543.0 }, ... ],
//!       "throughput": { "unit": "bytes", "per_iteration": 8192 } }
//!   ]
//! }
//! ```
//!
//! A benchmark's id is `<group>/<function>` (`scenario/update/btree`), the id criterion would
//! give it, so a run record and criterion's output name the same benchmark alike. A sample is
//! `iterations` runs of it measured together, `total` their time in `unit`; the time per
//! iteration is `total / iterations`, and a benchmark's mean is the mean of that over samples.
//!
//! **Paired benchmarks.** In a headline record, `floor/commit/<profile>` (the storage floor of
//! one of `update`'s commits; per-iteration time one floor commit, each sample 30 commits) and
//! `scenario/update/<profile>` (one iteration per sample) have the same number of samples, and
//! sample *i* of each was taken in the same round, round *i* / 10 (a round: a floor block of
//! 300 commits dealt into ten samples, then one `update` run dealt into ten): a reader pairs them
//! by index. Records taken before the floor was measured in rounds hold 300 one-commit floor
//! samples, taken before every round; their counts differ from `update`'s, and a reader then
//! compares the two unpaired. `setup/open/<profile>` is one sample per measured run of a
//! scenario: making, opening and touching its fresh store, which the scenario's own time leaves
//! out.
//!
//! Versioning: [`VERSION`] grows by one whenever a field is removed or its meaning changes; a
//! reader reads every version up to its own and refuses newer ones ([`RecordError::Version`]).
//! Fields added with a default keep the version. See `docs/run-record.md`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cpu_idle::CpuIdleRecord;
use crate::env::{HostInfo, Versions};
use crate::error::RecordError;
use crate::file::{read_json, write_json};
use crate::fs::FsInfo;
use crate::layout::{record_path, validate_run_name};

/// The `format` every run record names.
pub const FORMAT: &str = "triebench-run-record";

/// The newest format version: what this build writes, and the newest it reads.
pub const VERSION: u32 = 1;

/// One run's measurements by one command, and their circumstances.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Always [`FORMAT`].
    pub format: String,
    /// The format version the file follows ([`VERSION`] when written by this build).
    pub version: u32,
    /// The run (the filesystem's name in reports, as a criterion baseline would be named).
    pub run: String,
    /// The command that took it (`headline`), which is also the file's name.
    pub command: String,
    /// When it was taken (UTC, RFC 3339).
    pub taken_at: String,
    /// The machine and software.
    pub environment: Environment,
    /// The filesystem of the directory measured, when the command recorded it.
    #[serde(default)]
    pub filesystem: Option<FsInfo>,
    /// What idle CPUs did while it measured, when the command held them.
    #[serde(default)]
    pub cpu_idle: Option<CpuIdleRecord>,
    /// The emulated network to managed servers (`--net-rtt`), when the run had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub net: Option<crate::net::NetRecord>,
    /// How busy the machine was while it measured (load average, stolen CPU, other
    /// processes' CPU per stretch), when the command sampled it; `None` in older records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_load: Option<crate::host_load::HostLoad>,
    /// The benchmarks, in the order they were taken.
    pub benchmarks: Vec<Benchmark>,
}

/// The machine and software a record's numbers come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Environment {
    /// The machine.
    pub host: HostInfo,
    /// The libraries, servers and triebench build measured.
    pub versions: Versions,
}

/// One benchmark's samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Benchmark {
    /// Criterion's group id, e.g. `scenario/update`.
    pub group: String,
    /// Criterion's function id, e.g. the profile `btree`.
    pub function: String,
    /// The backend profile it ran on, `null` for benchmarks of no store (floors, spans).
    pub profile: Option<String>,
    /// The unit of every sample's `total`.
    pub unit: Unit,
    /// The samples, at least one.
    pub samples: Vec<Sample>,
    /// What one iteration processes, for a rate beside the time.
    #[serde(default)]
    pub throughput: Option<Throughput>,
}

/// `iterations` runs of a benchmark measured together.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// Runs measured, at least one.
    pub iterations: u64,
    /// Their time together, in the benchmark's [`Unit`]: finite and not negative.
    pub total: f64,
}

/// The unit of a sample's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Nanoseconds.
    Ns,
}

/// An amount one iteration processes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throughput {
    /// What is counted.
    pub unit: ThroughputUnit,
    /// How many per iteration.
    pub per_iteration: u64,
}

/// What a throughput counts (criterion's `Throughput` kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ThroughputUnit {
    /// Bytes.
    Bytes,
    /// Elements.
    Elements,
    /// Bits.
    Bits,
}

impl Benchmark {
    /// A benchmark of per-sample times in ns, `(iterations, total ns)` each.
    pub fn ns(group: &str, function: &str, profile: Option<&str>, samples: Vec<Sample>) -> Self {
        Benchmark {
            group: group.to_string(),
            function: function.to_string(),
            profile: profile.map(str::to_string),
            unit: Unit::Ns,
            samples,
            throughput: None,
        }
    }

    /// Its id, `<group>/<function>`.
    pub fn id(&self) -> String {
        format!("{}/{}", self.group, self.function)
    }

    /// Time per iteration of each sample, in ns.
    pub fn per_iteration_ns(&self) -> Vec<f64> {
        let scale = match self.unit {
            Unit::Ns => 1.0,
        };
        self.samples
            .iter()
            .map(|s| scale * s.total / s.iterations as f64)
            .collect()
    }
}

impl Sample {
    /// One iteration that took `ns`.
    pub fn one(ns: f64) -> Self {
        Sample {
            iterations: 1,
            total: ns,
        }
    }
}

impl RunRecord {
    /// An empty record of `command` for run `run`, taken at `taken_at` in `environment`.
    pub fn new(run: &str, command: &str, taken_at: String, environment: Environment) -> Self {
        RunRecord {
            format: FORMAT.to_string(),
            version: VERSION,
            run: run.to_string(),
            command: command.to_string(),
            taken_at,
            environment,
            filesystem: None,
            cpu_idle: None,
            net: None,
            host_load: None,
            benchmarks: Vec::new(),
        }
    }

    /// Checks the format's rules, naming `path` in the error: the format and a version this
    /// build reads, usable run and command names, and per benchmark a unique id and at least
    /// one sample, each of at least one iteration and a finite, non-negative total.
    pub fn validate(&self, path: &Path) -> Result<(), RecordError> {
        if self.format != FORMAT {
            return Err(RecordError::Format {
                path: path.to_path_buf(),
                expected: FORMAT,
                found: self.format.clone(),
            });
        }
        if self.version > VERSION {
            return Err(RecordError::Version {
                path: path.to_path_buf(),
                found: self.version,
                supported: VERSION,
            });
        }
        validate_run_name(&self.run)?;
        validate_run_name(&self.command)?;
        let invalid = |reason: String| RecordError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        let mut ids = BTreeSet::new();
        for b in &self.benchmarks {
            let id = b.id();
            if b.group.is_empty() || b.function.is_empty() {
                return Err(invalid(format!(
                    "benchmark `{id}` has an empty group or function"
                )));
            }
            if b.samples.is_empty() {
                return Err(invalid(format!("benchmark `{id}` has no samples")));
            }
            if let Some(i) = b
                .samples
                .iter()
                .position(|s| s.iterations == 0 || !s.total.is_finite() || s.total < 0.0)
            {
                return Err(invalid(format!(
                    "sample {i} of benchmark `{id}` has no iterations or an invalid total"
                )));
            }
            if !ids.insert(id.clone()) {
                return Err(invalid(format!("benchmark `{id}` appears twice")));
            }
        }
        Ok(())
    }

    /// Reads and checks the record at `path`; `None` when there is no such file.
    pub fn read(path: &Path) -> Result<Option<RunRecord>, RecordError> {
        let Some(record) = read_json::<RunRecord>(path, "run record")? else {
            return Ok(None);
        };
        record.validate(path)?;
        Ok(Some(record))
    }

    /// Checks the record and writes it where its run and command put it under
    /// `criterion_dir` ([`record_path`]); returns that path.
    pub fn write(&self, criterion_dir: &Path) -> Result<PathBuf, RecordError> {
        let path = record_path(criterion_dir, &self.run, &self.command);
        self.validate(&path)?;
        write_json(&path, "run record", self)?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn environment() -> Environment {
        let unknown = || "unknown".to_string();
        Environment {
            host: HostInfo {
                hostname: "h".into(),
                cpu_model: unknown(),
                cores: 2,
                physical_cores: None,
                ram_bytes: None,
                kernel: unknown(),
                os: "linux x86_64".into(),
            },
            versions: Versions {
                sqlite: unknown(),
                lmdb: unknown(),
                redis_server: unknown(),
                triebench: "0.1.0".into(),
                git_commit: unknown(),
                git_dirty: None,
            },
        }
    }

    fn record() -> RunRecord {
        let mut r = RunRecord::new(
            "tmpfs",
            "headline",
            "2026-11-25T00:00:00Z".into(),
            environment(),
        );
        r.benchmarks.push(Benchmark::ns(
            "scenario/update",
            "btree",
            Some("btree"),
            vec![Sample::one(10.0), Sample::one(12.0)],
        ));
        let mut sha = Benchmark::ns(
            "floor",
            "sha512_8k",
            None,
            vec![Sample {
                iterations: 4,
                total: 100.0,
            }],
        );
        sha.throughput = Some(Throughput {
            unit: ThroughputUnit::Bytes,
            per_iteration: 8192,
        });
        r.benchmarks.push(sha);
        r
    }

    fn tempdir() -> PathBuf {
        static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = N.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        std::env::temp_dir().join(format!("triebench-run-record-{}-{n}", std::process::id()))
    }

    #[test]
    fn a_record_round_trips_through_its_file() {
        let dir = tempdir();
        let r = record();
        let path = r.write(&dir).unwrap();
        assert_eq!(path, dir.join("triebench-runs/records/tmpfs/headline.json"));
        assert_eq!(RunRecord::read(&path).unwrap(), Some(r.clone()));
        assert_eq!(r.benchmarks[0].id(), "scenario/update/btree");
        assert_eq!(r.benchmarks[1].per_iteration_ns(), [25.0]);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.contains("\"format\": \"triebench-run-record\""),
            "{text}"
        );
        assert!(text.contains("\"unit\": \"ns\""), "{text}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn rule_breaking_records_are_refused_naming_the_rule() {
        let path = Path::new("r.json");
        let mut r = record();
        r.version = VERSION + 1;
        assert!(matches!(r.validate(path), Err(RecordError::Version { .. })));
        let mut r = record();
        r.format = "criterion".into();
        assert!(matches!(r.validate(path), Err(RecordError::Format { .. })));
        let mut r = record();
        r.benchmarks[0].samples[1].iterations = 0;
        let err = r.validate(path).unwrap_err().to_string();
        assert!(
            err.contains("sample 1 of benchmark `scenario/update/btree`"),
            "{err}"
        );
        let mut r = record();
        r.benchmarks[1].samples.clear();
        assert!(r
            .validate(path)
            .unwrap_err()
            .to_string()
            .contains("no samples"));
        let mut r = record();
        r.benchmarks.push(r.benchmarks[0].clone());
        assert!(r.validate(path).unwrap_err().to_string().contains("twice"));
        let mut r = record();
        r.run = "../x".into();
        assert!(matches!(r.validate(path), Err(RecordError::InvalidName(_))));
    }

    #[test]
    fn a_record_without_host_load_reads_as_not_recorded_and_one_with_it_keeps_it() {
        let dir = tempdir();
        let r = record();
        let path = r.write(&dir).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains("host_load"), "{text}");
        assert_eq!(RunRecord::read(&path).unwrap().unwrap().host_load, None);
        let mut r = record();
        r.host_load = Some(crate::host_load::HostLoad {
            cores: 2,
            spans: vec![crate::host_load::LoadSpan {
                what: "btree".into(),
                seconds: 2.0,
                load_1m: 1.5,
                steal: 0.01,
                busy: 0.6,
                own: 0.5,
            }],
        });
        let path = r.write(&dir).unwrap();
        assert_eq!(RunRecord::read(&path).unwrap(), Some(r));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_record_reads_none_and_a_corrupt_one_names_its_file() {
        let dir = tempdir();
        assert_eq!(RunRecord::read(&dir.join("none.json")).unwrap(), None);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("bad.json"), "{").unwrap();
        let err = RunRecord::read(&dir.join("bad.json")).unwrap_err();
        assert!(err.to_string().contains("bad.json"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
