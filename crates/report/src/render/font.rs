//! The embedded font: DejaVu Sans (Bitstream Vera license, see `assets/DejaVuSans-LICENSE.txt`),
//! registered with plotters' `ab_glyph` text renderer so no system font library is needed.

use std::sync::OnceLock;

use plotters::style::{FontDesc, FontStyle, IntoFont};

/// DejaVu Sans 2.37, from Debian's fonts-dejavu-core.
static DEJAVU_SANS: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");

/// The family name plots use.
pub const FAMILY: &str = "sans-serif";

/// The embedded family at `size` pixels, as every plot's text uses it.
pub(crate) fn font(size: u32) -> FontDesc<'static> {
    (FAMILY, size).into_font()
}

static REGISTERED: OnceLock<bool> = OnceLock::new();

/// Registers the embedded font (once) for every style of the sans-serif family; `false` if
/// plotters rejected it.
///
/// The benches call this too: with plotters' `ab_glyph` renderer (which this workspace enables)
/// criterion's own HTML plots find no font unless one is registered.
pub fn ensure_registered() -> bool {
    *REGISTERED.get_or_init(|| {
        [
            FontStyle::Normal,
            FontStyle::Bold,
            FontStyle::Italic,
            FontStyle::Oblique,
        ]
        .into_iter()
        .all(|style| plotters::style::register_font(FAMILY, style, DEJAVU_SANS).is_ok())
    })
}
