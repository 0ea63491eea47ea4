//! The "Each backend against its storage floor" section: per profile and run, `update`'s time
//! per single-key commit beside the storage floor of such a commit (`floor/commit/<profile>`,
//! the same writes made straight on the store by `triebench headline`), and what is left above
//! it: the trie's work, its reads, and the access pattern's cost on that backend.

use std::fmt::Write as _;

use triebench_record::vocabulary::{FLOOR_COMMITS, UPDATE_KEYS};

use crate::model::bench_id::{BenchKey, FLOOR_COMMIT_GROUP};
use crate::model::results::ResultSet;
use crate::render::fmt;
use crate::render::markdown::durable_cell;
use crate::render::table::{esc, header, row};

/// Appends the section to `out` when any run measured a commit floor.
pub fn render(out: &mut String, results: &ResultSet) {
    let runs = results.run_names();
    let profiles: Vec<String> = results
        .scenario_profiles()
        .into_iter()
        .filter(|p| runs.iter().any(|r| results.get(r, &floor_key(p)).is_some()))
        .collect();
    if profiles.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "## Each backend against its storage floor\n\n\
         *floor*: one of `update`'s commits, its recorded writes replayed straight on the \
         store, without the trie, reads or hashing (`{FLOOR_COMMIT_GROUP}/<profile>`: the same \
         keys and bytes, 33 new nodes (~19.7 KB with their keys; the root ~15 KB) and two \
         change-log entries, on a store preloaded with `update`'s earlier commits to the size its \
         tables average; mean of {FLOOR_COMMITS} commits). *update*: `scenario/update` ÷ \
         {UPDATE_KEYS}, its time per single-key commit (its reads and closing batch included). *above*: update − floor, \
         what the trie, its reads and the access pattern cost beyond the storage's own writes.\n"
    );
    let mut columns = vec!["profile".to_string(), "durable".to_string()];
    columns.extend(
        runs.iter()
            .map(|r| format!("`{}`: floor · update · above", esc(r))),
    );
    out.push_str(&header(&columns));
    for profile in &profiles {
        let mut cells = vec![
            format!("`{}`", esc(profile)),
            durable_cell(profile).to_string(),
        ];
        for run in &runs {
            let floor = results.get(run, &floor_key(profile)).map(|m| m.mean.point);
            let update = results
                .get(run, &BenchKey::new("scenario/update", Some(profile), None))
                .map(|m| m.mean.point / f64::from(UPDATE_KEYS));
            cells.push(match (floor, update) {
                (Some(f), Some(u)) => format!(
                    "{} · {} · {}",
                    fmt::time_ns(f),
                    fmt::time_ns(u),
                    fmt::time_ns(u - f)
                ),
                (Some(f), None) => format!("{} · – · –", fmt::time_ns(f)),
                (None, _) => "–".to_string(),
            });
        }
        out.push_str(&row(&cells));
    }
    out.push('\n');
}

fn floor_key(profile: &str) -> BenchKey {
    BenchKey::new(FLOOR_COMMIT_GROUP, Some(profile), None)
}
