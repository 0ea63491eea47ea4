//! Rebuilding a crash state from an op log: which operations a crash after the first `k`
//! leaves behind under a [`CrashModel`], sampled with a seeded generator, and writing that state
//! to a directory for the store to be reopened on.
//!
//! Files are followed by identity, not by name: a file is the one a create made (its id is the
//! create's index in the log), a write reaches the file its path named at that moment, and a
//! rename moves the name, not the data. A data change is *durable* once a later successful
//! fsync of its file came before the crash, *lost* when the first fsync after it failed (a
//! failed fsync's data never comes back), and *pending* otherwise; the model decides which
//! pending changes survive. Names follow the metadata rule of the model (see [`CrashModel`]).

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::io;
use std::path::Path;

use super::kind::CrashModel;
use super::oplog::{LoadedLog, LogOp};
use super::rng::SplitMix64;

/// One node of a crash state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// A directory.
    Dir,
    /// A regular file and its content.
    File(Vec<u8>),
    /// A symbolic link and its target.
    Symlink(String),
}

/// What a crash left: every name and its node, and how the state came about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CrashState {
    /// Every path (relative to the root, the root itself not included) and its node.
    pub nodes: BTreeMap<String, Node>,
    /// Pending data changes that survived (whole or torn).
    pub kept: usize,
    /// Pending data changes that did not survive.
    pub dropped: usize,
    /// Surviving writes that persisted only some of their sectors.
    pub torn: usize,
    /// Name changes (create, rename, unlink, ...) lost for want of a directory fsync.
    pub metadata_lost: usize,
    /// Data changes lost to a failed fsync.
    pub lost_to_failed_fsync: usize,
}

impl CrashState {
    /// One line saying how this state differs from the clean cut.
    pub fn describe(&self) -> String {
        format!(
            "{} pending changes kept ({} torn), {} dropped, {} name changes lost, {} lost to a failed fsync",
            self.kept, self.torn, self.dropped, self.metadata_lost, self.lost_to_failed_fsync
        )
    }

    /// Writes the state into `dir` (an existing, empty directory). Names are created new
    /// (`O_EXCL`), so nothing already there, a symlink included, is followed or overwritten.
    ///
    /// # Errors
    /// Any failed create or write.
    pub fn materialise(&self, dir: &Path) -> io::Result<()> {
        use std::io::Write;
        for (path, node) in &self.nodes {
            let target = dir.join(path);
            match node {
                Node::Dir => fs::create_dir(&target)?,
                Node::File(bytes) => fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&target)?
                    .write_all(bytes)?,
                Node::Symlink(to) => std::os::unix::fs::symlink(to, &target)?,
            }
        }
        Ok(())
    }
}

/// The crash points of a log: just before each sync-family call (the moment with the most
/// pending), and after the last operation.
pub fn crash_points(log: &LoadedLog) -> Vec<usize> {
    let mut points: Vec<usize> = log
        .ops
        .iter()
        .enumerate()
        .filter(|(_, op)| op.is_sync())
        .map(|(i, _)| i)
        .collect();
    points.push(log.ops.len());
    points.dedup();
    points
}

/// A name's entry while replaying: what it points to.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    Dir,
    /// A file, by id (the index of the create that made it).
    File(usize),
    Symlink(String),
}

/// What happens to one data change at the crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Durable,
    Pending,
    Lost,
}

/// A log prepared for sampling crash states at many points.
#[derive(Debug)]
pub struct Replay<'a> {
    log: &'a LoadedLog,
    /// For each op index: the file id a data or sync op reached (by its path at that moment).
    target: Vec<Option<usize>>,
    /// For each data op: the index of the first sync op of the same file after it, which
    /// decides its fate at any crash after that op. Found once for the whole log, so a
    /// sample costs a lookup per change rather than a scan to the next fsync (a SQLite WAL's
    /// thousands of writes before one fsync made that scan quadratic).
    next_sync: Vec<Option<usize>>,
}

impl<'a> Replay<'a> {
    /// Resolves every data and sync operation of `log` to the file it reached.
    pub fn new(log: &'a LoadedLog) -> Replay<'a> {
        let mut names: BTreeMap<String, Entry> = BTreeMap::new();
        let mut target = vec![None; log.ops.len()];
        for (i, op) in log.ops.iter().enumerate() {
            match op {
                LogOp::Write { path, .. }
                | LogOp::SetLen { path, .. }
                | LogOp::Fsync { path }
                | LogOp::WriteSynced { path }
                | LogOp::FsyncFailed { path } => {
                    if let Some(Entry::File(id)) = names.get(path) {
                        target[i] = Some(*id);
                    }
                }
                _ => apply_name_op(&mut names, i, op),
            }
        }
        let mut next_sync = vec![None; log.ops.len()];
        let mut later_sync: HashMap<usize, usize> = HashMap::new();
        for (i, op) in log.ops.iter().enumerate().rev() {
            let Some(id) = target[i] else { continue };
            match op {
                LogOp::Write { .. } | LogOp::SetLen { .. } => {
                    next_sync[i] = later_sync.get(&id).copied();
                }
                LogOp::Fsync { .. } | LogOp::WriteSynced { .. } | LogOp::FsyncFailed { .. } => {
                    later_sync.insert(id, i);
                }
                _ => {}
            }
        }
        Replay {
            log,
            target,
            next_sync,
        }
    }

    /// One crash state after the first `k` operations under `model`, chosen by `rng`.
    pub fn sample(&self, k: usize, model: CrashModel, rng: &mut SplitMix64) -> CrashState {
        let k = k.min(self.log.ops.len());
        let ops = &self.log.ops[..k];
        let mut state = CrashState::default();

        // Names: every name change, or (metadata model) an ordered prefix of them that covers
        // at least every one a later directory fsync made durable.
        let meta: Vec<usize> = (0..k).filter(|&i| ops[i].is_metadata()).collect();
        let keep_meta = if model.strict_metadata() {
            let forced = meta
                .iter()
                .rposition(|&m| {
                    let parent = parent_of(name_changed(&ops[m]));
                    ops[m + 1..]
                        .iter()
                        .any(|op| matches!(op, LogOp::FsyncDir { path } if *path == parent))
                })
                .map_or(0, |p| p + 1);
            forced + rng.below((meta.len() - forced) as u64 + 1) as usize
        } else {
            meta.len()
        };
        state.metadata_lost = meta.len() - keep_meta;
        let mut names: BTreeMap<String, Entry> = BTreeMap::new();
        for &m in &meta[..keep_meta] {
            apply_name_op(&mut names, m, &ops[m]);
        }

        // Data: each change's fate, then the model's choice among the pending ones.
        let p_keep = if model.keeps_unsynced_data() {
            (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64
        } else {
            0.0
        };
        let mut contents: HashMap<usize, Vec<u8>> = HashMap::new();
        let mut wanted: Vec<usize> = names
            .values()
            .filter_map(|e| match e {
                Entry::File(id) => Some(*id),
                _ => None,
            })
            .collect();
        wanted.sort_unstable();
        wanted.dedup();
        for &id in &wanted {
            let mut content = Vec::new();
            for i in (0..k).filter(|&i| self.target[i] == Some(id)) {
                let fate = match &ops[i] {
                    LogOp::Write { .. } | LogOp::SetLen { .. } => self.fate(i, k),
                    _ => continue,
                };
                match fate {
                    Fate::Durable => apply_data(&mut content, &ops[i], &self.log.data, None),
                    Fate::Lost => state.lost_to_failed_fsync += 1,
                    Fate::Pending if p_keep == 0.0 || !rng.chance(p_keep) => state.dropped += 1,
                    Fate::Pending => {
                        state.kept += 1;
                        let sectors = match (model.sector(), &ops[i]) {
                            (Some(sector), LogOp::Write { offset, len, .. }) => {
                                tear(*offset, *len, u64::from(sector), rng)
                            }
                            _ => None,
                        };
                        state.torn += usize::from(sectors.is_some());
                        apply_data(&mut content, &ops[i], &self.log.data, sectors.as_deref());
                    }
                }
            }
            contents.insert(id, content);
        }
        for (path, entry) in names {
            let node = match entry {
                Entry::Dir => Node::Dir,
                Entry::Symlink(t) => Node::Symlink(t),
                Entry::File(id) => Node::File(contents.get(&id).cloned().unwrap_or_default()),
            };
            state.nodes.insert(path, node);
        }
        state
    }

    /// The fate of data change `i` at a crash after `k` operations: decided by the first fsync
    /// of its file after it, if that came before the crash.
    fn fate(&self, i: usize, k: usize) -> Fate {
        match self.next_sync[i]
            .filter(|&j| j < k)
            .map(|j| &self.log.ops[j])
        {
            Some(LogOp::FsyncFailed { .. }) => Fate::Lost,
            Some(_) => Fate::Durable,
            None => Fate::Pending,
        }
    }
}

/// The path a name change is about: the new name where there is one.
fn name_changed(op: &LogOp) -> &str {
    match op {
        LogOp::Create { path }
        | LogOp::Mkdir { path }
        | LogOp::Symlink { path, .. }
        | LogOp::Unlink { path }
        | LogOp::Rmdir { path } => path,
        LogOp::Link { to, .. } | LogOp::Rename { to, .. } => to,
        _ => "",
    }
}

/// The parent directory of a relative path (`""` is the root).
fn parent_of(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((parent, _)) => parent.to_string(),
        None => String::new(),
    }
}

/// Applies a name change at log index `i` to `names`.
fn apply_name_op(names: &mut BTreeMap<String, Entry>, i: usize, op: &LogOp) {
    match op {
        LogOp::Create { path } => {
            names.insert(path.clone(), Entry::File(i));
        }
        LogOp::Mkdir { path } => {
            names.insert(path.clone(), Entry::Dir);
        }
        LogOp::Symlink { path, target } => {
            names.insert(path.clone(), Entry::Symlink(target.clone()));
        }
        LogOp::Link { from, to } => {
            if let Some(e) = names.get(from).cloned() {
                names.insert(to.clone(), e);
            }
        }
        LogOp::Unlink { path } | LogOp::Rmdir { path } => {
            names.remove(path);
        }
        LogOp::Rename { from, to } => {
            let Some(e) = names.remove(from) else { return };
            if e == Entry::Dir {
                let prefix = format!("{from}/");
                let moved: Vec<String> = names
                    .keys()
                    .filter(|p| p.starts_with(&prefix))
                    .cloned()
                    .collect();
                for old in moved {
                    if let Some(child) = names.remove(&old) {
                        names.insert(format!("{to}/{}", &old[prefix.len()..]), child);
                    }
                }
            }
            names.insert(to.clone(), e);
        }
        _ => {}
    }
}

/// Which sector-aligned pieces of a write of `len` bytes at `offset` survive, if the write
/// tears: `None` for a whole write (including one within a single sector).
fn tear(offset: u64, len: u64, sector: u64, rng: &mut SplitMix64) -> Option<Vec<(u64, u64)>> {
    let mut pieces = Vec::new();
    let mut at = offset;
    let end = offset + len;
    while at < end {
        let next = ((at / sector) + 1) * sector;
        let stop = next.min(end);
        pieces.push((at, stop - at));
        at = stop;
    }
    if pieces.len() < 2 {
        return None;
    }
    match rng.below(3) {
        0 => None,
        1 => {
            let keep = rng.below(pieces.len() as u64) as usize;
            pieces.truncate(keep);
            Some(pieces)
        }
        _ => {
            let kept: Vec<(u64, u64)> = pieces.into_iter().filter(|_| rng.chance(0.5)).collect();
            Some(kept)
        }
    }
}

/// Applies a write or size change to `content`; for a torn write, only `pieces` of it.
fn apply_data(content: &mut Vec<u8>, op: &LogOp, data: &[u8], pieces: Option<&[(u64, u64)]>) {
    match op {
        LogOp::SetLen { len, .. } => content.resize(*len as usize, 0),
        LogOp::Write {
            offset,
            len,
            data_at,
            ..
        } => {
            let whole = [(*offset, *len)];
            for &(at, n) in pieces.unwrap_or(&whole) {
                let (start, end) = (at as usize, (at + n) as usize);
                if content.len() < end {
                    content.resize(end, 0);
                }
                let from = (*data_at + (at - offset)) as usize;
                content[start..end].copy_from_slice(&data[from..from + n as usize]);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::kind::DEFAULT_SECTOR;

    fn w(path: &str, offset: u64) -> LogOp {
        LogOp::Write {
            path: path.into(),
            offset,
            len: 0,
            data_at: 0,
        }
    }

    fn file<'s>(s: &'s CrashState, path: &str) -> Option<&'s [u8]> {
        match s.nodes.get(path) {
            Some(Node::File(b)) => Some(b),
            _ => None,
        }
    }

    /// create f; write "old" + fsync; write "new" (unsynced); the log so far.
    fn synced_then_unsynced() -> LoadedLog {
        let mut log = LoadedLog::default();
        log.push(LogOp::Create { path: "f".into() }, None);
        log.push(w("f", 0), Some(b"old"));
        log.push(LogOp::Fsync { path: "f".into() }, None);
        log.push(w("f", 0), Some(b"new"));
        log
    }

    /// Each data change's fate, from the index found once for the log, is what a scan from
    /// the change to the first sync of its file says (the rule in the module's docs), at every
    /// crash point, on random logs: writes, size changes, fsyncs, failed fsyncs and synced
    /// writes over three files, one of them renamed over another midway.
    #[test]
    fn each_change_s_fate_is_that_of_the_first_sync_of_its_file_after_it() {
        let scanned = |replay: &Replay, i: usize, k: usize| {
            let id = replay.target[i];
            for j in i + 1..k {
                if replay.target[j] != id {
                    continue;
                }
                match replay.log.ops[j] {
                    LogOp::Fsync { .. } | LogOp::WriteSynced { .. } => return Fate::Durable,
                    LogOp::FsyncFailed { .. } => return Fate::Lost,
                    _ => {}
                }
            }
            Fate::Pending
        };
        let mut fates = [0usize; 3];
        for seed in 0..20 {
            let mut rng = SplitMix64::new(seed);
            let mut log = LoadedLog::default();
            for path in ["a", "b", "c"] {
                log.push(LogOp::Create { path: path.into() }, None);
            }
            for n in 0..300 {
                let path: String = ["a", "b", "c"][rng.below(3) as usize].into();
                if n == 150 {
                    log.push(
                        LogOp::Rename {
                            from: "c".into(),
                            to: "a".into(),
                        },
                        None,
                    );
                    log.push(LogOp::Create { path: "c".into() }, None);
                }
                let op = match rng.below(10) {
                    0 => LogOp::Fsync { path },
                    1 => LogOp::FsyncFailed { path },
                    2 => LogOp::WriteSynced { path },
                    3 => LogOp::SetLen { path, len: 1 },
                    _ => w(&path, 0),
                };
                let data = matches!(op, LogOp::Write { .. }).then_some(&b"x"[..]);
                log.push(op, data);
            }
            let replay = Replay::new(&log);
            for i in 0..log.ops.len() {
                if !matches!(log.ops[i], LogOp::Write { .. } | LogOp::SetLen { .. }) {
                    continue;
                }
                for k in i + 1..=log.ops.len() {
                    let fate = replay.fate(i, k);
                    assert_eq!(
                        fate,
                        scanned(&replay, i, k),
                        "seed {seed}, change {i}, crash at {k}"
                    );
                    fates[fate as usize] += 1;
                }
            }
        }
        assert!(fates.iter().all(|&n| n > 0), "every fate seen: {fates:?}");
    }

    #[test]
    fn a_clean_cut_keeps_synced_data_and_every_name() {
        let log = synced_then_unsynced();
        assert_eq!(crash_points(&log), vec![2, 4]);
        let replay = Replay::new(&log);
        let mut rng = SplitMix64::new(1);
        let s = replay.sample(4, CrashModel::Clean, &mut rng);
        assert_eq!(file(&s, "f"), Some(&b"old"[..]));
        assert_eq!(s.dropped, 1);
        let s = replay.sample(2, CrashModel::Clean, &mut rng);
        assert_eq!(file(&s, "f"), Some(&b""[..]), "the create survives at once");
    }

    #[test]
    fn reordered_keeps_any_subset_across_files() {
        let mut log = LoadedLog::default();
        for f in ["a", "b"] {
            log.push(LogOp::Create { path: f.into() }, None);
            log.push(w(f, 0), Some(b"x"));
        }
        let replay = Replay::new(&log);
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..200 {
            let s = replay.sample(4, CrashModel::Reordered, &mut SplitMix64::derive(9, i));
            seen.insert((file(&s, "a").unwrap().len(), file(&s, "b").unwrap().len()));
        }
        assert_eq!(seen.len(), 4, "every subset of the two writes: {seen:?}");
    }

    #[test]
    fn torn_writes_keep_some_sectors() {
        let mut log = LoadedLog::default();
        log.push(LogOp::Create { path: "f".into() }, None);
        log.push(w("f", 0), Some(&[7u8; 2048]));
        let replay = Replay::new(&log);
        let model = CrashModel::Torn {
            sector: DEFAULT_SECTOR,
        };
        let torn = (0..200).any(|i| {
            let s = replay.sample(2, model, &mut SplitMix64::derive(3, i));
            let b = file(&s, "f").unwrap();
            s.torn == 1
                && b.iter().filter(|&&x| x == 7).count() % 512 == 0
                && b.iter().filter(|&&x| x == 7).count() < 2048
                && !b.is_empty()
        });
        assert!(torn, "some state persists part of the write");
    }

    #[test]
    fn metadata_needs_a_directory_fsync() {
        let mut log = synced_then_unsynced();
        let replay = Replay::new(&log);
        let lost = (0..100).any(|i| {
            let s = replay.sample(4, CrashModel::Metadata, &mut SplitMix64::derive(5, i));
            file(&s, "f").is_none()
        });
        assert!(
            lost,
            "an fsynced file whose directory was not fsynced may vanish"
        );
        log.push(
            LogOp::FsyncDir {
                path: String::new(),
            },
            None,
        );
        let replay = Replay::new(&log);
        for i in 0..100 {
            let s = replay.sample(5, CrashModel::Metadata, &mut SplitMix64::derive(5, i));
            assert_eq!(file(&s, "f"), Some(&b"old"[..]));
        }
    }

    #[test]
    fn a_rename_without_a_directory_fsync_may_leave_the_old_file() {
        let mut log = LoadedLog::default();
        log.push(LogOp::Create { path: "cur".into() }, None);
        log.push(w("cur", 0), Some(b"v1"));
        log.push(LogOp::Fsync { path: "cur".into() }, None);
        log.push(
            LogOp::FsyncDir {
                path: String::new(),
            },
            None,
        );
        log.push(LogOp::Create { path: "tmp".into() }, None);
        log.push(w("tmp", 0), Some(b"v2"));
        log.push(LogOp::Fsync { path: "tmp".into() }, None);
        log.push(
            LogOp::Rename {
                from: "tmp".into(),
                to: "cur".into(),
            },
            None,
        );
        let replay = Replay::new(&log);
        let mut seen = std::collections::BTreeSet::new();
        for i in 0..100 {
            let s = replay.sample(8, CrashModel::Metadata, &mut SplitMix64::derive(2, i));
            seen.insert(file(&s, "cur").unwrap().to_vec());
        }
        assert_eq!(seen.len(), 2, "old and new content both possible: {seen:?}");
        let s = replay.sample(8, CrashModel::Clean, &mut SplitMix64::new(0));
        assert_eq!(file(&s, "cur"), Some(&b"v2"[..]));
        assert!(file(&s, "tmp").is_none());
    }

    #[test]
    fn data_a_failed_fsync_covered_is_lost_even_after_a_later_fsync() {
        let mut log = LoadedLog::default();
        log.push(LogOp::Create { path: "f".into() }, None);
        log.push(w("f", 0), Some(b"a"));
        log.push(LogOp::FsyncFailed { path: "f".into() }, None);
        log.push(w("f", 1), Some(b"b"));
        log.push(LogOp::Fsync { path: "f".into() }, None);
        let replay = Replay::new(&log);
        let s = replay.sample(5, CrashModel::Clean, &mut SplitMix64::new(0));
        assert_eq!(file(&s, "f"), Some(&b"\0b"[..]));
        assert_eq!(s.lost_to_failed_fsync, 1);
    }

    #[test]
    fn a_state_materialises_and_renamed_directories_carry_their_files() {
        let mut log = LoadedLog::default();
        log.push(LogOp::Mkdir { path: "d".into() }, None);
        log.push(LogOp::Create { path: "d/f".into() }, None);
        log.push(w("d/f", 0), Some(b"hi"));
        log.push(LogOp::Fsync { path: "d/f".into() }, None);
        log.push(
            LogOp::Rename {
                from: "d".into(),
                to: "e".into(),
            },
            None,
        );
        log.push(
            LogOp::Symlink {
                path: "l".into(),
                target: "e/f".into(),
            },
            None,
        );
        let replay = Replay::new(&log);
        let s = replay.sample(6, CrashModel::Clean, &mut SplitMix64::new(0));
        let dir = tempfile::tempdir().unwrap();
        s.materialise(dir.path()).unwrap();
        assert_eq!(fs::read(dir.path().join("e/f")).unwrap(), b"hi");
        assert_eq!(fs::read(dir.path().join("l")).unwrap(), b"hi");
        assert!(!dir.path().join("d").exists());
    }
}
