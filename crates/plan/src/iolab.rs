//! The slowfs counting mount the I/O profile runs on: `--iolab DIR`, `--iolab none`, or by
//! default the one `scripts/fs-lab.sh iolab` names when the lab is up.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What `--iolab` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IoLabChoice {
    /// The lab's mount, when `scripts/fs-lab.sh iolab` names one (the default).
    Lab,
    /// This mount.
    Dir(PathBuf),
    /// No I/O profile (`none`).
    Skip,
}

impl IoLabChoice {
    /// `None` (the flag not given) is the lab's mount; `none` skips; anything else is a mount.
    pub fn from_arg(arg: Option<&str>) -> IoLabChoice {
        match arg {
            None | Some("") => IoLabChoice::Lab,
            Some("none") => IoLabChoice::Skip,
            Some(dir) => IoLabChoice::Dir(PathBuf::from(dir)),
        }
    }

    /// The mount to count on, asking the lab (in `checkout`) when it is the lab's.
    pub fn resolve(&self, checkout: Option<&Path>) -> Option<PathBuf> {
        match self {
            IoLabChoice::Lab => checkout.and_then(lab_iolab),
            IoLabChoice::Dir(dir) => Some(dir.clone()),
            IoLabChoice::Skip => None,
        }
    }
}

/// The mount `scripts/fs-lab.sh iolab` prints, `None` when the lab is down or the script is
/// missing.
fn lab_iolab(checkout: &Path) -> Option<PathBuf> {
    let script = checkout.join("scripts/fs-lab.sh");
    if !script.is_file() {
        return None;
    }
    let out = Command::new(script)
        .arg("iolab")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    (out.status.success() && !text.is_empty()).then(|| PathBuf::from(text))
}
