//! [`Transaction`]: one transaction of any family, as its batch needs it.

/// One transaction as its batch needs it: the family's name and version, the payload's bytes
/// and the addresses it reads and writes (the header's inputs and outputs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transaction {
    /// The family's name, as its handler answers to it.
    pub family: &'static str,
    /// The family's version.
    pub version: &'static str,
    /// The payload, encoded.
    pub payload: Vec<u8>,
    /// The addresses it reads and writes.
    pub addresses: Vec<String>,
}
