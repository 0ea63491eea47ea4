//! The "Machines" section of a report merged from run folders: which machine and filesystem
//! each column is, and what the machine was.

use std::fmt::Write as _;

use crate::model::merged_run::MergedRun;
use crate::render::table::{esc, header, row};

/// Markdown for the merged runs, in column order.
pub fn render(runs: &[MergedRun]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Machines\n");
    let _ = writeln!(
        out,
        "This report merges run folders (`triebench export-run`) from these machines; each \
         column is `<host>.<filesystem>`.\n"
    );
    out.push_str(&header(&[
        "run".into(),
        "host".into(),
        "filesystem".into(),
        "machine".into(),
        "scale".into(),
        "commit".into(),
        "folder".into(),
    ]));
    for run in runs {
        let m = &run.machine;
        let machine = format!(
            "{} {}, {} CPUs, {:.1} GiB, {}",
            m.os,
            m.kernel,
            m.cpus,
            m.mem_kib as f64 / (1024.0 * 1024.0),
            m.rustc
        );
        out.push_str(&row(&[
            format!("`{}`", esc(&run.label)),
            esc(&run.manifest.host),
            esc(&run.manifest.filesystem),
            esc(&machine),
            esc(&run.manifest.scale),
            esc(run
                .manifest
                .git_commit
                .get(..12)
                .unwrap_or(&run.manifest.git_commit)),
            esc(&run.folder.display().to_string()),
        ]));
    }
    out.push('\n');
    out
}
