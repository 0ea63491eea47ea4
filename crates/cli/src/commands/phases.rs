//! `triebench phases`: where a commit's time goes, per backend profile, on one filesystem:
//! every scenario once per profile with the phase collector listening.

use std::path::PathBuf;

use clap::Args;
use triebench_kv::Phase;
use triebench_measure::cpu_idle::CpuIdleGuard;
use triebench_measure::phases_run;
use triebench_measure::trie_warm_up::warm_trie;
use triebench_record::phases::PhaseRow;
use triebench_record::CpuIdle;

use crate::commands::criterion_dir_arg::CriterionDirArg;
use crate::commands::flamegraph::profiled;
use crate::commands::outputs::writable_file;
use crate::commands::profile_choice::chosen_profiles;
use crate::error::CliError;

#[derive(Debug, Args)]
pub struct PhasesArgs {
    /// Directory on the filesystem under test (fresh store directories are made in it).
    #[arg(long, value_name = "DIR")]
    pub dir: PathBuf,
    /// The run (filesystem) name, as given to `capture-fs` and the criterion baseline.
    #[arg(long, value_name = "NAME", default_value = "run")]
    pub run: String,
    /// Backend profiles, comma-separated [default: every profile built in].
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub profiles: Vec<String>,
    /// Output file [default: CRITERION_DIR/triebench-runs/phases/NAME.json, where report
    /// finds it].
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub criterion: CriterionDirArg,
    /// Also sample the run into a flamegraph SVG.
    #[arg(long, value_name = "FILE")]
    pub flamegraph: Option<PathBuf>,
    /// What idle CPUs do while measuring, as for `headline`: `poll` (hold /dev/cpu_dma_latency
    /// at 0 µs when root) or `os`.
    #[arg(long, value_name = "MODE", default_value = "poll")]
    pub cpu_idle: CpuIdle,
    #[command(flatten)]
    pub net: crate::commands::net_arg::NetArgs,
}

/// One line per phase: time, share of the total, spans; then the rest and the total.
pub fn describe(row: &PhaseRow) -> String {
    let total = row.total_ns.max(1) as f64;
    let mut out = format!(
        "phases: {} {} ({} commits), total {:.3} ms\n",
        row.profile,
        row.scenario,
        row.commits,
        row.total_ns as f64 / 1e6
    );
    for phase in Phase::ALL {
        let ns = row.ns(phase.name());
        let spans = row.spans.get(phase.name()).copied().unwrap_or(0);
        out.push_str(&format!(
            "  {:<14} {:>12.3} ms {:>6.1}% {:>9} spans\n",
            phase.name(),
            ns as f64 / 1e6,
            100.0 * ns as f64 / total,
            spans
        ));
    }
    out.push_str(&format!(
        "  {:<14} {:>12.3} ms {:>6.1}%   (outside every phase)\n  {:<14} {:>12.3} ms {:>6.1}% of the measured total\n",
        "unaccounted",
        row.unaccounted_ns() as f64 / 1e6,
        100.0 * row.unaccounted_ns() as f64 / total,
        "phases sum",
        row.accounted_ns() as f64 / 1e6,
        100.0 * row.accounted_ns() as f64 / total,
    ));
    out
}

pub fn run_phases(args: PhasesArgs) -> Result<(), CliError> {
    args.net.apply()?;
    triebench_record::layout::validate_run_name(&args.run)?;
    crate::commands::make_dir::make_dir("--dir", &args.dir)?;
    let profiles = chosen_profiles(&args.profiles, &args.dir)?;
    let out = args
        .out
        .unwrap_or_else(|| phases_run::path(&args.criterion.resolve(), &args.run));
    writable_file("--out", &out)?;
    if let Some(svg) = &args.flamegraph {
        writable_file("--flamegraph", svg)?;
    }
    // Held while the phases are measured; dropping it lifts the bound.
    let idle = CpuIdleGuard::hold(args.cpu_idle);
    eprintln!("phases: {}", idle.record().describe());
    // Outside the flamegraph, which should show the profiles' commits, not the warm-up.
    let warm = warm_trie(&args.dir)?;
    let mut file = profiled(args.flamegraph.as_deref(), || {
        Ok(phases_run::collect(
            &warm,
            &args.run,
            &args.dir,
            &profiles,
            |row| {
                if row.scenario == triebench_record::vocabulary::SUITE {
                    eprint!("{}", describe(row));
                }
            },
        )?)
    })?;
    file.cpu_idle = Some(idle.record().clone());
    drop(idle);
    file.save(&out)?;
    println!("phases written to {}", out.display());
    Ok(())
}
