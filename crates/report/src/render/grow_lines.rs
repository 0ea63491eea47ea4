//! A growth curve as `grow` prints it while it runs: a header, then one line per checkpoint.

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
