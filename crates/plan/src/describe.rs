//! The plan in words: one line per step, printed before anything runs and reused as each step's
//! progress line and its row in the closing table of times.

use crate::criterion_route::{cargo_args, show};
use crate::run_spec::RunSpec;
use crate::steps::{CriterionOptions, ExportStep, LoadStep, Plan, ReportStep, RunStep};

/// Building criterion's benches.
pub fn build_label(run: &CriterionOptions) -> String {
    format!(
        "build criterion's benches: {}",
        show(&cargo_args(run, None))
    )
}

/// One step on one filesystem.
pub fn run_step_label(plan: &Plan, run: &RunSpec, step: &RunStep) -> String {
    let name = &run.name;
    match step {
        RunStep::CaptureFs => format!(
            "capture-fs '{name}': the filesystem of {}",
            run.dir.display()
        ),
        RunStep::Headline {
            budget_secs,
            max_rounds,
        } => format!(
            "headline on '{name}': {}, up to {budget_secs} s and {max_rounds} round(s) each",
            profiles(plan)
        ),
        RunStep::ForgetHeadline => {
            format!("forget an earlier headline's records of '{name}' (criterion measures the headline)")
        }
        RunStep::Criterion => match &plan.criterion {
            Some(c) => format!(
                "criterion on '{name}': {}",
                show(&cargo_args(c, Some(name)))
            ),
            None => format!("criterion on '{name}'"),
        },
        RunStep::Phases => format!(
            "phases on '{name}': {}, every scenario once",
            profiles(plan)
        ),
        RunStep::ForgetPhases => {
            format!("forget an earlier phase breakdown of '{name}' (phases are off)")
        }
        RunStep::Grow {
            profiles,
            max_leaves,
            commits,
            reads,
        } => format!(
            "grow on '{name}': {} to {max_leaves} leaves, {commits} commits and {reads} reads \
             per checkpoint, warm and cold",
            profiles.join(", ")
        ),
        RunStep::ForgetGrow => {
            format!("forget earlier growth curves of '{name}' (no curve this time)")
        }
        RunStep::Engines {
            engines,
            profiles,
            leaves,
            reads,
        } => format!(
            "engines on '{name}': {} on {}, each checked against its reference, then update and \
             a fill of {leaves} leaves, {reads} reads and proofs",
            engines.join(", "),
            profiles.join(", ")
        ),
        RunStep::ForgetEngines => {
            format!("forget an earlier engines run of '{name}' (no engine or no profile to run)")
        }
        RunStep::Field {
            workloads,
            profiles,
            size,
        } => format!(
            "field on '{name}': {} on {}, each store fresh (the field's at scale {}, SmallBank \
             {} transactions beside Transact's)",
            workloads.join(", "),
            profiles.join(", "),
            size.scale,
            size.smallbank_transactions
        ),
        RunStep::ForgetField => {
            format!("forget earlier field records of '{name}' (no field step this time)")
        }
    }
}

/// One load search.
pub fn load_label(load: &LoadStep) -> String {
    format!(
        "load --saturate '{}' on '{}': {} leaves, {} readers, {} s steps, {} s budget",
        load.profile,
        load.run.name,
        load.options.state_size,
        load.options.readers,
        load.step.as_secs(),
        load.budget.as_secs()
    )
}

/// The I/O profile.
pub fn io_profile_label(plan: &Plan, dir: &std::path::Path) -> String {
    format!(
        "io-profile on the slowfs mount {}: {}",
        dir.display(),
        profiles(plan)
    )
}

/// The report.
pub fn report_label(report: &ReportStep) -> String {
    format!(
        "report: runs {} (baseline '{}') to {}",
        report.runs.join(", "),
        report.baseline,
        report
            .out
            .as_ref()
            .map_or("runs/reports/DATE-HOST-LABEL".to_string(), |o| o
                .display()
                .to_string())
    )
}

/// One run folder.
pub fn export_label(export: &ExportStep) -> String {
    format!(
        "export-run '{}' to {}/HOST-{}-DATE",
        export.run,
        export.parent.display(),
        export.run
    )
}

fn profiles(plan: &Plan) -> String {
    if plan.profiles.is_empty() {
        "every profile built in".to_string()
    } else {
        format!("profiles {}", plan.profiles.join(","))
    }
}

/// The whole plan: a summary line, then one numbered line per step.
pub fn describe(plan: &Plan) -> String {
    let mut lines = vec![format!(
        "plan at scale {}: {} filesystem(s), {} step(s); idle CPUs: {}{}",
        plan.scale,
        plan.runs.len(),
        plan.step_count(),
        plan.cpu_idle,
        if plan.io_profile.is_none() {
            "; no slowfs counting mount (scripts/fs-lab.sh up, or --iolab DIR): no I/O profile"
        } else {
            ""
        }
    )];
    let mut steps = Vec::new();
    if let Some(c) = &plan.criterion {
        steps.push(build_label(c));
    }
    for run in &plan.runs {
        for step in &run.steps {
            steps.push(run_step_label(plan, &run.run, step));
        }
    }
    steps.extend(plan.loads.iter().map(load_label));
    if let Some(dir) = &plan.io_profile {
        steps.push(io_profile_label(plan, dir));
    }
    steps.push(report_label(&plan.report));
    steps.extend(plan.exports.iter().map(export_label));
    let total = steps.len();
    for (i, step) in steps.into_iter().enumerate() {
        lines.push(format!("  [{}/{total}] {step}", i + 1));
    }
    lines.join("\n")
}
