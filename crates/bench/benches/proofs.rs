//! Proofs of the trie: their size, and the time to make and to check one, per address.
//!
//! Groups:
//! - `proof/prove/<profile>`, functions `inclusion`, `exclusion` (and `get`, the plain read of
//!   the same addresses, for comparison), parameter = leaves in the state: 100 proofs per
//!   iteration ([`MerkleTrie::prove`]) on a store holding that many leaves;
//! - `proof/verify/<profile>`, functions `inclusion`, `exclusion`: checking those 100 proofs
//!   against the root ([`verify`]), which needs no store (the profile only names where the
//!   proofs came from; the figure is the same for every profile).
//!
//! - `proof/jmt-prove/<profile>` and `proof/jmt-verify/<profile>`, functions `inclusion`,
//!   `exclusion`: the same for a Jellyfish Merkle tree holding the same leaves
//!   ([`JmtEngine`] over the same profile), through the [`Engine`] trait (its proofs in their
//!   borsh wire form: serialising and decoding are timed with them).
//!
//! Proof sizes do not vary between runs, so they are printed rather than timed: one line per
//! profile and state size on stderr, `triebench: proof sizes <profile> <leaves> leaves: ...`,
//! with the mean, smallest and largest wire size ([`Proof::encoded_len`]) and nodes per proof.
//!
//! States hold `leaves` leaves at production-length (70-character) addresses, hex of the first
//! 35 bytes of SHA-512 of the leaf's number, loaded in commits of 1,000; absent addresses are
//! the next numbers'. Sizes: 10^3 and 10^4 leaves (`TRIEBENCH_SCALE=quick`: 10^3; `full` adds
//! 10^5). `TRIEBENCH_PROFILES` and `TRIEBENCH_FILTER` narrow the run as in the other benches.

mod support;

use std::hint::black_box;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sha2::{Digest, Sha512};
use support::{announce_filesystem, configure, fresh_stores, profiles, selected, Scale};
use triebench_engines::{Engine, JmtEngine, KvTreeStore, Root, JMT_TABLES};
use triebench_kv::{Profile, Store, StoreVisitor};
use triebench_merkle::{verify, MerkleTrie, Proof, StateChange, TABLES};

/// Proofs made and checked per iteration.
const PER_ITERATION: usize = 100;

/// The production-length address of leaf `i`.
fn address(i: usize) -> String {
    let digest = Sha512::digest(format!("{i:016x}").as_bytes());
    digest[..35].iter().map(|b| format!("{b:02x}")).collect()
}

/// Loads leaves `0..leaves` in commits of 1,000 and returns the root.
fn load<S: Store>(store: &S, leaves: usize) -> String {
    let mut trie = MerkleTrie::new(store).expect("trie");
    for batch in load_batches(leaves) {
        let root = trie.commit(&batch).expect("load commit");
        trie.set_root(&root).expect("advance root");
    }
    trie.root().to_string()
}

/// A proof in an engine's wire form, with the address and the value it proves.
type WireProof = (String, Option<Vec<u8>>, Vec<u8>);

/// The batches that load leaves `0..leaves`, 1,000 per commit.
fn load_batches(leaves: usize) -> Vec<Vec<StateChange>> {
    (0..leaves)
        .step_by(1000)
        .map(|first| {
            (first..leaves.min(first + 1000))
                .map(|i| StateChange::Set {
                    address: address(i),
                    value: format!("{i:016x}").into_bytes(),
                })
                .collect()
        })
        .collect()
}

/// Wire size and node count of a set of proofs, as one line.
fn sizes(proofs: &[(String, Option<Vec<u8>>, Proof)]) -> String {
    let lens: Vec<usize> = proofs.iter().map(|(_, _, p)| p.encoded_len()).collect();
    let nodes: Vec<usize> = proofs.iter().map(|(_, _, p)| p.nodes().len()).collect();
    let n = lens.len().max(1);
    format!(
        "mean {} B (min {}, max {}), {:.1} nodes (min {}, max {})",
        lens.iter().sum::<usize>() / n,
        lens.iter().min().unwrap_or(&0),
        lens.iter().max().unwrap_or(&0),
        nodes.iter().sum::<usize>() as f64 / n as f64,
        nodes.iter().min().unwrap_or(&0),
        nodes.iter().max().unwrap_or(&0),
    )
}

/// Loads a state, prints its proof sizes, and times proving and verifying on it.
struct Proofs<'a> {
    c: &'a mut Criterion,
    profile: Profile,
    leaves: usize,
    scale: Scale,
}

impl StoreVisitor for Proofs<'_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let Proofs {
            c,
            profile,
            leaves,
            scale,
        } = self;
        let root = load(&store, leaves);
        let trie = MerkleTrie::at_root(&store, &root).expect("root");
        let present: Vec<String> = (0..PER_ITERATION)
            .map(|i| address(i * 7919 % leaves))
            .collect();
        let absent: Vec<String> = (0..PER_ITERATION).map(|i| address(leaves + i)).collect();
        let prove_all = |addresses: &[String], present: bool| {
            addresses
                .iter()
                .map(|a| {
                    let value = present.then(|| trie.get(a).expect("get").expect("a leaf"));
                    (a.clone(), value, trie.prove(a).expect("prove"))
                })
                .collect::<Vec<_>>()
        };
        let inclusion = prove_all(&present, true);
        let exclusion = prove_all(&absent, false);
        for (address, value, proof) in inclusion.iter().chain(&exclusion) {
            verify(&root, address, value.as_deref(), proof).expect("a proof that verifies");
        }
        eprintln!(
            "triebench: proof sizes {profile} {leaves} leaves: inclusion {}; exclusion {}",
            sizes(&inclusion),
            sizes(&exclusion)
        );

        let mut group = c.benchmark_group(format!("proof/prove/{profile}"));
        configure(&mut group, scale, Some(profile));
        group.throughput(Throughput::Elements(PER_ITERATION as u64));
        for (name, addresses) in [("inclusion", &present), ("exclusion", &absent)] {
            group.bench_function(BenchmarkId::new(name, leaves), |b| {
                b.iter(|| {
                    for a in addresses {
                        black_box(trie.prove(a).expect("prove"));
                    }
                })
            });
        }
        group.bench_function(BenchmarkId::new("get", leaves), |b| {
            b.iter(|| {
                for a in &present {
                    black_box(trie.get(a).expect("get"));
                }
            })
        });
        group.finish();

        let mut group = c.benchmark_group(format!("proof/verify/{profile}"));
        configure(&mut group, scale, None);
        group.throughput(Throughput::Elements(PER_ITERATION as u64));
        for (name, proofs) in [("inclusion", &inclusion), ("exclusion", &exclusion)] {
            group.bench_function(BenchmarkId::new(name, leaves), |b| {
                b.iter(|| {
                    for (address, value, proof) in proofs {
                        black_box(verify(&root, address, value.as_deref(), proof)).expect("verify");
                    }
                })
            });
        }
        group.finish();
    }
}

/// The same state in a Jellyfish Merkle tree: proof sizes, prove and verify times.
struct JmtProofs<'a> {
    c: &'a mut Criterion,
    profile: Profile,
    leaves: usize,
    scale: Scale,
}

impl StoreVisitor for JmtProofs<'_> {
    type Output = ();
    fn visit<S: Store + 'static>(self, store: S) {
        let JmtProofs {
            c,
            profile,
            leaves,
            scale,
        } = self;
        let mut jmt = JmtEngine::new(KvTreeStore::new(store).expect("jmt tables"));
        let mut root = jmt.root();
        for batch in load_batches(leaves) {
            root = jmt.apply(&batch).expect("jmt load commit");
        }
        let prove_all = |addresses: Vec<String>| -> Vec<WireProof> {
            addresses
                .into_iter()
                .map(|a| {
                    let value = jmt.get(&root, &a).expect("jmt get");
                    let proof = jmt.prove(&root, &a).expect("jmt prove").expect("a proof");
                    jmt.verify(&root, &a, value.as_deref(), &proof)
                        .expect("a jmt proof that verifies");
                    (a, value, proof)
                })
                .collect()
        };
        let present: Vec<String> = (0..PER_ITERATION)
            .map(|i| address(i * 7919 % leaves))
            .collect();
        let absent: Vec<String> = (0..PER_ITERATION).map(|i| address(leaves + i)).collect();
        let inclusion = prove_all(present.clone());
        let exclusion = prove_all(absent.clone());
        let line = |proofs: &[WireProof]| {
            let lens: Vec<usize> = proofs.iter().map(|(_, _, p)| p.len()).collect();
            format!(
                "mean {} B (min {}, max {})",
                lens.iter().sum::<usize>() / lens.len().max(1),
                lens.iter().min().unwrap_or(&0),
                lens.iter().max().unwrap_or(&0)
            )
        };
        eprintln!(
            "triebench: jmt proof sizes {profile} {leaves} leaves: inclusion {}; exclusion {}",
            line(&inclusion),
            line(&exclusion)
        );
        run_jmt_groups(
            c,
            &jmt,
            &root,
            profile,
            leaves,
            scale,
            [&present, &absent],
            [&inclusion, &exclusion],
        );
    }
}

/// The JMT prove and verify groups.
#[allow(clippy::too_many_arguments)]
fn run_jmt_groups<E: Engine>(
    c: &mut Criterion,
    jmt: &E,
    root: &Root,
    profile: Profile,
    leaves: usize,
    scale: Scale,
    addresses: [&[String]; 2],
    proofs: [&[WireProof]; 2],
) {
    let mut group = c.benchmark_group(format!("proof/jmt-prove/{profile}"));
    configure(&mut group, scale, Some(profile));
    group.throughput(Throughput::Elements(PER_ITERATION as u64));
    for (name, addresses) in ["inclusion", "exclusion"].into_iter().zip(addresses) {
        group.bench_function(BenchmarkId::new(name, leaves), |b| {
            b.iter(|| {
                for a in addresses {
                    black_box(jmt.prove(root, a).expect("jmt prove"));
                }
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group(format!("proof/jmt-verify/{profile}"));
    configure(&mut group, scale, None);
    group.throughput(Throughput::Elements(PER_ITERATION as u64));
    for (name, proofs) in ["inclusion", "exclusion"].into_iter().zip(proofs) {
        group.bench_function(BenchmarkId::new(name, leaves), |b| {
            b.iter(|| {
                for (address, value, proof) in proofs {
                    jmt.verify(root, address, value.as_deref(), proof)
                        .expect("jmt verify");
                }
            })
        });
    }
    group.finish();
}

fn bench_proofs(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let sizes: &[usize] = match scale {
        Scale::Quick => &[1_000],
        Scale::Standard => &[1_000, 10_000],
        Scale::Full => &[1_000, 10_000, 100_000],
    };
    for profile in profiles() {
        for &leaves in sizes {
            let wanted = |groups: [&str; 2]| {
                groups.iter().any(|group| {
                    ["inclusion", "exclusion", "get"]
                        .iter()
                        .any(|f| selected(&format!("proof/{group}/{profile}/{f}/{leaves}")))
                })
            };
            if wanted(["prove", "verify"]) {
                let visitor = Proofs {
                    c: &mut *c,
                    profile,
                    leaves,
                    scale,
                };
                if let Err(e) = fresh_stores::run(profile, TABLES, visitor) {
                    eprintln!("proof/{profile}/{leaves}: {e}");
                }
            }
            if wanted(["jmt-prove", "jmt-verify"]) {
                let visitor = JmtProofs {
                    c: &mut *c,
                    profile,
                    leaves,
                    scale,
                };
                if let Err(e) = fresh_stores::run(profile, JMT_TABLES, visitor) {
                    eprintln!("proof/jmt/{profile}/{leaves}: {e}");
                }
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = support::flamegraph::criterion();
    targets = bench_proofs
}
/// `criterion_main!` after `support::begin`, plus the guard that stops the fresh stores' shared
/// servers at the end.
fn main() {
    let _bench = support::begin();
    let _stores = fresh_stores::Guard;
    benches();
    Criterion::default().configure_from_args().final_summary();
}
