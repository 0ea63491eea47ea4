//! A [`StackedChart`] (where a commit's time goes) as inline SVG for `report.html`: one bar per
//! profile split into its phases, each segment a `<g class="pt">` carrying its phase, share and
//! the profile's total (`data-tip`, and a `<title>`), tagged with its profile for the picker.

use std::fmt::Write;

use crate::render::html::markdown_html::esc;
use crate::render::phase_chart::StackedChart;
use crate::render::plots::DURABLE_MARK;

const COLOURS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];
const LEFT: f64 = 230.0;
const BAR_W: f64 = 520.0;
const TOTAL_W: f64 = 80.0;
const LEGEND_W: f64 = 170.0;
const TOP: f64 = 36.0;
const ROW: f64 = 24.0;

/// The chart as an `<svg>` element.
pub fn render(chart: &StackedChart) -> String {
    let n = chart.categories.len().max(1) as f64;
    let width = LEFT + BAR_W + TOTAL_W + LEGEND_W;
    let height = (TOP + n * ROW + 20.0).max(TOP + 18.0 * (chart.segments.len() as f64 + 2.0));
    let mut out = String::new();
    let _ = write!(
        out,
        "<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width} {height}\" \
         width=\"{width}\" height=\"{height}\" role=\"img\" aria-label=\"{0}\">\
         <text x=\"{LEFT}\" y=\"20\" class=\"title\">{0}</text>",
        esc(&chart.title)
    );
    for (ci, category) in chart.categories.iter().enumerate() {
        let y = TOP + ci as f64 * ROW;
        let profile = category.replace(DURABLE_MARK, "");
        let total = chart.totals.get(ci).cloned().unwrap_or_default();
        let _ = write!(
            out,
            "<g data-profile=\"{p}\"><text class=\"cat\" x=\"{x}\" y=\"{ty:.1}\" text-anchor=\"end\">{c}</text>\
             <text class=\"tick\" x=\"{tx}\" y=\"{ty:.1}\">{t}</text>",
            p = esc(&profile),
            x = LEFT - 8.0,
            ty = y + ROW / 2.0 + 4.0,
            c = esc(category),
            tx = LEFT + BAR_W + 6.0,
            t = esc(&total),
        );
        let mut x = LEFT;
        let shares = chart.shares.get(ci).map(Vec::as_slice).unwrap_or_default();
        for (si, share) in shares.iter().enumerate() {
            let w = share.clamp(0.0, 1.0) * BAR_W;
            let segment = chart.segments.get(si).map(String::as_str).unwrap_or("?");
            let tip = format!("{category} · {segment}: {:.1}% of {total}", share * 100.0);
            let _ = write!(
                out,
                "<g class=\"pt\" data-profile=\"{p}\" data-tip=\"{tip}\" data-value=\"{share}\"><title>{tip}</title>\
                 <rect x=\"{x:.1}\" y=\"{ry:.1}\" width=\"{w:.2}\" height=\"{h:.1}\" fill=\"{f}\"/></g>",
                p = esc(&profile),
                tip = esc(&tip),
                ry = y + 3.0,
                h = ROW - 6.0,
                f = COLOURS[si % COLOURS.len()],
            );
            x += w;
        }
        out.push_str("</g>");
    }
    let lx = LEFT + BAR_W + TOTAL_W + 10.0;
    let _ = write!(
        out,
        "<text class=\"legend-title\" x=\"{lx}\" y=\"{TOP}\">{}</text>",
        esc(&chart.legend_title)
    );
    for (si, segment) in chart.segments.iter().enumerate() {
        let y = TOP + 18.0 * (si as f64 + 1.0);
        let _ = write!(
            out,
            "<g class=\"legend\"><rect x=\"{lx}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"{}\"/>\
             <text x=\"{}\" y=\"{y:.1}\">{}</text></g>",
            y - 9.0,
            COLOURS[si % COLOURS.len()],
            lx + 14.0,
            esc(segment)
        );
    }
    out.push_str("</svg>");
    out
}
