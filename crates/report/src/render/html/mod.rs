//! `report.html`: the report as one self-contained page, beside `report.md`. The same sections
//! (converted from the report's Markdown by [`markdown_html`]), every table sortable by a click
//! on its header, a picker that hides filesystems (runs) and profiles, and the plots inline: the
//! slowdown and time plots ([`svg_chart`]) and the phase plots ([`svg_stacked`]) redrawn as SVG
//! whose points show their numbers on hover, the others (sustained load) inlined from the plot
//! files. Style and script are inline ([`assets`]); the page loads nothing.

pub mod assets;
pub mod markdown_html;
pub mod svg_chart;
pub mod svg_stacked;

use std::fmt::Write;
use std::path::Path;

use crate::analysis::phases::suite_breakdowns;
use crate::analysis::ratios::Ratios;
use crate::model::bench_id::SUITE;
use crate::model::naming::file_safe;
use crate::model::results::ResultSet;
use crate::render::chart::DotChart;
use crate::render::phase_section;
use crate::render::plots::{slowdown_chart, time_chart};

use markdown_html::{esc, inline, slug, Context};
use svg_chart::Dims;

/// What the page is made of.
pub struct HtmlInput<'a> {
    /// The report's Markdown (`report.md`).
    pub markdown: &'a str,
    /// The measurements.
    pub results: &'a ResultSet,
    /// Their ratios.
    pub ratios: &'a Ratios,
    /// The folder the plot files were written into (other SVG plots are inlined from there).
    pub dir: &'a Path,
    /// The phase runs (their plots are redrawn with hover).
    pub phases: &'a [crate::model::phases::PhaseRunFile],
    /// Criterion's own HTML report (`<criterion-dir>/report/index.html`), when it exists.
    pub criterion_html: Option<&'a Path>,
}

/// The interactive charts, by the file stem of the plot they redraw (as `plots::write_all`
/// names them).
fn charts(results: &ResultSet, ratios: &Ratios) -> Vec<(String, DotChart, Option<String>)> {
    let mut out = Vec::new();
    let scenarios = results.scenario_names();
    let headline = scenarios
        .iter()
        .find(|s| s.as_str() == SUITE)
        .or_else(|| scenarios.first());
    if let Some(chart) = headline.and_then(|s| slowdown_chart(results, ratios, s)) {
        out.push(("slowdown".to_string(), chart, None));
    }
    if !scenarios.is_empty() {
        for run in results.runs.iter().filter(|r| r.present) {
            out.push((
                format!("time-{}", file_safe(&run.name)),
                time_chart(results, &run.name),
                Some(run.name.clone()),
            ));
        }
    }
    out
}

/// An SVG plot file's `<svg>` element (its XML prolog dropped), `None` when unreadable.
fn inline_svg(dir: &Path, file: &str) -> Option<String> {
    let name = Path::new(file).file_name()?;
    if name != file || !file.ends_with(".svg") {
        return None;
    }
    let text = std::fs::read_to_string(dir.join(name)).ok()?;
    let start = text.find("<svg")?;
    Some(text[start..].to_string())
}

/// The page.
pub fn report_html(input: &HtmlInput<'_>) -> String {
    let runs = input.results.run_names();
    let mut profiles: Vec<String> = input.results.scenario_profiles();
    for p in input.results.all_profiles() {
        if !profiles.contains(&p) {
            profiles.push(p);
        }
    }
    let charts = charts(input.results, input.ratios);
    let image = |alt: &str, src: &str| -> String {
        let stem = Path::new(src)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let phase = input
            .phases
            .iter()
            .find(|f| phase_section::stem(&f.run) == stem);
        if let Some(file) = phase {
            let rows = suite_breakdowns(file);
            let svg = svg_stacked::render(&phase_section::chart(file, &rows));
            return format!(
                "<figure class=\"plot\" data-plot=\"{}\" data-kind=\"interactive\" data-run=\"{}\">{svg}\
                 <figcaption>{} (hover a segment for its share)</figcaption></figure>\n",
                esc(&stem),
                esc(&file.run),
                inline(alt)
            );
        }
        let (svg, run, kind) = match charts.iter().find(|(s, _, _)| *s == stem) {
            Some((_, chart, run)) => {
                let dims = match run {
                    Some(r) => Dims::OneRunSeriesProfiles(r),
                    None => Dims::SeriesRunsCategoriesProfiles,
                };
                (
                    Some(svg_chart::render(chart, dims)),
                    run.clone(),
                    "interactive",
                )
            }
            None => {
                let svg_name = format!("{stem}.svg");
                let run = runs
                    .iter()
                    .find(|r| stem.ends_with(&format!("-{}", file_safe(r))))
                    .cloned();
                (inline_svg(input.dir, &svg_name), run, "static")
            }
        };
        let run_attr = run
            .map(|r| format!(" data-run=\"{}\"", esc(&r)))
            .unwrap_or_default();
        match svg {
            Some(svg) => format!(
                "<figure class=\"plot\" data-plot=\"{}\" data-kind=\"{kind}\"{run_attr}>{svg}\
                 <figcaption>{}{}</figcaption></figure>\n",
                esc(&stem),
                inline(alt),
                if kind == "interactive" {
                    " (hover a point for its numbers)"
                } else {
                    " (the numbers are in the table above)"
                }
            ),
            None => format!(
                "<p class=\"missing-plot\" data-plot=\"{}\">Plot not found: {}</p>\n",
                esc(&stem),
                esc(src)
            ),
        }
    };
    let ctx = Context {
        runs: &runs,
        profiles: &profiles,
        image: &image,
    };
    let body = ctx.convert(input.markdown);
    let title = input
        .markdown
        .lines()
        .find_map(|l| l.strip_prefix("# "))
        .unwrap_or("triebench report");
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n\
         <title>{}</title>\n<style>{}</style>\n</head>\n<body>\n",
        esc(&title.replace('`', "")),
        assets::CSS
    );
    out.push_str(
        "<nav id=\"picker\" aria-label=\"filter\">\n<fieldset><legend>Filesystems</legend>",
    );
    for run in &runs {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" data-run=\"{0}\" checked> {0}</label>",
            esc(run)
        );
    }
    out.push_str("</fieldset>\n<fieldset><legend>Profiles</legend>");
    for p in &profiles {
        let _ = write!(
            out,
            "<label><input type=\"checkbox\" data-profile=\"{0}\" checked> {0}</label>",
            esc(p)
        );
    }
    out.push_str(
        "<button type=\"button\" data-all=\"data-profile\" data-on=\"1\">all</button>\
         <button type=\"button\" data-all=\"data-profile\" data-on=\"0\">none</button>\
         </fieldset>\n</nav>\n<main>\n",
    );
    let sections: Vec<&str> = input
        .markdown
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .collect();
    out.push_str("<nav class=\"toc\">");
    for s in &sections {
        let _ = write!(out, "<a href=\"#{}\">{}</a>", slug(s), inline(s));
    }
    out.push_str("</nav>\n");
    if let Some(path) = input.criterion_html {
        let _ = writeln!(
            out,
            "<p class=\"criterion-link\">Criterion's own HTML report of these runs: \
             <a href=\"file://{0}\">{0}</a></p>",
            esc(&path.display().to_string())
        );
    }
    out.push_str(&body);
    let _ = write!(
        out,
        "</main>\n<div id=\"tip\" hidden></div>\n<script>{}</script>\n</body>\n</html>\n",
        assets::JS
    );
    out
}
