//! One CSV cell as a spreadsheet may safely open it: quoted when it needs it (RFC 4180), and
//! neutralised when it would start a formula.
//!
//! Run names, benchmark and profile names come from run folders that may be someone else's; a
//! cell starting with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula by
//! spreadsheet programs (CSV injection). Such a cell is prefixed with `'`, as OWASP advises;
//! a cell that is a plain number (`-0.5`, `1e-3`) is left as it is.

/// `text` as a CSV cell (see the module's notes).
pub fn cell(text: &str) -> String {
    let neutral = if starts_formula(text) {
        format!("'{text}")
    } else {
        text.to_string()
    };
    if neutral.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", neutral.replace('"', "\"\""))
    } else {
        neutral
    }
}

/// Whether a spreadsheet would read `text` as a formula.
fn starts_formula(text: &str) -> bool {
    text.starts_with(['=', '+', '-', '@', '\t', '\r']) && text.trim().parse::<f64>().is_err()
}

#[cfg(test)]
mod tests {
    use super::cell;

    #[test]
    fn formulas_are_neutralised_and_numbers_kept() {
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("+1+1"), "'+1+1");
        assert_eq!(cell("\tx"), "'\tx");
        assert_eq!(cell("-0.5"), "-0.5");
        assert_eq!(cell("tmpfs"), "tmpfs");
        assert_eq!(cell("a,b"), "\"a,b\"");
    }
}
