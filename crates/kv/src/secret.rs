//! [`random_secret`]: the password a managed server is started with, drawn from the kernel's
//! random generator (`getrandom`), never printed, never on a command line.

use crate::error::{KvError, KvResult};

/// A random secret: 32 bytes from the kernel's generator, as 64 hex characters.
pub(crate) fn random_secret() -> KvResult<String> {
    let mut bytes = [0u8; 32];
    let mut filled = 0;
    while filled < bytes.len() {
        // SAFETY: the buffer slice is valid for writes of its length.
        let n = unsafe {
            libc::getrandom(bytes[filled..].as_mut_ptr().cast(), bytes.len() - filled, 0)
        };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(KvError::backend(
                "server",
                format!("cannot draw a random password from the kernel (getrandom): {e}"),
            ));
        }
        filled += n as usize;
    }
    Ok(hex::encode(bytes))
}
