//! Taking an I/O profile (`triebench io-profile`): each scenario runs once on a fresh store in a
//! fresh directory on a slowfs mount (profile `none`), like one criterion iteration; the
//! counters are read after the store is opened and before it is closed, so they cover exactly
//! what the benches time. Counts are filesystem-wide, so they include the background work of a
//! backend's own process (redis-server's AOF writes).

use std::path::Path;

use triebench_kv::{FreshStores, Profile, Store, StoreVisitor};
use triebench_workloads::{Scenario, SCENARIOS};

use triebench_record::io_profile::SCHEMA;
pub use triebench_record::io_profile::{IoCounts, IoProfileFile, IoRow};
use triebench_record::vocabulary::SUITE;
use triebench_record::{OpClass, PerClass};
use triebench_slowfs::StatsSnapshot;

use triebench_record::time as naming;

use crate::error::MeasureError;
use crate::slowfs_stats::read_snapshot;

/// Runs one scenario on an opened store between two counter snapshots.
struct Counted<'a> {
    scenario: Scenario,
    profile: Profile,
    mount: &'a Path,
}

impl StoreVisitor for Counted<'_> {
    type Output = Result<(u64, IoCounts), MeasureError>;

    fn visit<S: Store + 'static>(self, store: S) -> Self::Output {
        let before = read_snapshot(self.mount)?;
        let outcome = self.scenario.run(&store);
        let after = read_snapshot(self.mount)?;
        drop(store);
        let outcome =
            outcome.map_err(|e| MeasureError::scenario(self.scenario, self.profile, e))?;
        Ok((outcome.commits as u64, counts_between(&before, &after)))
    }
}

/// Counts every scenario once per profile on the slowfs mounted at `mount`, each on a fresh
/// store in a fresh directory there; `progress` hears each row as it is taken.
/// What happened on one mount between two snapshots of its counters.
pub fn counts_between(before: &StatsSnapshot, after: &StatsSnapshot) -> IoCounts {
    let d = |c: OpClass| {
        after
            .classes
            .get(c)
            .ops
            .saturating_sub(before.classes.get(c).ops)
    };
    IoCounts {
        ops: PerClass::from_fn(d),
        bytes_read: after
            .classes
            .read
            .bytes
            .saturating_sub(before.classes.read.bytes),
        bytes_written: after
            .classes
            .write
            .bytes
            .saturating_sub(before.classes.write.bytes),
        fsyncs: after.fsyncs.saturating_sub(before.fsyncs),
        write_extents: after.write_extents.saturating_sub(before.write_extents),
    }
}

pub fn collect(
    mount: &Path,
    profiles: &[Profile],
    mut progress: impl FnMut(&IoRow),
) -> Result<IoProfileFile, MeasureError> {
    let first = read_snapshot(mount)?;
    let mut rows = Vec::new();
    for &profile in profiles {
        let stores = FreshStores::new(profile, mount)?;
        let mut suite = IoRow {
            profile: profile.name().to_string(),
            scenario: SUITE.to_string(),
            commits: 0,
            counts: IoCounts::default(),
        };
        for scenario in SCENARIOS {
            let counted = Counted {
                scenario,
                profile,
                mount,
            };
            let (commits, counts) = stores.try_run(triebench_merkle::TABLES, counted)??;
            let row = IoRow {
                profile: profile.name().to_string(),
                scenario: scenario.name().to_string(),
                commits,
                counts,
            };
            progress(&row);
            suite.commits += commits;
            suite.counts = suite.counts.plus(&counts);
            rows.push(row);
        }
        progress(&suite);
        rows.push(suite);
    }
    Ok(IoProfileFile {
        schema: SCHEMA,
        generated_at: naming::now(),
        mount: mount.display().to_string(),
        slowfs_profile: first.profile,
        rows,
    })
}
