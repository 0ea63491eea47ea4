//! The load step's options as text (`--duration 10s`, `--readers 2,8`): parsed here, so every
//! front end reads them alike.

use std::time::Duration;

use crate::error::PlanError;

/// A duration as the load flags take it: `10s`, `500ms`, `250us`, `2m` (a bare number is
/// seconds); zero, negative and unbounded values are refused.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let t = text.trim();
    // The unit is the trailing letters, so `1e3s` is a thousand seconds.
    let (num, unit) = t.split_at(t.trim_end_matches(char::is_alphabetic).len());
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 10s"))?;
    let secs = match unit {
        "" | "s" => v,
        "ms" => v / 1e3,
        "us" | "µs" => v / 1e6,
        "m" | "min" => v * 60.0,
        _ => return Err(format!("`{text}`: use s, ms, us or m")),
    };
    if !(secs.is_finite() && secs > 0.0) {
        return Err(format!("`{text}` must be above zero"));
    }
    Duration::try_from_secs_f64(secs).map_err(|_| format!("`{text}` is too long"))
}

/// A comma-separated list; blank entries are skipped, a bad one is an error naming it, and so is
/// an entry given twice (each entry is a row or column of the matrix, found by its value).
pub fn parse_list<T: std::str::FromStr + PartialEq>(
    flag: &str,
    text: &str,
) -> Result<Vec<T>, PlanError> {
    let mut list: Vec<T> = Vec::new();
    for t in text.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        let v: T = t
            .parse()
            .map_err(|_| PlanError::Usage(format!("{flag}: `{t}` is not a number")))?;
        if list.contains(&v) {
            return Err(PlanError::Usage(format!(
                "{flag}: `{t}` is given twice; each entry is one row or column of the matrix"
            )));
        }
        list.push(v);
    }
    Ok(list)
}
