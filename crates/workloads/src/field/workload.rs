//! The field workloads by name, as `triebench field --workload` takes them.

use std::fmt;
use std::str::FromStr;

use crate::field::commit::{FieldCommit, Phase};
use crate::field::firewood::{Firewood, FirewoodCommits};
use crate::field::iavl::IavlCommits;
use crate::field::merk::MerkCommits;

/// One of the field's workloads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldWorkload {
    /// One of Firewood's.
    Firewood(Firewood),
    /// IAVL-bench's bank shape.
    Iavl,
    /// Merk's random inserts, updates and reads.
    Merk,
}

/// Every workload, in the order `--help` lists them.
pub const FIELD_WORKLOADS: [FieldWorkload; 6] = [
    FieldWorkload::Firewood(Firewood::Create),
    FieldWorkload::Firewood(Firewood::Tenkrandom),
    FieldWorkload::Firewood(Firewood::Zipf),
    FieldWorkload::Firewood(Firewood::Single),
    FieldWorkload::Iavl,
    FieldWorkload::Merk,
];

impl FieldWorkload {
    /// The workload's name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            FieldWorkload::Firewood(Firewood::Create) => "firewood-create",
            FieldWorkload::Firewood(Firewood::Tenkrandom) => "firewood-tenkrandom",
            FieldWorkload::Firewood(Firewood::Zipf) => "firewood-zipf",
            FieldWorkload::Firewood(Firewood::Single) => "firewood-single",
            FieldWorkload::Iavl => "iavl-bank",
            FieldWorkload::Merk => "merk",
        }
    }

    /// The workload's commits at `scale`, seeded: setup commits first, then timed ones.
    pub fn commits(
        self,
        scale: u64,
        seed: u64,
    ) -> Box<dyn Iterator<Item = (Phase, FieldCommit)> + Send> {
        match self {
            FieldWorkload::Firewood(which) => Box::new(FirewoodCommits::new(which, scale, seed)),
            FieldWorkload::Iavl => Box::new(IavlCommits::new(scale, seed)),
            FieldWorkload::Merk => Box::new(MerkCommits::new(scale, seed)),
        }
    }
}

impl fmt::Display for FieldWorkload {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A workload name that is none of [`FIELD_WORKLOADS`]; the message lists them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown field workload `{0}`; valid: firewood-create, firewood-tenkrandom, firewood-zipf, firewood-single, iavl-bank, merk")]
pub struct UnknownFieldWorkload(pub String);

impl FromStr for FieldWorkload {
    type Err = UnknownFieldWorkload;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FIELD_WORKLOADS
            .into_iter()
            .find(|w| w.name() == s)
            .ok_or_else(|| UnknownFieldWorkload(s.to_string()))
    }
}
