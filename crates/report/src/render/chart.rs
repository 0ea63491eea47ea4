//! A dot-and-whisker chart on a log value axis: categories down the left, one dot per series in
//! each category with its interval as a horizontal whisker, and the legend in its own panel on
//! the right so it never covers data. Drawn with plotters to SVG and PNG alike (`plot_pair`).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::plot_error as err;
use crate::error::ReportError;
use crate::render::axes::{CategoryAxis, LogAxis};
use crate::render::font::font;
use crate::render::plot_pair::{frame, style_mesh, write_both, Drawable, LABEL_FONT};

/// A value with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the whisker.
    pub low: f64,
    /// Upper end of the whisker.
    pub high: f64,
}

/// One series: a point (or nothing, drawn as "missing") per category.
#[derive(Debug, Clone)]
pub struct DotSeries {
    /// Legend text.
    pub name: String,
    /// One entry per category.
    pub points: Vec<Option<Interval>>,
}

/// Everything a chart shows.
#[derive(Debug, Clone)]
pub struct DotChart {
    /// Caption.
    pub title: String,
    /// Description of the value axis.
    pub value_label: String,
    /// Category names, top to bottom.
    pub categories: Vec<String>,
    /// The series, in legend order.
    pub series: Vec<DotSeries>,
    /// Legend heading.
    pub legend_title: String,
    /// Lines under the legend (notes such as what `[fsync]` means).
    pub notes: Vec<String>,
    /// A value to mark with a vertical line (1 for ratios).
    pub reference: Option<f64>,
    /// Formats value-axis labels.
    pub format: fn(f64) -> String,
    /// Formats the value printed beside each whisker; `None` prints none.
    pub point_label: Option<fn(f64) -> String>,
}

/// Series colours (Tableau 10, reordered so neighbours contrast).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x4e, 0x79, 0xa7),
    RGBColor(0xf2, 0x8e, 0x2b),
    RGBColor(0x59, 0xa1, 0x4f),
    RGBColor(0xe1, 0x57, 0x59),
    RGBColor(0xb0, 0x7a, 0xa1),
    RGBColor(0x9c, 0x75, 0x5f),
    RGBColor(0xff, 0x9d, 0xa7),
    RGBColor(0x76, 0xb7, 0xb2),
    RGBColor(0x79, 0x70, 0x6e),
    RGBColor(0xed, 0xc9, 0x48),
];

const WIDTH: u32 = 1400;
const LEGEND_WIDTH: u32 = 260;
const ROW_PITCH: u32 = 14;

/// The colour of series `i`.
pub fn color(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// The pixel size of a chart with `categories` categories and `series` series.
pub fn chart_size(categories: usize, series: usize) -> (u32, u32) {
    let per_category = (series.max(1) as u32 * ROW_PITCH + 16).max(40);
    let height = 170 + categories.max(1) as u32 * per_category;
    (WIDTH, height.max(480))
}

fn label_area_width(categories: &[String]) -> u32 {
    let longest = categories
        .iter()
        .map(|c| c.chars().count())
        .max()
        .unwrap_or(4);
    (longest as u32 * LABEL_FONT * 46 / 100 + 24).clamp(80, 520)
}

/// The value range shown: every interval, the reference, and some headroom (log scale).
fn value_range(chart: &DotChart) -> (f64, f64) {
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for iv in chart.series.iter().flat_map(|s| s.points.iter().flatten()) {
        for v in [iv.low, iv.value, iv.high] {
            if v.is_finite() && v > 0.0 {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    if let Some(r) = chart.reference {
        lo = lo.min(r);
        hi = hi.max(r);
    }
    if !lo.is_finite() || !hi.is_finite() {
        return (0.1, 10.0);
    }
    let room = if chart.point_label.is_some() {
        // Room for the value labels right of the highest whisker: ~70 px of ~900.
        ((hi / lo).ln() * 0.12).exp().max(1.6)
    } else {
        1.6
    };
    (lo / 1.6, hi * room)
}

/// Draws `chart` on `root`.
pub fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &DotChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let (main, legend) = frame(root, LEGEND_WIDTH, path)?;
    let n = chart.categories.len().max(1);
    let (lo, hi) = value_range(chart);
    let mut cc = ChartBuilder::on(&main)
        .margin(16)
        .caption(&chart.title, font(26))
        .x_label_area_size(56)
        .y_label_area_size(label_area_width(&chart.categories))
        .build_cartesian_2d(LogAxis { lo, hi }, CategoryAxis { n })
        .map_err(&e)?;
    // Alternate bands (drawn first, under the grid) so each category reads as one group.
    for i in (0..n).step_by(2) {
        let y = (n - 1 - i) as f64;
        cc.draw_series(std::iter::once(Rectangle::new(
            [(lo, y - 0.5), (hi, y + 0.5)],
            RGBColor(0xf3, 0xf5, 0xf8).filled(),
        )))
        .map_err(&e)?;
    }
    let categories = &chart.categories;
    let label_of = |y: &f64| {
        let i = y.round();
        if (y - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        // Row 0 is drawn at the bottom: category index = n - 1 - y.
        categories
            .get(n.saturating_sub(1).saturating_sub(i as usize))
            .cloned()
            .unwrap_or_default()
    };
    let format = chart.format;
    style_mesh(&mut cc.configure_mesh())
        .disable_y_mesh()
        .x_desc(chart.value_label.as_str())
        .x_label_formatter(&|v| format(*v))
        .y_label_formatter(&label_of)
        .y_labels(n)
        .draw()
        .map_err(&e)?;
    if let Some(r) = chart.reference {
        cc.draw_series(std::iter::once(PathElement::new(
            vec![(r, -0.5), (r, n as f64 - 0.5)],
            ShapeStyle::from(&RGBColor(0x33, 0x33, 0x33)).stroke_width(1),
        )))
        .map_err(&e)?;
    }
    let k = chart.series.len().max(1);
    let band = 0.8 / k as f64;
    let left = TextStyle::from(font(14)).pos(Pos::new(HPos::Left, VPos::Center));
    for (s, series) in chart.series.iter().enumerate() {
        let c = color(s);
        let line = ShapeStyle::from(&c).stroke_width(2);
        let offset = 0.4 - band * (s as f64 + 0.5);
        for (i, point) in series.points.iter().enumerate() {
            let y = (n - 1 - i) as f64 + offset;
            let Some(iv) = point else {
                cc.draw_series(std::iter::once(Text::new(
                    format!("{}: missing", series.name),
                    (lo * 1.04, y),
                    left.color(&RGBColor(0x88, 0x88, 0x88)),
                )))
                .map_err(&e)?;
                continue;
            };
            let cap = band * 0.3;
            let (l, h) = (iv.low.max(lo), iv.high.min(hi));
            cc.draw_series([
                PathElement::new(vec![(l, y), (h, y)], line),
                PathElement::new(vec![(l, y - cap), (l, y + cap)], line),
                PathElement::new(vec![(h, y - cap), (h, y + cap)], line),
            ])
            .map_err(&e)?;
            cc.draw_series(std::iter::once(Circle::new((iv.value, y), 5, c.filled())))
                .map_err(&e)?;
            if let Some(label) = chart.point_label {
                cc.draw_series(std::iter::once(Text::new(
                    label(iv.value),
                    (h * 1.06, y),
                    left.color(&RGBColor(0x22, 0x22, 0x22)),
                )))
                .map_err(&e)?;
            }
        }
    }
    draw_legend(&legend, chart, path)
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &DotChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let mut y = 70;
    area.draw(&Text::new(chart.legend_title.clone(), (10, y), font(21)))
        .map_err(&e)?;
    y += 32;
    for (s, series) in chart.series.iter().enumerate() {
        let c = color(s);
        area.draw(&PathElement::new(
            vec![(8, y + 8), (32, y + 8)],
            ShapeStyle::from(&c).stroke_width(2),
        ))
        .map_err(&e)?;
        area.draw(&Circle::new((20, y + 8), 5, c.filled()))
            .map_err(&e)?;
        area.draw(&Text::new(series.name.clone(), (42, y), font(LABEL_FONT)))
            .map_err(&e)?;
        y += 26;
    }
    y += 14;
    for line in chart.notes.iter().flat_map(|n| wrap(n, NOTE_CHARS)) {
        area.draw(&Text::new(
            line,
            (10, y),
            font(15).color(&RGBColor(0x44, 0x44, 0x44)),
        ))
        .map_err(&e)?;
        y += 19;
    }
    Ok(())
}

/// Characters per legend note line (13 px text in the legend panel).
const NOTE_CHARS: usize = 32;

/// Splits `text` into lines of at most `width` characters at spaces (longer words stay whole).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

impl Drawable for DotChart {
    fn size(&self) -> (u32, u32) {
        chart_size(self.categories.len(), self.series.len())
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        path: &Path,
    ) -> Result<(), ReportError> {
        draw(root, self, path)
    }
}

/// Writes `chart` as `<stem>.svg` and `<stem>.png` in `dir`; returns both paths.
pub fn render(
    chart: &DotChart,
    dir: &Path,
    stem: &str,
) -> Result<(std::path::PathBuf, std::path::PathBuf), ReportError> {
    write_both(chart, dir, stem)
}
