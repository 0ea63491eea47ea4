//! Raw backend cost without the trie, and the physical floors of the filesystem under test.
//!
//! Groups (names are read by `triebench report`):
//! - `kv/commit/<profile>`, parameter = keys per transaction: insert N fresh 64-byte keys with
//!   ~500-byte values and commit.
//! - `kv/get/<profile>`, parameter = keys read: point reads from a snapshot of 10k keys.
//! - `floor`: `fsync_4k` (one 4 KiB write + fdatasync in TMPDIR), `sha512_8k` (hashing throughput).
//!
//! `floor` always runs; the `kv/...` groups run with `TRIEBENCH_GROUPS=all` (default at full
//! scale) or when `TRIEBENCH_FILTER` names them.

mod support;

use std::fs::File;
use std::os::unix::fs::FileExt;

use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use sha2::{Digest, Sha512};
use std::hint::black_box;
use support::{announce_filesystem, configure, extra_selected, fresh_dir, profiles, Scale};
use triebench_kv::{BackendSpec, ReadTx, Store, StoreVisitor, WriteTx};

const VALUE_LEN: usize = 500;

fn key(i: u64) -> [u8; 64] {
    let digest = Sha512::digest(i.to_be_bytes());
    let mut k = [0u8; 64];
    k.copy_from_slice(&digest);
    k
}

/// Times commits of `n` fresh keys on one store.
struct CommitBench<'a, 'c> {
    group: &'a mut criterion::BenchmarkGroup<'c, criterion::measurement::WallTime>,
    sizes: &'a [usize],
}

impl StoreVisitor for CommitBench<'_, '_> {
    type Output = ();

    fn visit<S: Store + 'static>(self, store: S) {
        let table = match store.table("main") {
            Ok(t) => t,
            Err(e) => return eprintln!("kv/commit: {e}"),
        };
        let value = [0x5au8; VALUE_LEN];
        let mut next: u64 = 0;
        for &n in self.sizes {
            self.group.throughput(Throughput::Elements(n as u64));
            self.group
                .bench_function(BenchmarkId::from_parameter(n), |b| {
                    b.iter(|| {
                        let mut w = store.writer().expect("writer");
                        for _ in 0..n {
                            w.insert(table, &key(next), &value).expect("insert");
                            next += 1;
                        }
                        w.commit().expect("commit");
                    })
                });
        }
    }
}

/// Times point reads against a store holding `keys` entries.
struct GetBench<'a, 'c> {
    group: &'a mut criterion::BenchmarkGroup<'c, criterion::measurement::WallTime>,
    keys: u64,
}

impl StoreVisitor for GetBench<'_, '_> {
    type Output = ();

    fn visit<S: Store + 'static>(self, store: S) {
        let table = match store.table("main") {
            Ok(t) => t,
            Err(e) => return eprintln!("kv/get: {e}"),
        };
        let value = [0x5au8; VALUE_LEN];
        let mut w = store.writer().expect("writer");
        for i in 0..self.keys {
            w.put(table, &key(i), &value).expect("put");
        }
        w.commit().expect("commit");
        let reads = 1000u64.min(self.keys);
        self.group.throughput(Throughput::Elements(reads));
        self.group
            .bench_function(BenchmarkId::from_parameter(reads), |b| {
                b.iter(|| {
                    let r = store.reader().expect("reader");
                    for i in 0..reads {
                        let k = key(i * 7919 % self.keys);
                        black_box(r.get_with(table, &k, |v| v.len()).expect("get"));
                    }
                })
            });
    }
}

fn bench_backends(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let sizes: &[usize] = match scale {
        Scale::Quick => &[1, 100],
        _ => &[1, 10, 100, 1000],
    };
    let get_keys = scale.size(10_000) as u64;
    for profile in profiles() {
        // Skip the set-up (stores, preloads) of groups the filter leaves out.
        let commit_wanted = sizes
            .iter()
            .any(|n| extra_selected(&format!("kv/commit/{profile}/{n}")));
        let get_wanted = extra_selected(&format!("kv/get/{profile}/{}", 1000u64.min(get_keys)));
        if !commit_wanted && !get_wanted {
            continue;
        }
        let dir = fresh_dir();
        let spec = match BackendSpec::new(profile, Some(dir.path().to_path_buf())) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("kv: {profile}: {e}");
                continue;
            }
        };
        if commit_wanted {
            let mut group = c.benchmark_group(format!("kv/commit/{profile}"));
            configure(&mut group, scale, Some(profile));
            let run = CommitBench {
                group: &mut group,
                sizes,
            };
            if let Err(e) = spec.open(&["main"], run) {
                eprintln!("kv/commit/{profile}: {e}");
            }
            group.finish();
        }
        if !get_wanted {
            continue;
        }

        let dir = fresh_dir();
        let spec = BackendSpec {
            dir: Some(dir.path().to_path_buf()),
            ..spec
        };
        let mut group = c.benchmark_group(format!("kv/get/{profile}"));
        configure(&mut group, scale, None);
        let run = GetBench {
            group: &mut group,
            keys: get_keys,
        };
        if let Err(e) = spec.open(&["main"], run) {
            eprintln!("kv/get/{profile}: {e}");
        }
        group.finish();
    }
}

fn bench_floors(c: &mut Criterion) {
    announce_filesystem();
    let scale = Scale::from_env();
    let mut group = c.benchmark_group("floor");
    configure(&mut group, scale, None);
    // Cheap, set-up free iterations: a second of measurement gives thousands of them per sample.
    group
        .warm_up_time(std::time::Duration::from_millis(200))
        .measurement_time(std::time::Duration::from_secs(1));

    let dir = fresh_dir();
    let path = dir.path().join("fsync-probe");
    let file = File::create(&path).expect("create fsync probe file in TMPDIR");
    let block = [0xa5u8; 4096];
    group.bench_function("fsync_4k", |b| {
        b.iter(|| {
            file.write_all_at(&block, 0).expect("write");
            file.sync_data().expect("fdatasync");
        })
    });

    let input = vec![0x3cu8; 8192];
    group.throughput(Throughput::Bytes(input.len() as u64));
    group.bench_function("sha512_8k", |b| {
        b.iter(|| Sha512::digest(black_box(&input)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = support::flamegraph::criterion();
    targets = bench_floors, bench_backends
}
/// `criterion_main!` after `support::begin` (criterion's plot font, idle CPUs held as
/// `TRIEBENCH_CPU_IDLE` asks).
fn main() {
    let _bench = support::begin();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
