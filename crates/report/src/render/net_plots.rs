//! The network section's plot: each profile's suite time over the round trip its delay proxy
//! added, linear in the round trip and logarithmic in time (profiles differ by 100x), in the
//! report's style (embedded font, chart palette, legend in its own panel).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::analysis::net::SuiteLine;
use crate::error::plot_error as err;
use crate::error::ReportError;
use crate::render::axes::LogAxis;
use crate::render::chart::color;
use crate::render::fmt;
use crate::render::font::font;
use crate::render::plot_pair::{frame, style_mesh, write_both, Drawable};
use crate::render::plots::{profile_label, PlotFile};

const SIZE: (u32, u32) = (1400, 640);
const LEGEND_WIDTH: u32 = 420;
const TITLE: &str = "Suite time vs round trip added to the database server";

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    lines: &[SuiteLine],
    path: &Path,
) -> Result<(), ReportError> {
    let e = err(path);
    let (main, legend) = frame(root, LEGEND_WIDTH, path)?;
    let pts = || lines.iter().flat_map(|l| l.points.iter());
    let xhi = pts().map(|p| p.0).fold(0.0f64, f64::max).max(100.0) * 1.05;
    let (mut ylo, mut yhi) = (f64::INFINITY, f64::NEG_INFINITY);
    for &(_, y) in pts().filter(|p| p.1 > 0.0) {
        ylo = ylo.min(y);
        yhi = yhi.max(y);
    }
    let (ylo, yhi) = if ylo.is_finite() {
        (ylo / 1.5, (yhi * 1.5).max(ylo * 3.0))
    } else {
        (1.0, 10.0)
    };
    let mut cc = ChartBuilder::on(&main)
        .margin(16)
        .caption(TITLE, font(24))
        .x_label_area_size(56)
        .y_label_area_size(100)
        .build_cartesian_2d(-xhi * 0.02..xhi, LogAxis { lo: ylo, hi: yhi })
        .map_err(&e)?;
    style_mesh(&mut cc.configure_mesh())
        .max_light_lines(4)
        .x_desc("round trip added by the delay proxy (µs; a series without a proxy-0 run: its direct run at 0)")
        .y_desc("suite time")
        .x_label_formatter(&|v| fmt::trim_zeros(&format!("{v:.0}")))
        .y_label_formatter(&|v| fmt::trim_zeros(&fmt::time_ns(*v * 1e6)))
        .draw()
        .map_err(&e)?;
    for (i, line) in lines.iter().enumerate() {
        let c = color(i);
        let style = ShapeStyle::from(&c).stroke_width(2);
        let pts: Vec<(f64, f64)> = line.points.iter().copied().filter(|p| p.1 > 0.0).collect();
        cc.draw_series(LineSeries::new(pts.clone(), style))
            .map_err(&e)?;
        cc.draw_series(pts.into_iter().map(|p| Circle::new(p, 4, c.filled())))
            .map_err(&e)?;
    }
    let mut y = 70;
    for (i, line) in lines.iter().enumerate() {
        let style = ShapeStyle::from(&color(i)).stroke_width(2);
        legend
            .draw(&PathElement::new(vec![(8, y + 8), (40, y + 8)], style))
            .map_err(&e)?;
        legend
            .draw(&Text::new(profile_label(&line.profile), (48, y), font(17)))
            .map_err(&e)?;
        y += 24;
    }
    Ok(())
}

/// The plot of `lines`, for [`write_both`].
struct SuitePlot<'a>(&'a [SuiteLine]);

impl Drawable for SuitePlot<'_> {
    fn size(&self) -> (u32, u32) {
        SIZE
    }

    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        path: &Path,
    ) -> Result<(), ReportError> {
        draw(root, self.0, path)
    }
}

/// Writes the plot as `<stem>.svg` and `<stem>.png` in `dir`.
pub fn render(lines: &[SuiteLine], dir: &Path, stem: &str) -> Result<PlotFile, ReportError> {
    let (svg, png) = write_both(&SuitePlot(lines), dir, stem)?;
    Ok(PlotFile {
        title: TITLE.to_string(),
        svg,
        png,
        size: SIZE,
    })
}
