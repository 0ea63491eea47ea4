//! [`Proof`]: the nodes on an address's path, as stored, and their wire form.

use super::error::ProofError;

/// CBOR major type of arrays.
const MAJOR_ARRAY: u8 = 4;
/// CBOR major type of byte strings.
const MAJOR_BYTES: u8 = 2;

/// The encoded nodes on the path from a state root towards an address, root first, each
/// exactly as the store holds it. See the [module documentation](crate::proof) for what an
/// inclusion and an exclusion proof hold, and [`verify`](crate::verify) to check one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Proof {
    nodes: Vec<Vec<u8>>,
}

impl Proof {
    /// A proof of these node encodings, root first. Nothing is checked here:
    /// [`verify`](crate::verify) checks everything.
    pub fn from_nodes(nodes: Vec<Vec<u8>>) -> Self {
        Proof { nodes }
    }

    /// The node encodings, root first.
    pub fn nodes(&self) -> &[Vec<u8>] {
        &self.nodes
    }

    /// The node encodings, root first, taken out of the proof.
    pub fn into_nodes(self) -> Vec<Vec<u8>> {
        self.nodes
    }

    /// Bytes of the node encodings alone, without the wire form's headers.
    pub fn node_bytes(&self) -> usize {
        self.nodes.iter().map(Vec::len).sum()
    }

    /// Length of [`encode`](Self::encode)'s output, computed without encoding: the size of the
    /// proof on the wire.
    pub fn encoded_len(&self) -> usize {
        header_len(self.nodes.len() as u64)
            + self
                .nodes
                .iter()
                .map(|n| header_len(n.len() as u64) + n.len())
                .sum::<usize>()
    }

    /// The wire form: a CBOR array (shortest-form headers) of one byte string per node, root
    /// first, each holding the node's stored encoding.
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len());
        write_header(&mut out, MAJOR_ARRAY, self.nodes.len() as u64);
        for node in &self.nodes {
            write_header(&mut out, MAJOR_BYTES, node.len() as u64);
            out.extend_from_slice(node);
        }
        out
    }

    /// Reads the wire form [`encode`](Self::encode) writes, and nothing else
    /// ([`ProofError::BadEncoding`]: another CBOR type, a header not in its shortest form, a
    /// truncated item, trailing bytes). The nodes themselves are checked by
    /// [`verify`](crate::verify).
    pub fn decode(bytes: &[u8]) -> Result<Proof, ProofError> {
        let mut at = 0;
        let count = read_header(bytes, &mut at, MAJOR_ARRAY)?;
        // Each node takes at least its one-byte header: never allocate for more than that.
        let mut nodes = Vec::with_capacity(count.min((bytes.len() - at) as u64) as usize);
        for _ in 0..count {
            let len = read_header(bytes, &mut at, MAJOR_BYTES)?;
            let end = usize::try_from(len)
                .ok()
                .and_then(|len| at.checked_add(len))
                .filter(|&end| end <= bytes.len())
                .ok_or(ProofError::BadEncoding {
                    at,
                    reason: "a node's bytes run past the end",
                })?;
            nodes.push(bytes[at..end].to_vec());
            at = end;
        }
        if at != bytes.len() {
            return Err(ProofError::BadEncoding {
                at,
                reason: "trailing bytes after the proof",
            });
        }
        Ok(Proof { nodes })
    }
}

/// Size of the shortest CBOR header for `len`.
fn header_len(len: u64) -> usize {
    match len {
        0..=23 => 1,
        24..=0xff => 2,
        0x100..=0xffff => 3,
        0x1_0000..=0xffff_ffff => 5,
        _ => 9,
    }
}

/// Appends the shortest CBOR header of major type `major` for `len`.
fn write_header(out: &mut Vec<u8>, major: u8, len: u64) {
    let m = major << 5;
    match header_len(len) {
        1 => out.push(m | len as u8),
        2 => out.extend_from_slice(&[m | 24, len as u8]),
        3 => {
            out.push(m | 25);
            out.extend_from_slice(&(len as u16).to_be_bytes());
        }
        5 => {
            out.push(m | 26);
            out.extend_from_slice(&(len as u32).to_be_bytes());
        }
        _ => {
            out.push(m | 27);
            out.extend_from_slice(&len.to_be_bytes());
        }
    }
}

/// Reads a shortest-form header of major type `major` at `*at` and moves past it.
fn read_header(bytes: &[u8], at: &mut usize, major: u8) -> Result<u64, ProofError> {
    let start = *at;
    let bad = |reason| ProofError::BadEncoding { at: start, reason };
    let &initial = bytes.get(start).ok_or(bad("the proof ends early"))?;
    if initial >> 5 != major {
        return Err(bad(if major == MAJOR_ARRAY {
            "expected a CBOR array of nodes"
        } else {
            "expected a node as a CBOR byte string"
        }));
    }
    let extra = match initial & 0x1f {
        n @ 0..=23 => {
            *at = start + 1;
            return Ok(u64::from(n));
        }
        24 => 1,
        25 => 2,
        26 => 4,
        27 => 8,
        _ => return Err(bad("unsupported CBOR length form")),
    };
    let field = bytes
        .get(start + 1..start + 1 + extra)
        .ok_or(bad("the proof ends early"))?;
    let len = field.iter().fold(0u64, |n, &b| n << 8 | u64::from(b));
    if header_len(len) != 1 + extra {
        return Err(bad("length header not in its shortest form"));
    }
    *at = start + 1 + extra;
    Ok(len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wire_form_round_trips_at_every_header_size() {
        for len in [0usize, 23, 24, 255, 256, 65_535, 65_536] {
            let proof = Proof::from_nodes(vec![vec![7; len], vec![], vec![1, 2, 3]]);
            let bytes = proof.encode();
            assert_eq!(bytes.len(), proof.encoded_len(), "len {len}");
            assert_eq!(Proof::decode(&bytes).unwrap(), proof, "len {len}");
        }
        assert_eq!(Proof::default().encode(), vec![0x80]);
        assert_eq!(
            Proof::from_nodes(vec![vec![0xaa]]).encode(),
            vec![0x81, 0x41, 0xaa]
        );
    }

    #[test]
    fn wire_form_is_read_strictly() {
        let bytes = Proof::from_nodes(vec![vec![1, 2]]).encode();
        let bad = |b: &[u8]| matches!(Proof::decode(b), Err(ProofError::BadEncoding { .. }));
        assert!(bad(&[]));
        assert!(bad(&bytes[..bytes.len() - 1]));
        assert!(bad(&[bytes.as_slice(), &[0]].concat()));
        assert!(bad(&[0xa0])); // a map
        assert!(bad(&[0x81, 0x61, b'x'])); // a text string
        assert!(bad(&[0x98, 0x01, 0x40])); // array of 1 in the 1-byte form
        assert!(bad(&[0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]));
        assert!(bad(&[0x81, 0x5b, 0, 0, 0, 1, 0, 0, 0, 0]));
    }
}
