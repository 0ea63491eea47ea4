//! Persisting a batch: new nodes (duplicates reference-counted), change-log entries.

use triebench_kv::{ReadTx, WriteTx};

use crate::changelog;
use crate::fast_map::{FastMap, FastSet};
use crate::hash::{hex_string, hex_to_raw, HexHash, RawHash};
use crate::scratch::StoreScratch;
use crate::tables::{corrupt, decode_entry, read_entry, Tables};
use crate::update::Outcome;
use crate::{
    node_table, prefix_sort, refcount, store_layout, MerkleError, EMPTY_NODE, EMPTY_ROOT_HEX,
};

/// The change-log entry a commit wrote for its root: what a view's next commit from that root
/// expects to find there, instead of reading it (see [`persist`]).
#[derive(Debug, Clone)]
pub(crate) struct WrittenEntry {
    /// The root the entry is for.
    pub root: RawHash,
    /// The entry's bytes as written.
    pub bytes: Vec<u8>,
}

/// Writes the outcome of a batch applied on `parent` into the open transaction `w`, and
/// returns the change-log entry it wrote for the new root, if it (re)wrote one and [`kept`] it.
///
/// * A batch that empties the trie rewrites the empty root node (overwrite) and nothing else:
///   the empty root is never reference-counted, logged or pruned.
/// * A batch whose root already has a change-log entry (the parent itself, when the batch
///   changes nothing, or another live root reached again, e.g. by setting then deleting) writes
///   no node and no successor: that root's nodes are already held by its own history, and
///   rewriting its entry would lose its successors. It counts the commit in the entry's
///   [`reached_again`](changelog::ChangeLogEntry::reached_again) instead, so that the next
///   prune of that root (a head again) releases nothing.
/// * A batch that leaves a root without an entry (the empty root, a root pruned or never
///   committed here) unchanged writes nothing.
/// * Otherwise each new node is stored if absent, or reference-counted if already stored
///   (checked with a read first: no insert is expected to fail), the new root gets an entry
///   and the parent's entry (if it has one) gets a successor listing what the batch replaced.
///
/// Where the store prefers preconditions to reads ([`WriteTx::prefers_preconditions`]:
/// PostgreSQL, and Redis without its node cache on a far server), a commit on the root whose
/// entry this view last wrote (`expected`) reads nothing in the common case: it states what the
/// read would find as preconditions of the transaction (the new root has no entry, its deepest
/// new nodes are not stored, the parent's entry holds the bytes written), writes as if they
/// held, and the store checks them atomically with the commit (PostgreSQL: in the commit's one
/// statement). If one fails, nothing is applied and the caller persists the batch again without
/// `expected`. A commit whose batch adds a node twice (reference counts to read) takes the
/// reads.
pub(crate) fn persist<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    parent: &HexHash,
    outcome: &mut Outcome,
    expected: Option<&WrittenEntry>,
) -> Result<Option<WrittenEntry>, MerkleError> {
    if outcome.root == EMPTY_ROOT_HEX {
        if *parent != EMPTY_ROOT_HEX {
            tables.main.put(w, &EMPTY_ROOT_HEX, &EMPTY_NODE)?;
        }
        return Ok(None);
    }
    let root_raw = hex_to_raw(&outcome.root);
    let parent_raw = hex_to_raw(parent);
    let expected = expected.filter(|e| {
        w.prefers_preconditions()
            && e.root == parent_raw
            && outcome.root != *parent
            && duplicates(outcome).is_empty()
    });
    if let Some(expected) = expected {
        w.require_absent(tables.change_log, &root_raw)?;
        let first = first_checks(outcome);
        for hash in &first {
            w.require_absent(tables.main.table(), &node_table::key(hash))?;
        }
        w.require_value(tables.change_log, &parent_raw, &expected.bytes)?;
        let answers = first.into_iter().map(|hash| (hash, false)).collect();
        store_nodes(w, tables, outcome, answers, Counts::default())?;
        let parent_bytes = Some(expected.bytes.as_slice());
        let entry = write_entries(w, tables, &root_raw, &parent_raw, outcome, parent_bytes)?;
        return Ok(entry);
    }
    // Where reads are round trips, one request asks for both change-log entries a commit may
    // touch (the new root's, which decides what to write, and the parent's, which gets a
    // successor; no write of this commit changes the parent's before it is patched below) and
    // for the first existence checks of its new nodes (see `store_nodes`).
    let mut parent_entry: Option<Option<Vec<u8>>> = None;
    let mut answers = Answers::default();
    let mut counts = Counts::default();
    let root_entry = if w.reads_are_round_trips() {
        let first = first_checks(outcome);
        let first_raw: Vec<RawHash> = first.iter().map(node_table::key).collect();
        let keys: Vec<&[u8]> = first_raw.iter().map(|h| &h[..]).collect();
        let dups = duplicates(outcome);
        let dup_keys: Vec<&[u8]> = dups.iter().map(|h| &h[..]).collect();
        let mut got: [Option<Vec<u8>>; 2] = [None, None];
        let mut present = vec![false; keys.len()];
        let mut dup_counts: Vec<Result<u64, usize>> = vec![Ok(0); dups.len()];
        w.get_many_across(
            &[
                (tables.change_log, &[&root_raw[..], &parent_raw[..]]),
                (tables.main.table(), &keys),
                (tables.duplicate_log, &dup_keys),
            ],
            |a, i, v| match a {
                0 => got[i] = Some(v.to_vec()),
                1 => present[i] = true,
                _ => dup_counts[i] = refcount::decode(v),
            },
        )?;
        answers.extend(first.iter().copied().zip(present));
        for (raw, count) in dups.into_iter().zip(dup_counts) {
            let count = count.map_err(|len| MerkleError::CorruptRefCount {
                hash: hex::encode(raw),
                len,
            })?;
            counts.insert(raw, count);
        }
        let [root_bytes, parent_bytes] = got;
        parent_entry = Some(parent_bytes);
        decode_entry(&root_raw, root_bytes.as_deref())?
    } else {
        read_entry(w, tables, &root_raw)?
    };
    if let Some((mut entry, apart)) = root_entry {
        // Its additions, if stored apart, are left as they are.
        entry.reached_again = entry.reached_again.saturating_add(1);
        let bytes = changelog::encode(&entry, apart);
        w.put(tables.change_log, &root_raw, &bytes)?;
        return Ok(kept(w, &root_raw, &bytes));
    }
    if outcome.root == *parent {
        return Ok(None);
    }

    store_nodes(w, tables, outcome, answers, counts)?;
    let parent_bytes = match parent_entry {
        Some(bytes) => bytes,
        None => w.get(tables.change_log, &parent_raw)?,
    };
    let entry = write_entries(
        w,
        tables,
        &root_raw,
        &parent_raw,
        outcome,
        parent_bytes.as_deref(),
    )?;
    Ok(entry)
}

/// The entry just written for `root`, kept for the view's next commit only where reads are
/// round trips: elsewhere reading it costs less than copying it at every commit.
fn kept<W: ReadTx>(w: &W, root: &RawHash, bytes: &[u8]) -> Option<WrittenEntry> {
    w.reads_are_round_trips().then(|| WrittenEntry {
        root: *root,
        bytes: bytes.to_vec(),
    })
}

/// Writes the new root's change-log entry and, if the parent has one (`parent_entry`: its
/// stored bytes), the parent's with this root appended as a successor listing what the batch
/// replaced. Returns the new root's entry where it is [`kept`].
fn write_entries<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    root_raw: &RawHash,
    parent_raw: &RawHash,
    outcome: &mut Outcome,
    parent_entry: Option<&[u8]>,
) -> Result<Option<WrittenEntry>, MerkleError> {
    // Change-log entries are written straight into one scratch buffer, the parent's by
    // appending a successor to its stored bytes (checked, not decoded). The new root's
    // additions go apart from its entry, which its successors rewrite.
    w.put(
        tables.change_log,
        &changelog::additions_key(root_raw),
        outcome.raw_additions.as_flattened(),
    )?;
    let scratch = &mut outcome.scratch;
    scratch.clear();
    changelog::write_new(scratch, parent_raw);
    w.put(tables.change_log, root_raw, scratch)?;
    let written = kept(w, root_raw, scratch);

    let Some(bytes) = parent_entry else {
        return Ok(written);
    };
    scratch.clear();
    let deletions = outcome.deletions.iter().map(hex_to_raw);
    match changelog::write_with_successor(scratch, bytes, root_raw, deletions) {
        Ok(()) => {
            w.put(tables.change_log, parent_raw, scratch)?;
            Ok(written)
        }
        Err(source) => Err(corrupt(parent_raw, source)),
    }
}

/// Existence answers of the store read with the change log: node hash, present or not.
type Answers = Vec<(HexHash, bool)>;

/// Reference counts of duplicate nodes already read, by raw hash.
type Counts = FastMap<RawHash, u64>;

/// The raw hashes of the nodes the batch adds more than once, distinct: their reference counts
/// are read with the change log (see [`persist`]).
fn duplicates(outcome: &Outcome) -> Vec<RawHash> {
    let mut seen: FastMap<&RawHash, u32> =
        FastMap::with_capacity_and_hasher(outcome.raw_additions.len(), Default::default());
    for raw in &outcome.raw_additions {
        *seen.entry(raw).or_default() += 1;
    }
    let mut dups: Vec<RawHash> = seen
        .into_iter()
        .filter(|&(_, n)| n > 1)
        .map(|(raw, _)| *raw)
        .collect();
    dups.sort_unstable();
    dups
}

/// The hashes of the batch's deepest new nodes (no other new node below them), distinct: the
/// first round of existence checks (see [`store_nodes`]).
fn first_checks(outcome: &Outcome) -> Vec<HexHash> {
    let parents: FastSet<u32> = outcome.additions.iter().map(|a| a.parent).collect();
    let mut first: Vec<HexHash> = outcome
        .additions
        .iter()
        .filter(|a| !parents.contains(&a.node))
        .filter_map(|a| outcome.hashes.get(a.node as usize).copied())
        .collect();
    first.sort_unstable();
    first.dedup();
    first
}

/// Stores the batch's new nodes: each distinct node once, further occurrences (and nodes
/// already stored) counted in `duplicate_log`.
///
/// Existence is asked of the store (never of a cache), children before parents, and only as
/// far as needed: a stored node's children are always stored (a commit writes a node with its
/// subtree, and pruning never deletes a node a live root still reads), so when a node turns out
/// to be absent, every new node above it is absent too and needs no check. The checks go in
/// rounds, each one request for every node whose new children are all decided: the first round
/// (the deepest new nodes) usually decides everything, and `answers` may already hold it
/// (asked with the change log, see [`persist`]). A commit thus costs one existence request
/// whatever its number of changed addresses, where it cost one per deepest new node.
/// The same rule read downwards decides the rest of a batch that re-adds stored subtrees: a
/// node found stored has its new children stored, so only the tops of such subtrees are asked
/// (see the rounds below). The reference counts of duplicates are read in one request too
/// (where reads are local, by one ordered scan: [`refcount::get_sorted`]) and written in one
/// ordered batch.
///
/// The writes then go out in ascending key order (distinct nodes have distinct keys, so no
/// check depends on another node's write): ordered inserts are what a B-tree or LSM backend
/// takes fastest.
fn store_nodes<W: WriteTx>(
    w: &mut W,
    tables: &Tables,
    outcome: &mut Outcome,
    answers: Answers,
    counts: Counts,
) -> Result<(), MerkleError> {
    let additions = &outcome.additions;
    if outcome.raw_additions.len() != additions.len() {
        return Err(triebench_kv::KvError::backend(
            "merkle",
            "internal error: raw hashes out of step",
        )
        .into());
    }
    // The storage key of addition `i` (see `node_table`): hashed raw, kept beside the hex.
    // Grouping and ordering go by it too: raw bytes sort as their hex digits do, it is half
    // the bytes, and it lies in addition order (the hex hashes lie in arena order, a lookup
    // away).
    let raw_additions = &outcome.raw_additions;
    let raw = |i: u32| &raw_additions[i as usize];
    let StoreScratch {
        keyed,
        sort_tmp,
        sort_counts,
        group_of,
        group_len,
        group_first,
        addition_of,
        decided,
        forced,
        answered,
        ask,
        puts,
    } = &mut outcome.store;
    // Group occurrences of the same hash. Each addition is sorted as one integer: its raw
    // hash's first 8 bytes read big-endian, the low bits replaced by its index (the order of
    // the storage keys). Plain integers sort about twice as fast as (prefix, index) pairs, and
    // spread as hashes are, faster still by their top bits first (`prefix_sort`); the rare runs
    // of equal truncated prefixes are then put in whole-hash order, so `keyed` is in
    // whole-hash order.
    let index_bits = u32::BITS - (additions.len() as u32).leading_zeros();
    let index_mask = (1u64 << index_bits) - 1;
    let head = |k: u64| k & !index_mask;
    let index = |k: u64| (k & index_mask) as u32;
    keyed.clear();
    keyed.extend((0..additions.len() as u32).map(|i| {
        let h = raw(i);
        let prefix = u64::from_be_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]);
        head(prefix) | u64::from(i)
    }));
    prefix_sort::sort(keyed, sort_tmp, sort_counts);
    let mut run = 0;
    for k in 1..=keyed.len() {
        if k == keyed.len() || head(keyed[k]) != head(keyed[run]) {
            if k - run > 1 {
                keyed[run..k].sort_unstable_by(|&a, &b| raw(index(a)).cmp(raw(index(b))));
            }
            run = k;
        }
    }
    group_of.clear();
    group_of.resize(additions.len(), 0);
    group_len.clear();
    group_first.clear();
    for (k, &key) in keyed.iter().enumerate() {
        let i = index(key);
        // Equal prefixes first: distinct hashes almost always differ there.
        let same = k > 0 && head(keyed[k - 1]) == head(key) && raw(index(keyed[k - 1])) == raw(i);
        if !same {
            group_len.push(0);
            group_first.push(i);
        }
        let g = group_len.len() - 1;
        group_len[g] += 1;
        group_of[i as usize] = g as u32;
    }
    // Arena node -> addition, to find each addition's parent.
    let nodes = additions
        .iter()
        .map(|a| a.node as usize + 1)
        .max()
        .unwrap_or(0);
    addition_of.clear();
    addition_of.resize(nodes, u32::MAX);
    for (i, a) in additions.iter().enumerate() {
        addition_of[a.node as usize] = i as u32;
    }
    // Per group: decided absent (Some(true)) or present (Some(false)); forced absent; what
    // the store answered, the answers read with the change log first (found by binary search:
    // groups are numbered in whole-hash order).
    decided.clear();
    decided.resize(group_len.len(), None);
    forced.clear();
    forced.resize(group_len.len(), false);
    answered.clear();
    answered.resize(group_len.len(), None);
    for (asked, present) in answers {
        let asked = node_table::key(&asked);
        if let Ok(g) = group_first.binary_search_by(|&i| raw(i).cmp(&asked)) {
            answered[g] = Some(present);
        }
    }
    // Rounds of checks. Per round, an upward pass (children before parents) decides each
    // addition from its group, from being forced (a new child of it is absent) or from an
    // answer; after the first round (before it nothing is known present), a downward pass
    // (parents before children) then decides present every addition under a present one (its
    // hash is in that node's encoding, and a stored node's children are stored: the same rule
    // as the forcing, read the other way). What is left undecided is asked:
    //
    // * in the first round, the additions with no undecided new child (the deepest), gathered
    //   by the upward pass itself;
    // * after it, where reads are round trips, every undecided addition at once: a batch whose
    //   nodes match stored ones several levels up (equal leaves, equal chains above them)
    //   then needs two requests, not one per level;
    // * after it, where reads are not round trips (a call each, rounds cost nothing), only the
    //   topmost undecided additions (no parent among the additions, or an absent one): a
    //   batch re-adding stored subtrees under a new path asks for the subtrees' tops, not for
    //   every node in them (the `hotpath` example's (c'): ~1,300 asks instead of ~31,000).
    //
    // Some addition can always be asked (the deepest undecided in the first round, the topmost
    // after it), so each round decides something.
    let top_down = !w.reads_are_round_trips();
    let parent_of = |i: usize| addition_of.get(additions[i].parent as usize).copied();
    let mut waiting = vec![false; additions.len()];
    let mut first_round = answered.iter().all(Option::is_none);
    loop {
        waiting.fill(false);
        ask.clear();
        let mut undecided = false;
        for (i, &g) in group_of.iter().enumerate() {
            let g = g as usize;
            let parent = parent_of(i);
            let state = match decided[g] {
                Some(absent) => Some(absent),
                None if forced[g] => Some(true),
                None => answered[g].map(|present| !present),
            };
            match state {
                Some(absent) => {
                    decided[g] = Some(absent);
                    if absent {
                        if let Some(&pg) = parent.and_then(|p| group_of.get(p as usize)) {
                            forced[pg as usize] = true;
                        }
                    }
                }
                None => {
                    undecided = true;
                    // In the first round, its new children (before it) have said whether
                    // one of them is undecided.
                    if first_round && !waiting[i] {
                        ask.push(g as u32);
                    }
                    if let Some(p) = parent.filter(|&p| (p as usize) < waiting.len()) {
                        waiting[p as usize] = true;
                    }
                }
            }
        }
        if !undecided {
            break;
        }
        let parent_state = |i: usize, decided: &[Option<bool>]| {
            parent_of(i)
                .and_then(|p| group_of.get(p as usize))
                .map(|&pg| decided[pg as usize])
        };
        // After the first round, parents before children: a present parent decides its
        // children, theirs in turn, and what is left undecided is asked.
        for i in (0..additions.len()).rev().filter(|_| !first_round) {
            let g = group_of[i] as usize;
            if decided[g].is_some() {
                continue;
            }
            let parent = parent_state(i, decided);
            if parent == Some(Some(false)) {
                decided[g] = Some(false);
            } else if !top_down || matches!(parent, None | Some(Some(true))) {
                ask.push(g as u32);
            }
        }
        // A group asked through one addition may since have been decided through another.
        ask.retain(|&g| decided[g as usize].is_none());
        if ask.is_empty() {
            break;
        }
        // Group numbers in key order: sorted, the keys are too.
        ask.sort_unstable();
        ask.dedup();
        let keys: Vec<&[u8]> = ask
            .iter()
            .map(|&g| &raw(group_first[g as usize])[..])
            .collect();
        let asked = &*ask;
        w.get_many_with(tables.main.table(), &keys, |k, _| {
            if let Some(&g) = asked.get(k) {
                answered[g as usize] = Some(true);
            }
        })?;
        for &g in asked {
            answered[g as usize].get_or_insert(false);
        }
        first_round = false;
    }
    // Groups are numbered in key order: the first occurrence of each, in `keyed`, is its node.
    // The additions whose node is stored, as indices.
    puts.clear();
    let mut counted: Vec<(&RawHash, u64)> = Vec::new();
    for (k, &key) in keyed.iter().enumerate() {
        let i = index(key);
        if k > 0 && group_of[i as usize] == group_of[index(keyed[k - 1]) as usize] {
            continue;
        }
        let g = group_of[i as usize] as usize;
        let addition = &additions[i as usize];
        let extra = if decided[g] == Some(true) {
            if outcome.encodings.get(addition.range.clone()).is_none() {
                return Err(triebench_kv::KvError::backend(
                    "merkle",
                    "internal error: encoding out of range",
                )
                .into());
            }
            puts.push((i, addition.range.clone()));
            group_len[g] - 1
        } else {
            group_len[g]
        };
        if extra > 0 {
            let raw = outcome.raw_additions.get(i as usize).ok_or_else(|| {
                triebench_kv::KvError::backend("merkle", "internal error: raw hash out of range")
            })?;
            counted.push((raw, extra));
        }
    }
    // Every duplicate's count (those not read with the change log, in one request), then each
    // raised by its extra references.
    let raws: Vec<&RawHash> = counted
        .iter()
        .map(|(raw, _)| *raw)
        .filter(|raw| !counts.contains_key(*raw))
        .collect();
    // In key order (`counted` is in `keyed`'s order): read by one scan where reads are local.
    let fetched = refcount::get_sorted(w, tables.duplicate_log, &raws)?;
    // `raws` is `counted` less those in `counts`, in the same order: each fetched count is
    // taken in turn rather than through a map (a commit re-adding 31,000 stored nodes spent 5%
    // of its time in those lookups).
    let mut fetched = fetched.into_iter();
    for (raw, extra) in &mut counted {
        let count = match counts.get(*raw) {
            Some(&count) => count,
            None => fetched.next().unwrap_or(0),
        };
        *extra = count.saturating_add(*extra);
    }
    // In key order (`keyed`'s): one ordered batch.
    refcount::set_many(w, tables.duplicate_log, &counted)?;
    // Ranges checked above, and taken with the indices: a batch's additions lie in arena
    // order and are stored in key order, so reading each range here would be a cache miss
    // waited for between two copies.
    let encodings = &outcome.encodings;
    w.put_many(
        tables.main.table(),
        puts.iter()
            .map(|(i, range)| (&raw(*i)[..], &encodings[range.clone()])),
    )?;
    Ok(())
}

/// Makes sure the empty root node is stored (overwrite, never counted), and that the store has
/// this build's layout: a fresh store (`main` empty) gets the layout marker in the same
/// transaction as the empty root's node; a store with another layout is refused before anything
/// is written (see [`store_layout`]). The marker and the empty root are read in one request.
/// Timed as trie work like any commit: on a fresh store it is the first write, which creates
/// the files.
pub(crate) fn ensure_empty_root<S: triebench_kv::Store>(
    store: &S,
    tables: &Tables,
) -> Result<(), MerkleError> {
    use triebench_kv::phase::{STORAGE_READ, STORAGE_WRITE, TRIE};
    use triebench_kv::{phase_span, Traced};
    phase_span!(TRIE);
    let reader = Traced({
        phase_span!(STORAGE_READ);
        store.reader()?
    });
    let main = tables.main.table();
    let (marked, has_root) =
        store_layout::marker_and_node(&reader, main, &node_table::key(&EMPTY_ROOT_HEX))?;
    if !marked {
        store_layout::require_unmarked_empty(&reader, main)?;
    } else if has_root {
        return Ok(());
    }
    drop(reader);
    let mut w = Traced({
        phase_span!(STORAGE_WRITE);
        store.writer()?
    });
    if !marked {
        store_layout::write_marker(&mut w, main)?;
    }
    tables.main.put(&mut w, &EMPTY_ROOT_HEX, &EMPTY_NODE)?;
    w.commit()?;
    debug_assert_eq!(hex_string(&EMPTY_ROOT_HEX), crate::EMPTY_ROOT);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::update::Addition;
    use triebench_kv::btree::BTreeStore;
    use triebench_kv::{ReadTx, Store};

    /// A hex hash: `first` (16 digits, the raw hash's first 8 bytes: the sort key's prefix)
    /// then `fill`.
    fn hash(first: &[u8; 16], fill: u8) -> HexHash {
        let mut h = [fill; 64];
        h[..16].copy_from_slice(first);
        h
    }

    /// Distinct hashes sharing their 8-byte prefix, or differing only in the prefix's low bits
    /// (where the sort key holds the index), interleaved with a node met twice: each distinct
    /// node is stored once with its own encoding, and the repeat is counted.
    #[test]
    fn equal_prefixes_group_by_whole_hash() {
        let store = BTreeStore::open(crate::TABLES).expect("store");
        let tables = Tables::resolve(&store).expect("tables");
        let (a, b) = (
            hash(b"aaaaaaaaaaaaaaaa", b'1'),
            hash(b"aaaaaaaaaaaaaaaa", b'0'),
        );
        let c = hash(b"aaaaaaaaaaaaaaab", b'0');
        let mut outcome = Outcome {
            root: a,
            additions: Vec::new(),
            raw_additions: Vec::new(),
            hashes: Vec::new(),
            encodings: b"AABC".to_vec(),
            deletions: Vec::new(),
            scratch: Vec::new(),
            store: StoreScratch::default(),
        };
        let met = [(c, 3..4), (a, 0..1), (b, 2..3), (a, 1..2)];
        for (node, (hash, at)) in met.into_iter().enumerate() {
            outcome.raw_additions.push(hex_to_raw(&hash));
            outcome.hashes.push(hash);
            outcome.additions.push(Addition {
                range: at,
                node: node as u32,
                parent: u32::MAX,
            });
        }
        let mut w = store.writer().expect("writer");
        store_nodes(
            &mut w,
            &tables,
            &mut outcome,
            Answers::default(),
            Counts::default(),
        )
        .expect("store nodes");
        w.commit().expect("commit");
        let r = store.reader().expect("reader");
        let main = tables.main;
        assert_eq!(
            main.get_with(&r, &a, <[u8]>::to_vec).expect("get"),
            Some(b"A".to_vec())
        );
        assert_eq!(
            main.get_with(&r, &b, <[u8]>::to_vec).expect("get"),
            Some(b"B".to_vec())
        );
        assert_eq!(
            main.get_with(&r, &c, <[u8]>::to_vec).expect("get"),
            Some(b"C".to_vec())
        );
        assert_eq!(r.count(main.table()).expect("count"), 3);
        assert_eq!(
            refcount::get(&r, tables.duplicate_log, &hex_to_raw(&a)).expect("a"),
            1
        );
        assert_eq!(
            refcount::get(&r, tables.duplicate_log, &hex_to_raw(&b)).expect("b"),
            0
        );
    }
}
