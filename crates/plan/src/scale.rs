//! How big a run is: `--scale quick|standard|full`, and what each scale sets (the headline's
//! budget and rounds, whether the phase breakdown runs, whether criterion adds its groups, how
//! far the growth curves go).

use std::fmt;

/// The run size, as `--scale` (and the benches' `TRIEBENCH_SCALE`) names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum Scale {
    /// A first look: one round of the headline per profile, no phase breakdown, no growth
    /// curve.
    Quick,
    /// The default: up to 5 s per profile of headline rounds, the phase breakdown, growth
    /// curves to 10^5 leaves.
    Standard,
    /// Up to 30 s per profile, the phase breakdown, criterion's scalable and raw groups,
    /// growth curves to 10^6 leaves.
    Full,
}

/// What a scale sets; every other step is the same at every scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScaleSettings {
    /// Seconds each profile's headline may take (`headline --budget`).
    pub headline_budget_secs: f64,
    /// Most headline rounds per profile (`headline --max-rounds`).
    pub headline_max_rounds: usize,
    /// Whether the phase breakdown runs unless `--phases`/`--no-phases` says otherwise.
    pub phases: bool,
    /// Whether criterion adds the scalable and raw backend groups (`kv/`, `scale/`) unless
    /// `--groups` says otherwise.
    pub all_groups: bool,
    /// Leaves at the last checkpoint of the growth curves (`triebench grow`) unless
    /// `--grow-max` says otherwise; `None`: no curve.
    pub grow_max_leaves: Option<u64>,
    /// The field's workloads' `--scale` and SmallBank's transactions in the field step, unless
    /// `--field` says otherwise; `None`: no field step.
    pub field: Option<FieldSize>,
}

/// How large the main job's field step is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FieldSize {
    /// `triebench field --scale` of each workload (1: the smallest the authors' shapes allow).
    pub scale: u64,
    /// SmallBank's transactions after its 1,000 account creations.
    pub smallbank_transactions: u64,
}

impl FieldSize {
    /// The standard scale's size, and `--field`'s at a scale without the step.
    pub const SHORT: FieldSize = FieldSize {
        scale: 1,
        smallbank_transactions: 2_000,
    };
}

impl Scale {
    /// The name `--scale` and `TRIEBENCH_SCALE` use.
    pub fn name(self) -> &'static str {
        match self {
            Scale::Quick => "quick",
            Scale::Standard => "standard",
            Scale::Full => "full",
        }
    }

    /// What this scale sets.
    pub fn settings(self) -> ScaleSettings {
        match self {
            Scale::Quick => ScaleSettings {
                headline_budget_secs: 1.0,
                headline_max_rounds: 1,
                phases: false,
                all_groups: false,
                grow_max_leaves: None,
                field: None,
            },
            Scale::Standard => ScaleSettings {
                headline_budget_secs: 5.0,
                headline_max_rounds: 30,
                phases: true,
                all_groups: false,
                grow_max_leaves: Some(100_000),
                field: Some(FieldSize::SHORT),
            },
            Scale::Full => ScaleSettings {
                headline_budget_secs: 30.0,
                headline_max_rounds: 30,
                phases: true,
                all_groups: true,
                grow_max_leaves: Some(1_000_000),
                field: Some(FieldSize {
                    scale: 10,
                    smallbank_transactions: 10_000,
                }),
            },
        }
    }
}

impl fmt::Display for Scale {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
