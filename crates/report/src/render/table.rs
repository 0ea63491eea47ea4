//! Markdown table primitives shared by every section of `report.md`.

/// Escapes a cell's text (a `|` would end the cell).
pub fn esc(text: &str) -> String {
    text.replace('|', "\\|")
}

/// One table row.
pub fn row(cells: &[String]) -> String {
    format!("| {} |\n", cells.join(" | "))
}

/// A header row and its `---` separator.
pub fn header(cells: &[String]) -> String {
    let mut s = row(cells);
    s.push_str(&row(&vec!["---".to_string(); cells.len()]));
    s
}
