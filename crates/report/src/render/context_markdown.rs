//! The sections of `report.md` that say what a run was, not what it measured: the intro, the
//! filesystems, the profiles, what is missing, the environment and the files.

use std::fmt::Write as _;

use crate::analysis::stats::CONFIDENCE;
use crate::model::cpu_idle::CpuIdleRecord;
use crate::render::markdown::{durable_cell, ReportInput, MISSING};
use crate::render::table::{esc, header, row};
use triebench_record::vocabulary::PROFILES;

impl ReportInput<'_> {
    /// The report's title line.
    pub fn title(&self, out: &mut String) {
        let _ = writeln!(
            out,
            "# triebench report: {}\n",
            self.results.run_names().join(" vs ")
        );
    }

    /// "About this report": where it came from, how to regenerate it, how to read it.
    pub fn intro(&self, out: &mut String) {
        let runs = self.results.run_names();
        let env = self.env;
        out.push_str("## About this report\n\n");
        let _ = writeln!(
            out,
            "Generated {} on `{}` by triebench {} (commit `{}`{}) from the measurements in `{}`.\n",
            env.generated_at,
            esc(&env.host.hostname),
            env.versions.triebench,
            env.versions.git_commit,
            match env.versions.git_dirty {
                Some(true) => ", uncommitted changes",
                _ => "",
            },
            esc(&env.criterion_dir)
        );
        let _ = writeln!(out, "Regenerate: `{}`\n", self.command);
        let _ = writeln!(
            out,
            "- Baseline filesystem: **{}**; runs (one per filesystem: a run record or a criterion baseline): {}.\n\
             - Times are criterion's mean time per iteration. A slowdown or overhead is the ratio \
             of mean per-iteration times; `[low–high]` is its {}% percentile-bootstrap interval \
             ({} rounds resampling both sample sets, seeded, so it is reproducible).\n\
             - The scenario and suite times of a run made by `scripts/bench-fs.sh` come from \
             `triebench headline`'s run record (`triebench-runs/records/<run>/headline.json`): each run of a scenario on a fresh store; \
             a run of `update` gives ten samples (its 1000 commits and 1000 reads dealt round-robin \
             into ten groups, each scaled to a whole run, plus the run's other time), a smaller \
             scenario one per run, and the suite's sample *j* is the sum of the scenarios' \
             sample *j*.\n\
             - **durable** marks the profiles that fsync every commit (they survive power loss); \
             the others trade that for speed.\n\
             - Floors (`triebench headline`'s, or the kv benches' under criterion) sit under the \
             suite table: the latency of one 4 KiB write + fdatasync and SHA-512 throughput, \
             per filesystem.\n",
            self.baseline(),
            runs.iter()
                .map(|r| format!("`{}`", esc(r)))
                .collect::<Vec<_>>()
                .join(", "),
            CONFIDENCE * 100.0,
            self.resamples,
        );
        self.idle_cpus(out);
    }

    /// One bullet on what idle CPUs did during each run's headline, when any run recorded it: a
    /// server's reply wakes a client that may sleep on another CPU, and on a virtual machine a
    /// halted CPU's wake-up is the hypervisor's cost, not the storage's.
    fn idle_cpus(&self, out: &mut String) {
        let runs = &self.results.runs;
        if runs.iter().all(|r| r.cpu_idle.is_none()) {
            return;
        }
        let per_run: Vec<String> = runs
            .iter()
            .filter(|r| r.present)
            .map(|r| {
                let what = CpuIdleRecord::describe_or_unrecorded(r.cpu_idle.as_ref());
                format!("`{}`: {what}", esc(&r.name))
            })
            .collect();
        let _ = writeln!(
            out,
            "- Idle CPUs during the headline (`--cpu-idle`): {}. A server's reply wakes a \
             client that may sleep on another CPU; on a virtual machine, waking a halted CPU \
             costs the hypervisor's round trip (docs/guide.md, \"Idle CPUs\"), which the server \
             profiles' times then include.\n",
            per_run.join("; ")
        );
    }

    pub fn filesystems(&self, out: &mut String) {
        out.push_str("## Filesystems\n\n");
        out.push_str(&header(
            &[
                "run",
                "fs type",
                "mount point",
                "device",
                "mount options",
                "dir",
            ]
            .map(str::to_string),
        ));
        for run in &self.results.runs {
            let cells = match (&run.fs, run.present) {
                (_, false) => vec![
                    format!("`{}`", esc(&run.name)),
                    "run missing".to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
                (Some(f), true) => vec![
                    format!("`{}`", esc(&run.name)),
                    esc(&f.fs_type),
                    format!("`{}`", esc(&f.mount_point)),
                    format!("`{}`", esc(&f.device)),
                    format!("`{}`", esc(&f.mount_options)),
                    format!("`{}`", esc(&f.dir)),
                ],
                (None, true) => vec![
                    format!("`{}`", esc(&run.name)),
                    "unknown (no sidecar)".to_string(),
                    String::new(),
                    String::new(),
                    String::new(),
                    String::new(),
                ],
            };
            out.push_str(&row(&cells));
        }
        out.push('\n');
    }

    pub fn profiles(&self, out: &mut String) {
        out.push_str("## Backend profiles\n\n");
        out.push_str(&header(
            &["profile", "durable", "measured", "what it does per commit"].map(str::to_string),
        ));
        let measured = self.results.all_profiles();
        for p in PROFILES {
            out.push_str(&row(&[
                format!("`{}`", p.name),
                durable_cell(p.name).to_string(),
                if measured.contains(p.name) {
                    "yes".to_string()
                } else {
                    MISSING.to_string()
                },
                esc(p.describe),
            ]));
        }
        out.push('\n');
    }

    pub fn missing_section(&self, out: &mut String) {
        out.push_str("## Missing\n\n");
        if self.missing.is_empty() {
            out.push_str("Nothing missing: every requested run, cell and floor was measured.\n\n");
            return;
        }
        for m in self.missing {
            let _ = writeln!(out, "- {}", esc(&m.detail));
        }
        out.push('\n');
    }

    pub fn environment(&self, out: &mut String) {
        let env = self.env;
        let h = &env.host;
        out.push_str("## Environment\n\n");
        let _ = writeln!(
            out,
            "- CPU: {} ({} logical cores{})\n- RAM: {}\n- Kernel: {} ({})\n\
             - SQLite: {}; LMDB: {}; redis-server: {}\n\
             - Full details: `env.json` (host, each run's filesystem, versions).\n",
            esc(&h.cpu_model),
            h.cores,
            h.physical_cores
                .map(|p| format!(", {p} physical"))
                .unwrap_or_default(),
            h.ram_bytes
                .map(|b| format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64))
                .unwrap_or_else(|| "unknown".to_string()),
            esc(&h.kernel),
            esc(&h.os),
            esc(&env.versions.sqlite),
            esc(&env.versions.lmdb),
            esc(&env.versions.redis_server),
        );
    }

    /// `## Files`: what the folder holds.
    pub fn files_section(&self, out: &mut String) {
        out.push_str(
            "## Files\n\n- `ratios.csv`, `ratios.json`: every ratio with its interval \
             (schema in `SCHEMA.md`)\n- `env.json`: machine, filesystems, versions\n\
             - `*.svg`, `*.png`: the plots above\n\
             - `report.html`: this report as one page for a browser (tables that sort, a \
             filesystem and profile picker, each plot's numbers on hover)\n",
        );
        let criterion_html =
            std::path::Path::new(&self.env.criterion_dir).join("report/index.html");
        if criterion_html.is_file() {
            out.push_str(&format!(
                "- criterion's own HTML report of these runs: [`{0}`](file://{0})\n",
                criterion_html.display()
            ));
        }
        if self.io_profile.is_some() {
            out.push_str(
                "- `io-profile.json`, `io-profile.csv`: operations per profile × scenario \
                 (slowfs counters)\n- `predictions.json`: every predicted time\n",
            );
        }
        if !self.phases.is_empty() {
            out.push_str(
                "- `phases-<run>.json`: each filesystem's phase run (`triebench phases`): time \
                 per phase per profile and scenario\n",
            );
        }
    }
}
