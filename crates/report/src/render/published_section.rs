//! The section "Against published figures": each field and SmallBank run beside the figure its
//! workload's authors published, with their hardware and source as published and ours as
//! measured, the ratio, and the plain statement that the machines differ; Transact's figure in
//! a SmallBank row is measured in the same run, not quoted. Then the reasons a workload has no
//! figure, and the published figures no run here stands beside.

use std::fmt::Write as _;

use crate::analysis::published::{Against, Published, Row};
use crate::model::anchors::Anchor;
use crate::render::fmt;
use crate::render::table::{esc, header, row};

/// `x` with thousands separators when it is 100 or more (`42,686`), else three significant
/// digits (`1.59`).
fn figure(x: f64) -> String {
    if !x.is_finite() {
        return "–".into();
    }
    if x.abs() < 100.0 {
        return fmt::sig3(x);
    }
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 {
        out.insert(0, '-');
    }
    out
}

fn source_link(anchor: &Anchor) -> String {
    format!("[{}]({})", esc(&anchor.date), anchor.source)
}

fn cells(r: &Row) -> Vec<String> {
    let ours = r
        .ours
        .map_or_else(|| "–".to_string(), |o| format!("{} {}", figure(o), r.unit));
    let ratio = r.ratio.map_or_else(|| "–".to_string(), fmt::ratio);
    let (beside, theirs, hardware, source) = match &r.against {
        Against::Quoted(a) => (
            a.engine.clone(),
            format!("{} {}", figure(a.figure), a.unit),
            a.hardware.clone(),
            source_link(a),
        ),
        Against::SameRun { engine, figure: f } => (
            engine.clone(),
            format!("{} {}", figure(*f), r.unit),
            "this machine, same run".into(),
            "measured here".into(),
        ),
        Against::Nothing { engine, .. } => (
            format!(
                "none published{}",
                engine
                    .as_ref()
                    .map(|e| format!(" ({e})"))
                    .unwrap_or_default()
            ),
            "–".into(),
            "–".into(),
            "see below".into(),
        ),
    };
    vec![
        format!("`{}`", r.workload),
        r.folder.clone(),
        format!("`{}`", r.profile),
        ours,
        beside,
        theirs,
        if r.ratio.is_some() {
            format!("**{ratio}**")
        } else {
            ratio
        },
        hardware,
        source,
    ]
}

/// The section as Markdown; `anchors_from` names the list the figures were read from.
pub fn write(published: &Published, anchors_from: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## Against published figures\n");
    let _ = writeln!(
        out,
        "Each field and SmallBank run here beside the figure its workload's authors published \
         (the list: `{}`). **The machines differ**: a published figure ran on its authors' \
         hardware, as they describe it in the row; ours ran on the machine `env.json` names, \
         with what else it was running. A ratio (ours ÷ theirs) says how far apart two figures \
         from two machines are, on workloads of the same shape; it does not say which engine \
         is faster. Where the anchor's own code ran in the same run (Transact, beside every \
         SmallBank run), its figure is measured here, not quoted, and only that ratio compares \
         like with like.\n",
        esc(anchors_from)
    );
    if published.rows.is_empty() {
        let _ = writeln!(out, "No field or SmallBank run was found.\n");
    } else {
        out.push_str(&header(
            &[
                "our workload",
                "folder",
                "profile",
                "ours, measured",
                "beside",
                "theirs",
                "ours ÷ theirs",
                "their hardware, as published",
                "source",
            ]
            .map(String::from),
        ));
        for r in &published.rows {
            out.push_str(&row(&cells(r)));
        }
        out.push('\n');
        let mut notes: Vec<String> = Vec::new();
        for r in &published.rows {
            let note = match &r.against {
                Against::Quoted(a) => format!(
                    "{} (`{}`): {}{}",
                    a.engine,
                    a.id,
                    a.workload,
                    a.note
                        .as_ref()
                        .map(|n| format!("; {n}"))
                        .unwrap_or_default()
                ),
                Against::Nothing { reason, .. } => format!("`{}`: {reason}", r.workload),
                Against::SameRun { .. } => continue,
            };
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        for note in notes {
            let _ = writeln!(out, "- {}", esc(&note));
        }
        out.push('\n');
    }
    if !published.not_compared.is_empty() {
        let _ = writeln!(
            out,
            "Published, with no run here beside them (no workload of ours runs theirs yet, or \
             none was run):\n"
        );
        for a in &published.not_compared {
            let _ = writeln!(
                out,
                "- {}: **{} {}**, {}; {}; {}{}",
                esc(&a.engine),
                figure(a.figure),
                esc(&a.unit),
                esc(&a.workload),
                esc(&a.hardware),
                source_link(a),
                a.note
                    .as_ref()
                    .map(|n| format!(" ({})", esc(n)))
                    .unwrap_or_default()
            );
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::figure;

    #[test]
    fn figures_read_as_published() {
        assert_eq!(figure(42686.0), "42,686");
        assert_eq!(figure(1_565_000.0), "1,565,000");
        assert_eq!(figure(210.4), "210");
        assert_eq!(figure(1.59), "1.59");
    }
}
