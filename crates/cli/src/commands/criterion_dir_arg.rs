//! `--criterion-dir DIR`, one definition for every command that reads or writes criterion's
//! output (`capture-fs`, `headline`, `io-profile`, `phases`, `report`), so its help and its
//! default stay the same everywhere.

use std::path::PathBuf;

use clap::Args;

#[derive(Debug, Args)]
pub struct CriterionDirArg {
    /// Criterion's output directory [default: where criterion writes, $CRITERION_HOME, else
    /// `criterion` in the cargo target directory (`cargo metadata`)].
    #[arg(long, value_name = "DIR")]
    pub criterion_dir: Option<PathBuf>,
}

impl CriterionDirArg {
    /// The directory given, else where criterion writes
    /// ([`triebench_report::default_criterion_dir`]).
    pub fn resolve(self) -> PathBuf {
        self.criterion_dir
            .unwrap_or_else(triebench_report::default_criterion_dir)
    }
}
