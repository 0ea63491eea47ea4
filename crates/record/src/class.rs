//! Operation classes: the four groups whose delays and counters slowfs keeps apart.

use serde::{Deserialize, Serialize};

/// A group of filesystem operations with one delay and one pair of counters.
///
/// The split follows what costs what on network storage: a metadata round trip, moving data
/// in, moving data out, and making data durable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpClass {
    /// Everything that is not a read, write or sync: lookup, getattr, open, rename, ...
    Metadata,
    /// `read` requests (page-cache misses and readahead; reads served from the kernel's page
    /// cache never reach slowfs).
    Read,
    /// `write` requests: every `write(2)` (the mount is write-through) and every page written
    /// back from a shared writable `mmap`.
    Write,
    /// `fsync`, `fsyncdir` and `flush` (sent on every `close(2)`).
    Sync,
}

impl OpClass {
    /// Every class, in the order of the JSON output.
    pub const ALL: [OpClass; 4] = [
        OpClass::Metadata,
        OpClass::Read,
        OpClass::Write,
        OpClass::Sync,
    ];

    /// The class's name in the stats JSON and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            OpClass::Metadata => "metadata",
            OpClass::Read => "read",
            OpClass::Write => "write",
            OpClass::Sync => "sync",
        }
    }

    /// Position in [`OpClass::ALL`], for per-class arrays.
    pub fn index(self) -> usize {
        match self {
            OpClass::Metadata => 0,
            OpClass::Read => 1,
            OpClass::Write => 2,
            OpClass::Sync => 3,
        }
    }
}

/// One value per class, serialized as `{"metadata":..,"read":..,"write":..,"sync":..}`.
///
/// Used for the delays of a profile and for the per-class counters of the stats JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PerClass<T> {
    /// The value for [`OpClass::Metadata`].
    pub metadata: T,
    /// The value for [`OpClass::Read`].
    pub read: T,
    /// The value for [`OpClass::Write`].
    pub write: T,
    /// The value for [`OpClass::Sync`].
    pub sync: T,
}

impl<T> PerClass<T> {
    /// The value of one class.
    pub fn get(&self, class: OpClass) -> &T {
        match class {
            OpClass::Metadata => &self.metadata,
            OpClass::Read => &self.read,
            OpClass::Write => &self.write,
            OpClass::Sync => &self.sync,
        }
    }

    /// The value of one class, mutably.
    pub fn get_mut(&mut self, class: OpClass) -> &mut T {
        match class {
            OpClass::Metadata => &mut self.metadata,
            OpClass::Read => &mut self.read,
            OpClass::Write => &mut self.write,
            OpClass::Sync => &mut self.sync,
        }
    }

    /// Builds a table by calling `f` once per class.
    pub fn from_fn(mut f: impl FnMut(OpClass) -> T) -> Self {
        PerClass {
            metadata: f(OpClass::Metadata),
            read: f(OpClass::Read),
            write: f(OpClass::Write),
            sync: f(OpClass::Sync),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_indexes_follow_all() {
        let names: Vec<_> = OpClass::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(names, ["metadata", "read", "write", "sync"]);
        for (i, c) in OpClass::ALL.iter().enumerate() {
            assert_eq!(c.index(), i);
        }
    }

    #[test]
    fn per_class_json_has_the_four_keys() {
        let t = PerClass::from_fn(|c| c.index() as u64);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, r#"{"metadata":0,"read":1,"write":2,"sync":3}"#);
        assert_eq!(*t.get(OpClass::Sync), 3);
    }
}
