//! The field workloads' shapes, as their authors specify them: counts of inserts, updates and
//! deletes per commit, key and value sizes, and that every update and delete names a held
//! address and every insert a new one (checked against a model of the state).

use std::collections::{BTreeMap, HashMap};

use triebench_workloads::field::firewood::{Firewood, BATCH};
use triebench_workloads::field::{FieldCommit, FieldWorkload, OpKind, Phase, FIELD_WORKLOADS};

/// Applies every commit to a model, checking inserts are new and updates/deletes held;
/// returns the timed commits.
fn run_model(workload: FieldWorkload, scale: u64) -> (Vec<FieldCommit>, usize) {
    let mut held: HashMap<String, Vec<u8>> = HashMap::new();
    let mut timed = Vec::new();
    let mut setup = 0;
    for (phase, commit) in workload.commits(scale, 42) {
        for (address, value) in &commit.inserts {
            assert_eq!(address.len(), 70, "{workload}: 35-byte addresses");
            assert!(
                held.insert(address.clone(), value.clone()).is_none(),
                "{workload}: insert of a held address"
            );
        }
        for (address, value) in &commit.updates {
            let old = held.insert(address.clone(), value.clone());
            assert!(old.is_some(), "{workload}: update of an absent address");
        }
        for address in &commit.deletes {
            assert!(
                held.remove(address).is_some(),
                "{workload}: delete of an absent address"
            );
        }
        for address in &commit.reads {
            assert!(
                held.contains_key(address),
                "{workload}: read of an absent address"
            );
        }
        match phase {
            Phase::Setup => {
                assert!(timed.is_empty(), "{workload}: setup after timed commits");
                setup += 1;
            }
            Phase::Timed => timed.push(commit),
        }
    }
    (timed, setup)
}

fn counts(c: &FieldCommit) -> (usize, usize, usize) {
    (c.inserts.len(), c.updates.len(), c.deletes.len())
}

#[test]
fn firewood_create_commits_rows_in_batches_of_10000() {
    let (timed, setup) = run_model(FieldWorkload::Firewood(Firewood::Create), 3);
    assert_eq!(setup, 0);
    assert_eq!(timed.len(), 3);
    for c in &timed {
        assert_eq!(counts(c), (10_000, 0, 0));
        assert!(c.inserts.iter().all(|(_, v)| v.len() == 32));
    }
}

#[test]
fn firewood_tenkrandom_deletes_2500_inserts_2500_updates_5000() {
    let (timed, setup) = run_model(FieldWorkload::Firewood(Firewood::Tenkrandom), 2);
    assert_eq!(setup, 2, "2 × 10,000 rows created first");
    assert_eq!(timed.len(), 2);
    for c in &timed {
        assert_eq!(counts(c), (2_500, 5_000, 2_500));
    }
}

#[test]
fn firewood_zipf_updates_hot_rows_with_s_1_2() {
    let (timed, setup) = run_model(FieldWorkload::Firewood(Firewood::Zipf), 2);
    assert_eq!(setup, 2);
    assert_eq!(timed.len(), 2);
    let mut hits: BTreeMap<String, usize> = BTreeMap::new();
    for c in &timed {
        let (inserts, updates, deletes) = counts(c);
        assert_eq!((inserts, deletes), (0, 0));
        // 10,000 draws, a row drawn twice updated once: with s = 1.2 over 20,000 rows about
        // a third of the draws are distinct rows.
        assert!(
            updates < 6_000 && updates > 1_000,
            "{updates} distinct rows"
        );
        for (a, _) in &c.updates {
            *hits.entry(a.clone()).or_default() += 1;
        }
    }
    // The hottest row (rank 1) is drawn in every commit.
    assert!(hits.values().any(|&n| n == timed.len()));
}

#[test]
fn firewood_single_updates_one_key_per_commit() {
    let (timed, setup) = run_model(FieldWorkload::Firewood(Firewood::Single), 1);
    assert_eq!(setup, 1);
    assert_eq!(timed.len(), 1_000);
    assert!(timed.iter().all(|c| counts(c) == (0, 1, 0)));
}

#[test]
fn iavl_bank_inserts_then_updates_56_byte_keys_16_byte_values() {
    let (timed, setup) = run_model(FieldWorkload::Iavl, 3);
    assert_eq!(setup, 0);
    assert_eq!(timed.len(), 6, "3 versions of inserts, 3 of updates");
    for c in &timed[..3] {
        assert_eq!(counts(c), (10_000, 0, 0));
    }
    for c in &timed[3..] {
        assert_eq!(counts(c), (0, 10_000, 0));
    }
    assert!(timed
        .iter()
        .flat_map(|c| c.inserts.iter().chain(&c.updates))
        .all(|(_, v)| v.len() == 16));
    assert_eq!(triebench_workloads::field::iavl::KEY_BYTES, 56);
}

#[test]
fn merk_fills_then_inserts_updates_reads_in_batches_of_2000() {
    use triebench_workloads::field::merk::{BATCH, KEY_BYTES, VALUE_BYTES};
    let mut setup_keys = 0;
    for (phase, c) in FieldWorkload::Merk.commits(2, 42) {
        if phase == Phase::Setup {
            assert_eq!(counts(&c), (BATCH, 0, 0));
            setup_keys += c.inserts.len();
        }
    }
    assert_eq!(setup_keys, 20_000, "scale 2: a 20,000-node tree first");
    let (timed, setup) = run_model(FieldWorkload::Merk, 2);
    assert_eq!(setup, 10, "5 batches of 2,000 per unit of scale");
    let kinds: Vec<_> = timed.iter().map(FieldCommit::kind).collect();
    assert_eq!(
        kinds,
        [
            Some(OpKind::Inserts),
            Some(OpKind::Inserts),
            Some(OpKind::Updates),
            Some(OpKind::Updates),
            Some(OpKind::Reads),
            Some(OpKind::Reads),
        ]
    );
    for c in &timed {
        let n = c.inserts.len() + c.updates.len() + c.reads.len();
        assert_eq!(n, BATCH);
        // Updates name distinct keys (run_model checks each is held, inserts that each is new).
        let distinct: std::collections::HashSet<_> = c.updates.iter().map(|(a, _)| a).collect();
        assert_eq!(distinct.len(), c.updates.len());
    }
    assert!(timed
        .iter()
        .flat_map(|c| c.inserts.iter().chain(&c.updates))
        .all(|(_, v)| v.len() == VALUE_BYTES));
    // The address is the namespace, the 16-byte key, 16 zero bytes: 16 key bytes per address.
    assert_eq!(KEY_BYTES, 16);
    for (a, _) in timed.iter().flat_map(|c| c.inserts.iter()) {
        assert!(a.starts_with(triebench_workloads::field::address::MERK_NAMESPACE));
        assert!(a.ends_with(&"00".repeat(16)));
        assert!(a[6..6 + 2 * KEY_BYTES] != "00".repeat(KEY_BYTES));
    }
}

#[test]
fn names_round_trip_and_an_unknown_one_lists_them() {
    for w in FIELD_WORKLOADS {
        assert_eq!(w.name().parse::<FieldWorkload>(), Ok(w));
    }
    let err = "nope".parse::<FieldWorkload>().unwrap_err().to_string();
    assert!(
        err.contains("firewood-tenkrandom") && err.contains("iavl-bank") && err.contains("merk"),
        "{err}"
    );
}

#[test]
fn seeded_the_same_twice() {
    let a: Vec<_> = FieldWorkload::Firewood(Firewood::Tenkrandom)
        .commits(1, 7)
        .collect();
    let b: Vec<_> = FieldWorkload::Firewood(Firewood::Tenkrandom)
        .commits(1, 7)
        .collect();
    assert_eq!(a, b);
    assert_eq!(BATCH, 10_000);
}
