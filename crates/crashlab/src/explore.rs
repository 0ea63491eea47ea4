//! Crash-state exploration (`--model M`): crash states explored, not crash moments.
//!
//! Each round records a short workload through slowfs with an op log
//! ([`crate::recording`]) and explores the log with `triebench_slowfs::model::explore`: at
//! every sync-family call and at up to `between` seeded points between two of them
//! (`PointPlan`), `states_per_point` states the model allows, each written to the (now
//! unmounted) mount point's path and given the recording's owners and modes
//! ([`crate::owners`]), where the store is reopened and checked as the power-cut rounds are
//! ([`crate::check`]: every root acknowledged before the crash point opens, reads back and
//! recomputes; one more commit succeeds). An `@open` note marks the open store in the op log;
//! `postgres` profiles are explored only after it (their `initdb` is the server's bootstrap,
//! not the store).

use std::path::PathBuf;
use std::time::Instant;

use triebench_kv::Profile;
use triebench_record::crash_models::{CrashModelsFile, ModelRun, ModelViolation};
use triebench_slowfs::model::{explore, CrashModel, Exploration, PointPlan, StateId};

use crate::error::CrashError;
use crate::folders::Folders;
use crate::recording::{check_state, from_open, record_round, OPEN_NOTE};
use crate::round::adopt_orphans;

/// What a crash-state exploration runs and samples.
#[derive(Debug, Clone)]
pub struct ExploreOptions {
    /// The backend profile.
    pub profile: Profile,
    /// Rounds, each one recorded workload.
    pub rounds: u64,
    /// Merge the run into this folder's `crash-models.json` (and write `crash-models.md`,
    /// `env.json`); not with `only_round`.
    pub out: Option<PathBuf>,
    /// The seed everything derives from; `None`: from the clock.
    pub seed: Option<u64>,
    /// The crash model the states are drawn from.
    pub model: CrashModel,
    /// Commits in each round's workload.
    pub commits: u64,
    /// States sampled at each crash point (the clean cut has one).
    pub states_per_point: u32,
    /// Crash points sampled between two sync calls, besides the point at each sync call.
    pub between: u32,
    /// At most this many crash points per round, a seeded sample (0: all).
    pub max_points: usize,
    /// Run only this round (from 1), to reproduce a violation.
    pub only_round: Option<u64>,
    /// With `only_round`: check only this state.
    pub only_state: Option<StateId>,
}

/// Explores the crash states `options` asks for and returns the run, saved in `options.out`
/// first (unless only one round ran). Progress goes to stderr.
///
/// # Errors
/// A folder or result file that cannot be used, a recording that fails (a commit failing with
/// no fault injected included), a crash state that cannot be written.
pub fn explore_states(
    options: &ExploreOptions,
    folders: &dyn Folders,
) -> Result<ModelRun, CrashError> {
    let profile = options.profile;
    if let Some(out) = &options.out {
        crate::results::check::<CrashModelsFile>(folders, out)?;
    }
    adopt_orphans();
    let seed = crate::seed::or_clock(options.seed);
    let model = options.model;
    let seeds = crate::seed::round_seeds(seed, options.rounds.max(options.only_round.unwrap_or(0)));
    let rounds: Vec<u64> = match options.only_round {
        Some(r) if r >= 1 => vec![r],
        Some(_) => return Err(CrashError::OnlyRoundZero),
        None => (1..=options.rounds).collect(),
    };
    let states_per_point = if model == CrashModel::Clean {
        1
    } else {
        options.states_per_point
    };
    let mut run = ModelRun {
        profile: profile.name().to_string(),
        promised: profile.durability().name().to_string(),
        model: model.to_string(),
        mount_flags: format!(
            "--power-loss --op-log (replayed as {model}; crash points at each sync call{}{}{})",
            if options.between > 0 {
                format!(" and up to {} between two", options.between)
            } else {
                String::new()
            },
            if options.max_points > 0 {
                format!(", at most {} per round", options.max_points)
            } else {
                String::new()
            },
            if from_open(profile) {
                ", from the open store on"
            } else {
                ""
            }
        ),
        rounds: 0,
        commits_per_round: options.commits,
        states_per_point: u64::from(states_per_point),
        crash_points: 0,
        states: 0,
        roots_checked: 0,
        violations: 0,
        seed,
        points_between: u64::from(options.between),
        max_points: options.max_points as u64,
        from_open: from_open(profile),
        seconds: 0,
        smallest: Vec::new(),
    };
    let started = Instant::now();
    for round in rounds {
        let round_seed = seeds[(round - 1) as usize];
        let rec = record_round(profile, options.commits, round_seed, &[])?;
        if let Some(Err(e)) = rec.outcomes.iter().find(|o| o.is_err()) {
            return Err(CrashError::RecordingCommit(e.clone()));
        }
        let dir = rec.mount.mountpoint().to_path_buf();
        let states_before = run.states;
        let plan = PointPlan {
            between: options.between,
            from: if from_open(profile) {
                rec.log.mark_at(OPEN_NOTE).map_or(0, |i| i + 1)
            } else {
                0
            },
            most: options.max_points,
        };
        let found = explore(
            &rec.log,
            model,
            states_per_point,
            round_seed,
            plan,
            options.only_state,
            &dir,
            |dir, roots| check_state(profile, dir, &rec.backing, roots, round_seed),
            |states, violations| {
                if states % 100 == 0 {
                    eprintln!(
                        "crash-test {} {model}: round {round}, {} states, {} violations ({:.0} s)",
                        profile.name(),
                        states_before + states,
                        run.violations + violations,
                        started.elapsed().as_secs_f64()
                    );
                }
            },
        )
        .map_err(CrashError::WriteState)?;
        add_round(&mut run, options, round, &found);
        eprintln!(
            "crash-test {} {model}: round {round} done: {} ops logged, {} crash points, {} states, {} violations so far ({:.0} s)",
            profile.name(),
            rec.log.ops.len(),
            found.crash_points,
            run.states,
            run.violations,
            started.elapsed().as_secs_f64()
        );
    }
    run.seconds = started.elapsed().as_secs();
    if let Some(out) = &options.out {
        if options.only_round.is_none() {
            crate::models_file::save(folders, out, |file| file.merge(run.clone()))?;
        }
    }
    Ok(run)
}

/// Adds one round's exploration to the run, keeping the smallest violation of each kind.
fn add_round(run: &mut ModelRun, options: &ExploreOptions, round: u64, found: &Exploration) {
    run.rounds += 1;
    run.crash_points += found.crash_points;
    run.states += found.states;
    run.roots_checked += found.marks_checked;
    run.violations += found.violations;
    for v in &found.smallest {
        let points = |s: &str| s.split(':').next().and_then(|p| p.parse::<usize>().ok());
        let known = run.smallest.iter_mut().find(|k| k.kind == v.failure.kind);
        if known
            .as_ref()
            .is_some_and(|k| points(&k.state) <= Some(v.id.point))
        {
            continue;
        }
        let entry = ModelViolation {
            kind: v.failure.kind.clone(),
            detail: v.failure.detail.clone(),
            round,
            state: v.id.to_string(),
            how: v.state.clone(),
            trace: v.trace.clone(),
            rerun: rerun_command(options, &run.model, run.seed, round, v.id),
        };
        match known {
            Some(k) => *k = entry,
            None => run.smallest.push(entry),
        }
    }
}

/// The one command that checks state `id` of round `round` again.
fn rerun_command(
    options: &ExploreOptions,
    model: &str,
    seed: u64,
    round: u64,
    id: StateId,
) -> String {
    let cap = if options.max_points > 0 {
        format!(" --max-points {}", options.max_points)
    } else {
        String::new()
    };
    format!(
        "triebench crash-test --backend {} --power-loss --model {model} --seed {seed} --commits {} \
         --states-per-point {} --between {}{cap} --only-round {round} --only-state {id}",
        options.profile.name(),
        options.commits,
        options.states_per_point,
        options.between
    )
}
