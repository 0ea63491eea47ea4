//! The growth curves' plots: one line per profile and filesystem over the leaf count, both
//! axes logarithmic (commit p99, cold and warm reads, fill rate, bytes per leaf), in the
//! report's style (embedded font, chart palette, legend in its own panel).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::plot_error as err;
use crate::error::ReportError;
use crate::render::axes::LogAxis;
use crate::render::chart::color;
use crate::render::fmt;
use crate::render::font::font;
use crate::render::plot_pair::{frame, style_mesh, write_both, Drawable};
use crate::render::plots::PlotFile;

const SIZE: (u32, u32) = (1400, 640);
const LEGEND_WIDTH: u32 = 360;

/// One curve: legend text, colour (one per profile), dash style (one per filesystem: solid,
/// long, medium and short dashes, very long dashes, sparse dots) and its (leaves, y) points.
#[derive(Debug, Clone)]
pub struct GrowLine {
    /// Legend text.
    pub name: String,
    /// Palette index.
    pub color: usize,
    /// Dash style index.
    pub style: usize,
    /// Points in leaf order.
    pub points: Vec<(f64, f64)>,
}

/// (dash, gap) in pixels per style; `None` is a solid line.
fn dashes(style: usize) -> Option<(u32, u32)> {
    const STYLES: [Option<(u32, u32)>; 6] = [
        None,
        Some((14, 6)),
        Some((6, 5)),
        Some((2, 4)),
        Some((28, 10)),
        Some((2, 10)),
    ];
    STYLES[style % STYLES.len()]
}

/// A log-log chart over leaves.
#[derive(Debug, Clone)]
pub struct GrowChart {
    /// Caption.
    pub title: String,
    /// What the y axis shows.
    pub y_label: String,
    /// The lines.
    pub lines: Vec<GrowLine>,
    /// Formats y labels.
    pub format: fn(f64) -> String,
}

fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if lo.is_finite() {
        (lo / 1.5, (hi * 1.5).max(lo * 3.0))
    } else {
        (1.0, 10.0)
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &GrowChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let (main, legend) = frame(root, LEGEND_WIDTH, path)?;
    let pts = || chart.lines.iter().flat_map(|l| l.points.iter());
    let (xlo, xhi) = bounds(pts().map(|p| p.0));
    let (ylo, yhi) = bounds(pts().map(|p| p.1));
    let format = chart.format;
    let mut cc = ChartBuilder::on(&main)
        .margin(16)
        .caption(&chart.title, font(26))
        .x_label_area_size(56)
        .y_label_area_size(110)
        .build_cartesian_2d(LogAxis { lo: xlo, hi: xhi }, LogAxis { lo: ylo, hi: yhi })
        .map_err(&e)?;
    style_mesh(&mut cc.configure_mesh())
        .max_light_lines(4)
        .x_desc("leaves in the state")
        .y_desc(chart.y_label.as_str())
        .x_label_formatter(&|v| fmt::trim_zeros(&fmt::sig3(*v)))
        .y_label_formatter(&|v| format(*v))
        .draw()
        .map_err(&e)?;
    for line in &chart.lines {
        let c = color(line.color);
        let style = ShapeStyle::from(&c).stroke_width(2);
        let pts: Vec<(f64, f64)> = line
            .points
            .iter()
            .copied()
            .filter(|&(x, y)| x > 0.0 && y > 0.0)
            .collect();
        match dashes(line.style) {
            None => {
                cc.draw_series(LineSeries::new(pts.clone(), style))
                    .map_err(&e)?;
            }
            Some((dash, gap)) => {
                cc.draw_series(DashedLineSeries::new(pts.clone(), dash, gap, style))
                    .map_err(&e)?;
            }
        }
        cc.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))
            .map_err(&e)?;
    }
    let mut y = 70;
    for line in &chart.lines {
        let c = color(line.color);
        let style = ShapeStyle::from(&c).stroke_width(2);
        let sample = vec![(8, y + 8), (40, y + 8)];
        match dashes(line.style) {
            None => legend.draw(&PathElement::new(sample, style)).map_err(&e)?,
            Some((dash, gap)) => {
                let mut x = 8;
                while x < 40 {
                    let end = (x + dash as i32).min(40);
                    legend
                        .draw(&PathElement::new(vec![(x, y + 8), (end, y + 8)], style))
                        .map_err(&e)?;
                    x = end + gap as i32;
                }
            }
        }
        legend
            .draw(&Text::new(line.name.clone(), (48, y), font(17)))
            .map_err(&e)?;
        y += 24;
    }
    Ok(())
}

/// Writes `chart` as `<stem>.svg` and `<stem>.png` in `dir`.
pub fn render(chart: &GrowChart, dir: &Path, stem: &str) -> Result<PlotFile, ReportError> {
    let (svg, png) = write_both(chart, dir, stem)?;
    Ok(PlotFile {
        title: chart.title.clone(),
        svg,
        png,
        size: SIZE,
    })
}

impl Drawable for GrowChart {
    fn size(&self) -> (u32, u32) {
        SIZE
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        path: &Path,
    ) -> Result<(), ReportError> {
        draw(root, self, path)
    }
}
