//! Key ranges for ordered iteration.

/// A half-open range of keys in byte order: `start` inclusive, `end` exclusive (`None` = no end).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct KeyRange {
    /// First key included (the empty key starts at the beginning).
    pub start: Vec<u8>,
    /// First key excluded, or `None` to run to the end of the table.
    pub end: Option<Vec<u8>>,
}

impl KeyRange {
    /// Every key of the table.
    pub fn all() -> Self {
        Self::default()
    }

    /// Keys in `start..end`.
    pub fn between(start: &[u8], end: &[u8]) -> Self {
        KeyRange {
            start: start.to_vec(),
            end: Some(end.to_vec()),
        }
    }

    /// Keys from `start` to the end of the table.
    pub fn from(start: &[u8]) -> Self {
        KeyRange {
            start: start.to_vec(),
            end: None,
        }
    }

    /// Keys that begin with `prefix`.
    pub fn prefix(prefix: &[u8]) -> Self {
        KeyRange {
            start: prefix.to_vec(),
            end: prefix_successor(prefix),
        }
    }

    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && self.end.as_deref().is_none_or(|end| key < end)
    }

    /// Whether `key` lies past the end of the range (iteration in key order can stop).
    pub fn is_past_end(&self, key: &[u8]) -> bool {
        self.end.as_deref().is_some_and(|end| key >= end)
    }
}

/// The smallest key greater than every key starting with `prefix`, or `None` when no such key
/// exists (the prefix is empty or all 0xff bytes).
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last != 0xff {
            end.push(last + 1);
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefix_range_covers_exactly_the_prefixed_keys() {
        let r = KeyRange::prefix(&[0x61, 0xff]);
        assert_eq!(r.end, Some(vec![0x62]));
        assert!(r.contains(&[0x61, 0xff]));
        assert!(r.contains(&[0x61, 0xff, 0xff, 0x00]));
        assert!(!r.contains(&[0x61, 0xfe, 0xff]));
        assert!(!r.contains(&[0x62]));
        assert_eq!(KeyRange::prefix(&[0xff, 0xff]).end, None);
        assert_eq!(KeyRange::prefix(&[]), KeyRange::all());
    }
}
