//! [`MerkBench`]: Merk's workload ([`MerkCommits`]) on Merk's own code, in a directory of its
//! own: the setup batches untimed, then each insert and update batch timed alone (`apply`
//! then `commit`, as Merk's benches do; the batch is sorted before the clock starts, as its
//! benches make theirs sorted), and each read batch timed alone (one `get` per key). Every
//! value read is compared, after its batch's clock stops, with the value last written under
//! its key; a difference stops the run.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use merk::Merk;
use triebench_record::merk_side::MerkSide;
use triebench_workloads::field::merk::MerkCommits;
use triebench_workloads::field::{CommitsDigest, FieldCommit, OpKind, Phase};

use crate::batch;
use crate::disk;
use crate::error::MerkError;

/// The engine measured, as the record names it.
pub const ENGINE: &str = "Merk 2.0.1";

/// Seconds since `start`.
fn seconds(start: Instant) -> f64 {
    start.elapsed().as_secs_f64()
}

/// A Merk store opened for one run, with every value the run wrote.
pub struct MerkBench {
    merk: Merk,
    dir: PathBuf,
    /// The value last written under each key (deletes remove it).
    written: HashMap<[u8; 16], Vec<u8>>,
    side: MerkSide,
}

impl MerkBench {
    /// Opens a new Merk store in `dir`, which must be missing or empty (it is created).
    pub fn open(dir: &Path) -> Result<Self, MerkError> {
        if dir.exists() {
            let mut entries = std::fs::read_dir(dir).map_err(|e| MerkError::io(dir, e))?;
            if entries.next().is_some() {
                return Err(MerkError::DirNotEmpty {
                    path: dir.to_path_buf(),
                });
            }
        }
        std::fs::create_dir_all(dir).map_err(|e| MerkError::io(dir, e))?;
        let merk = Merk::open(dir).map_err(|e| MerkError::merk("open", e))?;
        Ok(MerkBench {
            merk,
            dir: dir.to_path_buf(),
            written: HashMap::new(),
            side: MerkSide {
                engine: ENGINE.to_string(),
                // Merk::commit writes its batch with `set_sync(false)`.
                synced: false,
                ..MerkSide::default()
            },
        })
    }

    /// Runs the workload at `scale` and `seed` (see [`MerkCommits`]).
    pub fn run(&mut self, scale: u64, seed: u64) -> Result<(), MerkError> {
        let mut digest = CommitsDigest::new();
        self.side.scale = scale;
        self.side.seed = seed;
        for (phase, commit) in MerkCommits::new(scale, seed) {
            digest.add(phase, &commit);
            match (phase, commit.kind()) {
                (_, Some(OpKind::Reads)) => {
                    let s = self.read_batch(&commit)?;
                    if phase == Phase::Timed {
                        self.side.reads += commit.reads.len() as u64;
                        self.side.reads_s += s;
                    }
                }
                (Phase::Setup, _) => {
                    self.side.setup_s += self.write_batch(&commit)?;
                    self.side.setup_batches += 1;
                }
                (Phase::Timed, Some(OpKind::Inserts)) => {
                    self.side.inserts_s += self.write_batch(&commit)?;
                    self.side.inserts += commit.inserts.len() as u64;
                }
                (Phase::Timed, Some(OpKind::Updates)) => {
                    self.side.updates_s += self.write_batch(&commit)?;
                    self.side.updates += commit.updates.len() as u64;
                }
                (Phase::Timed, _) => {
                    return Err(MerkError::UnexpectedCommit(format!(
                        "{} inserts, {} updates, {} deletes, {} reads",
                        commit.inserts.len(),
                        commit.updates.len(),
                        commit.deletes.len(),
                        commit.reads.len()
                    )))
                }
            }
        }
        let rate = |ops: u64, s: f64| if s > 0.0 { ops as f64 / s } else { 0.0 };
        self.side.inserts_per_s = rate(self.side.inserts, self.side.inserts_s);
        self.side.updates_per_s = rate(self.side.updates, self.side.updates_s);
        self.side.reads_per_s = rate(self.side.reads, self.side.reads_s);
        self.side.final_root = self.root_hex();
        self.side.commits_sha256 = digest.finish();
        Ok(())
    }

    /// Applies and commits one batch; returns the seconds the two took.
    fn write_batch(&mut self, commit: &FieldCommit) -> Result<f64, MerkError> {
        let batch = batch::writes(commit)?;
        let start = Instant::now();
        self.merk
            .apply(&batch)
            .map_err(|e| MerkError::merk("apply", e))?;
        self.merk
            .commit(&[])
            .map_err(|e| MerkError::merk("commit", e))?;
        let s = seconds(start);
        for (key, value) in commit.inserts.iter().chain(&commit.updates) {
            self.written.insert(batch::key_of(key)?, value.clone());
        }
        for address in &commit.deletes {
            self.written.remove(&batch::key_of(address)?);
        }
        Ok(s)
    }

    /// Reads one batch, one `get` per key; returns the seconds the reads took, after checking
    /// every value read.
    fn read_batch(&mut self, commit: &FieldCommit) -> Result<f64, MerkError> {
        let keys = batch::reads(commit)?;
        let start = Instant::now();
        let got = keys
            .iter()
            .map(|key| self.merk.get(key))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| MerkError::merk("get", e))?;
        let s = seconds(start);
        for (key, value) in keys.iter().zip(&got) {
            self.check(key, value.as_deref())?;
        }
        Ok(s)
    }

    /// Whether `got` is the value last written under `key`.
    fn check(&mut self, key: &[u8; 16], got: Option<&[u8]>) -> Result<(), MerkError> {
        let Some(expected) = self.written.get(key) else {
            return Err(MerkError::NeverWritten(hex::encode(key)));
        };
        if got != Some(expected.as_slice()) {
            return Err(MerkError::ReadMismatch {
                key: hex::encode(key),
                expected: hex::encode(expected),
                got: got.map_or_else(|| "nothing".to_string(), hex::encode),
            });
        }
        self.side.reads_checked += 1;
        Ok(())
    }

    /// Reads every key the run wrote and compares each value with what was written (untimed;
    /// for tests); returns how many were read.
    pub fn check_every_value(&self) -> Result<u64, MerkError> {
        let mut checked = 0;
        for (key, expected) in &self.written {
            let got = self.merk.get(key).map_err(|e| MerkError::merk("get", e))?;
            if got.as_deref() != Some(expected.as_slice()) {
                return Err(MerkError::ReadMismatch {
                    key: hex::encode(key),
                    expected: hex::encode(expected),
                    got: got.map_or_else(|| "nothing".to_string(), hex::encode),
                });
            }
            checked += 1;
        }
        Ok(checked)
    }

    /// Keys the run holds.
    pub fn keys_held(&self) -> usize {
        self.written.len()
    }

    /// Merk's root hash now, hex.
    pub fn root_hex(&self) -> String {
        hex::encode(self.merk.root_hash())
    }

    /// Closes the store (Merk flushes RocksDB's memtables as it closes) and returns the run's
    /// figures with the directory's bytes and the RocksDB version its log names.
    pub fn finish(self) -> Result<MerkSide, MerkError> {
        let MerkBench {
            merk, dir, side, ..
        } = self;
        merk.flush().map_err(|e| MerkError::merk("flush", e))?;
        drop(merk);
        Ok(MerkSide {
            bytes_on_disk: disk::bytes_under(&dir)?,
            rocksdb: disk::rocksdb_version(&dir).unwrap_or_default(),
            ..side
        })
    }
}
