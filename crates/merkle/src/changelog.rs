//! Change-log entries: what each commit added, and what its successors replaced.
//!
//! Table `change_log` maps a state root (32 raw bytes) to its entry, and, for entries of
//! version 3 (below), the root and one zero byte to their additions. An entry records the
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
//! Entries use a compact binary format of our own (all integers little-endian). Versions 1 and
//! 2 hold the additions inline: version 1 while the count is zero (the format written before
//! the count existed), version 2 with the count after the version byte. Version 3, which
//! commits write now, keeps the additions apart, under the root's [`additions_key`] in the same
//! table, as the hashes one after another: a commit on top of a root appends a successor to
//! that root's entry, and with the additions inline it rewrote them all. After a 50,000-leaf
//! commit that was ~48 MB, rewritten by the next commit whatever its size (a 1-key commit after
//! a 50,000-leaf fill commit took 0.19-0.70 s at 10^5 leaves, the next ones a median of
//! 1.4-5.4 ms; docs/findings/grow.md).
//!
//! ```text
//! version  u8 = 1, 2 or 3
//! reached  u64 (versions 2 and 3; at least 1 in version 2)
//! parent   [u8; 32]
//! n_add    u32, then n_add x [u8; 32]   (versions 1 and 2 only)
//! n_succ   u32, then n_succ x { root [u8; 32], n_del u32, n_del x [u8; 32] }
//! ```
//!
//! Entries of versions 1 and 2 are still read, pruned and given successors in their own
//! format, so a store written before version 3 keeps working.

/// Format version of an entry whose root no commit reached again.
const VERSION: u8 = 1;
/// Format version of an entry with a [`ChangeLogEntry::reached_again`] count.
const VERSION_REACHED: u8 = 2;
/// Format version of an entry whose additions are kept apart, under [`additions_key`].
const VERSION_APART: u8 = 3;

/// The key of the additions of `root`'s version-3 entry in the change-log table: the root
/// followed by one zero byte, so it never equals a root (32 bytes).
pub fn additions_key(root: &Hash32) -> [u8; 33] {
    let mut key = [0u8; 33];
    key[..32].copy_from_slice(root);
    key
}

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
    /// A version-3 entry whose additions are not stored (see [`additions_key`]).
    #[error("the entry's additions, stored apart, are missing")]
    MissingAdditions,
}

impl ChangeLogEntry {
    /// Serializes the entry with its additions inline (version 1, or 2 with a count).
    pub fn to_bytes(&self) -> Vec<u8> {
        encode(self, false)
    }

    /// Parses an entry written by [`ChangeLogEntry::to_bytes`] (version 1 or 2), or a version-3
    /// entry, whose additions are stored apart (see the [module docs](self)): they come back
    /// empty ([`MerkleTrie::change_log`](crate::MerkleTrie::change_log) reads them).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, ChangeLogError> {
        decode(bytes).map(|(entry, _)| entry)
    }
}

/// Parses a stored entry of any version; `true` with it when its additions are stored apart
/// (version 3), under [`additions_key`].
pub(crate) fn decode(bytes: &[u8]) -> Result<(ChangeLogEntry, bool), ChangeLogError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let (version, reached_again) = r.header()?;
    let apart = version == VERSION_APART;
    let parent = r.hash()?;
    let additions = if apart { Vec::new() } else { r.list()? };
    let n = r.u32()?;
    let mut successors = Vec::with_capacity(n.min(r.remaining() / 36));
    for _ in 0..n {
        let root = r.hash()?;
        let deletions = r.list()?;
        successors.push(Successor { root, deletions });
    }
    match r.remaining() {
        0 => Ok((
            ChangeLogEntry {
                parent,
                additions,
                successors,
                reached_again,
            },
            apart,
        )),
        extra => Err(ChangeLogError::TrailingBytes(extra)),
    }
}

/// Serializes `entry` in the format it was read in: with its additions inline (versions 1
/// and 2, [`ChangeLogEntry::to_bytes`]), or, where they are stored `apart`, without them
/// (version 3).
pub(crate) fn encode(entry: &ChangeLogEntry, apart: bool) -> Vec<u8> {
    let inline = if apart {
        0
    } else {
        4 + 32 * entry.additions.len()
    };
    let dels: usize = entry
        .successors
        .iter()
        .map(|s| 36 + 32 * s.deletions.len())
        .sum();
    let mut out = Vec::with_capacity(1 + 8 + 32 + inline + 4 + dels);
    if apart {
        out.push(VERSION_APART);
        out.extend_from_slice(&entry.reached_again.to_le_bytes());
    } else if entry.reached_again == 0 {
        out.push(VERSION);
    } else {
        out.push(VERSION_REACHED);
        out.extend_from_slice(&entry.reached_again.to_le_bytes());
    }
    out.extend_from_slice(&entry.parent);
    if !apart {
        put_list(&mut out, &entry.additions);
    }
    out.extend_from_slice(&len_u32(entry.successors.len()).to_le_bytes());
    for s in &entry.successors {
        out.extend_from_slice(&s.root);
        put_list(&mut out, &s.deletions);
    }
    out
}

/// Parses the additions stored apart for a version-3 entry: the hashes one after another.
pub(crate) fn decode_additions(bytes: &[u8]) -> Result<Vec<Hash32>, ChangeLogError> {
    let (hashes, rest) = bytes.as_chunks::<32>();
    if !rest.is_empty() {
        return Err(ChangeLogError::Truncated { at: bytes.len() });
    }
    Ok(hashes.to_vec())
}

/// Writes the version-3 entry of a new root (no successors yet) into `out`, without building a
/// [`ChangeLogEntry`]: the same bytes as [`encode`] of it with its additions apart. The
/// additions go under [`additions_key`], as [`ChangeLogEntry::additions`]'s hashes one after
/// another (`additions.as_flattened()`).
pub(crate) fn write_new(out: &mut Vec<u8>, parent: &Hash32) {
    out.reserve(1 + 8 + 32 + 4);
    out.push(VERSION_APART);
    out.extend_from_slice(&0u64.to_le_bytes());
    out.extend_from_slice(parent);
    out.extend_from_slice(&0u32.to_le_bytes());
}

/// Writes into `out` the entry `bytes` (any version) with one more successor appended, checking
/// `bytes` as [`decode`] does but without decoding it: the same bytes as decoding, pushing the
/// successor and encoding again in the same version.
pub(crate) fn write_with_successor(
    out: &mut Vec<u8>,
    bytes: &[u8],
    root: &Hash32,
    deletions: impl ExactSizeIterator<Item = Hash32>,
) -> Result<(), ChangeLogError> {
    let mut r = Reader { buf: bytes, pos: 0 };
    let (version, _) = r.header()?;
    r.take(32)?;
    if version != VERSION_APART {
        r.skip_list()?;
    }
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

    /// Reads the version byte and, in versions 2 and 3, the reached-again count (0 in
    /// version 1).
    fn header(&mut self) -> Result<(u8, u64), ChangeLogError> {
        match self.take(1)?[0] {
            VERSION => Ok((VERSION, 0)),
            version @ (VERSION_REACHED | VERSION_APART) => {
                let b = self.take(8)?;
                let mut count = [0u8; 8];
                count.copy_from_slice(b);
                Ok((version, u64::from_le_bytes(count)))
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
    fn direct_writers_match_encode() {
        let mut e = sample();
        e.successors.clear();
        let mut out = Vec::new();
        write_new(&mut out, &e.parent);
        assert_eq!(out, encode(&e, true));
        let head = ChangeLogEntry {
            additions: Vec::new(),
            ..e.clone()
        };
        assert_eq!(decode(&out), Ok((head, true)));
        // Every version keeps its format when a successor is appended.
        for (with, apart) in [
            (sample(), false),
            (e, false),
            (reached(1), false),
            (reached(u64::MAX), false),
            (sample(), true),
            (reached(5), true),
        ] {
            let added = Successor {
                root: [7; 32],
                deletions: vec![[8; 32], [9; 32]],
            };
            let mut out = Vec::new();
            write_with_successor(
                &mut out,
                &encode(&with, apart),
                &added.root,
                added.deletions.iter().copied(),
            )
            .unwrap();
            let mut want = with.clone();
            want.successors.push(added);
            assert_eq!(out, encode(&want, apart));
            if apart {
                want.additions.clear();
            }
            assert_eq!(decode(&out), Ok((want, apart)));
        }
        for bytes in [
            reached(2).to_bytes(),
            sample().to_bytes(),
            encode(&sample(), true),
        ] {
            for cut in 0..bytes.len() {
                let got =
                    write_with_successor(&mut Vec::new(), &bytes[..cut], &[0; 32], [].into_iter());
                assert_eq!(got, decode(&bytes[..cut]).map(|_| ()));
                assert!(matches!(got, Err(ChangeLogError::Truncated { .. })));
            }
        }
        for apart in [false, true] {
            let mut extra = encode(&sample(), apart);
            extra.push(1);
            assert_eq!(
                write_with_successor(&mut Vec::new(), &extra, &[0; 32], [].into_iter()),
                Err(ChangeLogError::TrailingBytes(1))
            );
        }
    }

    /// Version 3 is version 2 without the additions (and with a count of zero allowed).
    #[test]
    fn version_3_layout_and_additions_apart() {
        let e = reached(4);
        let v3 = encode(&e, true);
        let v2 = e.to_bytes();
        assert_eq!(v3[0], 3);
        assert_eq!(v3[1..41], v2[1..41]);
        let inline_additions = 4 + 32 * e.additions.len();
        assert_eq!(v3[41..], v2[41 + inline_additions..]);
        assert_eq!(encode(&e, false), v2);
        assert_eq!(encode(&reached(0), true)[1..9], 0u64.to_le_bytes());
        assert_eq!(
            ChangeLogEntry::from_bytes(&v3).map(|d| d.additions),
            Ok(vec![])
        );

        let stored = e.additions.as_flattened();
        assert_eq!(decode_additions(stored), Ok(e.additions.clone()));
        assert_eq!(decode_additions(&[]), Ok(vec![]));
        assert!(matches!(
            decode_additions(&stored[..33]),
            Err(ChangeLogError::Truncated { .. })
        ));
        let key = additions_key(&[9; 32]);
        assert_eq!((key.len(), &key[..32], key[32]), (33, &[9u8; 32][..], 0));
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
