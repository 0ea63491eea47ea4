//! The commit file format read by `triebench root`: JSON Lines, one commit per line.
//!
//! ```text
//! {"set": {"<address hex>": "<value hex>", ...}, "delete": ["<address hex>", ...]}
//! ```
//!
//! Both keys are optional and no other key is allowed. Within a line the sets apply first, in
//! file order, then the deletes, in file order, as one commit; so an address both set and
//! deleted on one line ends up deleted. An address may appear only once in `"set"`. Blank lines
//! are skipped (they are not commits) but still count for line numbers in error messages.
//!
//! [`replay`] applies a whole file to a store from the empty root and writes each new root.

use std::fmt;
use std::io::{BufRead, Write};

use serde::de::{Deserializer, MapAccess, Visitor};
use serde::Deserialize;
use triebench_kv::Store;
use triebench_merkle::{check_address, excerpt, MerkleError, MerkleTrie, StateChange};

/// One parsed line: the commit's sets and deletes, in file order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommitLine {
    /// `(address, value)` pairs to set.
    pub sets: Vec<(String, Vec<u8>)>,
    /// Addresses to delete, after the sets.
    pub deletes: Vec<String>,
}

/// Why a line is not a valid commit.
#[derive(Debug, thiserror::Error)]
pub enum LineError {
    /// Not JSON, or not the expected shape (unknown key, wrong type, duplicate address).
    #[error("invalid JSON at column {column}: {message}")]
    Json {
        /// serde_json's message without its position.
        message: String,
        /// 1-based column within the line.
        column: usize,
    },
    /// A value that is not hex.
    #[error("value for address {} is not hex: {source}", excerpt(address))]
    ValueHex {
        /// The address whose value is bad.
        address: String,
        /// What is wrong with it.
        #[source]
        source: hex::FromHexError,
    },
    /// An address that is not lowercase hex of even length.
    #[error("{0}")]
    Address(#[source] MerkleError),
}

impl From<serde_json::Error> for LineError {
    fn from(err: serde_json::Error) -> Self {
        let full = err.to_string();
        let position = format!(" at line {} column {}", err.line(), err.column());
        let message = clip_quoted(full.strip_suffix(&position).unwrap_or(&full));
        LineError::Json {
            message,
            column: err.column(),
        }
    }
}

/// `message` with every stretch between quote characters (`"` or a backtick: serde quotes the
/// input it shows so) cut to an [`excerpt`], so a huge bad string is not echoed whole.
fn clip_quoted(message: &str) -> String {
    message
        .split_inclusive(['"', '`'])
        .map(|piece| {
            let (body, quote) = match piece.char_indices().next_back() {
                Some((at, c)) if c == '"' || c == '`' => piece.split_at(at),
                _ => (piece, ""),
            };
            format!("{}{quote}", excerpt(body))
        })
        .collect()
}

/// The raw JSON shape of a line.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLine {
    #[serde(default, deserialize_with = "unique_pairs")]
    set: Vec<(String, String)>,
    #[serde(default)]
    delete: Vec<String>,
}

/// Reads a JSON object of strings into pairs in file order, rejecting a repeated key (serde's
/// maps would silently keep the last one).
fn unique_pairs<'de, D: Deserializer<'de>>(de: D) -> Result<Vec<(String, String)>, D::Error> {
    struct Pairs;
    impl<'de> Visitor<'de> for Pairs {
        type Value = Vec<(String, String)>;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("an object mapping address hex to value hex")
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            let mut pairs: Vec<(String, String)> = Vec::new();
            let mut seen = std::collections::HashSet::new();
            while let Some((address, value)) = map.next_entry::<String, String>()? {
                if !seen.insert(address.clone()) {
                    return Err(serde::de::Error::custom(format!(
                        "address {} appears twice in \"set\"",
                        excerpt(&address)
                    )));
                }
                pairs.push((address, value));
            }
            Ok(pairs)
        }
    }
    de.deserialize_map(Pairs)
}

impl CommitLine {
    /// Parses one line (without its line break).
    pub fn parse(text: &str) -> Result<Self, LineError> {
        let raw: RawLine = serde_json::from_str(text)?;
        let mut sets = Vec::with_capacity(raw.set.len());
        for (address, value) in raw.set {
            check_address(&address).map_err(LineError::Address)?;
            let bytes = match hex::decode(&value) {
                Ok(bytes) => bytes,
                Err(source) => return Err(LineError::ValueHex { address, source }),
            };
            sets.push((address, bytes));
        }
        for address in &raw.delete {
            check_address(address).map_err(LineError::Address)?;
        }
        Ok(CommitLine {
            sets,
            deletes: raw.delete,
        })
    }

    /// The line as trie changes: the sets, then the deletes.
    pub fn changes(&self) -> Vec<StateChange> {
        let sets = self.sets.iter().map(|(address, value)| StateChange::Set {
            address: address.clone(),
            value: value.clone(),
        });
        let deletes = self.deletes.iter().map(|address| StateChange::Delete {
            address: address.clone(),
        });
        sets.chain(deletes).collect()
    }
}

/// Why [`replay`] stopped. Every error tied to a line names it (1-based).
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The input could not be read (an I/O error, or a line that is not UTF-8).
    #[error("line {line}: cannot read input: {source}")]
    Read {
        /// The line being read.
        line: usize,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line that is not a valid commit.
    #[error("line {line}: {source}")]
    Parse {
        /// The line.
        line: usize,
        /// What is wrong with it.
        #[source]
        source: LineError,
    },
    /// A line deletes an address that the state does not hold.
    #[error("line {line}: delete of absent address {}", excerpt(address))]
    DeleteAbsent {
        /// The line.
        line: usize,
        /// The absent address.
        address: String,
    },
    /// Any other failure of the line's commit.
    #[error("line {line}: commit failed: {source}")]
    Commit {
        /// The line.
        line: usize,
        /// The trie's error.
        #[source]
        source: MerkleError,
    },
    /// The trie could not be opened at the empty root.
    #[error("cannot initialise the trie: {0}")]
    Open(#[source] MerkleError),
    /// A root could not be written out.
    #[error("cannot write output: {0}")]
    Write(#[source] std::io::Error),
}

/// Reads all of `input` and checks that every line is a commit [`CommitLine::parse`] accepts,
/// before any store is opened: a bad file then fails with the same error [`replay`] would give
/// and costs no store. Returns the text, for [`replay`]. Deletes of absent addresses are found
/// only by [`replay`] (they depend on the state).
pub fn read_checked<R: BufRead>(mut input: R) -> Result<String, ReplayError> {
    let mut text = String::new();
    let mut line = 0;
    loop {
        line += 1;
        let start = text.len();
        let read = input
            .read_line(&mut text)
            .map_err(|source| ReplayError::Read { line, source })?;
        if read == 0 {
            return Ok(text);
        }
        let body = text[start..].trim();
        if !body.is_empty() {
            CommitLine::parse(body).map_err(|source| ReplayError::Parse { line, source })?;
        }
    }
}

/// Applies every line of `input` as one commit, starting from the empty root of `store` (which
/// should be fresh, opened with [`triebench_merkle::TABLES`]), and writes each new root on its
/// own line to `out`. Returns how many commits were made. Stops at the first bad line; the
/// roots of the lines before it have been written by then.
pub fn replay<S: Store, R: BufRead, W: Write>(
    store: &S,
    mut input: R,
    out: &mut W,
) -> Result<usize, ReplayError> {
    let mut trie = MerkleTrie::new(store).map_err(ReplayError::Open)?;
    let mut text = String::new();
    let mut line = 0;
    let mut commits = 0;
    loop {
        line += 1;
        text.clear();
        let read = input
            .read_line(&mut text)
            .map_err(|source| ReplayError::Read { line, source })?;
        if read == 0 {
            break;
        }
        let body = text.trim();
        if body.is_empty() {
            continue;
        }
        let commit =
            CommitLine::parse(body).map_err(|source| ReplayError::Parse { line, source })?;
        let commit_error = |source| match source {
            MerkleError::DeleteAbsent { address } => ReplayError::DeleteAbsent { line, address },
            source => ReplayError::Commit { line, source },
        };
        let root = trie.commit(&commit.changes()).map_err(commit_error)?;
        trie.set_root(&root).map_err(commit_error)?;
        commits += 1;
        writeln!(out, "{root}").map_err(ReplayError::Write)?;
    }
    out.flush().map_err(ReplayError::Write)?;
    Ok(commits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_sets_and_deletes_in_file_order() {
        let line =
            CommitLine::parse(r#"{"set": {"abcd": "0102", "ab": ""}, "delete": ["1234", "12"]}"#)
                .unwrap();
        assert_eq!(
            line.sets,
            vec![
                ("abcd".to_string(), vec![1, 2]),
                ("ab".to_string(), Vec::new())
            ]
        );
        assert_eq!(line.deletes, ["1234", "12"]);
        let changes = line.changes();
        assert!(matches!(&changes[0], StateChange::Set { address, .. } if address == "abcd"));
        assert!(matches!(&changes[1], StateChange::Set { address, .. } if address == "ab"));
        assert!(matches!(&changes[2], StateChange::Delete { address } if address == "1234"));
        assert!(matches!(&changes[3], StateChange::Delete { address } if address == "12"));
    }

    #[test]
    fn both_keys_are_optional() {
        assert_eq!(CommitLine::parse("{}").unwrap(), CommitLine::default());
        let only_delete = CommitLine::parse(r#"{"delete": ["ab"]}"#).unwrap();
        assert!(only_delete.sets.is_empty());
        assert_eq!(only_delete.deletes, ["ab"]);
    }

    #[test]
    fn rejects_unknown_keys_and_bad_json() {
        let err = CommitLine::parse(r#"{"set": {}, "remove": []}"#).unwrap_err();
        assert!(err.to_string().contains("unknown field `remove`"), "{err}");
        let err = CommitLine::parse(r#"{"set": {"ab": "01"}"#).unwrap_err();
        assert!(matches!(err, LineError::Json { .. }), "{err}");
        assert!(!err.to_string().contains("line 1"), "{err}");
        let err = CommitLine::parse(r#"["ab"]"#).unwrap_err();
        assert!(matches!(err, LineError::Json { .. }), "{err}");
        let err = CommitLine::parse(r#"{"set": {"ab": 1}}"#).unwrap_err();
        assert!(matches!(err, LineError::Json { .. }), "{err}");
    }

    #[test]
    fn rejects_a_repeated_set_address() {
        let err = CommitLine::parse(r#"{"set": {"ab": "01", "ab": "02"}}"#).unwrap_err();
        assert!(err.to_string().contains("ab appears twice"), "{err}");
    }

    #[test]
    fn rejects_bad_value_hex_naming_the_address() {
        let err = CommitLine::parse(r#"{"set": {"abcd": "xyz"}}"#).unwrap_err();
        assert!(matches!(err, LineError::ValueHex { .. }), "{err}");
        assert!(err.to_string().contains("abcd"), "{err}");
        assert!(CommitLine::parse(r#"{"set": {"abcd": "abc"}}"#).is_err());
    }

    #[test]
    fn rejects_invalid_addresses_in_sets_and_deletes() {
        for text in [
            r#"{"set": {"abc": "01"}}"#,
            r#"{"set": {"ABCD": "01"}}"#,
            r#"{"delete": ["zz"]}"#,
        ] {
            let err = CommitLine::parse(text).unwrap_err();
            assert!(matches!(err, LineError::Address(_)), "{text}: {err}");
        }
    }
}
