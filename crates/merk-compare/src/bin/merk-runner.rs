//! `merk-runner`: triebench's `merk` field workload on Merk 2.0.1's own code; one JSON line on
//! standard output (a `MerkSide`), or one line on standard error and exit status 1.

use std::process::ExitCode;

use triebench_merk::args::{parse, Command, USAGE};
use triebench_merk::bench::MerkBench;
use triebench_merk::error::MerkError;

fn run() -> Result<(), MerkError> {
    match parse(std::env::args().skip(1))? {
        Command::Help => println!("{USAGE}"),
        Command::Run { scale, seed, dir } => {
            let mut bench = MerkBench::open(&dir)?;
            bench.run(scale, seed)?;
            let side = bench.finish()?;
            let line =
                serde_json::to_string(&side).map_err(|e| MerkError::Encode(e.to_string()))?;
            println!("{line}");
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("merk-runner: {e}");
            ExitCode::FAILURE
        }
    }
}
