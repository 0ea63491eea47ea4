//! [`random_secret`]: the password a managed server is started with, drawn from the operating
//! system's random generator (the `getrandom` crate: getrandom(2) on Linux, getentropy on
//! macOS), never printed, never on a command line.

use crate::error::{KvError, KvResult};

/// A random secret: 32 bytes from the operating system's generator, as 64 hex characters.
pub(crate) fn random_secret() -> KvResult<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| {
        KvError::backend(
            "server",
            format!("cannot draw a random password from the operating system: {e}"),
        )
    })?;
    Ok(hex::encode(bytes))
}
