//! Markdown table primitives shared by every section of `report.md`.

/// Escapes a cell's text: a `|` not already escaped would end the cell, and a `<` outside a
/// code span would open raw HTML (a host's OS name or a run folder's profile name reaches
/// `report.md` and, through it, any page that renders it). Escaping twice changes nothing, so
/// [`row`] applies it to every cell whether its section did or not.
pub fn esc(text: &str) -> String {
    if !text.contains(['|', '<']) {
        return text.to_string();
    }
    let pieces: Vec<&str> = text.split('`').collect();
    let last = pieces.len() - 1;
    let mut out = String::with_capacity(text.len() + 8);
    let mut prev = '\0';
    for (i, piece) in pieces.iter().enumerate() {
        if i > 0 {
            out.push('`');
            prev = '`';
        }
        // Odd pieces are inside a code span, unless no backtick closes them.
        let in_code = i % 2 == 1 && i < last;
        for c in piece.chars() {
            match c {
                '|' if prev != '\\' => out.push_str("\\|"),
                '<' if !in_code => out.push_str("&lt;"),
                _ => out.push(c),
            }
            prev = c;
        }
    }
    out
}

/// One table row, every cell escaped ([`esc`]).
pub fn row(cells: &[String]) -> String {
    let cells: Vec<String> = cells.iter().map(|c| esc(c)).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// A header row and its `---` separator.
pub fn header(cells: &[String]) -> String {
    let mut s = row(cells);
    s.push_str(&row(&vec!["---".to_string(); cells.len()]));
    s
}

#[cfg(test)]
mod tests {
    use super::{esc, row};

    #[test]
    fn pipes_and_html_are_escaped_once() {
        assert_eq!(esc("a|b"), "a\\|b");
        assert_eq!(esc(&esc("a|b")), "a\\|b");
        assert_eq!(esc("<script>x</script>"), "&lt;script>x&lt;/script>");
        assert_eq!(esc("`<run>`"), "`<run>`");
        assert_eq!(esc("`a` <b>"), "`a` &lt;b>");
        assert_eq!(esc("`<img>"), "`&lt;img>");
        assert_eq!(
            row(&["x|y".into(), "`tmpfs`".into()]),
            "| x\\|y | `tmpfs` |\n"
        );
    }
}
