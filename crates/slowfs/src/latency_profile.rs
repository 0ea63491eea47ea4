//! Latency profiles: named sets of per-class delays, each with where its numbers come from.

use std::time::Duration;

use crate::class::{OpClass, PerClass};
use crate::error::SlowfsError;

/// A named set of per-operation delays in microseconds.
///
/// The delays are floors per request, added once per FUSE request of the class; the mount is
/// write-through (no FUSE write-back cache), so each `write(2)` pays the write delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyProfile {
    /// No delay at all: slowfs only counts.
    None,
    /// Amazon EFS, General Purpose mode, from AWS's published latency floor: "as low as 250
    /// microseconds (µs)" for reads and "as low as 2.7 milliseconds (ms)" for writes (Amazon EFS
    /// User Guide, "Amazon EFS performance", performance summary table,
    /// <https://docs.aws.amazon.com/efs/latest/ug/performance.html>). Metadata is a round trip
    /// like a read (250 µs); sync costs a write (2.7 ms). These are the best case per operation,
    /// write-through: a real NFS client may batch writes in its cache, EFS under load is slower.
    /// Note: machine-translated copies of a later revision of the same page give Regional file
    /// systems "~1 ms" reads and "~2.7 ms" writes; the read floor here is the lower, older one
    /// (use `--read-us 1000 --metadata-us 1000` for the later figure).
    Efs,
    /// An NFS server on a local network. Illustrative, not measured or cited: a LAN round trip
    /// of about 0.1 ms for metadata and reads, 0.2 ms for a write (round trip plus transfer of a
    /// few pages), 1 ms for a commit to the server's stable storage.
    NfsLan,
}

impl LatencyProfile {
    /// Every profile, in `--list-profiles` order.
    pub const ALL: [LatencyProfile; 3] = [
        LatencyProfile::None,
        LatencyProfile::Efs,
        LatencyProfile::NfsLan,
    ];

    /// The name used on the command line and in the stats JSON.
    pub fn name(self) -> &'static str {
        match self {
            LatencyProfile::None => "none",
            LatencyProfile::Efs => "efs",
            LatencyProfile::NfsLan => "nfs-lan",
        }
    }

    /// The profile of that name.
    ///
    /// # Errors
    /// [`SlowfsError::UnknownProfile`] listing the known names.
    pub fn from_name(name: &str) -> Result<LatencyProfile, SlowfsError> {
        LatencyProfile::ALL
            .into_iter()
            .find(|p| p.name() == name)
            .ok_or_else(|| SlowfsError::UnknownProfile {
                name: name.to_string(),
                known: LatencyProfile::ALL.map(LatencyProfile::name).join(", "),
            })
    }

    /// Delays in microseconds per class.
    pub fn delays_us(self) -> PerClass<f64> {
        match self {
            LatencyProfile::None => PerClass::default(),
            LatencyProfile::Efs => PerClass {
                metadata: 250.0,
                read: 250.0,
                write: 2700.0,
                sync: 2700.0,
            },
            LatencyProfile::NfsLan => PerClass {
                metadata: 100.0,
                read: 100.0,
                write: 200.0,
                sync: 1000.0,
            },
        }
    }

    /// One line on where the numbers come from, for `--list-profiles`.
    pub fn source(self) -> &'static str {
        match self {
            LatencyProfile::None => "no delay; counting only",
            LatencyProfile::Efs => {
                "AWS, Amazon EFS User Guide, performance summary: latency \"as low as 250 \
                 microseconds\" for reads, \"as low as 2.7 milliseconds\" for writes \
                 (docs.aws.amazon.com/efs/latest/ug/performance.html); metadata as a read, \
                 sync as a write; floors, per operation, write-through"
            }
            LatencyProfile::NfsLan => {
                "illustrative, not cited: typical LAN round trip ~0.1 ms (metadata, read), \
                 0.2 ms per write, 1 ms per commit (sync)"
            }
        }
    }
}

/// The delays in force: a profile plus any per-class overrides from the command line.
#[derive(Debug, Clone, PartialEq)]
pub struct Latency {
    /// The profile's name, with `+custom` appended when an override changed a value.
    pub label: String,
    /// Delay per class, microseconds.
    pub delays_us: PerClass<f64>,
}

impl Latency {
    /// The profile's delays with each `Some` override replacing its class's value.
    ///
    /// # Errors
    /// [`SlowfsError::BadDelay`] for a negative, infinite or NaN override.
    pub fn new(
        profile: LatencyProfile,
        overrides: PerClass<Option<f64>>,
    ) -> Result<Latency, SlowfsError> {
        let mut delays_us = profile.delays_us();
        let mut custom = false;
        for class in OpClass::ALL {
            if let Some(us) = *overrides.get(class) {
                if !us.is_finite() || us < 0.0 {
                    return Err(SlowfsError::BadDelay {
                        class: class.name(),
                        value: us,
                    });
                }
                if *delays_us.get(class) != us {
                    custom = true;
                }
                *delays_us.get_mut(class) = us;
            }
        }
        let label = if custom {
            format!("{}+custom", profile.name())
        } else {
            profile.name().to_string()
        };
        Ok(Latency { label, delays_us })
    }

    /// The delay of one class as a [`Duration`].
    pub fn delay(&self, class: OpClass) -> Duration {
        Duration::from_secs_f64(*self.delays_us.get(class) / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in LatencyProfile::ALL {
            assert_eq!(LatencyProfile::from_name(p.name()).unwrap(), p);
        }
        let err = LatencyProfile::from_name("s3").unwrap_err().to_string();
        assert!(err.contains("s3") && err.contains("nfs-lan"), "{err}");
    }

    #[test]
    fn efs_matches_the_published_floor() {
        let d = LatencyProfile::Efs.delays_us();
        assert_eq!(
            (d.metadata, d.read, d.write, d.sync),
            (250.0, 250.0, 2700.0, 2700.0)
        );
        assert_eq!(LatencyProfile::None.delays_us(), PerClass::default());
    }

    #[test]
    fn overrides_replace_single_classes() {
        let l = Latency::new(
            LatencyProfile::Efs,
            PerClass {
                sync: Some(20_000.0),
                ..PerClass::default()
            },
        )
        .unwrap();
        assert_eq!(l.label, "efs+custom");
        assert_eq!(l.delays_us.sync, 20_000.0);
        assert_eq!(l.delays_us.write, 2700.0);
        assert_eq!(l.delay(OpClass::Sync), Duration::from_millis(20));
        // An override equal to the profile's value is not custom.
        let same = Latency::new(
            LatencyProfile::Efs,
            PerClass {
                read: Some(250.0),
                ..PerClass::default()
            },
        )
        .unwrap();
        assert_eq!(same.label, "efs");
    }

    #[test]
    fn bad_overrides_are_refused() {
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            let err = Latency::new(
                LatencyProfile::None,
                PerClass {
                    write: Some(bad),
                    ..PerClass::default()
                },
            )
            .unwrap_err();
            assert!(err.to_string().contains("write"), "{err}");
        }
    }
}
