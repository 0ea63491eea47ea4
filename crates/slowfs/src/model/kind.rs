//! The crash models: what a power cut may leave behind, from kindest to strictest.

use std::fmt;
use std::str::FromStr;

/// The default sector size of the `torn` model, in bytes.
pub const DEFAULT_SECTOR: u32 = 512;

/// What survives a power cut, besides everything a completed sync covered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CrashModel {
    /// Today's cut: every unsynced data change is lost whole; creates, renames, unlinks and
    /// mkdirs survive at once (metadata counts as synced).
    Clean,
    /// Data as `Clean`; a create, rename, unlink, link, mkdir or rmdir survives only once its
    /// parent directory was fsynced, otherwise it may be lost together with every later one
    /// (metadata reaches the disk in order, as through a journal).
    Metadata,
    /// Metadata as `Clean`; any subset of the unsynced data changes survives, per file and
    /// across files (applied in their order: a page holds its newest content).
    Reordered,
    /// As `Reordered`, and each surviving write may persist only a prefix or a subset of its
    /// sectors of `sector` bytes.
    Torn {
        /// Sector size in bytes (a power of two, at least 1).
        sector: u32,
    },
}

impl CrashModel {
    /// Every model, with the default sector size for `torn`.
    pub const ALL: [CrashModel; 4] = [
        CrashModel::Clean,
        CrashModel::Metadata,
        CrashModel::Reordered,
        CrashModel::Torn {
            sector: DEFAULT_SECTOR,
        },
    ];

    /// The model's name as the CLI and the results spell it (`torn` without its sector size).
    pub fn name(self) -> &'static str {
        match self {
            CrashModel::Clean => "clean",
            CrashModel::Metadata => "metadata",
            CrashModel::Reordered => "reordered",
            CrashModel::Torn { .. } => "torn",
        }
    }

    /// Whether metadata needs a directory fsync to survive.
    pub fn strict_metadata(self) -> bool {
        matches!(self, CrashModel::Metadata)
    }

    /// Whether unsynced data changes may survive (some of them).
    pub fn keeps_unsynced_data(self) -> bool {
        matches!(self, CrashModel::Reordered | CrashModel::Torn { .. })
    }

    /// The sector size writes tear at, if they tear.
    pub fn sector(self) -> Option<u32> {
        match self {
            CrashModel::Torn { sector } => Some(sector),
            _ => None,
        }
    }

    /// This model with a sector size (only `torn` has one).
    pub fn with_sector(self, sector: u32) -> CrashModel {
        match self {
            CrashModel::Torn { .. } => CrashModel::Torn { sector },
            other => other,
        }
    }
}

impl fmt::Display for CrashModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CrashModel::Torn { sector } => write!(f, "torn/{sector}"),
            other => f.write_str(other.name()),
        }
    }
}

/// A model name that is not one of [`CrashModel::ALL`], or a bad sector size.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown crash model `{0}` (choose clean, metadata, reordered, torn or torn/SECTOR with SECTOR a power of two)")]
pub struct UnknownModel(pub String);

impl FromStr for CrashModel {
    type Err = UnknownModel;

    fn from_str(s: &str) -> Result<CrashModel, UnknownModel> {
        let bad = || UnknownModel(s.to_string());
        match s {
            "clean" => Ok(CrashModel::Clean),
            "metadata" => Ok(CrashModel::Metadata),
            "reordered" => Ok(CrashModel::Reordered),
            "torn" => Ok(CrashModel::Torn {
                sector: DEFAULT_SECTOR,
            }),
            _ => {
                let sector: u32 = s
                    .strip_prefix("torn/")
                    .and_then(|n| n.parse().ok())
                    .ok_or_else(bad)?;
                if sector == 0 || !sector.is_power_of_two() {
                    return Err(bad());
                }
                Ok(CrashModel::Torn { sector })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for m in CrashModel::ALL {
            assert_eq!(m.to_string().parse::<CrashModel>().unwrap(), m);
        }
        assert_eq!(
            "torn/4096".parse::<CrashModel>().unwrap(),
            CrashModel::Torn { sector: 4096 }
        );
        assert!("torn/1000".parse::<CrashModel>().is_err());
        assert!("fast"
            .parse::<CrashModel>()
            .unwrap_err()
            .to_string()
            .contains("reordered"));
    }
}
