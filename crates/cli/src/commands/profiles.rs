//! `triebench profiles`: the backend profiles with their durability per commit and what a
//! failover keeps (profiles with a standby), and what a
//! damaged store does and how each managed server runs and is reached (notes below the table;
//! the latter from kv's [`triebench_kv::MANAGED_SERVERS`]).

use std::io::{self, Write};

use triebench_kv::Profile;

use crate::error::CliError;

/// Printed below the table, one line each.
pub const NOTES: [&str; 2] = [
    "failover: what a profile with a standby keeps when its primary's host is lost and the \
     standby promoted (checked by crash-test --failover): keeps-acked = every acknowledged \
     commit (the standby had it before the commit returned); loses-lag = the commits the \
     standby had not yet received; - = no standby",
    "lmdb, lmdb-async: LMDB keeps no page checksums; damaged meta pages are a clear \"corrupt\" \
     error at open, but damage inside a data page can give wrong data or crash the process \
     (SIGSEGV/SIGBUS); see SECURITY.md",
];

pub fn run_profiles() -> Result<(), CliError> {
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut print = || -> io::Result<()> {
        writeln!(
            out,
            "{:<23} {:<14} {:<13} {:<6} {:<12} description",
            "profile", "durability", "fsync/commit", "built", "failover"
        )?;
        for profile in Profile::ALL {
            writeln!(
                out,
                "{:<23} {:<14} {:<13} {:<6} {:<12} {}",
                profile.name(),
                profile.durability().name(),
                if profile.fsyncs_each_commit() {
                    "yes"
                } else {
                    "no"
                },
                if profile.is_enabled() { "yes" } else { "no" },
                profile.failover().map_or("-", |f| f.name()),
                profile.describe()
            )?;
        }
        for note in NOTES.iter().chain(triebench_kv::MANAGED_SERVERS.iter()) {
            writeln!(out, "note: {note}")?;
        }
        out.flush()
    };
    print().map_err(CliError::Write)
}
