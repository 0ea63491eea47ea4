//! The `--profiles A,B` argument the measuring commands share: every profile built in when
//! empty, else each name parsed and checked against the directory it will run in.

use std::path::Path;

use triebench_kv::{BackendSpec, Profile};

use crate::error::MeasureError;

/// The profiles `names` asks for (all built in when empty), each checked to open under `dir`.
pub fn chosen_profiles(names: &[String], dir: &Path) -> Result<Vec<Profile>, MeasureError> {
    if names.is_empty() {
        return Ok(Profile::enabled());
    }
    names
        .iter()
        .map(|name| {
            let profile: Profile = name.trim().parse()?;
            BackendSpec::new(profile, Some(dir.to_path_buf()))?;
            Ok(profile)
        })
        .collect()
}
