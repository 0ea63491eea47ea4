//! Checking a writer's precondition ([`WriteTx::require_absent`](crate::WriteTx::require_absent),
//! [`require_value`](crate::WriteTx::require_value)) against what a key holds, shared by the
//! default check at the call and the server backends' check of the writer's own pending changes.

use crate::error::{KvError, KvResult};
use crate::store::Table;

/// Whether `key` of `table`, holding `held` (`None`: absent), meets `expected` (`None`: must be
/// absent; `Some(bytes)`: must hold exactly these bytes).
pub(crate) fn check(
    table: Table,
    key: &[u8],
    held: Option<&[u8]>,
    expected: Option<&[u8]>,
) -> KvResult<()> {
    match (held, expected) {
        (None, None) => Ok(()),
        (Some(_), None) => Err(KvError::precondition(table, key, "is present")),
        (Some(held), Some(want)) if held == want => Ok(()),
        (Some(_), Some(_)) => Err(KvError::precondition(table, key, "holds other bytes")),
        (None, Some(_)) => Err(KvError::precondition(table, key, "is absent")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_mismatch_is_refused_and_says_what_it_found() {
        let t = Table(1);
        assert!(check(t, b"k", None, None).is_ok());
        assert!(check(t, b"k", Some(b"v"), Some(b"v")).is_ok());
        for (held, expected, found) in [
            (Some(&b"v"[..]), None, "is present"),
            (Some(b"v"), Some(&b"w"[..]), "holds other bytes"),
            (None, Some(b"w"), "is absent"),
        ] {
            match check(t, b"k", held, expected) {
                Err(KvError::PreconditionFailed { detail }) => {
                    assert!(detail.contains(found) && detail.contains("6b"), "{detail}");
                }
                other => panic!("expected a failed precondition, got {other:?}"),
            }
        }
    }
}
