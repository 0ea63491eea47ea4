//! What every plot of the report shares: its two files and its frame. A plot draws itself once,
//! generically over the plotters backend ([`Drawable`]); [`write_both`] draws it to
//! `<stem>.svg` and again to `<stem>.png` with the embedded font, and turns plotters' errors
//! into [`ReportError::Plot`] naming the file. [`frame`] and [`style_mesh`] are the preamble
//! each plot starts with: a white background with the legend in its own panel on the right, and
//! the grid's colours and label fonts.
//!
//! A trait and not a closure: a closure cannot be generic over the backend, and each plot is
//! drawn on two (SVG and bitmap).

use std::path::{Path, PathBuf};

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::error::plot_error as err;
use crate::error::ReportError;
use crate::render::font::{ensure_registered, font};

/// Size of the axis labels, in pixels; the axis descriptions are one larger.
pub const LABEL_FONT: u32 = 18;

/// A plot that can draw itself on any plotters backend, so that [`write_both`] writes it as SVG
/// and as PNG.
pub trait Drawable {
    /// Pixel size (width, height).
    fn size(&self) -> (u32, u32);
    /// Draws the plot on `root`; `path` names the file in errors.
    fn draw_on<DB: DrawingBackend>(
        &self,
        root: &DrawingArea<DB, Shift>,
        path: &Path,
    ) -> Result<(), ReportError>;
}

/// Writes `plot` as `<stem>.svg` and `<stem>.png` in `dir` with the embedded font; returns both
/// paths. A font plotters rejects is a [`ReportError::Plot`] naming the PNG.
pub fn write_both<P: Drawable>(
    plot: &P,
    dir: &Path,
    stem: &str,
) -> Result<(PathBuf, PathBuf), ReportError> {
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    if !ensure_registered() {
        return Err(ReportError::Plot {
            path: png,
            reason: "the embedded font could not be loaded".to_string(),
        });
    }
    let size = plot.size();
    {
        let root = SVGBackend::new(&svg, size).into_drawing_area();
        plot.draw_on(&root, &svg)?;
        root.present().map_err(err(&svg))?;
    }
    {
        let root = BitMapBackend::new(&png, size).into_drawing_area();
        plot.draw_on(&root, &png)?;
        root.present().map_err(err(&png))?;
    }
    Ok((svg, png))
}

/// A region of a plot's drawing: the whole of it, its plot area or its legend panel.
pub type Area<DB> = DrawingArea<DB, Shift>;

/// The drawing area of a plot and its legend panel: fills `root` white and splits off the
/// rightmost `legend_width` pixels; `path` names the file in errors.
pub fn frame<DB: DrawingBackend>(
    root: &Area<DB>,
    legend_width: u32,
    path: &Path,
) -> Result<(Area<DB>, Area<DB>), ReportError> {
    root.fill(&WHITE).map_err(err(path))?;
    let (width, _) = root.dim_in_pixel();
    Ok(root.split_horizontally(width.saturating_sub(legend_width)))
}

/// The report's grid: light and bold line colours, and the fonts of the axis labels
/// ([`LABEL_FONT`]) and descriptions, on a mesh the caller goes on configuring.
pub fn style_mesh<'a, 'b, 'm, X, Y, XT, YT, DB>(
    mesh: &'m mut MeshStyle<'a, 'b, X, Y, DB>,
) -> &'m mut MeshStyle<'a, 'b, X, Y, DB>
where
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
    DB: DrawingBackend,
{
    mesh.label_style(font(LABEL_FONT))
        .axis_desc_style(font(LABEL_FONT + 1))
        .light_line_style(RGBColor(0xe6, 0xe6, 0xe6))
        .bold_line_style(RGBColor(0xc4, 0xc4, 0xc4))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A plot of one filled box in its frame, `size` pixels.
    struct Boxed((u32, u32));

    impl Drawable for Boxed {
        fn size(&self) -> (u32, u32) {
            self.0
        }

        fn draw_on<DB: DrawingBackend>(
            &self,
            root: &DrawingArea<DB, Shift>,
            path: &Path,
        ) -> Result<(), ReportError> {
            let (main, _legend) = frame(root, 40, path)?;
            main.draw(&Rectangle::new([(10, 10), (50, 30)], RED.filled()))
                .map_err(err(path))
        }
    }

    #[test]
    fn both_files_are_written_at_the_plots_size() {
        let dir = tempfile::tempdir().expect("temp dir");
        let (svg, png) = write_both(&Boxed((320, 200)), dir.path(), "box").expect("written");
        assert_eq!(svg, dir.path().join("box.svg"));
        assert_eq!(png, dir.path().join("box.png"));
        let text = std::fs::read_to_string(&svg).expect("svg");
        assert!(
            text.contains(r#"width="320" height="200""#),
            "{}",
            &text[..text.len().min(200)]
        );
        let decoder = png::Decoder::new(std::fs::File::open(&png).expect("png"));
        let info = decoder.read_info().expect("png decodes");
        assert_eq!((info.info().width, info.info().height), (320, 200));
    }

    #[test]
    fn a_file_that_cannot_be_written_is_a_plot_error_naming_it() {
        let dir = tempfile::tempdir().expect("temp dir");
        let missing = dir.path().join("no such folder");
        match write_both(&Boxed((100, 80)), &missing, "box") {
            Err(ReportError::Plot { path, .. }) => assert_eq!(path, missing.join("box.svg")),
            other => panic!("expected a plot error naming box.svg, got {other:?}"),
        }
    }
}
