//! The section "Against published figures": each field and SmallBank run beside the figure its
//! workload's authors published, with their hardware and source as published and ours as
//! measured, the ratio, and the plain statement that the machines differ; Transact's figure in
//! a SmallBank row, and Merk's own code's in a `merk` row where `merk-runner` ran, are measured
//! in the same run, not quoted. Then our workloads with no
//! published figure (our range and the reason), and the published figures no run here stands
//! beside.

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

/// A ratio with three significant digits and no exponent (`0.126×`, `0.0448×`, `1.07×`).
fn ratio(r: f64) -> String {
    if !r.is_finite() {
        return "–".into();
    }
    if r.abs() >= 0.1 {
        return fmt::ratio(r);
    }
    let decimals = (2.0 - r.abs().log10().floor()).clamp(3.0, 9.0) as usize;
    format!("{r:.decimals$}×")
}

fn source_link(anchor: &Anchor) -> String {
    format!("[{}]({})", esc(&anchor.date), anchor.source)
}

fn cells(r: &Row) -> Vec<String> {
    let ours = r
        .ours
        .map_or_else(|| "–".to_string(), |o| format!("{} {}", figure(o), r.unit));
    let ratio = r.ratio.map_or_else(|| "–".to_string(), ratio);
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
        Against::Nothing { .. } => ("none published".into(), "–".into(), "–".into(), "–".into()),
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

/// Our workloads with no published figure: each with the range of our figures and the reason.
fn unanchored(out: &mut String, rows: &[Row]) {
    let mut seen: Vec<&str> = Vec::new();
    let mut lines = Vec::new();
    for r in rows {
        let Against::Nothing { engine, reason } = &r.against else {
            continue;
        };
        if seen.contains(&r.workload.as_str()) {
            continue;
        }
        seen.push(&r.workload);
        let ours: Vec<f64> = rows
            .iter()
            .filter(|o| o.workload == r.workload)
            .filter_map(|o| o.ours)
            .collect();
        let low = ours.iter().copied().fold(f64::INFINITY, f64::min);
        let high = ours.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let range = if ours.is_empty() {
            "–".to_string()
        } else if low == high {
            format!("{} {}", figure(low), r.unit)
        } else {
            format!("{}–{} {}", figure(low), figure(high), r.unit)
        };
        lines.push(format!(
            "- `{}` ({}): ours {range} over {} run(s) here (the runs table above); {}",
            r.workload,
            esc(engine.as_deref().unwrap_or("whose workload is not listed")),
            ours.len(),
            esc(reason)
        ));
    }
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "With no published figure to stand beside:\n");
    for line in lines {
        let _ = writeln!(out, "{line}");
    }
    out.push('\n');
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
         SmallBank run; Merk 2.0.1, beside a `merk` run that found `merk-runner`), its figure \
         is measured here, not quoted, and only that ratio compares like with like.\n",
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
        for r in published
            .rows
            .iter()
            .filter(|r| !matches!(r.against, Against::Nothing { .. }))
        {
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
                Against::Nothing { .. } | Against::SameRun { .. } => continue,
            };
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        for note in notes {
            let _ = writeln!(out, "- {}", esc(&note));
        }
        out.push('\n');
        unanchored(&mut out, &published.rows);
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
    use super::{figure, ratio};

    #[test]
    fn small_ratios_keep_three_digits_without_an_exponent() {
        assert_eq!(ratio(0.0448), "0.0448×");
        assert_eq!(ratio(0.126), "0.126×");
        assert_eq!(ratio(1.07), "1.07×");
        assert_eq!(ratio(0.00123), "0.00123×");
    }

    #[test]
    fn figures_read_as_published() {
        assert_eq!(figure(42686.0), "42,686");
        assert_eq!(figure(1_565_000.0), "1,565,000");
        assert_eq!(figure(210.4), "210");
        assert_eq!(figure(1.59), "1.59");
    }
}
