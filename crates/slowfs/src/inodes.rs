//! The inode table: FUSE inode numbers for paths relative to the backing directory.
//!
//! slowfs is path-based: an inode number stands for a path, allocated on first lookup and
//! dropped when the kernel forgets it. Renames move the path of the node and of everything below
//! it; unlink and rmdir detach a node (it stays valid for open handles, but has no path). Hard
//! links get one inode per path, so the kernel caches them separately.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The root directory's inode number (FUSE's fixed `FUSE_ROOT_ID`).
pub const ROOT_INO: u64 = 1;
/// The virtual `.slowfs-stats` file's inode number; never allocated to a path.
pub const STATS_INO: u64 = 2;
/// The virtual `.slowfs-control` file's inode number (power-loss mode); never allocated to a path.
pub const CONTROL_INO: u64 = 3;
const FIRST_FREE_INO: u64 = 4;

#[derive(Debug)]
struct Node {
    /// Relative path; `None` once unlinked or replaced.
    path: Option<PathBuf>,
    /// Lookups the kernel holds (each reply with an entry adds one; forget subtracts).
    lookups: u64,
}

/// Inode number <-> relative path, with the kernel's lookup counts. Not thread-safe by itself:
/// the filesystem keeps it behind a mutex.
#[derive(Debug)]
pub struct InodeTable {
    nodes: HashMap<u64, Node>,
    by_path: HashMap<PathBuf, u64>,
    next: u64,
}

impl Default for InodeTable {
    fn default() -> Self {
        Self::new()
    }
}

impl InodeTable {
    /// A table holding only the root (the empty relative path).
    pub fn new() -> InodeTable {
        let mut t = InodeTable {
            nodes: HashMap::new(),
            by_path: HashMap::new(),
            next: FIRST_FREE_INO,
        };
        t.nodes.insert(
            ROOT_INO,
            Node {
                path: Some(PathBuf::new()),
                lookups: 1,
            },
        );
        t.by_path.insert(PathBuf::new(), ROOT_INO);
        t
    }

    /// The relative path of `ino`, or `None` if unknown or detached.
    pub fn path(&self, ino: u64) -> Option<PathBuf> {
        self.nodes.get(&ino).and_then(|n| n.path.clone())
    }

    /// The inode of `path` if one is allocated, without counting a lookup.
    pub fn peek(&self, path: &Path) -> Option<u64> {
        self.by_path.get(path).copied()
    }

    /// The inode of `path`, allocated if needed, counting one kernel lookup.
    pub fn lookup(&mut self, path: &Path) -> u64 {
        if let Some(&ino) = self.by_path.get(path) {
            if let Some(node) = self.nodes.get_mut(&ino) {
                node.lookups += 1;
            }
            return ino;
        }
        let ino = self.next;
        self.next += 1;
        self.nodes.insert(
            ino,
            Node {
                path: Some(path.to_path_buf()),
                lookups: 1,
            },
        );
        self.by_path.insert(path.to_path_buf(), ino);
        ino
    }

    /// The kernel dropped `n` lookups of `ino`; at zero the inode is freed (never the root).
    pub fn forget(&mut self, ino: u64, n: u64) {
        if ino == ROOT_INO {
            return;
        }
        let Some(node) = self.nodes.get_mut(&ino) else {
            return;
        };
        node.lookups = node.lookups.saturating_sub(n);
        if node.lookups == 0 {
            if let Some(node) = self.nodes.remove(&ino) {
                if let Some(path) = node.path {
                    if self.by_path.get(&path) == Some(&ino) {
                        self.by_path.remove(&path);
                    }
                }
            }
        }
    }

    /// `path` was unlinked or removed: its inode (if any) loses its path.
    pub fn detach(&mut self, path: &Path) {
        if let Some(ino) = self.by_path.remove(path) {
            if let Some(node) = self.nodes.get_mut(&ino) {
                node.path = None;
            }
        }
    }

    /// `from` was renamed to `to`: whatever was at `to` is detached, and the node at `from` and
    /// every node below it move.
    pub fn rename(&mut self, from: &Path, to: &Path) {
        if from == to {
            return;
        }
        self.detach(to);
        for (ino, new_path) in self.take_subtree(from, to) {
            self.place(ino, new_path);
        }
    }

    /// `a` and `b` were exchanged (`RENAME_EXCHANGE`): their subtrees swap paths.
    pub fn exchange(&mut self, a: &Path, b: &Path) {
        if a == b {
            return;
        }
        let moved_a = self.take_subtree(a, b);
        let moved_b = self.take_subtree(b, a);
        for (ino, new_path) in moved_a.into_iter().chain(moved_b) {
            self.place(ino, new_path);
        }
    }

    /// Removes the nodes at and below `from` from the path index, returning each with its path
    /// rebased onto `to`.
    fn take_subtree(&mut self, from: &Path, to: &Path) -> Vec<(u64, PathBuf)> {
        let keys: Vec<PathBuf> = self
            .by_path
            .keys()
            .filter(|p| p.starts_with(from))
            .cloned()
            .collect();
        let mut moved = Vec::with_capacity(keys.len());
        for old in keys {
            if let (Some(ino), Ok(rest)) = (self.by_path.remove(&old), old.strip_prefix(from)) {
                let new_path = if rest.as_os_str().is_empty() {
                    to.to_path_buf()
                } else {
                    to.join(rest)
                };
                moved.push((ino, new_path));
            }
        }
        moved
    }

    fn place(&mut self, ino: u64, path: PathBuf) {
        if let Some(node) = self.nodes.get_mut(&ino) {
            node.path = Some(path.clone());
        }
        self.by_path.insert(path, ino);
    }

    /// Inodes currently allocated, the root included (for tests and diagnostics).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether only the root is allocated.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() <= 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> PathBuf {
        PathBuf::from(s)
    }

    #[test]
    fn lookup_reuses_and_forget_frees() {
        let mut t = InodeTable::new();
        assert_eq!(t.path(ROOT_INO), Some(PathBuf::new()));
        let a = t.lookup(&p("a"));
        assert!(a >= FIRST_FREE_INO && a != STATS_INO && a != CONTROL_INO);
        assert_eq!(t.lookup(&p("a")), a);
        t.forget(a, 1);
        assert_eq!(t.path(a), Some(p("a")), "one lookup still held");
        t.forget(a, 1);
        assert_eq!(t.path(a), None);
        assert_eq!(t.peek(&p("a")), None);
        assert_ne!(t.lookup(&p("a")), a, "numbers are not reused");
        t.forget(ROOT_INO, 100);
        assert_eq!(t.path(ROOT_INO), Some(PathBuf::new()));
    }

    #[test]
    fn rename_moves_a_directory_and_its_children() {
        let mut t = InodeTable::new();
        let d = t.lookup(&p("d"));
        let f = t.lookup(&p("d/f"));
        let g = t.lookup(&p("d/sub/g"));
        let other = t.lookup(&p("dx"));
        t.rename(&p("d"), &p("e/d2"));
        assert_eq!(t.path(d), Some(p("e/d2")));
        assert_eq!(t.path(f), Some(p("e/d2/f")));
        assert_eq!(t.path(g), Some(p("e/d2/sub/g")));
        assert_eq!(
            t.path(other),
            Some(p("dx")),
            "prefix by component, not by string"
        );
        assert_eq!(t.peek(&p("d/f")), None);
        assert_eq!(t.peek(&p("e/d2/f")), Some(f));
    }

    #[test]
    fn rename_over_a_file_detaches_the_target() {
        let mut t = InodeTable::new();
        let a = t.lookup(&p("a"));
        let b = t.lookup(&p("b"));
        t.rename(&p("a"), &p("b"));
        assert_eq!(t.path(a), Some(p("b")));
        assert_eq!(t.path(b), None);
        assert_eq!(t.peek(&p("b")), Some(a));
        // Forgetting the replaced node must not drop the mover's index entry.
        t.forget(b, 1);
        assert_eq!(t.peek(&p("b")), Some(a));
    }

    #[test]
    fn unlink_detaches_and_exchange_swaps() {
        let mut t = InodeTable::new();
        let a = t.lookup(&p("a"));
        t.detach(&p("a"));
        assert_eq!(t.path(a), None);
        let x = t.lookup(&p("x"));
        let x1 = t.lookup(&p("x/1"));
        let y = t.lookup(&p("y"));
        t.exchange(&p("x"), &p("y"));
        assert_eq!(t.path(x), Some(p("y")));
        assert_eq!(t.path(x1), Some(p("y/1")));
        assert_eq!(t.path(y), Some(p("x")));
        assert_eq!(t.len(), 5);
    }
}
