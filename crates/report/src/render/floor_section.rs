//! The "Each backend against its storage floor" section: per profile and run, `update`'s time
//! per single-key commit beside the storage floor of such a commit (`floor/commit/<profile>`,
//! the same writes made straight on the store by `triebench headline`), and what is left above
//! it with its 95% interval ([`above_floor`]): the trie's work, its reads, and the access
//! pattern's cost on that backend. An `update` measured below its floor is not printed as a
//! figure: its cell is marked and a sentence under the table says the floor did not bound the
//! measurement and what to rerun.

use std::fmt::Write as _;

use triebench_record::vocabulary::{FLOOR_COMMITS, UPDATE_KEYS};

use crate::analysis::above_floor::{above_floor, AboveFloor};
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
         tables average; {FLOOR_COMMITS} commits per round, each round's floor taken just before \
         its `update` run). *update*: `scenario/update` ÷ {UPDATE_KEYS}, its time per single-key \
         commit (its reads and closing batch included). *above*: update − floor, what the trie, \
         its reads and the access pattern cost beyond the storage's own writes, with its 95% \
         interval: paired by round (a *t* interval on the per-round differences) where the run \
         took floor and `update` in the same rounds, else unpaired (Welch's, marked †). A floor \
         bounds what it floors: an `update` below it is marked ✗ and explained under the table, \
         never given as a figure.\n"
    );
    let mut columns = vec!["profile".to_string(), "durable".to_string()];
    columns.extend(
        runs.iter()
            .map(|r| format!("`{}`: floor · update · above", esc(r))),
    );
    out.push_str(&header(&columns));
    let mut failures: Vec<(String, String, AboveFloor)> = Vec::new();
    for profile in &profiles {
        let mut cells = vec![
            format!("`{}`", esc(profile)),
            durable_cell(profile).to_string(),
        ];
        for run in &runs {
            let floor = results.get(run, &floor_key(profile)).map(|m| m.mean.point);
            cells.push(match (floor, above_floor(results, run, profile)) {
                (_, Some(a)) if a.below_floor() => {
                    failures.push((run.clone(), profile.clone(), a));
                    format!(
                        "{} · {} · **✗ below its floor**",
                        fmt::time_ns(a.floor_ns),
                        fmt::time_ns(a.update_ns)
                    )
                }
                (_, Some(a)) => format!(
                    "{} · {} · {} [{}, {}]{}",
                    fmt::time_ns(a.floor_ns),
                    fmt::time_ns(a.update_ns),
                    fmt::time_ns(a.above.point),
                    fmt::time_ns(a.above.lower),
                    fmt::time_ns(a.above.upper),
                    if a.paired { "" } else { " †" }
                ),
                (Some(f), None) => format!("{} · – · –", fmt::time_ns(f)),
                (None, None) => "–".to_string(),
            });
        }
        out.push_str(&row(&cells));
    }
    out.push('\n');
    for (run, profile, a) in &failures {
        let _ = writeln!(
            out,
            "✗ `{}` on `{}`: `update` measured {} per commit, below its floor of {} (difference \
             {} [{}, {}]): the floor did not bound the measurement, so the method failed here \
             (the storage's speed changed between them, or the floor's store differs from \
             `update`'s) and no \"above\" is given. Rerun that profile on that filesystem: \
             `triebench headline --dir <a directory on {}> --run {} --profiles {}`.\n",
            esc(profile),
            esc(run),
            fmt::time_ns(a.update_ns),
            fmt::time_ns(a.floor_ns),
            fmt::time_ns(a.above.point),
            fmt::time_ns(a.above.lower),
            fmt::time_ns(a.above.upper),
            esc(run),
            esc(run),
            esc(profile),
        );
    }
}

fn floor_key(profile: &str) -> BenchKey {
    BenchKey::new(FLOOR_COMMIT_GROUP, Some(profile), None)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::model::results::{Estimate, Measurement, RunResults};

    fn measured(per_iter_ns: Vec<f64>) -> Measurement {
        let mean = per_iter_ns.iter().sum::<f64>() / per_iter_ns.len() as f64;
        let e = Estimate {
            point: mean,
            lower: mean,
            upper: mean,
            confidence_level: 0.95,
        };
        Measurement {
            mean: e,
            median: e,
            throughput: Vec::new(),
            per_iter_ns,
        }
    }

    /// Run `name` with `profile`'s floor and update samples (update per commit, in ns).
    fn run(name: &str, profile: &str, floor: &[f64], update: &[f64]) -> RunResults {
        let keys = f64::from(UPDATE_KEYS);
        let mut benches = BTreeMap::new();
        benches.insert(floor_key(profile), measured(floor.to_vec()));
        benches.insert(
            BenchKey::new("scenario/update", Some(profile), None),
            measured(update.iter().map(|u| u * keys).collect()),
        );
        RunResults {
            name: name.into(),
            present: true,
            fs: None,
            cpu_idle: None,
            host: None,
            host_load: None,
            benches,
        }
    }

    /// A floor under `update` gives "above" with its interval; one over it gives a marked cell
    /// and a sentence saying what failed and what to rerun, never the negative figure.
    #[test]
    fn above_has_its_interval_and_an_update_below_its_floor_is_a_failure() {
        let results = ResultSet {
            runs: vec![
                run(
                    "tmpfs",
                    "lmdb",
                    &[10e3, 11e3, 10e3, 11e3],
                    &[30e3, 31e3, 29e3, 31e3],
                ),
                run(
                    "disk",
                    "lmdb",
                    &[886e3, 890e3, 880e3],
                    &[707e3, 710e3, 705e3],
                ),
            ],
            available: Vec::new(),
        };
        let mut out = String::new();
        render(&mut out, &results);
        let line = out
            .lines()
            .find(|l| l.starts_with("| `lmdb` |"))
            .unwrap_or_else(|| panic!("no lmdb row:\n{out}"));
        assert!(line.contains("10.5 µs · 30.2 µs · 19.8 µs ["), "{line}");
        assert!(line.contains("**✗ below its floor**"), "{line}");
        assert!(!line.contains("-179"), "{line}");
        assert!(
            out.contains(
                "✗ `lmdb` on `disk`: `update` measured 707 µs per commit, below its floor"
            ) && out.contains("the floor did not bound the measurement")
                && out.contains("--run disk --profiles lmdb"),
            "{out}"
        );
    }
}
