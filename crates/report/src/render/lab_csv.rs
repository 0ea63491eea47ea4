//! `io-profile.csv`: the I/O profile as a table for spreadsheets.

use crate::model::io_profile::IoProfileFile;

/// `io-profile.csv`: one line per profile × scenario with totals and per-commit figures.
pub fn io_profile_csv(io: &IoProfileFile) -> String {
    let mut out = String::from(
        "profile,scenario,commits,fsyncs,sync_ops,write_ops,write_extents,bytes_written,read_ops,\
         bytes_read,metadata_ops,fsyncs_per_commit,write_ops_per_commit,bytes_written_per_commit\n",
    );
    for r in &io.rows {
        let c = &r.counts;
        out.push_str(&format!(
            "{},{},{},{},{},{},{},{},{},{},{},{:.3},{:.3},{:.1}\n",
            super::csv_cell::cell(&r.profile.to_string()),
            super::csv_cell::cell(&r.scenario.to_string()),
            r.commits,
            c.fsyncs,
            c.ops.sync,
            c.ops.write,
            c.write_extents,
            c.bytes_written,
            c.ops.read,
            c.bytes_read,
            c.ops.metadata,
            r.per_commit(c.fsyncs),
            r.per_commit(c.ops.write),
            r.per_commit(c.bytes_written),
        ));
    }
    out
}
