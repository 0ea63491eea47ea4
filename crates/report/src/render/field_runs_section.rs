//! The runs a folder's "Against published figures" stands on, as measured: each field run's
//! commits (setup and timed), leaves, commits/s, leaves/s and per-commit p50/p99, and each
//! SmallBank run's chain and both sides' transactions/s.

use std::fmt::Write as _;

use crate::model::field_runs::FieldRuns;
use crate::render::fmt;
use crate::render::table::{header, row};

/// The runs as Markdown tables (a table per kind that was found).
pub fn write(runs: &FieldRuns) -> String {
    let mut out = String::new();
    if !runs.field.is_empty() {
        let _ = writeln!(out, "## Field workload runs\n");
        let _ = writeln!(
            out,
            "`triebench field`: the setup commits build the starting state untimed; each timed \
             commit is timed alone (commit and moving the head to its root; old roots kept).\n"
        );
        out.push_str(&header(
            &[
                "workload",
                "folder",
                "profile",
                "scale",
                "setup commits",
                "timed commits",
                "leaves",
                "commits/s",
                "leaves/s",
                "commit p50",
                "commit p99",
            ]
            .map(String::from),
        ));
        for f in &runs.field {
            let r = &f.record;
            out.push_str(&row(&[
                format!("`{}`", r.workload),
                f.folder.clone(),
                format!("`{}`", r.profile),
                r.scale.to_string(),
                r.setup_commits.to_string(),
                r.commits.to_string(),
                r.leaves.to_string(),
                fmt::sig3(r.commits_per_s),
                fmt::sig3(r.leaves_per_s),
                fmt::time_ns(r.commit.p50_us * 1e3),
                fmt::time_ns(r.commit.p99_us * 1e3),
            ]));
        }
        out.push('\n');
    }
    if !runs.smallbank.is_empty() {
        let _ = writeln!(out, "## SmallBank runs\n");
        let _ = writeln!(
            out,
            "`triebench smallbank`: Transact's executor over triebench's state on the profile, \
             and over the Transact state named (its `MerkleState` in memory in the same process, \
             or one of its durable states run by `transact-runner` block by block in turn), \
             every block's root equal on both; the family is SmallBank's, or Transact's command family \
             (`--family command`: keys created, then each transaction reads one key and writes \
             it).\n"
        );
        out.push_str(&header(
            &[
                "folder",
                "family",
                "profile",
                "accounts",
                "transactions",
                "block size",
                "blocks",
                "triebench tx/s",
                "Transact state",
                "Transact tx/s",
            ]
            .map(String::from),
        ));
        for s in &runs.smallbank {
            let r = &s.record;
            out.push_str(&row(&[
                s.folder.clone(),
                format!("`{}`", r.family),
                format!("`{}`", r.profile),
                r.accounts.to_string(),
                r.transactions.to_string(),
                r.block_size.to_string(),
                r.blocks.to_string(),
                fmt::sig3(r.triebench.transactions_per_s),
                format!("`{}`", r.transact_state),
                fmt::sig3(r.transact.transactions_per_s),
            ]));
        }
        out.push('\n');
    }
    out
}
