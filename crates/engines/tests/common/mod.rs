//! What the engines' test binaries share: the addresses their random histories draw from.

/// The addresses histories use: short ones that are prefixes of each other (values on
/// interior trie nodes) and production-length ones sharing long prefixes.
pub fn pool() -> Vec<String> {
    let long = |tail: &str| format!("{}{tail}", "ab".repeat(34));
    vec![
        "".into(),
        "ab".into(),
        "abcd".into(),
        "ab00".into(),
        "ff".into(),
        long("00"),
        long("01"),
        long("ff"),
        format!("{}00", "cd".repeat(34)),
    ]
}
