//! The operation classes slowfs delays and counts, and a value per class.

use serde::{Deserialize, Serialize};

/// A class of filesystem operation with one latency each (slowfs's classes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OpClass {
    /// lookup, getattr, open, create, unlink, rename, release, ... (everything not below).
    Metadata,
    /// read.
    Read,
    /// write.
    Write,
    /// fsync, fdatasync, fsyncdir and flush (the flush on every close).
    Sync,
}

impl OpClass {
    /// Every class, in table order.
    pub const ALL: [OpClass; 4] = [
        OpClass::Metadata,
        OpClass::Read,
        OpClass::Write,
        OpClass::Sync,
    ];

    /// The class's name in JSON and tables.
    pub const fn name(self) -> &'static str {
        match self {
            OpClass::Metadata => "metadata",
            OpClass::Read => "read",
            OpClass::Write => "write",
            OpClass::Sync => "sync",
        }
    }
}

/// One value per operation class (`{"metadata": .., "read": .., "write": .., "sync": ..}`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PerClass<T> {
    /// Metadata operations.
    pub metadata: T,
    /// Reads.
    pub read: T,
    /// Writes.
    pub write: T,
    /// fsync/fdatasync/fsyncdir/flush.
    pub sync: T,
}

impl<T: Copy> PerClass<T> {
    /// The value of `class`.
    pub fn get(&self, class: OpClass) -> T {
        match class {
            OpClass::Metadata => self.metadata,
            OpClass::Read => self.read,
            OpClass::Write => self.write,
            OpClass::Sync => self.sync,
        }
    }

    /// Builds a value per class from `f`.
    pub fn from_fn(mut f: impl FnMut(OpClass) -> T) -> Self {
        PerClass {
            metadata: f(OpClass::Metadata),
            read: f(OpClass::Read),
            write: f(OpClass::Write),
            sync: f(OpClass::Sync),
        }
    }
}
