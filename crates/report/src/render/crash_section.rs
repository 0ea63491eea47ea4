//! The "What each profile loses" section: per backend profile, the crash-test rounds, commits
//! acknowledged, commits lost after a process crash and after a power cut, and corrupt stores,
//! from `crash.json`. Also the markdown `triebench crash-test --out` writes as `crash.md`.

use std::collections::BTreeSet;

use triebench_record::vocabulary::PROFILES;

use crate::model::crash::{CrashFile, CrashRun, MODE_POWER, MODE_PROCESS};
use crate::render::table::{esc, header, row};

/// Appends the section to `out` when crash-test results exist.
pub fn render(out: &mut String, crash: Option<&CrashFile>) {
    let Some(crash) = crash else { return };
    out.push_str("\n## What each profile loses\n\n");
    out.push_str(&table(crash));
}

/// The table with its explanation and the power-cut emulation's limits.
pub fn table(crash: &CrashFile) -> String {
    let mut out = String::from(
        "`triebench crash-test` kills a process committing random batches at random moments \
         (SIGKILL), or cuts power first (slowfs power-loss mode: every write not yet fsynced is \
         undone), then checks every root the process acknowledged: it opens, its leaves read \
         back and recompute it. *lost* = acknowledged commits gone (loss window: most of the \
         newest commits lost in one round); *corrupt* = roots found damaged plus stores that \
         no longer opened.\n\n",
    );
    out.push_str(&header(&[
        "profile".into(),
        "promises".into(),
        "rounds (crash / cut)".into(),
        "acknowledged (crash / cut)".into(),
        "lost after process crash".into(),
        "lost after power cut".into(),
        "corrupt".into(),
    ]));
    let mut names: Vec<String> = PROFILES
        .iter()
        .map(|p| p.name.to_string())
        .filter(|n| crash.runs.iter().any(|r| &r.profile == n))
        .collect();
    let known: BTreeSet<String> = names.iter().cloned().collect();
    names.extend(
        crash
            .runs
            .iter()
            .map(|r| r.profile.clone())
            .filter(|n| !known.contains(n))
            .collect::<BTreeSet<_>>(),
    );
    for name in names {
        let process = crash.run(&name, MODE_PROCESS);
        let power = crash.run(&name, MODE_POWER);
        let promised = process
            .or(power)
            .map_or(String::new(), |r| r.promised.clone());
        let pair = |f: fn(&CrashRun) -> u64| {
            format!(
                "{} / {}",
                process.map_or("–".into(), |r| f(r).to_string()),
                power.map_or("–".into(), |r| f(r).to_string())
            )
        };
        let corrupt = process.map_or(0, |r| r.corrupt) + power.map_or(0, |r| r.corrupt);
        out.push_str(&row(&[
            format!("`{}`", esc(&name)),
            promised,
            pair(|r| r.rounds),
            pair(|r| r.acknowledged),
            loss(process),
            loss(power),
            corrupt.to_string(),
        ]));
    }
    let limits: BTreeSet<&String> = crash.runs.iter().flat_map(|r| &r.limits).collect();
    if !limits.is_empty() {
        out.push_str("\nNot covered by the power-cut emulation:\n\n");
        for limit in limits {
            out.push_str(&format!("- {}\n", esc(limit)));
        }
    }
    out
}

/// "0", or "N (M rounds, window up to W)".
fn loss(run: Option<&CrashRun>) -> String {
    match run {
        None => "not run".into(),
        Some(r) if r.lost == 0 => "**0**".into(),
        Some(r) => format!(
            "{} ({} of {} rounds; window up to {})",
            r.lost, r.rounds_with_loss, r.rounds, r.max_lost_tail
        ),
    }
}
