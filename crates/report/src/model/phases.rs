//! Where a commit's time goes: time per phase of one measured run (`triebench root --phases
//! FILE`), and the per-profile rows of a filesystem's phase run (`triebench phases`, saved as
//! `<criterion-dir>/triebench-runs/phases/<run>.json`). The file's types live in
//! `triebench-record`, which the measuring crate writes them with.

pub use triebench_record::phases::{save_json, PhaseRow, PhaseRunFile, DIR, SCHEMA};
