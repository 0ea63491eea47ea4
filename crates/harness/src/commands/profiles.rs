//! `triebench profiles`: the backend profiles with their durability per commit.

use std::io::{self, Write};

use triebench_kv::Profile;

use crate::error::CliError;

pub fn run_profiles() -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut print = || -> io::Result<()> {
        writeln!(
            out,
            "{:<20} {:<14} {:<13} {:<6} description",
            "profile", "durability", "fsync/commit", "built"
        )?;
        for profile in Profile::ALL {
            writeln!(
                out,
                "{:<20} {:<14} {:<13} {:<6} {}",
                profile.name(),
                profile.durability().name(),
                if profile.fsyncs_each_commit() {
                    "yes"
                } else {
                    "no"
                },
                if profile.is_enabled() { "yes" } else { "no" },
                profile.describe()
            )?;
        }
        out.flush()
    };
    print().map_err(CliError::Write)
}
