//! A load folder's files: `load.json`, `timeseries.csv`, `matrix.md` (a matrix), `search.md` (a
//! saturation search) and the plots; plus the text the CLI prints (the matrix, the search's
//! steps, the side-by-side comparison of two `load.json`).

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use triebench_record::load::{OpStats, SecondSample};

use crate::atomic_file::write_text;
use crate::error::ReportError;
use crate::model::load::{
    LoadFile, RunSummary, LOAD_FILE, MATRIX_FILE, SEARCH_FILE, TIMESERIES_FILE,
};
use crate::render::fmt;
use crate::render::load_plots;
use crate::render::plots::PlotFile;
use crate::render::table::{header, row};

/// The header of `timeseries.csv`.
pub const TIMESERIES_HEADER: &str =
    "t_s,commits,commit_p99_us,reads,read_p99_us,rss_bytes,cpu_pct,store_bytes";

/// `timeseries.csv`: one row per second.
pub fn timeseries_csv(samples: &[SecondSample]) -> String {
    let mut out = String::from(TIMESERIES_HEADER);
    out.push('\n');
    for s in samples {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{:.1},{}",
            s.t_s,
            s.commits,
            s.commit_p99_us,
            s.reads,
            s.read_p99_us,
            s.rss_bytes,
            s.cpu_pct,
            s.store_bytes
        );
    }
    out
}

/// A latency in µs for tables: `850 µs`, `12.3 ms`.
pub fn latency(us: u64) -> String {
    if us == 0 {
        return "–".to_string();
    }
    fmt::time_ns(us as f64 * 1e3)
}

/// A rate for tables: three significant figures.
pub fn rate(r: f64) -> String {
    if r == 0.0 {
        return "0".to_string();
    }
    fmt::trim_zeros(&fmt::sig3(r))
}

/// The c × r matrix as a markdown table: achieved commits/s and commit p99 per cell, saturated
/// cells marked.
pub fn matrix_markdown(file: &LoadFile) -> String {
    let rates = &file.config.rates;
    let mut cells = vec!["readers \\ offered commits/s".to_string()];
    cells.extend(rates.iter().map(|r| rate(*r)));
    let mut out = header(&cells);
    for &c in &file.config.readers {
        let mut line = vec![c.to_string()];
        for &r in rates {
            let cell = file
                .runs
                .iter()
                .find(|x| x.readers == c && x.rate == r)
                .map_or_else(|| "not run".to_string(), matrix_cell);
            line.push(cell);
        }
        out.push_str(&row(&line));
    }
    let _ = write!(
        out,
        "\nEach cell: achieved commits/s, commit p99 (from the intended start), reads/s. \
         **sat** = saturated: achieved < {:.0}% of offered or p99 > {}.\n",
        file.config.min_fraction * 100.0,
        latency(file.config.p99_bound_us)
    );
    out
}

/// The rates a saturation search tried, in order, as a markdown table: each rate's runs and its
/// pooled commits (achieved rate, p50, p99) with the verdict they gave. Empty for a matrix.
pub fn search_markdown(file: &LoadFile) -> String {
    if file.search.is_empty() {
        return String::new();
    }
    let mut out = header(&[
        "offered commits/s".into(),
        "runs".into(),
        "commits".into(),
        "achieved/s".into(),
        "p50".into(),
        "p99".into(),
        "verdict".into(),
    ]);
    for s in &file.search {
        let c = &s.commit;
        out.push_str(&row(&[
            rate(s.rate),
            s.runs.to_string(),
            c.count.to_string(),
            rate(c.per_sec),
            latency(c.p50_us),
            latency(c.p99_us),
            if s.holds { "holds" } else { "**fails**" }.to_string(),
        ]));
    }
    let _ = write!(
        out,
        "
A rate holds when its commits, pooled over its runs, achieve {:.0}% of it with p99 \
         within {}.",
        file.config.min_fraction * 100.0,
        latency(file.config.p99_bound_us)
    );
    if let Some(r) = file.config.rerun_below {
        let _ = write!(
            out,
            " A rate failing on its p99 alone over fewer than {} commits ran again, up to {} \
             runs.",
            r.min_commits, r.max_runs
        );
    }
    match &file.saturation {
        Some(s) => {
            let _ = writeln!(out, " Sustained: **{}/s**.", rate(s.commits_per_sec));
        }
        None => out.push_str(" No rate held.\n"),
    }
    out
}

fn matrix_cell(run: &RunSummary) -> String {
    let sat = if run.saturated { " **sat**" } else { "" };
    format!(
        "{}/s, p99 {}, {} reads/s{sat}",
        rate(run.commit.per_sec),
        latency(run.commit.p99_us),
        rate(run.read.per_sec)
    )
}

fn figures(file: &LoadFile) -> Vec<(String, Option<f64>, bool)> {
    // (name, value, is_latency)
    let mut out = Vec::new();
    for (kind, s) in [("commit", &file.commit), ("read", &file.read)] {
        let s: &OpStats = s;
        out.push((format!("{kind} count"), Some(s.count as f64), false));
        out.push((format!("{kind} per_sec"), Some(s.per_sec), false));
        for (n, v) in [
            ("p50", s.p50_us),
            ("p99", s.p99_us),
            ("p999", s.p999_us),
            ("max", s.max_us),
        ] {
            out.push((format!("{kind} {n}"), Some(v as f64), true));
        }
    }
    let sat = file.saturation.as_ref();
    out.push((
        "saturation commits_per_sec".into(),
        sat.map(|s| s.commits_per_sec),
        false,
    ));
    out.push(("saturation p99".into(), sat.map(|s| s.p99_us as f64), true));
    out
}

fn describe(file: &LoadFile) -> String {
    let fs = file
        .env
        .fs
        .as_ref()
        .map_or("no directory".to_string(), |f| {
            format!("{} at {}", f.fs_type, f.mount_point)
        });
    match &file.env.cpu_idle {
        Some(idle) => format!("{} on {fs}; {}", file.config.backend, idle.describe()),
        None => format!("{} on {fs}", file.config.backend),
    }
}

/// Every figure of two `load.json` side by side with the ratio B ÷ A.
pub fn compare_markdown(a: &LoadFile, a_name: &str, b: &LoadFile, b_name: &str) -> String {
    let mut out = format!(
        "A = {a_name} ({})\nB = {b_name} ({})\n\n",
        describe(a),
        describe(b)
    );
    out.push_str(&header(&[
        "figure".into(),
        "A".into(),
        "B".into(),
        "B ÷ A".into(),
    ]));
    for ((name, va, lat), (_, vb, _)) in figures(a).into_iter().zip(figures(b)) {
        let show = |v: Option<f64>| match v {
            None => "–".to_string(),
            Some(v) if lat => latency(v as u64),
            Some(v) => rate(v),
        };
        let ratio = match (va, vb) {
            (Some(x), Some(y)) if x > 0.0 => fmt::ratio(y / x),
            _ => "–".to_string(),
        };
        out.push_str(&row(&[name, show(va), show(vb), ratio]));
    }
    out
}

/// Writes a load folder: `load.json`, `timeseries.csv` (the headline run's seconds), the three
/// plots when `plots`, `matrix.md` when more than one cell ran and `search.md` after a
/// search. Returns the plots.
pub fn write_load_folder(
    dir: &Path,
    file: &LoadFile,
    samples: &[SecondSample],
    plots: bool,
) -> Result<Vec<PlotFile>, ReportError> {
    fs::create_dir_all(dir).map_err(|e| ReportError::write(dir, e))?;
    // A folder written before by another run keeps none of that run's files beside this one's.
    let mut stale: Vec<String> = Vec::new();
    if file.config.rates.len() * file.config.readers.len() <= 1 {
        stale.push(MATRIX_FILE.to_string());
    }
    if file.search.is_empty() {
        stale.push(SEARCH_FILE.to_string());
    }
    if !plots {
        for stem in load_plots::PLOT_STEMS {
            stale.extend([format!("{stem}.svg"), format!("{stem}.png")]);
        }
    }
    for name in stale {
        let path = dir.join(name);
        match fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(ReportError::write(&path, e))
            }
            _ => {}
        }
    }
    let json = serde_json::to_string_pretty(file).map_err(|source| ReportError::Json {
        what: "load",
        source,
    })?;
    write_text(&dir.join(LOAD_FILE), &(json + "\n"))?;
    write_text(&dir.join(TIMESERIES_FILE), &timeseries_csv(samples))?;
    if file.config.rates.len() * file.config.readers.len() > 1 {
        write_text(&dir.join(MATRIX_FILE), &matrix_markdown(file))?;
    }
    if !file.search.is_empty() {
        write_text(&dir.join(SEARCH_FILE), &search_markdown(file))?;
    }
    if !plots {
        return Ok(Vec::new());
    }
    let what = format!(
        "{}, {} readers, {} commits/s offered",
        file.config.backend,
        file.headline.readers,
        rate(file.headline.rate)
    );
    load_plots::write_all(samples, &what, dir)
}
