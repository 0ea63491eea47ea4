//! Fault injection: `EIO` from the Nth fsync or write, `ENOSPC` from the Nth write.
//!
//! A [`FaultSpec`] is `N` (only the Nth call fails) or `N+` (the Nth and every later one), counted
//! from 1 over the whole mount (fsync, fdatasync and fsyncdir count as fsyncs; writes through
//! `O_SYNC` handles count as writes). A failed fsync syncs nothing; the op log records it, and
//! replay drops what it should have made durable for good (Linux marks the pages clean after a
//! writeback error: a later fsync reports success without writing them, "fsyncgate").

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};

/// Which calls of one kind fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FaultSpec {
    /// The first failing call, counted from 1.
    pub nth: u64,
    /// Whether every later call fails too.
    pub sticky: bool,
}

impl FaultSpec {
    /// Whether call number `n` (from 1) fails.
    pub fn hits(self, n: u64) -> bool {
        n == self.nth || (self.sticky && n > self.nth)
    }
}

impl fmt::Display for FaultSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.nth, if self.sticky { "+" } else { "" })
    }
}

/// A fault spec that is not `N` or `N+` with N at least 1.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "bad fault `{0}`: give N (only the Nth call fails) or N+ (the Nth and every later one), N >= 1"
)]
pub struct BadFault(pub String);

impl FromStr for FaultSpec {
    type Err = BadFault;

    fn from_str(s: &str) -> Result<FaultSpec, BadFault> {
        let (num, sticky) = match s.strip_suffix('+') {
            Some(n) => (n, true),
            None => (s, false),
        };
        match num.parse::<u64>() {
            Ok(nth) if nth >= 1 => Ok(FaultSpec { nth, sticky }),
            _ => Err(BadFault(s.to_string())),
        }
    }
}

/// The faults of one mount, and the counters that decide when they fire.
#[derive(Debug, Default)]
pub struct FaultPlan {
    /// `EIO` from fsync-family calls.
    pub eio_fsync: Option<FaultSpec>,
    /// `EIO` from writes.
    pub eio_write: Option<FaultSpec>,
    /// `ENOSPC` from writes.
    pub enospc_write: Option<FaultSpec>,
    fsyncs: AtomicU64,
    writes: AtomicU64,
}

impl FaultPlan {
    /// A plan with these faults (all `None`: nothing is injected).
    pub fn new(
        eio_fsync: Option<FaultSpec>,
        eio_write: Option<FaultSpec>,
        enospc_write: Option<FaultSpec>,
    ) -> FaultPlan {
        FaultPlan {
            eio_fsync,
            eio_write,
            enospc_write,
            ..FaultPlan::default()
        }
    }

    /// Whether any fault is planned.
    pub fn is_active(&self) -> bool {
        self.eio_fsync.is_some() || self.eio_write.is_some() || self.enospc_write.is_some()
    }

    /// Counts one fsync-family call; the errno it must fail with, if any.
    pub fn on_fsync(&self) -> Option<i32> {
        let n = self.fsyncs.fetch_add(1, Ordering::SeqCst) + 1;
        self.eio_fsync.filter(|s| s.hits(n)).map(|_| libc::EIO)
    }

    /// Counts one write; the errno it must fail with, if any (`EIO` before `ENOSPC`).
    pub fn on_write(&self) -> Option<i32> {
        let n = self.writes.fetch_add(1, Ordering::SeqCst) + 1;
        if self.eio_write.is_some_and(|s| s.hits(n)) {
            Some(libc::EIO)
        } else if self.enospc_write.is_some_and(|s| s.hits(n)) {
            Some(libc::ENOSPC)
        } else {
            None
        }
    }

    /// The plan as mount flags (`--fail-fsync 3 --enospc-write 10+`), empty when inactive:
    /// what a result states about its mount.
    pub fn flags(&self) -> String {
        let mut out = Vec::new();
        for (flag, spec) in [
            ("--fail-fsync", self.eio_fsync),
            ("--fail-write", self.eio_write),
            ("--enospc-write", self.enospc_write),
        ] {
            if let Some(s) = spec {
                out.push(format!("{flag} {s}"));
            }
        }
        out.join(" ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nth_call_fails_and_sticky_faults_keep_failing() {
        let plan = FaultPlan::new(
            Some("2".parse().unwrap()),
            None,
            Some("3+".parse().unwrap()),
        );
        let fsyncs: Vec<_> = (0..4).map(|_| plan.on_fsync()).collect();
        assert_eq!(fsyncs, [None, Some(libc::EIO), None, None]);
        let writes: Vec<_> = (0..4).map(|_| plan.on_write()).collect();
        assert_eq!(writes, [None, None, Some(libc::ENOSPC), Some(libc::ENOSPC)]);
        assert_eq!(plan.flags(), "--fail-fsync 2 --enospc-write 3+");
        assert!("0".parse::<FaultSpec>().is_err());
        assert!("x+".parse::<FaultSpec>().is_err());
        assert!(!FaultPlan::default().is_active());
    }
}
