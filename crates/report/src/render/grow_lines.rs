//! A growth curve as `grow` prints it while it runs: a header, then one line per checkpoint,
//! and under it where the store's bytes go.

use triebench_record::grow::Checkpoint;

/// Bytes as MiB.
fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1 << 20)
}

/// One checkpoint's line under [`HEADER`].
pub fn row(c: &Checkpoint) -> String {
    let cold = c.read_cold.map_or_else(
        || "-".to_string(),
        |l| format!("{:.0}/{:.0}", l.p50_us, l.p99_us),
    );
    let mem = c.memory.as_ref().map_or_else(String::new, |m| {
        format!(
            "  cgroup {:.0}/{:.0} MiB (peak {:.0}, cache {:.0}) {}",
            mib(m.usage_bytes),
            mib(m.limit_bytes),
            mib(m.max_usage_bytes),
            mib(m.cache_bytes),
            if m.held { "held" } else { "EXCEEDED" }
        )
    });
    format!(
        "{:>9} {:>10.0} {:>7} {:>8.0}/{:<8.0} {:>8.0}/{:<8.0} {:>11.0} {:>6.0}/{:<6.0} {:>13} {:>8.0} {:>7.1} {:>8.0} {:>8.0}{mem}",
        c.leaves,
        c.fill_leaves_per_sec,
        c.fill_over_storage()
            .map_or_else(|| "-".to_string(), |r| format!("{r:.2}x")),
        c.commit_1.latency.p50_us,
        c.commit_1.latency.p99_us,
        c.commit_100.latency.p50_us,
        c.commit_100.latency.p99_us,
        c.commit_1.write_bytes_per_commit,
        c.read_warm.p50_us,
        c.read_warm.p99_us,
        cold,
        c.disk_bytes_per_leaf,
        c.nodes_per_leaf,
        c.what_if.compressed_bytes as f64 / c.leaves.max(1) as f64,
        mib(c.rss_bytes),
    )
}

/// The header line of `grow`'s table.
pub const HEADER: &str =
    "   leaves   fill l/s fill/st  commit1 p50/p99  commit100 p50/p99  wr B/commit1  \
read warm µs  read cold µs   disk B/leaf nodes/leaf  cmpB/leaf  RSS MiB";

/// The fill's storage floor over the stretch to a checkpoint, in one line under its [`row`]:
/// the floor's seconds in the trie's order and shuffled (where that ran), and the fill's time
/// over each; `None` where no floor ran.
pub fn floor_line(c: &Checkpoint) -> Option<String> {
    let floor = c.fill_floor.as_ref()?;
    let (sorted, over_shuffled) = c.fill_over_floor()?;
    let shuffled = match (floor.shuffled_secs, over_shuffled) {
        (Some(secs), Some(over)) => format!("{secs:.2} s shuffled ({over:.2}x)"),
        _ => "shuffled not run".to_string(),
    };
    Some(format!(
        "{:>9} fill floor: {} entries, {:.1} MB straight on the store: {:.2} s in the trie's \
         order; the fill ({:.2} s) is {sorted:.2}x it; {shuffled}",
        "",
        floor.entries,
        floor.bytes as f64 / 1e6,
        floor.sorted_secs,
        c.fill_secs,
    ))
}

/// The compaction after the stretch's fill (`grow --compact-after-fill`), in one line under its
/// [`row`]: the data file before and after, and the time it took; `None` where none ran.
pub fn compaction_line(c: &Checkpoint) -> Option<String> {
    let done = c.compaction.as_ref()?;
    Some(format!(
        "{:>9} compacted after the fill: data file {:.1} MB -> {:.1} MB ({:.0} -> {:.0} B/leaf) in \
         {:.1} s, before the commits and reads above",
        "",
        done.bytes_before as f64 / 1e6,
        done.bytes_after as f64 / 1e6,
        done.bytes_before as f64 / c.leaves.max(1) as f64,
        done.bytes_after as f64 / c.leaves.max(1) as f64,
        done.secs,
    ))
}

/// Where the store's bytes go at a checkpoint, per leaf, in one line under its [`row`]: the data
/// (keys and values as stored: a node's key is its raw 32-byte hash, store layout 2), then each table's pages with their index, out-of-line and
/// unused parts, the free pages and the rest; `None` where the store reported none.
pub fn space_line(c: &Checkpoint) -> Option<String> {
    let space = c.space.as_ref()?;
    let per_leaf = |bytes: u64| bytes as f64 / c.leaves.max(1) as f64;
    let data = space.data_bytes();
    let accounted = space.accounted_bytes();
    let tables: Vec<String> = space
        .tables
        .iter()
        .map(|t| {
            format!(
                "{} {:.0} (keys {:.0}, values {:.0}, index {:.0}, out of line {:.0}, unused {:.0})",
                t.table,
                per_leaf(t.stored_bytes),
                per_leaf(t.key_bytes),
                per_leaf(t.value_bytes),
                per_leaf(t.index_bytes),
                per_leaf(t.overflow_bytes),
                per_leaf(t.unused_bytes),
            )
        })
        .collect();
    Some(format!(
        "{:>9} bytes per leaf: data {:.0} (node values, raw 32-byte node keys, change log), \
         store {:.0} ({:.2}x the data): {}; free pages {:.0}; other {:.0}",
        "",
        per_leaf(data),
        per_leaf(accounted),
        accounted as f64 / data.max(1) as f64,
        tables.join("; "),
        per_leaf(space.free_bytes),
        per_leaf(space.other_bytes),
    ))
}
