//! The published figures ([`AnchorFile`]): the list built into the report
//! (`crates/report/anchors.json`), or an `anchors.json` in the folder a report is made of,
//! which replaces it. Every anchor must carry its figure, hardware, source and date: a file
//! where one lacks any of them is refused naming the anchor, so no figure reaches a report
//! without the place it was published.

use std::path::{Path, PathBuf};

use crate::error::ReportError;
use crate::model::anchors::{Anchor, AnchorFile};

/// The list built into the report.
pub const BUILT_IN: &str = include_str!("../../anchors.json");

/// The name of a folder's own list.
pub const FILE_NAME: &str = "anchors.json";

/// Where the built-in list lives in the repository (named in its errors).
const BUILT_IN_PATH: &str = "crates/report/anchors.json";

fn refuse(path: &Path, reason: String) -> ReportError {
    ReportError::File {
        path: path.to_path_buf(),
        reason,
    }
}

/// What is missing or wrong in `anchor`, if anything.
fn problem(anchor: &Anchor) -> Option<String> {
    let empty = |s: &str| s.trim().is_empty();
    if empty(&anchor.id) {
        return Some("an anchor has no id".into());
    }
    let id = &anchor.id;
    for (field, value) in [
        ("engine", &anchor.engine),
        ("workload", &anchor.workload),
        ("unit", &anchor.unit),
        ("hardware", &anchor.hardware),
        ("source", &anchor.source),
        ("date", &anchor.date),
    ] {
        if empty(value) {
            return Some(format!(
                "anchor `{id}` has no {field}: a published figure is quoted with its \
                 {field}, or left out (list the workload under `unsourced` with the reason)"
            ));
        }
    }
    if !anchor.source.starts_with("https://") {
        return Some(format!(
            "anchor `{id}`: source `{}` is not an https:// address",
            anchor.source
        ));
    }
    if !(anchor.figure.is_finite() && anchor.figure > 0.0) {
        return Some(format!(
            "anchor `{id}`: figure {} is not a positive number",
            anchor.figure
        ));
    }
    if anchor.ours.is_some() != anchor.metric.is_some() {
        return Some(format!(
            "anchor `{id}`: `ours` and `metric` go together (both set, or both null)"
        ));
    }
    None
}

/// Parses and checks a list; `path` names it in errors.
pub fn parse(text: &str, path: &Path) -> Result<AnchorFile, ReportError> {
    let file: AnchorFile = serde_json::from_str(text)
        .map_err(|e| refuse(path, format!("not a list of published figures: {e}")))?;
    let mut ids: Vec<&str> = Vec::new();
    for anchor in &file.anchors {
        if let Some(reason) = problem(anchor) {
            return Err(refuse(path, reason));
        }
        if ids.contains(&anchor.id.as_str()) {
            return Err(refuse(
                path,
                format!("anchor `{}` is listed twice", anchor.id),
            ));
        }
        ids.push(&anchor.id);
    }
    for left in &file.unsourced {
        if left.reason.trim().is_empty() {
            return Err(refuse(
                path,
                format!("`{}` is listed as unsourced without a reason", left.ours),
            ));
        }
    }
    Ok(file)
}

/// The list for a report of `dir`: `dir/anchors.json` when there is one, else the built-in
/// list; with the path it was read from (for the section to name).
pub fn load(dir: &Path) -> Result<(AnchorFile, PathBuf), ReportError> {
    let own = dir.join(FILE_NAME);
    if own.is_file() {
        let text = std::fs::read_to_string(&own).map_err(|e| refuse(&own, e.to_string()))?;
        return Ok((parse(&text, &own)?, own));
    }
    let path = PathBuf::from(BUILT_IN_PATH);
    Ok((parse(BUILT_IN, &path)?, path))
}
