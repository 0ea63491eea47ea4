//! A [`DotChart`] as inline SVG for `report.html`: the same dots and whiskers as the plotters
//! plot on a log axis, each point a `<g class="pt">` carrying its numbers (`data-tip`, and a
//! `<title>` for browsers without the page's script) and the run or profile it belongs to, so
//! the picker can hide it.

use std::fmt::Write;

use crate::render::chart::DotChart;
use crate::render::html::markdown_html::esc;
use crate::render::plots::DURABLE_MARK;

/// Which of a chart's dimensions is the run and which the profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dims<'a> {
    /// Series are runs, categories profiles (the slowdown plot).
    SeriesRunsCategoriesProfiles,
    /// The whole chart is one run; series are profiles (a time-per-scenario plot).
    OneRunSeriesProfiles(&'a str),
}

const COLOURS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

const LEFT: f64 = 210.0;
const PLOT_W: f64 = 560.0;
const LEGEND_W: f64 = 230.0;
const TOP: f64 = 40.0;
const ROW: f64 = 24.0;

fn profile_of(label: &str) -> String {
    label.replace(DURABLE_MARK, "")
}

/// Ticks of a log axis between `lo` and `hi`: 1, 2, 5 × powers of ten.
fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut out = Vec::new();
    let mut decade = 10f64.powf(lo.log10().floor());
    while decade <= hi * 1.0001 {
        for m in [1.0, 2.0, 5.0] {
            let t = decade * m;
            if t >= lo * 0.9999 && t <= hi * 1.0001 {
                out.push(t);
            }
        }
        decade *= 10.0;
    }
    out
}

/// The chart as an `<svg>` element.
pub fn render(chart: &DotChart, dims: Dims<'_>) -> String {
    let values = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().flatten())
        .flat_map(|p| [p.low, p.value, p.high])
        .chain(chart.reference)
        .filter(|v| v.is_finite() && *v > 0.0);
    let (mut lo, mut hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    if !lo.is_finite() || hi <= 0.0 {
        (lo, hi) = (1.0, 10.0);
    }
    lo = 10f64.powf(lo.log10() - 0.05);
    hi = 10f64.powf(hi.log10() + 0.05);
    let x = |v: f64| LEFT + (v.max(lo).log10() - lo.log10()) / (hi.log10() - lo.log10()) * PLOT_W;
    let n = chart.categories.len().max(1) as f64;
    let height = TOP + n * ROW + 60.0;
    let width = LEFT + PLOT_W + LEGEND_W;
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{}\">",
        esc(&chart.title)
    );
    let _ = write!(
        out,
        "<text x=\"{}\" y=\"20\" class=\"title\">{}</text>",
        LEFT,
        esc(&chart.title)
    );
    let bottom = TOP + n * ROW;
    for t in ticks(lo, hi) {
        let _ = write!(
            out,
            "<line class=\"grid\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{TOP}\" y2=\"{bottom}\"/>\
             <text class=\"tick\" x=\"{0:.1}\" y=\"{1}\" text-anchor=\"middle\">{2}</text>",
            x(t),
            bottom + 16.0,
            esc(&(chart.format)(t))
        );
    }
    if let Some(r) = chart.reference {
        let _ = write!(
            out,
            "<line class=\"ref\" x1=\"{0:.1}\" x2=\"{0:.1}\" y1=\"{TOP}\" y2=\"{bottom}\"/>",
            x(r)
        );
    }
    let _ = write!(
        out,
        "<text class=\"axis\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        LEFT + PLOT_W / 2.0,
        bottom + 38.0,
        esc(&chart.value_label)
    );
    let k = chart.series.len().max(1) as f64;
    for (ci, category) in chart.categories.iter().enumerate() {
        let y0 = TOP + ci as f64 * ROW;
        let cat_attr = match dims {
            Dims::SeriesRunsCategoriesProfiles => {
                format!(" data-profile=\"{}\"", esc(&profile_of(category)))
            }
            Dims::OneRunSeriesProfiles(_) => String::new(),
        };
        let _ = write!(
            out,
            "<text class=\"cat\"{cat_attr} x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 8.0,
            y0 + ROW / 2.0 + 4.0,
            esc(category)
        );
        for (si, series) in chart.series.iter().enumerate() {
            let Some(p) = series.points.get(ci).copied().flatten() else {
                continue;
            };
            let y = y0 + (si as f64 + 1.0) * ROW / (k + 1.0);
            let attrs = match dims {
                Dims::SeriesRunsCategoriesProfiles => format!(
                    " data-run=\"{}\" data-profile=\"{}\"",
                    esc(&series.name),
                    esc(&profile_of(category))
                ),
                Dims::OneRunSeriesProfiles(_) => {
                    format!(" data-profile=\"{}\"", esc(&profile_of(&series.name)))
                }
            };
            let tip = format!(
                "{} · {}: {} [{}–{}]",
                category,
                series.name,
                (chart.format)(p.value),
                (chart.format)(p.low),
                (chart.format)(p.high)
            );
            let colour = COLOURS[si % COLOURS.len()];
            let _ = write!(
                out,
                "<g class=\"pt\"{attrs} data-tip=\"{tip}\" data-value=\"{v}\"><title>{tip}</title>\
                 <line x1=\"{l:.1}\" x2=\"{h:.1}\" y1=\"{y:.1}\" y2=\"{y:.1}\" stroke=\"{colour}\"/>\
                 <circle cx=\"{c:.1}\" cy=\"{y:.1}\" r=\"4\" fill=\"{colour}\"/></g>",
                tip = esc(&tip),
                v = p.value,
                l = x(p.low),
                h = x(p.high),
                c = x(p.value),
            );
        }
    }
    let lx = LEFT + PLOT_W + 20.0;
    let _ = write!(
        out,
        "<text class=\"legend-title\" x=\"{lx}\" y=\"{TOP}\">{}</text>",
        esc(&chart.legend_title)
    );
    for (si, series) in chart.series.iter().enumerate() {
        let y = TOP + 18.0 * (si as f64 + 1.0);
        let _ = write!(
            out,
            "<g class=\"legend\"><circle cx=\"{}\" cy=\"{:.1}\" r=\"4\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{:.1}\">{}</text></g>",
            lx + 5.0,
            y - 4.0,
            COLOURS[si % COLOURS.len()],
            lx + 14.0,
            y,
            esc(&series.name)
        );
    }
    for (i, note) in chart.notes.iter().enumerate() {
        let y = TOP + 18.0 * (chart.series.len() as f64 + 2.0 + i as f64);
        let _ = write!(
            out,
            "<text class=\"note\" x=\"{lx}\" y=\"{y:.1}\">{}</text>",
            esc(note)
        );
    }
    out.push_str("</svg>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_ticks_are_one_two_five() {
        assert_eq!(ticks(0.9, 60.0), vec![1.0, 2.0, 5.0, 10.0, 20.0, 50.0]);
    }
}
