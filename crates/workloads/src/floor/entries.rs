//! [`Entries`]: a recorded `put_many`'s entries in one buffer.
//!
//! The growth fill records each of its commits' writes while it is timed (for its floor), so
//! the record must cost little: one copy of the bytes into a buffer that grows by doubling, not
//! two allocations per entry (a 50,000-leaf commit puts ~1.5 million nodes).

/// The `(key, value)` entries of one recorded `put_many`, in order.
#[derive(Debug, Clone, Default)]
pub struct Entries {
    /// Every key and value, back to back.
    bytes: Vec<u8>,
    /// Per entry, in order: where its key starts in `bytes`, its key's and its value's length
    /// (the value follows the key).
    spans: Vec<(usize, u32, u32)>,
}

impl Entries {
    /// Appends an entry.
    pub fn push(&mut self, key: &[u8], value: &[u8]) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(key);
        self.bytes.extend_from_slice(value);
        // Keys and values of a store are far below 4 GiB each.
        self.spans.push((
            start,
            u32::try_from(key.len()).unwrap_or(u32::MAX),
            u32::try_from(value.len()).unwrap_or(u32::MAX),
        ));
    }

    /// How many entries.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Bytes of keys and values.
    pub fn bytes(&self) -> usize {
        self.bytes.len()
    }

    /// The entries in order, as `put_many` takes them.
    pub fn iter(&self) -> impl Iterator<Item = (&[u8], &[u8])> + Clone + '_ {
        self.spans.iter().map(|&(start, key, value)| {
            let key_end = start + key as usize;
            let value_end = key_end + value as usize;
            (&self.bytes[start..key_end], &self.bytes[key_end..value_end])
        })
    }

    /// Swaps entries `i` and `j` (their places in the order, not their bytes).
    pub fn swap(&mut self, i: usize, j: usize) {
        self.spans.swap(i, j);
    }
}

impl PartialEq for Entries {
    /// The same entries in the same order, however the buffer is laid out.
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl Eq for Entries {}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>> FromIterator<(K, V)> for Entries {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(entries: I) -> Self {
        let mut out = Entries::default();
        for (k, v) in entries {
            out.push(k.as_ref(), v.as_ref());
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_come_back_in_order_and_a_swap_moves_them_not_their_bytes() {
        let mut e: Entries = [(&b"k1"[..], &b"v1"[..]), (b"key2", b""), (b"", b"value3")]
            .into_iter()
            .collect();
        assert_eq!((e.len(), e.bytes(), e.is_empty()), (3, 14, false));
        let got: Vec<_> = e.iter().collect();
        assert_eq!(
            got,
            [(&b"k1"[..], &b"v1"[..]), (b"key2", b""), (b"", b"value3")]
        );
        let before = e.clone();
        e.swap(0, 2);
        assert_ne!(e, before);
        assert_eq!(e.iter().next(), Some((&b""[..], &b"value3"[..])));
        e.swap(0, 2);
        assert_eq!(e, before);
    }
}
