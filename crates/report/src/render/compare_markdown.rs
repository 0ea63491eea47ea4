//! `compare.md`: a [`Comparison`] as Markdown, a summary then one table per run pair.

use std::fmt::Write;

use crate::analysis::compare::{Basis, Comparison, Verdict};
use crate::render::fmt::{sig3, time_ns};
use crate::render::table::{esc, header, row};

/// `x` (a fraction) in percent with at most two decimals, trailing zeros dropped: `2%`, `2.5%`.
fn pct(x: f64) -> String {
    format!("{}%", plain(x * 100.0))
}

/// A ratio with three significant digits, without an exponent down to 0.001.
fn ratio_text(x: f64) -> String {
    if x.abs() < 0.1 && x != 0.0 {
        format!("{x:.3}")
    } else {
        sig3(x)
    }
}

/// `x` with at most two decimals, trailing zeros dropped.
fn plain(x: f64) -> String {
    let text = format!("{x:.2}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The Markdown of `c`.
pub fn render(c: &Comparison) -> String {
    let mut out = String::new();
    let o = &c.options;
    let _ = writeln!(out, "# Comparison\n");
    let _ = writeln!(out, "- A: `{}`", esc(&c.a));
    let _ = writeln!(out, "- B: `{}`", esc(&c.b));
    let _ = writeln!(
        out,
        "- Ratio = B / A of the mean time per iteration: above 1, B is slower. Intervals: {}% \
         percentile bootstrap ({} resamples of both sides' samples, seed {}).",
        plain(o.confidence * 100.0),
        o.resamples,
        o.seed
    );
    let _ = writeln!(
        out,
        "- Verdict: `slower`/`faster` when the change exceeds the noise threshold of {} and the \
         interval excludes 1 (significance {}); else `no change`. Rows marked `means only` come \
         from a result folder's ratios.json (no samples): the threshold alone decides.",
        pct(o.threshold),
        plain(1.0 - o.confidence)
    );
    if let Some(limit) = o.fail_above {
        let _ = writeln!(
            out,
            "- Fails when any row is slower by more than {}.",
            pct(limit)
        );
    }
    let _ = writeln!(
        out,
        "\n**{} slower, {} faster, {} no change**{}{}.\n",
        c.count(Verdict::Slower),
        c.count(Verdict::Faster),
        c.count(Verdict::NoChange),
        match c.count(Verdict::OnlyInA) + c.count(Verdict::OnlyInB) {
            0 => String::new(),
            n => format!(", {n} in one side only"),
        },
        match (o.fail_above, c.regressions().len()) {
            (Some(limit), 0) => format!("; none slower by more than {}", pct(limit)),
            (Some(limit), n) => format!("; **{n} slower by more than {}**", pct(limit)),
            (None, _) => String::new(),
        }
    );
    if !c.unpaired_runs.is_empty() {
        let _ = writeln!(
            out,
            "Runs without a counterpart (not compared): {}.\n",
            c.unpaired_runs.join(", ")
        );
    }
    let mut current: Option<&str> = None;
    for r in &c.rows {
        if current != Some(r.run.as_str()) {
            current = Some(r.run.as_str());
            let _ = writeln!(out, "\n## Run `{}`\n", esc(&r.run));
            out.push_str(&header(
                &[
                    "benchmark",
                    "profile",
                    "A mean",
                    "B mean",
                    "B / A",
                    "interval",
                    "change",
                    "verdict",
                ]
                .map(String::from),
            ));
        }
        let interval = match (r.ci_low, r.ci_high, r.basis) {
            (Some(l), Some(h), _) => format!("[{}–{}]", ratio_text(l), ratio_text(h)),
            (_, _, Basis::MeansOnly) => "means only".to_string(),
            _ => "–".to_string(),
        };
        let mut verdict = r.verdict.as_str().to_string();
        if r.regressed_beyond_limit {
            verdict = format!("**{verdict}, beyond limit**");
        }
        out.push_str(&row(&[
            format!("`{}`", esc(&r.benchmark)),
            r.profile.clone().unwrap_or_else(|| "–".into()),
            r.mean_a_ns.map_or("–".into(), time_ns),
            r.mean_b_ns.map_or("–".into(), time_ns),
            r.ratio
                .map_or("–".into(), |x| format!("{}×", ratio_text(x))),
            interval,
            r.change_pct.map_or("–".into(), |x| format!("{x:+.1}%")),
            verdict,
        ]));
    }
    out
}
