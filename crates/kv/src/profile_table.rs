//! The profiles as `triebench profiles` prints them: one line each with its durability per
//! commit, whether it fsyncs, whether this build has it and what a failover keeps, then the
//! notes (what a failover keeps, what a damaged store does, how each managed server runs).

use std::fmt::Write;

use crate::profile::{Profile, MANAGED_SERVERS};

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

/// The table and its notes, each line ending in a newline.
pub fn profile_table() -> String {
    let mut out = format!(
        "{:<23} {:<14} {:<13} {:<6} {:<12} description\n",
        "profile", "durability", "fsync/commit", "built", "failover"
    );
    for profile in Profile::ALL {
        let _ = writeln!(
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
        );
    }
    for note in NOTES.iter().chain(MANAGED_SERVERS.iter()) {
        let _ = writeln!(out, "note: {note}");
    }
    out
}
