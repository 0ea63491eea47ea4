//! A batch's changes applied to the trie in memory: [`insert`] and [`delete`], which read the
//! stored nodes on a key's path as they go (through a [`Load`]), and keep the trie in the one
//! shape Ethereum's root depends on (no branch with a single child and no value, no extension
//! over anything but a branch, no leaf with an empty value).

use super::node::{corrupt, decode, Hash, Node};
use crate::EngineError;

/// Reads a stored node's encoding by its hash (`None`: not stored).
pub(crate) trait Load {
    /// The encoding stored under `hash`.
    fn load(&self, hash: &Hash) -> Result<Option<Vec<u8>>, EngineError>;
}

/// The node stored under `hash`, decoded; a missing one means a damaged store.
fn resolve(load: &dyn Load, hash: &Hash) -> Result<Node, EngineError> {
    match load.load(hash)? {
        Some(bytes) => decode(&bytes),
        None => Err(corrupt(&format!(
            "node {} is referred to but not stored",
            hex::encode(hash)
        ))),
    }
}

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// `node` with `value` (non-empty) at `path`.
pub(crate) fn insert(
    node: Node,
    path: &[u8],
    value: Vec<u8>,
    load: &dyn Load,
) -> Result<Node, EngineError> {
    Ok(match node {
        Node::Empty => Node::Leaf {
            path: path.to_vec(),
            value,
        },
        Node::Hash(hash) => insert(resolve(load, &hash)?, path, value, load)?,
        Node::Leaf {
            path: old_path,
            value: old_value,
        } => {
            if old_path == path {
                return Ok(Node::Leaf {
                    path: old_path,
                    value,
                });
            }
            let common = common_prefix(&old_path, path);
            let mut branch = Node::branch(None);
            place(&mut branch, &old_path[common..], old_value);
            place(&mut branch, &path[common..], value);
            Node::under(&path[..common], branch)
        }
        Node::Extension {
            path: ext_path,
            child,
        } => {
            let common = common_prefix(&ext_path, path);
            if common == ext_path.len() {
                return Ok(Node::Extension {
                    child: Box::new(insert(*child, &path[common..], value, load)?),
                    path: ext_path,
                });
            }
            // The extension splits at `common`: a branch there, the old child below it.
            let mut branch = Node::branch(None);
            if let Node::Branch { children, .. } = &mut branch {
                children[usize::from(ext_path[common])] =
                    Node::under(&ext_path[common + 1..], *child);
            }
            place(&mut branch, &path[common..], value);
            Node::under(&path[..common], branch)
        }
        Node::Branch {
            mut children,
            value: here,
        } => match path.split_first() {
            None => Node::Branch {
                children,
                value: Some(value),
            },
            Some((&first, rest)) => {
                let slot = &mut children[usize::from(first)];
                *slot = insert(std::mem::replace(slot, Node::Empty), rest, value, load)?;
                Node::Branch {
                    children,
                    value: here,
                }
            }
        },
    })
}

/// Puts `value` at `path` below a fresh `branch` (whose slot for it is empty).
fn place(branch: &mut Node, path: &[u8], value: Vec<u8>) {
    if let Node::Branch {
        children,
        value: here,
    } = branch
    {
        match path.split_first() {
            None => *here = Some(value),
            Some((&first, rest)) => {
                children[usize::from(first)] = Node::Leaf {
                    path: rest.to_vec(),
                    value,
                }
            }
        }
    }
}

/// Removes the value at `path` from `node`, in place; `false` if it holds none there (`node`
/// is then unchanged, and a stored node on the way stays as it was, unwritten).
pub(crate) fn delete(node: &mut Node, path: &[u8], load: &dyn Load) -> Result<bool, EngineError> {
    match node {
        Node::Empty => Ok(false),
        Node::Hash(hash) => {
            let mut read = resolve(load, hash)?;
            let changed = delete(&mut read, path, load)?;
            if changed {
                *node = read;
            }
            Ok(changed)
        }
        Node::Leaf {
            path: leaf_path, ..
        } => {
            let found = leaf_path.as_slice() == path;
            if found {
                *node = Node::Empty;
            }
            Ok(found)
        }
        Node::Extension {
            path: ext_path,
            child,
        } => {
            let Some(rest) = path.strip_prefix(ext_path.as_slice()) else {
                return Ok(false);
            };
            if !delete(child, rest, load)? {
                return Ok(false);
            }
            let child = std::mem::take(child.as_mut());
            *node = join(ext_path, child, load)?;
            Ok(true)
        }
        Node::Branch { children, value } => {
            match path.split_first() {
                None if value.is_none() => return Ok(false),
                None => *value = None,
                Some((&first, rest)) => {
                    if !delete(&mut children[usize::from(first)], rest, load)? {
                        return Ok(false);
                    }
                }
            }
            let children =
                std::mem::replace(children, Box::new(std::array::from_fn(|_| Node::Empty)));
            let value = value.take();
            *node = normalize(children, value, load)?;
            Ok(true)
        }
    }
}

/// `child` under the path `prefix`, merged with it where the child is a leaf or an extension.
fn join(prefix: &[u8], child: Node, load: &dyn Load) -> Result<Node, EngineError> {
    Ok(match child {
        Node::Empty => Node::Empty,
        Node::Hash(hash) => join(prefix, resolve(load, &hash)?, load)?,
        Node::Leaf { path, value } => Node::Leaf {
            path: [prefix, &path].concat(),
            value,
        },
        Node::Extension { path, child } => Node::Extension {
            path: [prefix, &path].concat(),
            child,
        },
        branch @ Node::Branch { .. } => Node::under(prefix, branch),
    })
}

/// A branch after a deletion below or at it: still a branch if it has two children, or one and
/// a value; else what is left, pulled up.
fn normalize(
    mut children: Box<[Node; 16]>,
    value: Option<Vec<u8>>,
    load: &dyn Load,
) -> Result<Node, EngineError> {
    let mut used = children
        .iter()
        .enumerate()
        .filter(|(_, c)| !matches!(c, Node::Empty))
        .map(|(i, _)| i);
    let (first, second) = (used.next(), used.next());
    Ok(match (first, second, value) {
        (None, _, None) => Node::Empty,
        (None, _, Some(value)) => Node::Leaf {
            path: Vec::new(),
            value,
        },
        (Some(only), None, None) => {
            let child = std::mem::replace(&mut children[only], Node::Empty);
            // `only` is below 16.
            join(&[only as u8], child, load)?
        }
        (_, _, value) => Node::Branch { children, value },
    })
}
