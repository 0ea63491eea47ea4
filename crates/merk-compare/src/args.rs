//! merk-runner's command line: `merk-runner --scale N --seed S --dir DIR`.

use std::path::PathBuf;

use crate::error::MerkError;

/// What `--help` prints.
pub const USAGE: &str = "usage: merk-runner --scale N --seed S --dir DIR

Runs triebench's `merk` field workload (the commits of `triebench field --workload merk
--scale N --seed S`) on Merk 2.0.1's own code, its RocksDB store in DIR (new or empty; left
there), and prints one JSON line: inserts/s, updates/s, reads/s, seconds per phase, reads
checked, Merk's final root, bytes on disk, and SHA-256 over the commits run.";

/// A parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `--help`.
    Help,
    /// A run.
    Run {
        /// The workload's scale (at least 1).
        scale: u64,
        /// Its seed.
        seed: u64,
        /// Merk's directory.
        dir: PathBuf,
    },
}

fn number(flag: &str, value: Option<String>) -> Result<u64, MerkError> {
    let value = value.ok_or_else(|| MerkError::Usage(format!("{flag} needs a value")))?;
    value
        .parse()
        .map_err(|_| MerkError::Usage(format!("{flag} `{value}` is not a whole number")))
}

/// Parses the arguments after the program's name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, MerkError> {
    let mut args = args.into_iter();
    let (mut scale, mut seed, mut dir) = (None, None, None);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--help" | "-h" => return Ok(Command::Help),
            "--scale" => scale = Some(number("--scale", args.next())?),
            "--seed" => seed = Some(number("--seed", args.next())?),
            "--dir" => {
                dir =
                    Some(PathBuf::from(args.next().ok_or_else(|| {
                        MerkError::Usage("--dir needs a value".into())
                    })?))
            }
            other => {
                return Err(MerkError::Usage(format!(
                    "unknown argument `{other}` (merk-runner --help)"
                )))
            }
        }
    }
    let missing = |flag: &str| MerkError::Usage(format!("{flag} is required (merk-runner --help)"));
    let scale = scale.ok_or_else(|| missing("--scale"))?;
    if scale == 0 {
        return Err(MerkError::Usage("--scale must be at least 1".into()));
    }
    Ok(Command::Run {
        scale,
        seed: seed.ok_or_else(|| missing("--seed"))?,
        dir: dir.ok_or_else(|| missing("--dir"))?,
    })
}

#[cfg(test)]
mod tests {
    use super::{parse, Command};

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn a_run_takes_scale_seed_and_dir() {
        assert_eq!(
            parse(args("--scale 2 --seed 9 --dir /tmp/m")).unwrap(),
            Command::Run {
                scale: 2,
                seed: 9,
                dir: "/tmp/m".into()
            }
        );
        assert_eq!(parse(args("--help")).unwrap(), Command::Help);
    }

    #[test]
    fn bad_lines_say_what_is_wrong() {
        let error = |line| parse(args(line)).unwrap_err().to_string();
        assert!(error("--scale x --seed 1 --dir d").contains("not a whole number"));
        assert!(error("--seed 1 --dir d").contains("--scale is required"));
        assert!(error("--scale 0 --seed 1 --dir d").contains("at least 1"));
        assert!(error("--scale 1 --seed 1 --dir").contains("--dir needs a value"));
        assert!(error("--scale 1 --seed 1 --dir d --fast").contains("unknown argument"));
    }
}
