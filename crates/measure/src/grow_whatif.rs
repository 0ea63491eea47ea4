//! What Transact's uncompressed format costs a state, against a path-compressed trie of the
//! same state, computed from the leaves (address tokens and value sizes) in one pass over them
//! sorted, not by building a second trie.
//!
//! Transact's trie has one node per distinct token prefix (a token is a byte, two hex
//! characters). A path-compressed trie keeps only the root, the nodes with two or more
//! children and the nodes holding a value; each edge then carries its whole path segment. In
//! a sorted list of addresses, the branch nodes are exactly the longest common prefixes of
//! neighbours, counted once each with a stack of the prefix lengths still open.
//!
//! Bytes are logical: per node its 64-byte key (the hash in hex, as Transact stores it; this
//! crate's stores key it by the raw 32 bytes, see `triebench_merkle::store_layout`) plus its
//! canonical CBOR encoding `{"c": {token: hash, ...}, "v": value|null}`. A child entry costs
//! `1 + 2·segment` (the token text) + 66 (the hash text); a path-compressed edge of `s`
//! tokens has a `2·s`-character key, so the what-if charges its longer text.

use triebench_record::grow::CompressedWhatIf;

/// One leaf: its address as tokens (bytes) and its value's length.
pub type Leaf = (Vec<u8>, u32);

/// CBOR header bytes of a text, byte string or map of `len`.
fn head(len: u64) -> u64 {
    match len {
        0..=23 => 1,
        24..=255 => 2,
        256..=65535 => 3,
        _ => 5,
    }
}

/// Stored bytes of a node with children whose segment lengths (tokens) are `segments`, and a
/// value of `value` bytes if any.
fn node_bytes(segments: &[u64], value: Option<u64>) -> u64 {
    // 64 key + map(2) + "c" + map(n) + entries + "v" + value
    let mut bytes = 64 + 1 + 2 + head(segments.len() as u64) + 2;
    for &s in segments {
        bytes += head(2 * s) + 2 * s + 2 + 64;
    }
    bytes += value.map_or(1, |v| head(v) + v);
    bytes
}

/// The what-if of `leaves` (any order; sorted here). Addresses must be distinct; an address
/// that is a prefix of another holds its value on an interior node, as in the trie.
pub fn what_if(leaves: &mut [Leaf]) -> CompressedWhatIf {
    leaves.sort_unstable();
    let mut out = CompressedWhatIf::default();
    if leaves.is_empty() {
        out.nodes = 1;
        out.bytes = node_bytes(&[], None);
        out.compressed_nodes = 1;
        out.compressed_bytes = out.bytes;
        return out;
    }
    // Uncompressed: nodes = 1 + Σ (len_i − lcp(i−1, i)); each non-root node is one child entry
    // of its parent (segment 1), and each leaf node holds a value.
    let mut nodes = 1u64;
    let mut bytes = 64 + 1 + 2 + 2 + 1; // root's fixed part without children, null value
                                        // Compressed: a stack of open branch depths; a node is a branch if two neighbours share
                                        // exactly that prefix.
    let mut branch_depths: Vec<usize> = Vec::new();
    let mut branches = 0u64;
    let mut prev: Option<&[u8]> = None;
    let mut lcps = Vec::with_capacity(leaves.len());
    for (addr, value) in leaves.iter() {
        let lcp = prev.map_or(0, |p| common(p, addr));
        lcps.push(lcp);
        let new = (addr.len() - lcp) as u64;
        nodes += new;
        // Each new node: entry in its parent (3 + 66), its own fixed part, null value except
        // the last (the leaf), which holds the value.
        bytes += new * (2 + 1 + 66 + 64 + 1 + 2 + 1 + 2);
        bytes += u64::from(*value) + head(u64::from(*value)) - 1;
        if prev.is_some() {
            while branch_depths.last().is_some_and(|&d| d > lcp) {
                branch_depths.pop();
            }
            if branch_depths.last() != Some(&lcp) {
                branch_depths.push(lcp);
                branches += 1;
            }
        }
        prev = Some(addr);
    }
    out.nodes = nodes;
    out.bytes = bytes;
    // Compressed nodes: leaves, branch nodes (the root counted once whether or not it
    // branches), every node of a prefix address being also a leaf.
    let root_branches = branches_at_root(&lcps);
    out.compressed_nodes = leaves.len() as u64 + branches + u64::from(!root_branches);
    // Compressed bytes: each non-root node is one edge whose text is its segment. The total
    // segment length of all edges equals the distinct-prefix count minus the root, so the
    // edges' token text is 2·(nodes − 1) characters, plus one header byte per edge.
    let edges = out.compressed_nodes - 1;
    out.compressed_bytes = out.compressed_nodes * (64 + 1 + 2 + 2 + 1)
        + edges * (1 + 2 + 64)
        + 2 * (nodes - 1)
        + leaves
            .iter()
            .map(|(_, v)| u64::from(*v) + head(u64::from(*v)) - 1)
            .sum::<u64>();
    out
}

fn common(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// Whether the root is one of the branch nodes (some neighbours share no token).
fn branches_at_root(lcps: &[usize]) -> bool {
    lcps.iter().skip(1).any(|&l| l == 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(tokens: &[u8]) -> Leaf {
        (tokens.to_vec(), 10)
    }

    #[test]
    fn two_long_addresses_sharing_one_token_compress_to_four_nodes() {
        // root -> 01 -> {02 -> 03, 09 -> 09}: 5 uncompressed nodes; compressed: root,
        // the branch at 01, two leaves.
        let mut leaves = vec![leaf(&[1, 2, 3]), leaf(&[1, 9, 9])];
        let w = what_if(&mut leaves);
        assert_eq!(w.nodes, 6);
        assert_eq!(w.compressed_nodes, 4);
        assert!(w.compressed_bytes < w.bytes);
    }

    #[test]
    fn a_branch_shared_by_three_neighbours_counts_once() {
        let mut leaves = vec![leaf(&[1, 2]), leaf(&[1, 3]), leaf(&[1, 4]), leaf(&[2, 2])];
        let w = what_if(&mut leaves);
        // uncompressed: root, 01, 0102, 0103, 0104, 02, 0202 = 7
        assert_eq!(w.nodes, 7);
        // compressed: root (branches), 01 (branch), four leaves = 6
        assert_eq!(w.compressed_nodes, 6);
    }

    #[test]
    fn a_lone_leaf_keeps_root_and_leaf() {
        let mut leaves = vec![leaf(&[5; 35])];
        let w = what_if(&mut leaves);
        assert_eq!(w.nodes, 36);
        assert_eq!(w.compressed_nodes, 2);
    }
}
