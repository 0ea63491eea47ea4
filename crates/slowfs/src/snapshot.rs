//! The stats JSON (schema 1): what `.slowfs-stats` and `--stats-out` contain.
//!
//! ```json
//! {"schema":1,"profile":"efs","delays_us":{"metadata":250.0,"read":250.0,"write":2700.0,"sync":2700.0},
//!  "classes":{"metadata":{"ops":0,"bytes":0},"read":{"ops":0,"bytes":0},"write":{"ops":0,"bytes":0},"sync":{"ops":0,"bytes":0}},
//!  "ops":{"access":0,"create":0,"...":0},
//!  "fsyncs":0,"uptime_s":1.5}
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::class::PerClass;

/// The schema version written in every snapshot.
pub const SCHEMA: u32 = 1;

/// Name of the virtual stats file at the mount root.
pub const STATS_FILE: &str = ".slowfs-stats";

/// Requests and bytes of one class.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ClassCounts {
    /// Requests answered.
    pub ops: u64,
    /// Bytes moved (read and write; 0 for the other classes).
    pub bytes: u64,
}

/// The counters of a mount at one moment, as serialized to JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StatsSnapshot {
    /// Always [`SCHEMA`].
    pub schema: u32,
    /// The profile name, `+custom` appended when a `--*-us` flag changed a delay.
    pub profile: String,
    /// Delay per class in microseconds.
    pub delays_us: PerClass<f64>,
    /// Requests and bytes per class.
    pub classes: PerClass<ClassCounts>,
    /// Requests per FUSE operation (lowercase names; every known operation, zeros included).
    pub ops: BTreeMap<String, u64>,
    /// `fsync` plus `fsyncdir` requests (`flush` excluded).
    pub fsyncs: u64,
    /// Writes that do not continue the previous write to the same file: the separate runs of
    /// data an fsync has to flush (a block device pays per run, not per write). 0 in files from
    /// before this counter.
    #[serde(default)]
    pub write_extents: u64,
    /// Seconds since the filesystem was mounted.
    pub uptime_s: f64,
}

impl StatsSnapshot {
    /// The JSON text: one line, ending in a newline.
    pub fn to_json(&self) -> String {
        // Serializing plain structs, maps of strings and finite floats cannot fail; fall back
        // to an empty object rather than panic if it ever did.
        let mut s = serde_json::to_string(self).unwrap_or_else(|_| "{}".to_string());
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_has_the_documented_shape() {
        let snap = StatsSnapshot {
            schema: SCHEMA,
            profile: "efs".into(),
            delays_us: PerClass {
                metadata: 250.0,
                read: 250.0,
                write: 2700.0,
                sync: 2700.0,
            },
            classes: PerClass::default(),
            ops: [("lookup".to_string(), 3)].into_iter().collect(),
            fsyncs: 0,
            write_extents: 2,
            uptime_s: 1.5,
        };
        let json = snap.to_json();
        assert_eq!(
            json,
            "{\"schema\":1,\"profile\":\"efs\",\"delays_us\":{\"metadata\":250.0,\"read\":250.0,\
             \"write\":2700.0,\"sync\":2700.0},\"classes\":{\"metadata\":{\"ops\":0,\"bytes\":0},\
             \"read\":{\"ops\":0,\"bytes\":0},\"write\":{\"ops\":0,\"bytes\":0},\"sync\":{\"ops\":0,\
             \"bytes\":0}},\"ops\":{\"lookup\":3},\"fsyncs\":0,\"write_extents\":2,\"uptime_s\":1.5}\n"
        );
        let back: StatsSnapshot = serde_json::from_str(&json).unwrap();
        assert_eq!(back, snap);
    }
}
