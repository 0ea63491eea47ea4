//! The parent's check after a crash: for each acknowledged root, does it open, do all its
//! leaves read back, and does the root recomputed from those leaves by
//! [`root_of`](triebench_merkle::reference::root_of) equal it?
//!
//! The leaves of each root are read from the store by walking its nodes from the root. Roots of
//! one round share most of their nodes, so one check keeps the nodes it has read by hash and
//! reads each distinct node from the store once (nodes are content-addressed: a hash names one
//! encoding, so a kept node is exactly what a second read would return).

use std::collections::{BTreeMap, HashMap};

use triebench_kv::{ReadTx, Store};
use triebench_merkle::codec::{decode, Node};
use triebench_merkle::{reference, MerkleError, MerkleTrie};

/// What became of one acknowledged root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RootFate {
    /// It opens, its leaves read back and recompute it.
    Intact,
    /// Its root node is gone: the commit was lost.
    Lost,
    /// It opens, but a node below is missing or undecodable, or the leaves recompute another
    /// root; the text says which.
    Corrupt(String),
}

/// One root's check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootCheck {
    /// The acknowledged root.
    pub root: String,
    /// What became of it.
    pub fate: RootFate,
}

/// The check of one round's acknowledged roots, in the order they were acknowledged.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundCheck {
    /// Every root checked, in acknowledgement order.
    pub roots: Vec<RootCheck>,
}

impl RoundCheck {
    /// How many roots were acknowledged.
    pub fn acknowledged(&self) -> usize {
        self.roots.len()
    }

    /// How many acknowledged roots are gone.
    pub fn lost(&self) -> usize {
        self.count(|f| *f == RootFate::Lost)
    }

    /// How many acknowledged roots are damaged.
    pub fn corrupt(&self) -> usize {
        self.count(|f| matches!(f, RootFate::Corrupt(_)))
    }

    /// The loss window: how many of the last acknowledged roots are gone, counted back from the
    /// newest to the newest intact one.
    pub fn lost_tail(&self) -> usize {
        self.roots
            .iter()
            .rev()
            .take_while(|c| c.fate == RootFate::Lost)
            .count()
    }

    /// The newest intact root, where the next round resumes (`None`: none survived).
    pub fn newest_intact(&self) -> Option<&str> {
        self.roots
            .iter()
            .rev()
            .find(|c| c.fate == RootFate::Intact)
            .map(|c| c.root.as_str())
    }

    /// The first damage found, for messages.
    pub fn first_corruption(&self) -> Option<(&str, &str)> {
        self.roots.iter().find_map(|c| match &c.fate {
            RootFate::Corrupt(why) => Some((c.root.as_str(), why.as_str())),
            _ => None,
        })
    }

    fn count(&self, pred: impl Fn(&RootFate) -> bool) -> usize {
        self.roots.iter().filter(|c| pred(&c.fate)).count()
    }
}

/// Checks every root of `roots` on `store` (opened with [`triebench_merkle::TABLES`]).
///
/// # Errors
/// A store that cannot be read at all (resolving the tables or opening a reader fails): the
/// caller counts the store as corrupt.
pub fn check_roots<S: Store>(store: &S, roots: &[String]) -> Result<RoundCheck, MerkleError> {
    let main = store.table(triebench_merkle::TABLES[0])?;
    let reader = store.reader()?;
    let mut nodes: HashMap<String, Result<Option<Node>, String>> = HashMap::new();
    let mut check = RoundCheck::default();
    for root in roots {
        let fate = match MerkleTrie::at_root(store, root) {
            Err(MerkleError::UnknownRoot { .. }) => RootFate::Lost,
            Err(e) => RootFate::Corrupt(format!("does not open: {e}")),
            Ok(_) => match leaves(&reader, main, root, &mut nodes) {
                Err(why) => RootFate::Corrupt(why),
                Ok(mapping) => match reference::root_of(&mapping) {
                    Ok(recomputed) if recomputed == *root => RootFate::Intact,
                    Ok(recomputed) => RootFate::Corrupt(format!(
                        "its {} leaves recompute root {recomputed}",
                        mapping.len()
                    )),
                    Err(e) => RootFate::Corrupt(format!("a leaf has a bad address: {e}")),
                },
            },
        };
        check.roots.push(RootCheck {
            root: root.clone(),
            fate,
        });
    }
    Ok(check)
}

/// Every (address, value) under `root`, read from the store through the `nodes` cache.
fn leaves<R: ReadTx>(
    reader: &R,
    main: triebench_kv::Table,
    root: &str,
    nodes: &mut HashMap<String, Result<Option<Node>, String>>,
) -> Result<BTreeMap<String, Vec<u8>>, String> {
    let mut out = BTreeMap::new();
    let mut stack = vec![(String::new(), root.to_string())];
    while let Some((path, hash)) = stack.pop() {
        if path.len() > triebench_merkle::MAX_ADDRESS_LEN {
            return Err(format!("node {hash} sits deeper than any address"));
        }
        let node = nodes
            .entry(hash.clone())
            .or_insert_with(|| {
                // `main` keys a node by its raw hash (see `triebench_merkle::store_layout`).
                let key = triebench_merkle::store_layout::node_key(&hash)
                    .map_err(|e| format!("a child of `{path}` is not a node hash: {e}"))?;
                match reader.get(main, &key) {
                    Ok(Some(bytes)) => decode(&bytes)
                        .map(Some)
                        .map_err(|e| format!("node {hash} does not decode: {e}")),
                    Ok(None) => Ok(None),
                    Err(e) => Err(format!("node {hash} cannot be read: {e}")),
                }
            })
            .clone()?;
        let Some(node) = node else {
            return Err(format!("node {hash} at `{path}` is missing"));
        };
        if let Some(value) = node.value {
            out.insert(path.clone(), value);
        }
        for (token, child) in node.children {
            stack.push((format!("{path}{token}"), child));
        }
    }
    Ok(out)
}
