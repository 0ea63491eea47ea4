//! Ethereum's published trie test vectors (`ethereum/tests`, `TrieTests/`, kept under
//! `fixtures/ethereum/` with their source and license), compiled in, and [`check`], which runs
//! every one on fresh stores and fails on the first root that is not the published one: the
//! MPT is checked on the very backend it is about to be measured on.
//!
//! A vector is a list of insertions (a null value deletes), or a mapping in any order, and the
//! root Ethereum's trie gives. A string starting `0x` is hex, anything else its UTF-8 bytes
//! (go-ethereum's rule). The "secure" vectors hash each key with Keccak-256 first.

use serde_json::Value;
use triebench_kv::Store;
use triebench_merkle::StateChange;

use super::node::{keccak256, NAME};
use super::MptEngine;
use crate::{Engine, EngineError, Root};

/// The files, as `fixtures/ethereum/` keeps them, and whether their keys are hashed.
const FILES: [(&str, &str, bool); 5] = [
    (
        "trietest.json",
        include_str!("../../../../fixtures/ethereum/trietest.json"),
        false,
    ),
    (
        "trieanyorder.json",
        include_str!("../../../../fixtures/ethereum/trieanyorder.json"),
        false,
    ),
    (
        "trietest_secureTrie.json",
        include_str!("../../../../fixtures/ethereum/trietest_secureTrie.json"),
        true,
    ),
    (
        "trieanyorder_secureTrie.json",
        include_str!("../../../../fixtures/ethereum/trieanyorder_secureTrie.json"),
        true,
    ),
    (
        "hex_encoded_securetrie_test.json",
        include_str!("../../../../fixtures/ethereum/hex_encoded_securetrie_test.json"),
        true,
    ),
];

/// One published vector: its changes, in order, as addresses (the keys' bytes in hex), and
/// the root Ethereum gives.
#[derive(Debug, Clone)]
pub struct Vector {
    /// `file/name`.
    pub name: String,
    /// The changes, one per entry of the vector.
    pub changes: Vec<StateChange>,
    /// The published root.
    pub root: Root,
}

fn bad(name: &str, message: &str) -> EngineError {
    EngineError::Corrupt {
        engine: NAME,
        what: "test vector",
        message: format!("{name}: {message}"),
    }
}

/// A vector's string: hex after `0x`, else its bytes.
fn bytes(name: &str, s: &str) -> Result<Vec<u8>, EngineError> {
    match s.strip_prefix("0x") {
        Some(hex_digits) => hex::decode(hex_digits).map_err(|e| bad(name, &e.to_string())),
        None => Ok(s.as_bytes().to_vec()),
    }
}

/// One entry: the key (hashed for a secure vector) and the value (`None`: delete).
fn change(name: &str, key: &str, value: &Value, secure: bool) -> Result<StateChange, EngineError> {
    let key = bytes(name, key)?;
    let address = hex::encode(if secure {
        keccak256(&key).to_vec()
    } else {
        key
    });
    match value {
        Value::Null => Ok(StateChange::Delete { address }),
        Value::String(s) => Ok(StateChange::Set {
            address,
            value: bytes(name, s)?,
        }),
        _ => Err(bad(name, "a value neither a string nor null")),
    }
}

/// Every vector of every file.
pub fn all() -> Result<Vec<Vector>, EngineError> {
    let mut out = Vec::new();
    for (file, text, secure) in FILES {
        let parsed: Value = serde_json::from_str(text).map_err(|e| bad(file, &e.to_string()))?;
        let Value::Object(tests) = parsed else {
            return Err(bad(file, "not a JSON object"));
        };
        for (test, body) in tests {
            let name = format!("{file}/{test}");
            let changes = match &body["in"] {
                Value::Array(pairs) => pairs
                    .iter()
                    .map(|pair| match pair.as_array().map(Vec::as_slice) {
                        Some([Value::String(key), value]) => change(&name, key, value, secure),
                        _ => Err(bad(&name, "an entry that is not [key, value]")),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
                Value::Object(mapping) => mapping
                    .iter()
                    .map(|(key, value)| change(&name, key, value, secure))
                    .collect::<Result<Vec<_>, _>>()?,
                _ => return Err(bad(&name, "no `in`")),
            };
            let root = body["root"]
                .as_str()
                .ok_or_else(|| bad(&name, "no `root`"))
                .and_then(|r| bytes(&name, r))?;
            out.push(Vector {
                name,
                changes,
                root: Root(root),
            });
        }
    }
    Ok(out)
}

/// Runs every vector on stores from `open` (each opened with
/// [`MPT_TABLES`](super::MPT_TABLES), empty), twice: as one batch, and one change a batch. A
/// root that is not the published one is [`EngineError::WrongVectorRoot`]. Returns the number
/// of vectors.
pub fn check<S: Store>(
    mut open: impl FnMut() -> Result<S, EngineError>,
) -> Result<usize, EngineError> {
    let vectors = all()?;
    for vector in &vectors {
        for whole in [true, false] {
            let mut engine = MptEngine::new(open()?)?;
            let found = if whole {
                engine.apply(&vector.changes)?
            } else {
                let mut root = engine.root();
                for change in &vector.changes {
                    root = engine.apply(std::slice::from_ref(change))?;
                }
                root
            };
            if found != vector.root {
                return Err(EngineError::WrongVectorRoot {
                    engine: NAME,
                    vector: format!(
                        "{} ({})",
                        vector.name,
                        if whole {
                            "one batch"
                        } else {
                            "one change a batch"
                        }
                    ),
                    expected: vector.root.to_string(),
                    found: found.to_string(),
                });
            }
        }
    }
    Ok(vectors.len())
}
