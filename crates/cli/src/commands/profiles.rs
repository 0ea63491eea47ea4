//! `triebench profiles`: the backend profiles with their durability per commit and what a
//! failover keeps, then the notes ([`triebench_kv::profile_table`]).

use std::io::{self, Write};

use crate::error::CliError;

pub fn run_profiles() -> Result<(), CliError> {
    let mut out = io::stdout().lock();
    out.write_all(triebench_kv::profile_table().as_bytes())
        .and_then(|()| out.flush())
        .map_err(CliError::Write)
}
