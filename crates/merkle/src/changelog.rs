//! Change-log entries: what each commit added, and what its successors replaced.
//!
//! Table `change_log` maps a state root (32 raw bytes) to its entry. An entry records the
//! root's parent, the hashes of the nodes the commit that produced it added (one per touched
//! position, so a node added at two positions appears twice), and one [`Successor`] per commit
//! made on top of it, listing the hashes that commit replaced (nodes of this root's view that
//! the successor no longer uses, the old root itself excepted).
//!
//! It also counts the commits that **reached the root again** once it was logged
//! ([`ChangeLogEntry::reached_again`]): a commit that changes nothing returns its parent root,
//! and a commit can end at a root that is already live. Each such commit makes the root a head
//! once more, so each holds it through one [prune](crate::prune) (Transact's node reference
//! counts have the same effect).
//!
//! Entries use a compact binary format of our own (all integers little-endian). Version 1 is
//! written while the count is zero, so stores without such commits keep the format written
//! before the count existed; version 2 adds the count after the version byte:
//!
//! ```text
//! version  u8 = 1 or 2
//! reached  u64 (version 2 only; at least 1)
//! parent   [u8; 32]
//! n_add    u32, then n_add x [u8; 32]
//! n_succ   u32, then n_succ x { root [u8; 32], n_del u32, n_del x [u8; 32] }
//! ```

/// Format version of an entry whose root no commit reached again.
const VERSION: u8 = 1;
/// Format version of an entry with a [`ChangeLogEntry::reached_again`] count.
const VERSION_REACHED: u8 = 2;

/// A 32-byte hash in raw form.
pub type Hash32 = [u8; 32];

/// One change-log entry (see the [module docs](self)).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangeLogEntry {
    /// The root this one was committed on.
    pub parent: Hash32,
    /// Nodes the commit added, one per touched position.
    pub additions: Vec<Hash32>,
    /// Commits made on top of this root.
    pub successors: Vec<Successor>,
    /// Commits that returned this root again after it was logged (a commit that changes
    /// nothing, or one ending at this live root), not yet matched by a prune: each prune of the
    /// root takes one off instead of releasing anything. Zero in entries written before this
    /// count existed.
    pub reached_again: u64,
}

/// A commit made on top of a root, and what it replaced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Successor {
    /// The successor's root.
    pub root: Hash32,
    /// Nodes of the parent's view the successor replaced (the parent's root node excluded).
    pub deletions: Vec<Hash32>,
}

/// Why bytes are not a change-log entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChangeLogError {
    /// The entry ends early.
    #[error("entry ends early at byte {at}")]
    Truncated {
        /// Offset where more bytes were needed.
        at: usize,
    },
    /// An unknown format version.
    #[error("unknown change-log format version {0}")]
    Version(u8),
    /// Bytes after the end of the entry.
    #[error("{0} trailing bytes after the entry")]
    TrailingBytes(usize),
}

impl ChangeLogEntry {
    /// Serializes the entry.
    pub fn to_bytes(&self) -> Vec<u8> {
        let dels: usize = self
            .successors
            .iter()
            .map(|s| 36 + 32 * s.deletions.len())
            .sum();
        let mut out = Vec::with_capacity(1 + 8 + 32 + 4 + 32 * self.additions.len() + 4 + dels);
        if self.reached_again == 0 {
            out.push(VERSION);
        } else {
            out.push(VERSION_REACHED);
            out.extend_from_slice(&self.reached_again.to_le_bytes());
        }
        out.extend_from_slice(&self.parent);
        put_list(&mut out, &self.additions);
        out.extend_from_slice(&len_u32(self.successors.len()).to_le_bytes());
        for s in &self.successors {
            out.extend_from_slice(&s.root);
            put_list(&mut out, &s.deletions);
        }
        out
    }

    /// Parses an entry written by [`ChangeLogEntry::to_bytes`] (either version).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ChangeLogError> {
        let mut r = Reader { buf: bytes, pos: 0 };
        let reached_again = r.header()?;
        let parent = r.hash()?;
        let additions = r.list()?;
        let n = r.u32()?;
        let mut successors = Vec::with_capacity(n.min(r.remaining() / 36));
        for _ in 0..n {
            let root = r.hash()?;
            let deletions = r.list()?;
            successors.push(Successor { root, deletions });
        }
        match r.remaining() {
            0 => Ok(ChangeLogEntry {
                parent,
                additions,
                successors,
                reached_again,
            }),
            extra => Err(ChangeLogError::TrailingBytes(extra)),
        }
    }
}

/// Writes the entry of a new root (no successors yet) into `out`, without building a
/// [`ChangeLogEntry`]: the same bytes as its [`to_bytes`](ChangeLogEntry::to_bytes).
pub(crate) fn write_new(out: &mut Vec<u8>, parent: &Hash32, additions: &[Hash32]) {
    let n = len_u32(additions.len());
    let additions = &additions[..n as usize];
    out.reserve(1 + 32 + 4 + 32 * additions.len() + 4);
    out.push(VERSION);
    out.extend_from_slice(parent);
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(additions.as_flattened());
    out.extend_from_slice(&0u32.to_le_bytes());
}

/// Writes into `out` the entry `bytes` with one more successor appended, checking `bytes` as
/// [`ChangeLogEntry::from_bytes`] does but without decoding it: the same bytes as parsing,
/// pushing the successor and serializing again.
pub(crate) fn write_with_successor(
    out: &mut Vec<u8>,
    bytes: &[u8],
    root: &Hash32,
    deletions: impl ExactSizeIterator<Item = Hash32>,
) -> Result<(), ChangeLogError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    r.header()?;
    r.take(32)?;
    r.skip_list()?;
    let count_at = r.pos;
    let n = r.u32()?;
    for _ in 0..n {
        r.take(32)?;
        r.skip_list()?;
    }
    if r.remaining() > 0 {
        return Err(ChangeLogError::TrailingBytes(r.remaining()));
    }
    let n_del = len_u32(deletions.len());
    out.reserve(bytes.len() + 32 + 4 + 32 * n_del as usize);
    out.extend_from_slice(&bytes[..count_at]);
    out.extend_from_slice(&len_u32(n + 1).to_le_bytes());
    out.extend_from_slice(&bytes[count_at + 4..]);
    out.extend_from_slice(root);
    out.extend_from_slice(&n_del.to_le_bytes());
    for h in deletions.take(n_del as usize) {
        out.extend_from_slice(&h);
    }
    Ok(())
}

/// Entry lists are capped far below `u32::MAX` by any real batch; saturate rather than wrap.
fn len_u32(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

fn put_list(out: &mut Vec<u8>, list: &[Hash32]) {
    let n = len_u32(list.len());
    out.extend_from_slice(&n.to_le_bytes());
    for h in list.iter().take(n as usize) {
        out.extend_from_slice(h);
    }
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ChangeLogError> {
        if self.remaining() < n {
            return Err(ChangeLogError::Truncated { at: self.buf.len() });
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// Reads the version byte and, in version 2, the reached-again count (0 in version 1).
    fn header(&mut self) -> Result<u64, ChangeLogError> {
        match self.take(1)?[0] {
            VERSION => Ok(0),
            VERSION_REACHED => {
                let b = self.take(8)?;
                let mut count = [0u8; 8];
                count.copy_from_slice(b);
                Ok(u64::from_le_bytes(count))
            }
            version => Err(ChangeLogError::Version(version)),
        }
    }

    fn u32(&mut self) -> Result<usize, ChangeLogError> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
    }

    fn hash(&mut self) -> Result<Hash32, ChangeLogError> {
        let mut h = [0u8; 32];
        h.copy_from_slice(self.take(32)?);
        Ok(h)
    }

    fn skip_list(&mut self) -> Result<(), ChangeLogError> {
        let n = self.u32()?;
        self.take(
            n.checked_mul(32)
                .ok_or(ChangeLogError::Truncated { at: self.buf.len() })?,
        )?;
        Ok(())
    }

    fn list(&mut self) -> Result<Vec<Hash32>, ChangeLogError> {
        let n = self.u32()?;
        let mut out = Vec::with_capacity(n.min(self.remaining() / 32));
        for _ in 0..n {
            out.push(self.hash()?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> ChangeLogEntry {
        ChangeLogEntry {
            parent: [1; 32],
            additions: vec![[2; 32], [3; 32]],
            successors: vec![
                Successor {
                    root: [4; 32],
                    deletions: vec![[5; 32]],
                },
                Successor {
                    root: [6; 32],
                    deletions: vec![],
                },
            ],
            reached_again: 0,
        }
    }

    fn reached(count: u64) -> ChangeLogEntry {
        ChangeLogEntry {
            reached_again: count,
            ..sample()
        }
    }

    #[test]
    fn round_trip_and_layout() {
        let e = sample();
        let bytes = e.to_bytes();
        assert_eq!(bytes.len(), 1 + 32 + 4 + 64 + 4 + (32 + 4 + 32) + (32 + 4));
        assert_eq!(bytes[0], 1);
        assert_eq!(ChangeLogEntry::from_bytes(&bytes), Ok(e));
    }

    /// Version 2 is version 1 with the count after the version byte, and is written only
    /// while the count is not zero: an entry with no count is byte for byte what was written
    /// before the count existed.
    #[test]
    fn reached_again_layout_and_version_1_compatibility() {
        let v1 = sample().to_bytes();
        let v2 = reached(3).to_bytes();
        assert_eq!(v2[0], 2);
        assert_eq!(v2[1..9], 3u64.to_le_bytes());
        assert_eq!(v2[9..], v1[1..]);
        assert_eq!(ChangeLogEntry::from_bytes(&v2), Ok(reached(3)));
        assert_eq!(ChangeLogEntry::from_bytes(&v1), Ok(sample()));
        assert_eq!(reached(0).to_bytes(), v1);
        // A version-1 entry as written before the count existed, byte by byte.
        let mut legacy = vec![1u8];
        legacy.extend_from_slice(&[1; 32]);
        legacy.extend_from_slice(&2u32.to_le_bytes());
        legacy.extend_from_slice(&[2; 32]);
        legacy.extend_from_slice(&[3; 32]);
        legacy.extend_from_slice(&2u32.to_le_bytes());
        legacy.extend_from_slice(&[4; 32]);
        legacy.extend_from_slice(&1u32.to_le_bytes());
        legacy.extend_from_slice(&[5; 32]);
        legacy.extend_from_slice(&[6; 32]);
        legacy.extend_from_slice(&0u32.to_le_bytes());
        assert_eq!(legacy, v1);
        for cut in 0..v2.len() {
            assert!(matches!(
                ChangeLogEntry::from_bytes(&v2[..cut]),
                Err(ChangeLogError::Truncated { .. })
            ));
        }
    }

    #[test]
    fn direct_writers_match_to_bytes() {
        let mut e = sample();
        e.successors.clear();
        let mut out = Vec::new();
        write_new(&mut out, &e.parent, &e.additions);
        assert_eq!(out, e.to_bytes());
        for with in [sample(), e, reached(1), reached(u64::MAX)] {
            let added = Successor {
                root: [7; 32],
                deletions: vec![[8; 32], [9; 32]],
            };
            let mut out = Vec::new();
            write_with_successor(
                &mut out,
                &with.to_bytes(),
                &added.root,
                added.deletions.iter().copied(),
            )
            .unwrap();
            let mut want = with.clone();
            want.successors.push(added);
            assert_eq!(out, want.to_bytes());
        }
        for bytes in [reached(2).to_bytes(), sample().to_bytes()] {
            for cut in 0..bytes.len() {
                let got =
                    write_with_successor(&mut Vec::new(), &bytes[..cut], &[0; 32], [].into_iter());
                assert_eq!(got, ChangeLogEntry::from_bytes(&bytes[..cut]).map(|_| ()));
            }
        }
        let bytes = sample().to_bytes();
        let mut extra = bytes;
        extra.push(1);
        assert_eq!(
            write_with_successor(&mut Vec::new(), &extra, &[0; 32], [].into_iter()),
            Err(ChangeLogError::TrailingBytes(1))
        );
    }

    #[test]
    fn malformed_entries_are_typed_errors() {
        let bytes = sample().to_bytes();
        for cut in 0..bytes.len() {
            assert!(matches!(
                ChangeLogEntry::from_bytes(&bytes[..cut]),
                Err(ChangeLogError::Truncated { .. })
            ));
        }
        let mut extra = bytes.clone();
        extra.push(9);
        assert_eq!(
            ChangeLogEntry::from_bytes(&extra),
            Err(ChangeLogError::TrailingBytes(1))
        );
        let mut version = bytes;
        version[0] = 7;
        assert_eq!(
            ChangeLogEntry::from_bytes(&version),
            Err(ChangeLogError::Version(7))
        );
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
            let parsed = ChangeLogEntry::from_bytes(&bytes);
            let patched = write_with_successor(&mut Vec::new(), &bytes, &[0; 32], [].into_iter());
            prop_assert_eq!(patched, parsed.map(|_| ()));
        }
    }
}
