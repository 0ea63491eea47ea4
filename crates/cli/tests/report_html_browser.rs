//! `report.html` in a real browser: `triebench report` over the committed run folders of
//! `results/2026-11-23-vm-suite-postgres-transact` (with that study's phase run), then Debian's Chromium, headless, loads the
//! page. A check script run inside the loaded page (after the page's own script) goes through
//! the DOM: every section of report.md and every plot is there, clicking a header sorts its
//! table, the picker hides a profile's rows and points and a filesystem's columns, a point shows
//! its numbers on hover; and nothing reached the console (Chromium's console log, on stderr, and
//! errors caught in the page). A screenshot is kept in the test's output directory
//! (`target/tmp/report_html_browser/`).
//!
//! Skipped, saying so, when /usr/bin/chromium is absent, unless TRIEBENCH_REQUIRE_BROWSER is set
//! (scripts/test.sh sets it; scripts/setup.sh installs Chromium).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{copy_dir, repo, triebench};
use serde_json::Value;

const CHROMIUM: &str = "/usr/bin/chromium";
const RUNS: &str = "results/2026-11-23-vm-suite-postgres-transact/runs";
const PHASES: &str = "results/2026-11-23-vm-suite-postgres-transact/phases-tmpfs.json";

/// Installed at the start of <head>: records every error and console.error/warn of the page.
const CAPTURE: &str = r##"<script>
window.__problems = [];
window.addEventListener("error", function (e) { window.__problems.push("error: " + (e.message || (e.target && e.target.outerHTML))); }, true);
window.addEventListener("unhandledrejection", function (e) { window.__problems.push("rejection: " + e.reason); });
["error", "warn"].forEach(function (level) {
  var original = console[level];
  console[level] = function () { window.__problems.push(level + ": " + Array.prototype.join.call(arguments, " ")); original.apply(console, arguments); };
});
</script>"##;

/// Appended at the end of <body>, after the page's script: drives the page through the DOM and
/// writes what it found as JSON into <pre id="selfcheck">.
const CHECK: &str = r##"<script>
(function () {
  var out = { problems: [], sections: [], plots: [], sort: {}, picker: {}, hover: {} };
  function hidden(el) { return el.closest(".off") !== null || getComputedStyle(el).display === "none"; }
  function timeNs(text) {
    var m = text.match(/(\d+(?:\.\d+)?)\s*(ns|\u00b5s|ms|s)\b/);
    if (!m) { return null; }
    return parseFloat(m[1]) * { "ns": 1, "\u00b5s": 1e3, "ms": 1e6, "s": 1e9 }[m[2]];
  }
  try {
    out.sections = Array.prototype.map.call(document.querySelectorAll("section.report-section > h2"), function (h) { return h.textContent; });
    out.plots = Array.prototype.map.call(document.querySelectorAll("figure.plot"), function (f) {
      return { plot: f.getAttribute("data-plot"), svg: f.querySelector("svg") !== null, points: f.querySelectorAll("[data-tip]").length };
    });
    // Sorting: the first table of the suite section, by its first run's time column.
    var table = document.querySelector('section[id^="whole-suite"] table.sortable');
    var th = table.querySelectorAll("thead th")[2];
    function column() {
      return Array.prototype.map.call(table.tBodies[0].rows, function (r) { return timeNs(r.cells[2].textContent); })
        .filter(function (v) { return v !== null; });
    }
    function ordered(xs, up) { return xs.every(function (x, i) { return i === 0 || (up ? xs[i - 1] <= x : xs[i - 1] >= x); }); }
    var before = column();
    th.click();
    var up = column();
    th.click();
    var down = column();
    out.sort = { header: th.textContent, rows: up.length, was_sorted: ordered(before, true), ascending: ordered(up, true), descending: ordered(down, false), state: th.getAttribute("data-sort") };
    // Picker: a profile off hides its rows and its points; a filesystem off hides its columns.
    var profileBox = document.querySelector('#picker input[data-profile="lmdb"]');
    var rows = document.querySelectorAll('main tr[data-profile="lmdb"]');
    var points = document.querySelectorAll('main svg [data-profile="lmdb"][data-tip]');
    var others = document.querySelectorAll('main tr[data-profile="btree"]');
    profileBox.click();
    out.picker.profile_rows = rows.length;
    out.picker.profile_points = points.length;
    out.picker.profile_rows_hidden = Array.prototype.every.call(rows, hidden);
    out.picker.profile_points_hidden = Array.prototype.every.call(points, hidden);
    out.picker.other_rows_visible = others.length > 0 && !Array.prototype.some.call(others, hidden);
    profileBox.click();
    out.picker.profile_rows_back = !Array.prototype.some.call(rows, hidden);
    var runBox = document.querySelectorAll("#picker input[data-run]")[1];
    var run = runBox.getAttribute("data-run");
    var cells = document.querySelectorAll('main td[data-run="' + run + '"]');
    runBox.click();
    out.picker.run = run;
    out.picker.run_cells = cells.length;
    out.picker.run_cells_hidden = Array.prototype.every.call(cells, hidden);
    runBox.click();
    // Hover: a point's numbers in the tooltip.
    var point = document.querySelector("figure.plot [data-tip]");
    point.dispatchEvent(new MouseEvent("mouseenter"));
    var tip = document.getElementById("tip");
    out.hover = { shown: !tip.hidden, text: tip.textContent, expected: point.getAttribute("data-tip") };
    point.dispatchEvent(new MouseEvent("mouseleave"));
    out.hover.hidden_after = tip.hidden;
  } catch (e) {
    window.__problems.push("check: " + e + " " + e.stack);
  }
  out.problems = window.__problems;
  var pre = document.createElement("pre");
  pre.id = "selfcheck";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"##;

fn chromium(user_data: &Path, args: &[&str]) -> std::process::Output {
    Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", user_data.display()))
        .args(args)
        .output()
        .expect("run chromium")
}

fn unescape(text: &str) -> String {
    text.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// Chromium's console lines (`...:CONSOLE(...)] "message", source: ...`).
fn console_lines(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(str::to_string)
        .collect()
}

#[test]
fn report_html_works_in_a_headless_chromium() {
    if !Path::new(CHROMIUM).exists() {
        assert!(
            std::env::var_os("TRIEBENCH_REQUIRE_BROWSER").is_none(),
            "TRIEBENCH_REQUIRE_BROWSER is set but {CHROMIUM} is missing: run scripts/setup.sh"
        );
        eprintln!("skipped: {CHROMIUM} is not installed (scripts/setup.sh installs it)");
        return;
    }
    let out_root = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("report_html_browser");
    let _ = std::fs::remove_dir_all(&out_root);
    std::fs::create_dir_all(&out_root).unwrap();
    let report = out_root.join("report");
    // The run folders, with the phase run the same study saved for tmpfs (so the page has a
    // phase plot too).
    let runs = out_root.join("runs");
    copy_dir(&repo().join(RUNS), &runs);
    let phases = runs.join("vm-tmpfs-2026-11-23/criterion/triebench-runs/phases");
    std::fs::create_dir_all(&phases).unwrap();
    std::fs::copy(repo().join(PHASES), phases.join("tmpfs.json")).unwrap();
    let made = triebench(&[
        "report",
        "--runs",
        &runs.join("vm-tmpfs-2026-11-23").display().to_string(),
        &runs.join("vm-disk-2026-11-23").display().to_string(),
        "--out",
        &report.display().to_string(),
    ]);
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    let markdown = std::fs::read_to_string(report.join("report.md")).unwrap();
    assert!(
        !html.contains("src=\"http") && !html.contains("href=\"http"),
        "loads nothing"
    );

    // The page as it is: a screenshot, and Chromium's console log.
    let screenshot = out_root.join("report.png");
    let shot = chromium(
        &out_root.join("profile-shot"),
        &[
            &format!("--screenshot={}", screenshot.display()),
            "--window-size=1280,2400",
            &format!("file://{}", report.join("report.html").display()),
        ],
    );
    assert!(
        shot.status.success(),
        "{}",
        String::from_utf8_lossy(&shot.stderr)
    );
    assert!(
        std::fs::metadata(&screenshot).unwrap().len() > 10_000,
        "screenshot written"
    );
    assert_eq!(console_lines(&shot.stderr), Vec::<String>::new(), "console");

    // The page with the check script: the DOM after both scripts ran.
    let checked = html
        .replacen("<head>", &format!("<head>\n{CAPTURE}"), 1)
        .replacen("</body>", &format!("{CHECK}\n</body>"), 1);
    let check_file = report.join("check.html");
    std::fs::write(&check_file, checked).unwrap();
    let dom = chromium(
        &out_root.join("profile-check"),
        &["--dump-dom", &format!("file://{}", check_file.display())],
    );
    assert!(
        dom.status.success(),
        "{}",
        String::from_utf8_lossy(&dom.stderr)
    );
    assert_eq!(console_lines(&dom.stderr), Vec::<String>::new(), "console");
    let text = String::from_utf8_lossy(&dom.stdout);
    let start = text.find("<pre id=\"selfcheck\">").expect("the check ran") + 20;
    let end = start + text[start..].find("</pre>").unwrap();
    let found: Value = serde_json::from_str(&unescape(&text[start..end])).unwrap();
    std::fs::write(out_root.join("selfcheck.json"), found.to_string()).unwrap();

    assert_eq!(
        found["problems"],
        serde_json::json!([]),
        "errors in the page"
    );
    let sections: Vec<String> = markdown
        .lines()
        .filter_map(|l| l.strip_prefix("## "))
        .map(|s| s.replace('`', ""))
        .collect();
    let shown: Vec<String> = found["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect();
    assert_eq!(shown, sections, "every section of report.md");
    assert!(sections.len() >= 5);
    let plots: Vec<String> = markdown
        .lines()
        .filter_map(|l| l.strip_prefix("!["))
        .filter_map(|l| l.split_once("](").map(|(_, f)| f.trim_end_matches(')')))
        .filter_map(|f| {
            Path::new(f)
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
        })
        .collect();
    assert!(plots.contains(&"phases-tmpfs".to_string()), "{plots:?}");
    let figures = found["plots"].as_array().unwrap();
    assert_eq!(figures.len(), plots.len(), "{figures:?}");
    for (figure, plot) in figures.iter().zip(&plots) {
        assert_eq!(figure["plot"], plot.as_str());
        assert_eq!(figure["svg"], true, "{figure}");
        assert!(
            figure["points"].as_u64().unwrap() > 0,
            "numbers on hover: {figure}"
        );
    }
    let sort = &found["sort"];
    assert!(sort["rows"].as_u64().unwrap() >= 3, "{sort}");
    assert_eq!(
        sort["was_sorted"], false,
        "a table not already in order: {sort}"
    );
    assert_eq!(sort["ascending"], true, "{sort}");
    assert_eq!(sort["descending"], true, "{sort}");
    assert_eq!(sort["state"], "desc", "{sort}");
    let picker = &found["picker"];
    assert!(picker["profile_rows"].as_u64().unwrap() > 0, "{picker}");
    assert!(picker["profile_points"].as_u64().unwrap() > 0, "{picker}");
    for flag in [
        "profile_rows_hidden",
        "profile_points_hidden",
        "other_rows_visible",
        "profile_rows_back",
        "run_cells_hidden",
    ] {
        assert_eq!(picker[flag], true, "{flag}: {picker}");
    }
    assert!(picker["run_cells"].as_u64().unwrap() > 0, "{picker}");
    let hover = &found["hover"];
    assert_eq!(hover["shown"], true, "{hover}");
    assert_eq!(hover["text"], hover["expected"], "{hover}");
    assert!(hover["text"]
        .as_str()
        .unwrap()
        .chars()
        .any(|c| c.is_ascii_digit()));
    assert_eq!(hover["hidden_after"], true, "{hover}");
    eprintln!("screenshot: {}", screenshot.display());
}
