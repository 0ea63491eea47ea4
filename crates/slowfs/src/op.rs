//! The FUSE operations slowfs counts, each with its name in the stats JSON and its class.

use crate::class::OpClass;

/// A FUSE request type that slowfs answers, counts and delays.
///
/// `forget` is not here: it is the kernel dropping an inode from its cache, has no reply and so
/// no round trip to delay, and is neither counted nor delayed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)] // each variant is the FUSE request of the same name
pub enum Op {
    Lookup,
    Getattr,
    Setattr,
    Readlink,
    Mknod,
    Mkdir,
    Unlink,
    Rmdir,
    Symlink,
    Rename,
    Link,
    Open,
    Read,
    Write,
    Flush,
    Release,
    Fsync,
    Opendir,
    Readdir,
    Releasedir,
    Fsyncdir,
    Statfs,
    Access,
    Create,
    Fallocate,
    Getxattr,
    Setxattr,
    Listxattr,
    Removexattr,
}

impl Op {
    /// Every operation, in a fixed order (the index of the per-op counters).
    pub const ALL: [Op; 29] = [
        Op::Lookup,
        Op::Getattr,
        Op::Setattr,
        Op::Readlink,
        Op::Mknod,
        Op::Mkdir,
        Op::Unlink,
        Op::Rmdir,
        Op::Symlink,
        Op::Rename,
        Op::Link,
        Op::Open,
        Op::Read,
        Op::Write,
        Op::Flush,
        Op::Release,
        Op::Fsync,
        Op::Opendir,
        Op::Readdir,
        Op::Releasedir,
        Op::Fsyncdir,
        Op::Statfs,
        Op::Access,
        Op::Create,
        Op::Fallocate,
        Op::Getxattr,
        Op::Setxattr,
        Op::Listxattr,
        Op::Removexattr,
    ];

    /// The lowercase FUSE name, the key in the stats JSON's `ops`.
    pub fn name(self) -> &'static str {
        match self {
            Op::Lookup => "lookup",
            Op::Getattr => "getattr",
            Op::Setattr => "setattr",
            Op::Readlink => "readlink",
            Op::Mknod => "mknod",
            Op::Mkdir => "mkdir",
            Op::Unlink => "unlink",
            Op::Rmdir => "rmdir",
            Op::Symlink => "symlink",
            Op::Rename => "rename",
            Op::Link => "link",
            Op::Open => "open",
            Op::Read => "read",
            Op::Write => "write",
            Op::Flush => "flush",
            Op::Release => "release",
            Op::Fsync => "fsync",
            Op::Opendir => "opendir",
            Op::Readdir => "readdir",
            Op::Releasedir => "releasedir",
            Op::Fsyncdir => "fsyncdir",
            Op::Statfs => "statfs",
            Op::Access => "access",
            Op::Create => "create",
            Op::Fallocate => "fallocate",
            Op::Getxattr => "getxattr",
            Op::Setxattr => "setxattr",
            Op::Listxattr => "listxattr",
            Op::Removexattr => "removexattr",
        }
    }

    /// The class whose delay and counters this operation uses.
    pub fn class(self) -> OpClass {
        match self {
            Op::Read => OpClass::Read,
            Op::Write => OpClass::Write,
            Op::Fsync | Op::Fsyncdir | Op::Flush => OpClass::Sync,
            _ => OpClass::Metadata,
        }
    }

    /// Position in [`Op::ALL`].
    pub fn index(self) -> usize {
        // ALL is small and this is only called once per request; a match would duplicate ALL.
        Op::ALL.iter().position(|o| *o == self).unwrap_or(0)
    }

    /// Whether this is a durability request counted in the JSON's `fsyncs` (flush is not).
    pub fn is_fsync(self) -> bool {
        matches!(self, Op::Fsync | Op::Fsyncdir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indexes_and_names_are_unique() {
        let mut names = std::collections::HashSet::new();
        for (i, op) in Op::ALL.iter().enumerate() {
            assert_eq!(op.index(), i);
            assert!(names.insert(op.name()), "duplicate {}", op.name());
            assert_eq!(op.name(), op.name().to_lowercase());
        }
    }

    #[test]
    fn classes() {
        assert_eq!(Op::Read.class(), OpClass::Read);
        assert_eq!(Op::Write.class(), OpClass::Write);
        for op in [Op::Fsync, Op::Fsyncdir, Op::Flush] {
            assert_eq!(op.class(), OpClass::Sync);
        }
        for op in [
            Op::Lookup,
            Op::Rename,
            Op::Release,
            Op::Fallocate,
            Op::Statfs,
        ] {
            assert_eq!(op.class(), OpClass::Metadata);
        }
        assert!(Op::Fsync.is_fsync() && Op::Fsyncdir.is_fsync() && !Op::Flush.is_fsync());
    }
}
