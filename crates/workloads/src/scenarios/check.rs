//! The checks the scenarios make, each turning a difference into [`WorkloadError::Mismatch`]
//! with a message that says what was compared.

use std::collections::BTreeMap;

use triebench_merkle::reference;

use crate::WorkloadError;

/// Shows an optional value for a mismatch message: UTF-8 text quoted, anything else as hex.
pub(super) fn show_value(value: Option<&[u8]>) -> String {
    match value {
        None => "no value".to_string(),
        Some(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => format!("{text:?}"),
            Err(_) => format!("0x{}", hex::encode(bytes)),
        },
    }
}

/// The first 8 characters of a root, enough to tell roots apart in messages.
pub(super) fn short(root: &str) -> &str {
    root.get(..8).unwrap_or(root)
}

/// Checks two counts are equal.
pub(super) fn expect_count(what: &str, expected: usize, got: usize) -> Result<(), WorkloadError> {
    expect_eq(what, &expected.to_string(), &got.to_string())
}

/// Checks two roots (or other strings) are equal.
pub(super) fn expect_eq(what: &str, expected: &str, got: &str) -> Result<(), WorkloadError> {
    if expected == got {
        Ok(())
    } else {
        Err(WorkloadError::Mismatch {
            what: what.to_string(),
            expected: expected.to_string(),
            got: got.to_string(),
        })
    }
}

/// Checks two roots differ.
pub(super) fn expect_ne(what: &str, unexpected: &str, got: &str) -> Result<(), WorkloadError> {
    if unexpected != got {
        Ok(())
    } else {
        Err(WorkloadError::Mismatch {
            what: what.to_string(),
            expected: format!("anything but {unexpected}"),
            got: got.to_string(),
        })
    }
}

/// Checks `got` is the model's root for `state`.
pub(super) fn expect_model_root(
    what: &str,
    state: &BTreeMap<String, Vec<u8>>,
    got: &str,
) -> Result<(), WorkloadError> {
    expect_eq(what, &reference::root_of(state)?, got)
}
