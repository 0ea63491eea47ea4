//! The load run's plots over time, in the report's style (embedded font, the chart palette,
//! legend in its own panel): latency, throughput, and memory with store size. Each is a line
//! chart over the run's seconds, written as SVG and PNG.

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
use triebench_record::load::SecondSample;

const SIZE: (u32, u32) = (1400, 560);
/// The plots of a load folder, each as `<stem>.svg` and `<stem>.png`.
pub const PLOT_STEMS: [&str; 3] = ["latency", "throughput", "resources"];
const LEGEND_WIDTH: u32 = 330;

/// One line: legend text and its (x, y) points.
#[derive(Debug, Clone)]
pub struct Line {
    /// Legend text.
    pub name: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// A line chart over time.
#[derive(Debug, Clone)]
pub struct LineChart {
    /// Caption.
    pub title: String,
    /// What the y axis shows.
    pub y_label: String,
    /// Log scale (latency, throughput) or linear from zero (sizes).
    pub log_y: bool,
    /// The lines, in legend order.
    pub lines: Vec<Line>,
    /// Formats y-axis labels.
    pub format: fn(f64) -> String,
}

fn ranges(chart: &LineChart) -> (f64, f64, f64) {
    let pts = chart.lines.iter().flat_map(|l| l.points.iter());
    let (mut xmax, mut lo, mut hi) = (1.0f64, f64::INFINITY, f64::NEG_INFINITY);
    for &(x, y) in pts {
        xmax = xmax.max(x);
        if y.is_finite() && (y > 0.0 || !chart.log_y) {
            lo = lo.min(y);
            hi = hi.max(y);
        }
    }
    if !lo.is_finite() {
        (lo, hi) = (1.0, 10.0);
    }
    if chart.log_y {
        (xmax, lo / 1.5, (hi * 1.5).max(lo * 3.0))
    } else {
        (xmax, 0.0, (hi * 1.1).max(1.0))
    }
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &LineChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let (main, legend) = frame(root, LEGEND_WIDTH, path)?;
    let (xmax, lo, hi) = ranges(chart);
    let format = chart.format;
    let mut builder = ChartBuilder::on(&main);
    builder
        .margin(16)
        .caption(&chart.title, font(26))
        .x_label_area_size(56)
        .y_label_area_size(110);
    macro_rules! body {
        ($cc:expr) => {{
            let mut cc = $cc;
            style_mesh(&mut cc.configure_mesh())
                .max_light_lines(4)
                .x_desc("seconds into the run")
                .y_desc(chart.y_label.as_str())
                .y_label_formatter(&|v| format(*v))
                .draw()
                .map_err(&e)?;
            for (i, line) in chart.lines.iter().enumerate() {
                let c = color(i);
                let pts: Vec<(f64, f64)> = line
                    .points
                    .iter()
                    .copied()
                    .filter(|&(_, y)| !chart.log_y || y > 0.0)
                    .collect();
                cc.draw_series(LineSeries::new(
                    pts.clone(),
                    ShapeStyle::from(&c).stroke_width(2),
                ))
                .map_err(&e)?;
                cc.draw_series(pts.into_iter().map(|p| Circle::new(p, 3, c.filled())))
                    .map_err(&e)?;
            }
        }};
    }
    if chart.log_y {
        body!(builder
            .build_cartesian_2d(0f64..xmax, LogAxis { lo, hi })
            .map_err(&e)?);
    } else {
        body!(builder.build_cartesian_2d(0f64..xmax, lo..hi).map_err(&e)?);
    }
    let mut y = 70;
    for (i, line) in chart.lines.iter().enumerate() {
        let c = color(i);
        legend
            .draw(&PathElement::new(
                vec![(8, y + 8), (32, y + 8)],
                ShapeStyle::from(&c).stroke_width(2),
            ))
            .map_err(&e)?;
        legend
            .draw(&Text::new(line.name.clone(), (42, y), font(18)))
            .map_err(&e)?;
        y += 26;
    }
    Ok(())
}

/// Writes `chart` as `<stem>.svg` and `<stem>.png` in `dir`.
pub fn render_lines(chart: &LineChart, dir: &Path, stem: &str) -> Result<PlotFile, ReportError> {
    let (svg, png) = write_both(chart, dir, stem)?;
    Ok(PlotFile {
        title: chart.title.clone(),
        svg,
        png,
        size: SIZE,
    })
}

impl Drawable for LineChart {
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

fn axis_mib(v: f64) -> String {
    format!("{} MiB", fmt::trim_zeros(&fmt::sig3(v)))
}

fn line(name: &str, samples: &[SecondSample], y: impl Fn(&SecondSample) -> f64) -> Line {
    Line {
        name: name.to_string(),
        points: samples.iter().map(|s| (s.t_s as f64, y(s))).collect(),
    }
}

/// The three plots of a load run (`latency`, `throughput`, `resources`), titled with `what`
/// (e.g. `sqlite-wal, 2 readers, 100 commits/s`).
pub fn write_all(
    samples: &[SecondSample],
    what: &str,
    dir: &Path,
) -> Result<Vec<PlotFile>, ReportError> {
    const MIB: f64 = 1024.0 * 1024.0;
    let charts = [
        (
            LineChart {
                title: format!("p99 latency per second: {what}"),
                y_label: "p99 latency (log scale)".into(),
                log_y: true,
                lines: vec![
                    line("commit (from intended start)", samples, |s| {
                        s.commit_p99_us as f64
                    }),
                    line("read", samples, |s| s.read_p99_us as f64),
                ],
                format: fmt::axis_us,
            },
            PLOT_STEMS[0],
        ),
        (
            LineChart {
                title: format!("operations per second: {what}"),
                y_label: "per second (log scale)".into(),
                log_y: true,
                lines: vec![
                    line("commits", samples, |s| s.commits as f64),
                    line("reads", samples, |s| s.reads as f64),
                ],
                format: fmt::axis_count,
            },
            PLOT_STEMS[1],
        ),
        (
            LineChart {
                title: format!("memory and store size: {what}"),
                y_label: "MiB".into(),
                log_y: false,
                lines: vec![
                    line("RSS (incl. server)", samples, |s| s.rss_bytes as f64 / MIB),
                    line("store on disk", samples, |s| s.store_bytes as f64 / MIB),
                ],
                format: axis_mib,
            },
            PLOT_STEMS[2],
        ),
    ];
    charts
        .iter()
        .map(|(chart, stem)| render_lines(chart, dir, stem))
        .collect()
}
