//! How a key becomes a row: its first 8 bytes are the row's integer id (SQLite's rowid), the rest
//! a column beside the value. One b-tree then finds a row by its key, where a `key BLOB PRIMARY
//! KEY` column needs two (the key index, then the rowid table) and stores every key twice.
//!
//! The id keeps the keys' byte order: the 8 bytes read big-endian with the top bit flipped, so
//! that ids compare as signed integers the way the bytes compare with `memcmp`. Two keys sharing
//! their first 8 bytes cannot both have that id; the second goes to the table's spill table (see
//! the module docs of `sqlite`). Keys shorter than 8 bytes always do: they have no id.

/// The bytes of a key that make its row's id.
pub(super) const ID_BYTES: usize = 8;

/// Flipping the top bit maps unsigned big-endian order onto signed integer order.
const SIGN: u64 = 1 << 63;

/// A key split into its row's id and the bytes stored beside the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RowKey<'k> {
    /// The row's id: the key's first [`ID_BYTES`] bytes.
    pub(super) id: i64,
    /// The key's bytes after the first [`ID_BYTES`].
    pub(super) rest: &'k [u8],
}

impl<'k> RowKey<'k> {
    /// Splits `key`; `None` for a key shorter than [`ID_BYTES`], which lives in the spill table.
    pub(super) fn split(key: &'k [u8]) -> Option<RowKey<'k>> {
        let (head, rest) = key.split_first_chunk::<ID_BYTES>()?;
        Some(RowKey {
            id: id_of(*head),
            rest,
        })
    }
}

/// The id of the rows whose keys begin with `head`.
pub(super) fn id_of(head: [u8; ID_BYTES]) -> i64 {
    (u64::from_be_bytes(head) ^ SIGN) as i64
}

/// The first [`ID_BYTES`] bytes of the keys of row `id`.
pub(super) fn head_of(id: i64) -> [u8; ID_BYTES] {
    ((id as u64) ^ SIGN).to_be_bytes()
}

/// The smallest id whose rows can hold a key at or after `start` in byte order: the id of
/// `start`'s first [`ID_BYTES`] bytes, a shorter `start` padded with zeros. Rows from there on
/// may still begin with keys before `start` (same id, smaller rest): a scan compares them.
pub(super) fn first_id_from(start: &[u8]) -> i64 {
    let mut head = [0u8; ID_BYTES];
    let n = start.len().min(ID_BYTES);
    head[..n].copy_from_slice(&start[..n]);
    id_of(head)
}

/// Writes row `(id, rest)`'s key into `out`, replacing what it held.
pub(super) fn join_into(id: i64, rest: &[u8], out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(&head_of(id));
    out.extend_from_slice(rest);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_keep_the_keys_byte_order() {
        let heads: [[u8; 8]; 6] = [
            [0; 8],
            [0, 0, 0, 0, 0, 0, 0, 1],
            [0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
            [0x80, 0, 0, 0, 0, 0, 0, 0],
            [0xfe, 0, 0, 0, 0, 0, 0, 9],
            [0xff; 8],
        ];
        for pair in heads.windows(2) {
            assert!(id_of(pair[0]) < id_of(pair[1]), "{pair:?}");
        }
        for head in heads {
            assert_eq!(head_of(id_of(head)), head);
        }
    }

    #[test]
    fn a_key_splits_and_joins_back() {
        let key: Vec<u8> = (1..=32).collect();
        let row = RowKey::split(&key).unwrap();
        assert_eq!(row.rest, &key[8..]);
        let mut out = vec![9; 3];
        join_into(row.id, row.rest, &mut out);
        assert_eq!(out, key);
        assert_eq!(RowKey::split(b"short"), None);
        assert_eq!(RowKey::split(b"8 bytes!").map(|r| r.rest.len()), Some(0));
    }

    #[test]
    fn a_scan_starts_at_or_before_its_first_key() {
        // Every key at or after `start` has an id at or after first_id_from(start).
        let start = b"ab";
        let from = first_id_from(start);
        for key in [&b"ab\0\0\0\0\0\0"[..], b"ab\0\0\0\0\0\0x", b"abc45678", b"b0000000"] {
            assert!(RowKey::split(key).unwrap().id >= from, "{key:?}");
        }
        assert!(RowKey::split(b"aa999999").unwrap().id < from);
    }
}
