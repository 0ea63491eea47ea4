//! A stacked bar chart of shares: one horizontal bar per category (a backend profile) split
//! into segments (phases) that add up to 100% of its time, with the legend in its own panel on
//! the right, in the report's style (same palette, font and panel layout as [`chart`]).
//!
//! [`chart`]: crate::render::chart

use std::path::{Path, PathBuf};

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::error::plot_error as err;
use crate::error::ReportError;
use crate::render::axes::CategoryAxis;
use crate::render::chart::color;
use crate::render::font::font;
use crate::render::plot_pair::{frame, style_mesh, write_both, Drawable, LABEL_FONT};

/// Everything the chart shows.
#[derive(Debug, Clone)]
pub struct StackedChart {
    /// Caption.
    pub title: String,
    /// Category names, top to bottom.
    pub categories: Vec<String>,
    /// A label per category printed right of its bar (its total time).
    pub totals: Vec<String>,
    /// Segment names, in stacking order (left to right) and legend order.
    pub segments: Vec<String>,
    /// Per category, the share (0..=1) of each segment.
    pub shares: Vec<Vec<f64>>,
    /// Legend heading.
    pub legend_title: String,
}

const WIDTH: u32 = 1400;
const LEGEND_WIDTH: u32 = 260;
/// Room right of the bars for the total-time labels, in percent of the axis.
const LABEL_ROOM: f64 = 18.0;

fn size(chart: &StackedChart) -> (u32, u32) {
    (
        WIDTH,
        (170 + chart.categories.len().max(1) as u32 * 46).max(420),
    )
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &StackedChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let (main, legend) = frame(root, LEGEND_WIDTH, path)?;
    let n = chart.categories.len().max(1);
    let longest = chart.categories.iter().map(|c| c.chars().count()).max();
    let label_width = (longest.unwrap_or(4) as u32 * LABEL_FONT * 46 / 100 + 24).clamp(80, 520);
    let mut cc = ChartBuilder::on(&main)
        .margin(16)
        .caption(&chart.title, font(26))
        .x_label_area_size(56)
        .y_label_area_size(label_width)
        .build_cartesian_2d(0.0..100.0 + LABEL_ROOM, CategoryAxis { n })
        .map_err(&e)?;
    let categories = &chart.categories;
    let label_of = |y: &f64| {
        let i = y.round();
        if (y - i).abs() > 1e-6 || i < 0.0 {
            return String::new();
        }
        categories
            .get(n.saturating_sub(1).saturating_sub(i as usize))
            .cloned()
            .unwrap_or_default()
    };
    style_mesh(&mut cc.configure_mesh())
        .disable_y_mesh()
        .x_desc("share of the measured time (%)")
        .x_label_formatter(&|v| {
            if *v <= 100.0 {
                format!("{v:.0}")
            } else {
                String::new()
            }
        })
        .y_label_formatter(&label_of)
        .y_labels(n)
        .draw()
        .map_err(&e)?;
    let left = TextStyle::from(font(15)).pos(Pos::new(HPos::Left, VPos::Center));
    for (i, shares) in chart.shares.iter().enumerate() {
        let y = (n - 1 - i) as f64;
        let mut x = 0.0;
        for (s, share) in shares.iter().enumerate() {
            let w = share.max(0.0) * 100.0;
            if w > 0.0 {
                cc.draw_series(std::iter::once(Rectangle::new(
                    [(x, y - 0.32), (x + w, y + 0.32)],
                    color(s).filled(),
                )))
                .map_err(&e)?;
            }
            x += w;
        }
        if let Some(total) = chart.totals.get(i) {
            cc.draw_series(std::iter::once(Text::new(
                total.clone(),
                (x.min(100.0) + 1.0, y),
                left.color(&RGBColor(0x22, 0x22, 0x22)),
            )))
            .map_err(&e)?;
        }
    }
    draw_legend(&legend, chart, path)
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    chart: &StackedChart,
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let mut y = 70;
    area.draw(&Text::new(chart.legend_title.clone(), (10, y), font(21)))
        .map_err(&e)?;
    y += 32;
    for (s, name) in chart.segments.iter().enumerate() {
        area.draw(&Rectangle::new(
            [(8, y + 2), (30, y + 16)],
            color(s).filled(),
        ))
        .map_err(&e)?;
        area.draw(&Text::new(name.clone(), (42, y), font(LABEL_FONT)))
            .map_err(&e)?;
        y += 26;
    }
    Ok(())
}

impl Drawable for StackedChart {
    fn size(&self) -> (u32, u32) {
        size(self)
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        path: &Path,
    ) -> Result<(), ReportError> {
        draw(root, self, path)
    }
}

/// Writes `chart` as `<stem>.svg` and `<stem>.png` in `dir`; returns both paths and the size.
pub fn render(
    chart: &StackedChart,
    dir: &Path,
    stem: &str,
) -> Result<(PathBuf, PathBuf, (u32, u32)), ReportError> {
    let (svg, png) = write_both(chart, dir, stem)?;
    Ok((svg, png, size(chart)))
}
