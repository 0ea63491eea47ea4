//! `report.md` as HTML: the subset of Markdown the report writes (headings, paragraphs, `- `
//! lists, tables, images, `code`, **bold**, _emphasis_, links), with `## ` sections wrapped in
//! `<section>`s, tables made sortable, and rows and columns tagged with the run
//! (`data-run`) or profile (`data-profile`) they show, for the page's picker.

use std::fmt::Write;

/// What the converter needs to know beyond the text.
pub struct Context<'a> {
    /// The runs (filesystems) of the report.
    pub runs: &'a [String],
    /// Every profile the report names.
    pub profiles: &'a [String],
    /// Turns an image (`alt`, file name) into the HTML that stands for it.
    pub image: &'a dyn Fn(&str, &str) -> String,
}

/// Code spans longer than this (in characters) are marked `class="long"`, which the page lets
/// wrap inside a table cell (a command line; every other cell stays on one line).
pub const LONG_CODE: usize = 80;

/// Escapes text for HTML content and attribute values.
pub fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A heading's text as an `id`: lowercase letters and digits, other runs of characters `-`.
pub fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_alphanumeric() {
            out.extend(c.to_lowercase());
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_string()
}

/// Inline Markdown to HTML: code spans, bold, emphasis, links; the rest escaped.
pub fn inline(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    let mut strong = false;
    let find = |from: usize, what: char| {
        chars[from..]
            .iter()
            .position(|c| *c == what)
            .map(|p| p + from)
    };
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && i + 1 < chars.len() && "|*_`[]\\".contains(chars[i + 1]) {
            out.push_str(&esc(&chars[i + 1].to_string()));
            i += 2;
        } else if c == '`' {
            if let Some(end) = find(i + 1, '`') {
                let code: String = chars[i + 1..end].iter().collect();
                // A long one (a command to run) may wrap inside its table cell.
                let class = if code.chars().count() > LONG_CODE {
                    " class=\"long\""
                } else {
                    ""
                };
                let _ = write!(
                    out,
                    "<code{class}>{}</code>",
                    esc(&code.replace("\\|", "|"))
                );
                i = end + 1;
            } else {
                out.push('`');
                i += 1;
            }
        } else if c == '*' && chars.get(i + 1) == Some(&'*') {
            out.push_str(if strong { "</strong>" } else { "<strong>" });
            strong = !strong;
            i += 2;
        } else if (c == '_' || c == '*')
            && (i == 0 || !chars[i - 1].is_alphanumeric())
            && chars.get(i + 1).is_some_and(|n| !n.is_whitespace())
        {
            let close = (i + 2..chars.len()).find(|&j| {
                chars[j] == c && (j + 1 == chars.len() || !chars[j + 1].is_alphanumeric())
            });
            match close {
                Some(end) => {
                    let inner: String = chars[i + 1..end].iter().collect();
                    let _ = write!(out, "<em>{}</em>", inline(&inner));
                    i = end + 1;
                }
                None => {
                    out.push(c);
                    i += 1;
                }
            }
        } else if c == '[' {
            let link = find(i + 1, ']').and_then(|close| {
                (chars.get(close + 1) == Some(&'('))
                    .then(|| find(close + 2, ')').map(|end| (close, end)))
                    .flatten()
            });
            match link {
                Some((close, end)) => {
                    let label: String = chars[i + 1..close].iter().collect();
                    let href: String = chars[close + 2..end].iter().collect();
                    let _ = write!(out, "<a href=\"{}\">{}</a>", esc(&href), inline(&label));
                    i = end + 1;
                }
                None => {
                    out.push('[');
                    i += 1;
                }
            }
        } else {
            out.push_str(&esc(&c.to_string()));
            i += 1;
        }
    }
    if strong {
        out.push_str("</strong>");
    }
    out
}

/// The cells of a table row, `\|` kept inside its cell.
fn cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut out = Vec::new();
    let mut cell = String::new();
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' && chars.peek() == Some(&'|') {
            cell.push_str("\\|");
            chars.next();
        } else if c == '|' {
            out.push(cell.trim().to_string());
            cell.clear();
        } else {
            cell.push(c);
        }
    }
    out.push(cell.trim().to_string());
    out
}

/// A cell's plain text: without backticks, emphasis marks and the durable mark.
fn plain(cell: &str) -> String {
    cell.replace(['`', '*'], "")
        .trim_matches('_')
        .replace(crate::render::plots::DURABLE_MARK, "")
        .trim()
        .to_string()
}

impl Context<'_> {
    /// The run a header cell names (`tmpfs (tmpfs), baseline`, `` `disk`: floor · ... ``).
    fn run_of_header(&self, cell: &str) -> Option<&String> {
        let text = plain(cell);
        self.runs.iter().find(|run| {
            text == **run
                || text
                    .strip_prefix(run.as_str())
                    .is_some_and(|rest| rest.starts_with([' ', ':', ',']))
        })
    }

    fn table(&self, lines: &[&str], out: &mut String) {
        let header = cells(lines[0]);
        let column_runs: Vec<Option<&String>> =
            header.iter().map(|c| self.run_of_header(c)).collect();
        let attr = |run: Option<&String>| {
            run.map(|r| format!(" data-run=\"{}\"", esc(r)))
                .unwrap_or_default()
        };
        out.push_str("<div class=\"table-wrap\"><table class=\"sortable\">\n<thead><tr>");
        for (cell, run) in header.iter().zip(&column_runs) {
            let _ = write!(
                out,
                "<th{} title=\"click to sort\">{}</th>",
                attr(*run),
                inline(cell)
            );
        }
        out.push_str("</tr></thead>\n<tbody>\n");
        for line in lines.iter().skip(2) {
            let row = cells(line);
            let first = row.first().map(|c| plain(c)).unwrap_or_default();
            let row_attr = if self.profiles.contains(&first) {
                format!(" data-profile=\"{}\"", esc(&first))
            } else if self.runs.contains(&first) {
                format!(" data-run=\"{}\"", esc(&first))
            } else {
                String::new()
            };
            let _ = write!(out, "<tr{row_attr}>");
            for (i, cell) in row.iter().enumerate() {
                let run = column_runs.get(i).copied().flatten();
                let _ = write!(out, "<td{}>{}</td>", attr(run), inline(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</tbody></table></div>\n");
    }

    /// The whole document.
    pub fn convert(&self, markdown: &str) -> String {
        let lines: Vec<&str> = markdown.lines().collect();
        let mut out = String::new();
        let mut in_section = false;
        let mut in_sub = false;
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i];
            if line.trim().is_empty() {
                i += 1;
            } else if let Some(title) = line.strip_prefix("# ") {
                let _ = writeln!(out, "<h1>{}</h1>", inline(title));
                i += 1;
            } else if let Some(title) = line.strip_prefix("## ") {
                if in_sub {
                    out.push_str("</div>\n");
                    in_sub = false;
                }
                if in_section {
                    out.push_str("</section>\n");
                }
                let _ = writeln!(
                    out,
                    "<section class=\"report-section\" id=\"{}\">\n<h2>{}</h2>",
                    slug(title),
                    inline(title)
                );
                in_section = true;
                i += 1;
            } else if let Some(title) = line.strip_prefix("### ") {
                if in_sub {
                    out.push_str("</div>\n");
                }
                let first_code = title
                    .split('`')
                    .nth(1)
                    .filter(|c| self.runs.iter().any(|r| r == c));
                let run = first_code
                    .map(|r| format!(" data-run=\"{}\"", esc(r)))
                    .unwrap_or_default();
                let _ = writeln!(
                    out,
                    "<div class=\"sub\"{run} id=\"{}\">\n<h3>{}</h3>",
                    slug(title),
                    inline(title)
                );
                in_sub = true;
                i += 1;
            } else if line.starts_with('|') {
                let end = (i..lines.len())
                    .find(|&j| !lines[j].starts_with('|'))
                    .unwrap_or(lines.len());
                if end - i >= 2 {
                    self.table(&lines[i..end], &mut out);
                } else {
                    let _ = writeln!(out, "<p>{}</p>", inline(line));
                }
                i = end;
            } else if line.starts_with("- ") {
                out.push_str("<ul>\n");
                while i < lines.len() && lines[i].starts_with("- ") {
                    let _ = writeln!(out, "<li>{}</li>", inline(&lines[i][2..]));
                    i += 1;
                }
                out.push_str("</ul>\n");
            } else if let Some((alt, src)) = image(line) {
                out.push_str(&(self.image)(alt, src));
                i += 1;
            } else {
                let end = (i..lines.len())
                    .find(|&j| {
                        let l = lines[j];
                        l.trim().is_empty()
                            || l.starts_with('#')
                            || l.starts_with('|')
                            || l.starts_with("- ")
                            || image(l).is_some()
                    })
                    .unwrap_or(lines.len());
                let text = lines[i..end.max(i + 1)].join(" ");
                let _ = writeln!(out, "<p>{}</p>", inline(&text));
                i = end.max(i + 1);
            }
        }
        if in_sub {
            out.push_str("</div>\n");
        }
        if in_section {
            out.push_str("</section>\n");
        }
        out
    }
}

/// `![alt](src)` alone on its line.
fn image(line: &str) -> Option<(&str, &str)> {
    let rest = line.trim().strip_prefix("![")?;
    let (alt, rest) = rest.split_once("](")?;
    let src = rest.strip_suffix(')')?;
    Some((alt, src))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_markup_and_escapes() {
        assert_eq!(
            inline("**yes** (`a|b`) <x> _floor: 4 KiB_ [l](f.svg)"),
            "<strong>yes</strong> (<code>a|b</code>) &lt;x&gt; <em>floor: 4 KiB</em> <a href=\"f.svg\">l</a>"
        );
        assert_eq!(inline("scenario/empty_changes"), "scenario/empty_changes");
        assert_eq!(inline("WRITEMAP\\|MAPASYNC"), "WRITEMAP|MAPASYNC");
        let long = format!("`{}`", "x ".repeat(LONG_CODE));
        assert!(inline(&long).starts_with("<code class=\"long\">"));
    }

    #[test]
    fn tables_tag_runs_and_profiles() {
        let runs = vec!["tmpfs".to_string(), "disk".to_string()];
        let profiles = vec!["lmdb".to_string()];
        let image = |_: &str, _: &str| String::new();
        let ctx = Context {
            runs: &runs,
            profiles: &profiles,
            image: &image,
        };
        let html = ctx.convert(
            "## T\n\n| profile | tmpfs (tmpfs), baseline | `disk`: floor |\n| --- | --- | --- |\n| `lmdb [fsync]` | 1 ms | 2 ms |\n",
        );
        assert!(
            html.contains("<section class=\"report-section\" id=\"t\">"),
            "{html}"
        );
        assert!(html.contains("<tr data-profile=\"lmdb\">"), "{html}");
        assert!(html.contains("<td data-run=\"disk\">2 ms</td>"), "{html}");
        assert!(html.contains("<th data-run=\"tmpfs\""), "{html}");
        assert!(html.ends_with("</section>\n"));
    }
}
