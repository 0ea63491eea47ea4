//! [`Snapshot`]: the committed tables as one reader sees them, and how a commit makes the next
//! one without copying the tables while readers hold them.
//!
//! While no reader has held the tables, a commit applies its changes to them in place (the path
//! every benchmark without readers takes). Once readers hold them, a commit becomes a [`Layer`]
//! on top instead: readers keep what they see, and the commit costs its own size, not the
//! store's. Layers of similar size are merged (each change is copied O(log n) times), so a
//! lookup looks through a handful of them. Every [`FOLD_AT_CHANGES`] changes the layers fold
//! into a second copy of the tables that no reader sees (the [`Spare`]): it lacks only the
//! layers of the fold before, so catching it up costs what they hold, and it becomes the new
//! base while the old base becomes the spare. The spare is made by copying the tables once,
//! at the first fold (and again if a reader still holds it when it is wanted), on a thread of
//! its own ([`Copying`]), which also applies the layers there are when it starts: commits go on
//! as layers meanwhile. When it is done, the layers made while it ran are applied on the thread
//! again if they hold more than a fold's worth, and the fold takes the copy once few are left
//! (or waits for it once the layers hold [`COPY_LAG_FOLDS`] folds' worth of changes). From
//! then on the store holds its tables twice and every commit goes through a layer, until
//! [`QUIET_COMMITS`] commits in a row find no reader: then the layers go back into the tables
//! in place, the spare is dropped and commits apply in place again. Layers made before the
//! first fold go back in place as soon as no reader holds the tables.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::iter::Peekable;
use std::ops::{Bound, ControlFlow};
use std::sync::Arc;

use super::background::Background;
use super::entry::{Entry, KeyRef};
use super::pending::{apply, InOrder, Map, Pending};
use crate::range::KeyRange;

/// Every table's entries, in declaration order.
pub(super) type Tables = Vec<Map>;

/// Layers fold into the spare once they hold this many changes: a lookup then looks through
/// a few small layers, and a fold applies at most twice this many.
const FOLD_AT_CHANGES: usize = 4096;

/// How far layers may grow past a fold's worth while the copy a fold needs is made, in folds:
/// then the fold waits for the copy, so lookups never look through more than a few dozen layers.
const COPY_LAG_FOLDS: usize = 64;

/// After this many commits in a row with no reader on the tables or the spare, the readers
/// are taken to be gone: the layers go back into the tables in place and the spare is dropped,
/// so commits apply in place again. Readers running back to back leave no such run, and a
/// brief lull does not cost the copy a new spare would take.
const QUIET_COMMITS: u32 = 64;

/// One commit's changes (or several merged), per table, seen on top of the tables below.
#[derive(Debug, Clone)]
pub(super) struct Layer {
    tables: Vec<Pending>,
    /// Per table, how many entries these changes add (negative: remove) to what is below.
    added: Vec<i64>,
    changes: usize,
}

/// The committed tables at one moment: the tables, then the layers of commits made on top of
/// them while readers held them, oldest first.
#[derive(Debug, Clone)]
pub(super) struct Snapshot {
    base: Arc<Tables>,
    layers: Vec<Arc<Layer>>,
    /// Changes in `layers` before they fold into the spare (see [`FOLD_AT_CHANGES`]).
    fold_at: usize,
    /// Folds' worth of changes the layers may hold while a fold waits for its copy (see
    /// [`COPY_LAG_FOLDS`]).
    lag_folds: usize,
    /// A gate each copy's thread waits to find open before copying (tests only).
    #[cfg(test)]
    pub(super) copy_gate: Option<Arc<std::sync::atomic::AtomicBool>>,
}

/// A second copy of the tables that only the writer holds (readers may still be finishing
/// with it), lacking the layers `behind`, oldest first: what a fold catches up instead of
/// copying the tables.
#[derive(Debug)]
pub(super) struct Spare {
    tables: Arc<Tables>,
    behind: Vec<Arc<Layer>>,
    /// Commits in a row that found no reader on the tables or the spare (see
    /// [`QUIET_COMMITS`]).
    quiet: u32,
}

/// A copy of the tables `of` (which stay as they are while it is made) being brought up to
/// date on a thread of its own: the result holds the layers `applied` too, oldest first.
#[derive(Debug)]
struct Copying {
    of: Arc<Tables>,
    applied: Vec<Arc<Layer>>,
    job: Background<Tables>,
}

/// What only the writer keeps between commits: the spare, and a copy of the tables in the
/// making when no spare could serve a fold.
#[derive(Debug, Default)]
pub(super) struct WriterSide {
    spare: Option<Spare>,
    copying: Option<Copying>,
}

impl WriterSide {
    /// The copy in the making, if it is of `tables`.
    fn copy_of(&self, tables: &Arc<Tables>) -> Option<&Copying> {
        self.copying.as_ref().filter(|c| Arc::ptr_eq(&c.of, tables))
    }

    /// Whether the store holds a spare copy of its tables.
    #[cfg(test)]
    pub(super) fn has_spare(&self) -> bool {
        self.spare.is_some()
    }

    /// Whether a copy of the tables is being made for a fold.
    #[cfg(test)]
    pub(super) fn is_copying(&self) -> bool {
        self.copying.is_some()
    }

    /// Whether a copy being made for a fold is done.
    #[cfg(test)]
    pub(super) fn copy_done(&self) -> bool {
        self.copying.as_ref().is_some_and(|c| c.job.is_done())
    }
}

impl Snapshot {
    /// `count` empty tables.
    pub(super) fn empty(count: usize) -> Snapshot {
        Snapshot::with_fold_at(count, FOLD_AT_CHANGES, COPY_LAG_FOLDS)
    }

    /// As [`empty`](Self::empty), folding layers from `fold_at` changes on, and waiting for a
    /// fold's copy from `lag_folds` folds' worth (tests fold early; 1 waits at once).
    pub(super) fn with_fold_at(count: usize, fold_at: usize, lag_folds: usize) -> Snapshot {
        Snapshot {
            base: Arc::new(vec![Map::new(); count]),
            layers: Vec::new(),
            fold_at,
            lag_folds,
            #[cfg(test)]
            copy_gate: None,
        }
    }

    /// How many tables there are.
    pub(super) fn table_count(&self) -> usize {
        self.base.len()
    }

    /// The entry of `key` in table `t`, if any: the newest layer that mentions the key decides.
    pub(super) fn get(&self, t: usize, key: &KeyRef) -> Option<&Entry> {
        for layer in self.layers.iter().rev() {
            if let Some(found) = layer.tables[t].find(key) {
                return found;
            }
        }
        self.base[t].get(key)
    }

    /// How many entries table `t` holds, with `top` (a writer's overlay) on top of the layers.
    pub(super) fn len(&self, t: usize, top: Option<&Pending>) -> u64 {
        let layered: i64 = self.layers.iter().map(|l| l.added[t]).sum();
        let added = layered + top.map_or(0, |changes| self.added_by(t, changes));
        (self.base[t].len() as i64 + added).max(0) as u64
    }

    /// Visits table `t`'s entries in `range` in key order, with `top` (a writer's overlay) on
    /// top of the layers.
    pub(super) fn scan<F>(&self, t: usize, top: Option<&Pending>, range: &KeyRange, visit: F)
    where
        F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
    {
        let layers = self.layers.iter().map(|l| &l.tables[t]).chain(top);
        scan_layered(&self.base[t], layers, range, visit);
    }

    /// Commits `changes` (one [`Pending`] per table, made against this snapshot): in place
    /// when no reader holds the tables (and, once a spare exists, none has for
    /// [`QUIET_COMMITS`] commits), else as a layer on top, folded from time to time into
    /// the spare (see the module docs). Only the writer holds `side`.
    pub(super) fn commit(&mut self, changes: Vec<Pending>, side: &mut WriterSide) {
        // A copy being made holds the tables too: they stay as they are until it is done.
        let unheld = Arc::get_mut(&mut self.base).is_some();
        let readers_gone = match &mut side.spare {
            None => unheld,
            Some(kept) => {
                let quiet = unheld && Arc::strong_count(&kept.tables) == 1;
                kept.quiet = if quiet { kept.quiet + 1 } else { 0 };
                kept.quiet >= QUIET_COMMITS
            }
        };
        if readers_gone {
            if let Some(tables) = Arc::get_mut(&mut self.base) {
                side.spare = None;
                // Any layer is held only by snapshots on these tables, and none is left but
                // this one.
                for layer in self.layers.drain(..) {
                    apply_all(tables, Arc::unwrap_or_clone(layer).tables);
                }
                apply_all(tables, changes);
                return;
            }
        }
        let layer = self.layer_of(changes);
        self.layers.push(Arc::new(layer));
        // The layers a copy in the making holds stay as they are, so it is known what it lacks.
        let frozen = side.copy_of(&self.base).map_or(0, |c| c.applied.len());
        self.merge_similar_layers(frozen);
        let changes: usize = self.layers.iter().map(|l| l.changes).sum();
        if changes >= self.fold_at {
            self.fold(side, changes);
        }
    }

    /// Makes the tables with every layer applied the new base: the spare caught up in place if
    /// no reader holds it any more, else a copy of the tables (the first time readers show up,
    /// or while one holds on to old tables), once it is made. The old base becomes the spare,
    /// lacking exactly the layers just applied. `changes` is what the layers hold.
    fn fold(&mut self, side: &mut WriterSide, changes: usize) {
        let quiet = side.spare.as_ref().map_or(0, |kept| kept.quiet);
        let caught_up = match Self::spare_caught_up(side) {
            Some(tables) => Some((tables, Vec::new())),
            None => self.copy_of_base(side, changes),
        };
        let Some((mut caught_up, applied)) = caught_up else {
            // The copy is still being made: the layers wait for it.
            return;
        };
        let layers = std::mem::take(&mut self.layers);
        for layer in lacking(&layers, &applied) {
            apply_all(&mut caught_up, layer.tables.clone());
        }
        let old = std::mem::replace(&mut self.base, Arc::new(caught_up));
        side.spare = Some(Spare {
            tables: old,
            behind: layers,
            quiet,
        });
    }

    /// The spare with the layers it lacks applied, if no reader holds it any more. A spare a
    /// reader still holds is let go (it is freed when the reader is done).
    fn spare_caught_up(side: &mut WriterSide) -> Option<Tables> {
        let Spare { tables, behind, .. } = side.spare.take()?;
        let mut copy = Arc::try_unwrap(tables).ok()?;
        // No snapshot is left on the spare, so none holds the layers it lacks.
        for layer in behind {
            apply_all(&mut copy, Arc::unwrap_or_clone(layer).tables);
        }
        Some(copy)
    }

    /// A copy of the tables under the layers, with the layers it already holds: started on a
    /// thread of its own the first time it is wanted (with the layers there are then), brought
    /// up to date there again while more than a fold's worth of layers came after, and taken
    /// once done, or waited for once the layers hold `changes` of [`lag_folds`](Self::lag_folds)
    /// folds' worth.
    fn copy_of_base(
        &self,
        side: &mut WriterSide,
        changes: usize,
    ) -> Option<(Tables, Vec<Arc<Layer>>)> {
        let lagging = changes >= self.fold_at.saturating_mul(self.lag_folds);
        if side.copy_of(&self.base).is_none() {
            let source = Arc::clone(&self.base);
            let started = self.start_copy(move || (*source).clone(), self.layers.clone());
            if started.is_none() {
                // No thread could be started: copy here, as the fold must go on.
                return Some(((*self.base).clone(), Vec::new()));
            }
            side.copying = started;
        }
        if !(lagging || side.copying.as_ref()?.job.is_done()) {
            return None;
        }
        let Copying { applied, job, .. } = side.copying.take()?;
        let copy = job.finish();
        let behind: Vec<Arc<Layer>> = lacking(&self.layers, &applied).to_vec();
        if lagging || behind.iter().map(|l| l.changes).sum::<usize>() <= self.fold_at {
            return Some((copy, applied));
        }
        // Many commits came while it was made: apply them on the thread too. (Should no thread
        // start, this copy is lost, and the next fold starts another or copies in place.)
        let mut now_applied = applied;
        now_applied.extend(behind.iter().cloned());
        side.copying = self.start_copy(move || copy, behind).map(|mut c| {
            c.applied = now_applied;
            c
        });
        None
    }

    /// Starts making `start()` with `layers` applied on a thread of its own, as a copy of the
    /// current tables; `None` if no thread could be started.
    fn start_copy<F>(&self, start: F, layers: Vec<Arc<Layer>>) -> Option<Copying>
    where
        F: FnOnce() -> Tables + Send + 'static,
    {
        #[cfg(test)]
        let gate = self.copy_gate.clone();
        let applied = layers.clone();
        let job = Background::start("btree-copy", move || {
            #[cfg(test)]
            while gate
                .as_ref()
                .is_some_and(|open| !open.load(std::sync::atomic::Ordering::Acquire))
            {
                std::thread::yield_now();
            }
            let mut tables = start();
            for layer in &layers {
                apply_all(&mut tables, layer.tables.clone());
            }
            tables
        })?;
        Some(Copying {
            of: Arc::clone(&self.base),
            applied,
            job,
        })
    }

    /// How many layers lie on the tables (none once a commit went in place).
    #[cfg(test)]
    pub(super) fn layer_count(&self) -> usize {
        self.layers.len()
    }

    /// Whether both snapshots read the same tables (no copy was made between them).
    #[cfg(test)]
    pub(super) fn shares_tables_with(&self, other: &Snapshot) -> bool {
        Arc::ptr_eq(&self.base, &other.base)
    }

    /// Where the tables' maps live: the same for a spare caught up in place, new for a copy.
    #[cfg(test)]
    pub(super) fn tables_address(&self) -> usize {
        self.base.as_ptr() as usize
    }

    /// How many entries `changes` (made against this snapshot) add to table `t` (negative:
    /// remove). A writer deletes only keys its snapshot holds; a put adds a key it lacks.
    fn added_by(&self, t: usize, changes: &Pending) -> i64 {
        let new = changes
            .puts
            .iter()
            .filter(|e| self.get(t, (*e).borrow()).is_none())
            .count();
        new as i64 - changes.deletes.len() as i64
    }

    /// `changes` as a layer on this snapshot, counting what each table gains.
    fn layer_of(&self, changes: Vec<Pending>) -> Layer {
        let added = (changes.iter().enumerate())
            .map(|(t, p)| self.added_by(t, p))
            .collect();
        Layer {
            changes: changes.iter().map(Pending::len).sum(),
            tables: changes,
            added,
        }
    }

    /// Merges the newest layer into the one below while that one is at most twice its size, so
    /// sizes at least double downwards: few layers, each change copied O(log n) times. The
    /// `frozen` oldest layers are left as they are.
    fn merge_similar_layers(&mut self, frozen: usize) {
        while let [.., older, newer] = self.layers.get(frozen..).unwrap_or_default() {
            if older.changes > 2 * newer.changes {
                break;
            }
            let (Some(newer), Some(older)) = (self.layers.pop(), self.layers.pop()) else {
                break;
            };
            let Layer {
                tables: newer_tables,
                added: newer_added,
                ..
            } = Arc::unwrap_or_clone(newer);
            let mut merged = Arc::unwrap_or_clone(older);
            for (pending, newer) in merged.tables.iter_mut().zip(newer_tables) {
                pending.absorb(newer);
            }
            for (a, b) in merged.added.iter_mut().zip(newer_added) {
                *a += b;
            }
            merged.changes = merged.tables.iter().map(Pending::len).sum();
            self.layers.push(Arc::new(merged));
        }
    }
}

/// The layers a copy holding `applied` lacks: those above them (the layers a copy holds are
/// the oldest, and are not merged while it is made).
fn lacking<'a>(layers: &'a [Arc<Layer>], applied: &[Arc<Layer>]) -> &'a [Arc<Layer>] {
    debug_assert!(layers.iter().zip(applied).all(|(l, a)| Arc::ptr_eq(l, a)));
    layers.get(applied.len()..).unwrap_or_default()
}

/// Applies one set of changes (a commit's or a layer's, one per table) to the tables; sets
/// go in oldest first.
fn apply_all(tables: &mut Tables, changes: Vec<Pending>) {
    for (map, pending) in tables.iter_mut().zip(changes) {
        apply(map, pending);
    }
}

/// Visits, in key order, the entries of `base` in `range` overlaid by `layers` (oldest first):
/// of the sources holding a key, the newest decides, a put showing its entry and a delete
/// hiding it.
fn scan_layered<'a, F>(
    base: &'a Map,
    layers: impl Iterator<Item = &'a Pending>,
    range: &KeyRange,
    mut visit: F,
) where
    F: FnMut(&[u8], &[u8]) -> ControlFlow<()>,
{
    /// One ordered stream of a table's puts or deletes; newer sources have higher ranks.
    struct Source<'a> {
        entries: Peekable<InOrder<'a>>,
        rank: usize,
        puts: bool,
    }
    let bounds = range_bounds(range);
    let mut sources = vec![Source {
        entries: InOrder::Set(base.range::<[u8], _>(bounds)).peekable(),
        rank: 0,
        puts: true,
    }];
    for (i, pending) in layers.enumerate() {
        if !pending.puts.is_empty() {
            sources.push(Source {
                entries: pending.puts.range(bounds).peekable(),
                rank: i + 1,
                puts: true,
            });
        }
        if !pending.deletes.is_empty() {
            sources.push(Source {
                entries: InOrder::Set(pending.deletes.range::<[u8], _>(bounds)).peekable(),
                rank: i + 1,
                puts: false,
            });
        }
    }
    loop {
        // The smallest key next in any source, and the newest source holding it.
        let mut next: Option<(&'a Entry, &Source<'a>)> = None;
        for source in &mut sources {
            let Some(e) = source.entries.peek().copied() else {
                continue;
            };
            let newer = match next {
                None => true,
                Some((best, holder)) => match e.cmp(best) {
                    Ordering::Less => true,
                    Ordering::Equal => source.rank > holder.rank,
                    Ordering::Greater => false,
                },
            };
            if newer {
                next = Some((e, source));
            }
        }
        let Some((entry, holder)) = next else {
            return;
        };
        let shown = holder.puts;
        for source in &mut sources {
            if source.entries.peek().is_some_and(|e| *e == entry) {
                source.entries.next();
            }
        }
        if shown && visit(entry.key(), entry.value()).is_break() {
            return;
        }
    }
}

fn range_bounds(range: &KeyRange) -> (Bound<&[u8]>, Bound<&[u8]>) {
    let end = match &range.end {
        Some(end) => Bound::Excluded(end.as_slice()),
        None => Bound::Unbounded,
    };
    (Bound::Included(range.start.as_slice()), end)
}
