//! UTC dates and timestamps without a date library: when a record or a report was made, and the
//! date in a result folder's name.

use std::time::{SystemTime, UNIX_EPOCH};

/// (year, month, day) of the proleptic Gregorian calendar for `days` since 1970-01-01
/// (Howard Hinnant's `civil_from_days`).
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

fn now_secs() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// `YYYY-MM-DD` for `secs` since the epoch (UTC).
pub fn date_of(secs: i64) -> String {
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// `YYYY-MM-DDTHH:MM:SSZ` for `secs` since the epoch.
pub fn timestamp_of(secs: i64) -> String {
    let rem = secs.rem_euclid(86_400);
    format!(
        "{}T{:02}:{:02}:{:02}Z",
        date_of(secs),
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Today's date (UTC).
pub fn today() -> String {
    date_of(now_secs())
}

/// The current time (UTC, RFC 3339).
pub fn now() -> String {
    timestamp_of(now_secs())
}
