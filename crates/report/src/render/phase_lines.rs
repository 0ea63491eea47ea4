//! A phase breakdown as the terminal shows it (`phases`, `load --phases`): one line per phase
//! with its time, share and spans, then what no phase holds and the sum.

use triebench_record::phases::PhaseRow;
use triebench_record::vocabulary::PHASES;

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
    for phase in PHASES {
        let ns = row.ns(phase);
        let spans = row.spans.get(phase).copied().unwrap_or(0);
        out.push_str(&format!(
            "  {:<14} {:>12.3} ms {:>6.1}% {:>9} spans\n",
            phase,
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
