//! Every compatibility vector of the design brief, on every backend profile this build
//! includes, each in a fresh store (`FreshStores`: a new directory per vector; the PostgreSQL
//! profiles share one managed server, or one replicated pair, per profile, a schema per vector,
//! as the benches do; `redis-replica-wait` one pair, a key namespace per vector).
//! Profiles run side by side: most of the time is spent waiting on fsyncs and servers.

mod common;

use common::{set, update_entry};
use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_merkle::{MerkleTrie, StateChange, EMPTY_ROOT, TABLES};

/// A vector: batches committed one after another from the empty root, and the expected roots
/// after each batch.
struct Vector {
    name: &'static str,
    batches: Vec<(Vec<StateChange>, &'static str)>,
}

fn vectors() -> Vec<Vector> {
    let thousand: Vec<StateChange> = (0..1000)
        .map(|i| {
            let (a, v) = update_entry(i);
            set(&a, &v)
        })
        .collect();
    let mut mixed: Vec<StateChange> = (0..50).map(|i| set(&update_entry(i).0, b"5.0")).collect();
    mixed.extend((500..550).map(|i| StateChange::Delete {
        address: update_entry(i).0,
    }));
    let one = |name, changes, root| Vector {
        name,
        batches: vec![(changes, root)],
    };
    vec![
        one("empty", vec![], EMPTY_ROOT),
        one(
            "abcd",
            vec![set("abcd", b"data_value")],
            "4c5116ae4e7439e4355ac190cc595225259142c42fd9d19a88dc14c48653d870",
        ),
        one(
            "1234",
            vec![set("1234", b"deletable")],
            "db73865199b319863790ff8505098b3302d4a10595a809c465364e55ff9e2fac",
        ),
        one(
            "three siblings",
            vec![
                set("ab0000", b"0001"),
                set("ab0a01", b"0002"),
                set("abff00", b"0003"),
            ],
            "19fcc3dfc5173fb3b12b55086f02c11f42a645a58da9a3f28d47b174946c0e3d",
        ),
        one(
            "65536-byte value",
            vec![set("ab", &[b'x'; 65_536])],
            "3fdce3c5df3b291a188e41eba24a65f2b88b49f1ea5ed23c3c25613517697754",
        ),
        one(
            "65535-byte value",
            vec![set("ab", &[b'x'; 65_535])],
            "9b93726ccb5449e836181810fc79191117a97eebf34d144f1d38bef80d83505e",
        ),
        Vector {
            name: "1000 keys, then 50 sets + 50 deletes",
            batches: vec![
                (
                    thousand,
                    "8a5b72e8c541e97267d481e59f389774ff656624bb8cb0b0c7ce1fb59ab35a5f",
                ),
                (
                    mixed,
                    "26c1c3b4cd2c6fcd1726f15829e674c78b042822983bd62250b12d2f42c5a8bc",
                ),
            ],
        },
        one(
            "interior value",
            vec![set("ab", &[0x01]), set("abcd", &[0x02])],
            "d162fcd181fc3857500ce987636fc7dd88e6ceaea734ab7a7a7c71dce316b179",
        ),
    ]
}

/// Commits a vector's batches and returns a description of every wrong root (empty = pass).
struct Check<'v>(&'v Vector);

impl StoreVisitor for Check<'_> {
    type Output = Vec<String>;

    fn visit<S: Store + 'static>(self, store: S) -> Vec<String> {
        let mut wrong = Vec::new();
        let mut trie = match MerkleTrie::new(&store) {
            Ok(t) => t,
            Err(e) => return vec![format!("open trie: {e}")],
        };
        for (i, (changes, expected)) in self.0.batches.iter().enumerate() {
            let computed = trie.compute(changes);
            match trie.commit(changes) {
                Ok(root) => {
                    if root != *expected {
                        wrong.push(format!("batch {i}: root {root}, expected {expected}"));
                    }
                    if computed.as_deref().ok() != Some(root.as_str()) {
                        wrong.push(format!("batch {i}: compute gave {computed:?}"));
                    }
                    if let Err(e) = trie.set_root(&root) {
                        wrong.push(format!("batch {i}: reopen at root: {e}"));
                    }
                }
                Err(e) => wrong.push(format!("batch {i}: commit failed: {e}")),
            }
        }
        wrong
    }
}

/// Every vector on fresh stores of `profile`; one line per failure.
fn failures_on(profile: Profile, vectors: &[Vector]) -> Vec<String> {
    let parent = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => return vec![format!("{profile}: temp dir: {e}")],
    };
    let stores = match FreshStores::new(profile, parent.path()) {
        Ok(stores) => stores,
        Err(e) => return vec![format!("{profile}: {e}")],
    };
    let mut failures = Vec::new();
    for vector in vectors {
        match stores.run(TABLES, Check(vector)) {
            Ok(wrong) => failures.extend(
                wrong
                    .into_iter()
                    .map(|w| format!("{profile} / {}: {w}", vector.name)),
            ),
            Err(e) => failures.push(format!("{profile} / {}: open: {e}", vector.name)),
        }
    }
    failures
}

#[test]
fn every_vector_on_every_profile() {
    let vectors = vectors();
    let failures: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = Profile::enabled()
            .into_iter()
            .map(|profile| {
                let vectors = &vectors;
                (profile, scope.spawn(move || failures_on(profile, vectors)))
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|(profile, handle)| {
                handle
                    .join()
                    .unwrap_or_else(|_| vec![format!("{profile}: the check panicked")])
            })
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
